#pragma once

#include "document/GraphDocument.h"
#include "graphview/ColourMode.h"
#include "graphview/Legend.h"
#include "graphview/NodePaint.h"
#include "graphview/ViewTheme.h"
#include "layout/ViewGraph.h"

#include <vector>

namespace post {

// Paint for every node of a view graph under a colour mode, and the legend explaining it.
struct NodeColouring {
    std::vector<NodePaint> paints; // indexed like ViewGraph::nodes
    Legend legend;
};

NodeColouring colourNodes(const GraphDocument& document, const ViewGraph& view, ColourMode mode,
                          const ViewTheme& theme);

} // namespace post
