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

} // namespace post
