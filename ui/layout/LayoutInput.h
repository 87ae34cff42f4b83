#pragma once

#include "ui/layout/LayoutEngine.h"

#include <QMetaType>
#include <QSizeF>

#include <utility>
#include <vector>

namespace post {

// A plain value snapshot of what to lay out, safe to hand to the layout thread.
// Nodes are identified by index; labels are not needed because the view draws them
// itself: the sizes already hold the measured label extents.
struct LayoutInput {
    quint64 requestId = 0;
    std::vector<QSizeF> nodeSizes;          // points (1/72 inch), as drawn
    std::vector<std::pair<int, int>> edges; // (from, to) node indices
    std::vector<int> twoWayEdges;           // indices of edges with an arrowhead at each end
    LayoutEngine engine = LayoutEngine::Dot;
    // Frames (dot's clusters; sfdp ignores them): the frame of each node (-1: none, or
    // empty for no frames) and the frame around each frame (-1 at the top; parents first).
    std::vector<int> nodeFrame;
    std::vector<int> frameParent;

    int nodeCount() const { return static_cast<int>(nodeSizes.size()); }
};

} // namespace post

Q_DECLARE_METATYPE(post::LayoutInput)
