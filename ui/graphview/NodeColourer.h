#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/graphview/ColourMode.h"
#include "ui/graphview/NodePaint.h"
#include "ui/layout/ViewGraph.h"
#include "ui/theme/Legend.h"
#include "ui/theme/ViewTheme.h"

#include <vector>

namespace post {

// Paint for every node of a view graph under a colour mode, and the legend explaining it.
struct NodeColouring {
    std::vector<NodePaint> paints; // indexed like ViewGraph::nodes
    Legend legend;
};

NodeColouring colourNodes(const GraphDocument& document, const ViewGraph& view, ColourMode mode, const ViewTheme& theme);

} // namespace post
