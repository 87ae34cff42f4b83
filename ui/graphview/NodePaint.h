#pragma once

#include <QColor>

#include <utility>
#include <vector>

namespace post {

// How one node box is painted.
struct NodePaint {
    QColor fill;
    QColor border;
    QColor text;
    // For groups coloured by device: each device's share of the group's ops, drawn as a
    // stacked bar along the bottom of the box.
    std::vector<std::pair<QColor, double>> mix;
};

// Marks drawn over a box's (or an open scope's frame's) colouring: how many of its ops lie
// on the simulated critical path, and how many a placement diff moves, with the colour of
// the device most of them move to.
struct NodeMarks {
    int critical = 0;
    int moved = 0;
    QColor criticalColour;
    QColor movedColour;

    bool any() const { return critical > 0 || moved > 0; }
    bool operator==(const NodeMarks&) const = default;
};

} // namespace post
