#pragma once

#include "ui/layout/LayoutResult.h"
#include "ui/layout/ViewGraph.h"

#include <QSizeF>

#include <vector>

namespace post {

// Opening or closing one scope of a scope view without laying the whole view out again:
// the boxes and frames outside it keep their places, or move as blocks to make room (or
// give it back), and only the opened scope's content is laid out (on the layout thread).
namespace ScopeRelayout {

// Room a frame keeps around its content: a header strip with its title, and a margin.
constexpr double kFrameHeader = 26.0;
constexpr double kFrameMargin = 10.0;

// The opened scope's content, laid out alone: which nodes and edges of the new view it is
// (indices into ViewGraph::nodes / edges, in the order of the inner layout's input).
struct Inner {
    LayoutResult layout;
    std::vector<int> nodes;
    std::vector<int> edges;
};

// The nodes of `next` drawn in frame `frame` and the edges between them: what to lay out
// when the scope of that frame opens.
Inner innerOf(const ViewGraph& next, int frame);
// `next` with only `inner`'s nodes and edges (no frames): the input of the inner layout.
ViewGraph innerView(const ViewGraph& next, const Inner& inner);

// The layout of `next`, the view after the scope keyed `key` opened (a box of `prev`, a
// frame of `next`; `inner` laid out) or closed (a frame of `prev`, a box of `next` of size
// `closedBox`). Boxes in neither are placed from `prev` moved by their block's shift; edges
// whose ends moved alike keep their routes, the others are drawn anew, plain.
LayoutResult opened(const ViewGraph& prev, const LayoutResult& prevLayout, const ViewGraph& next, const QString& key,
                    const Inner& inner);
LayoutResult closed(const ViewGraph& prev, const LayoutResult& prevLayout, const ViewGraph& next, const QString& key,
                    const QSizeF& closedBox);

// Frames without a rect (an engine without clusters) get their content's bounding box
// plus the header and margin, innermost first.
void fillFrames(const ViewGraph& view, LayoutResult& layout);

// A plain route from one box to another: from the tail's border to the head's.
EdgeRoute plainRoute(const QRectF& from, const QRectF& to, bool twoWay);

} // namespace ScopeRelayout
} // namespace post
