#include "ui/graphview/GraphScene.h"

#include "core/graph/ScopeTree.h"
#include "ui/graphview/EdgeItem.h"
#include "ui/graphview/FrameItem.h"
#include "ui/graphview/NodeColourer.h"
#include "ui/graphview/NodeItem.h"
#include "ui/layout/ScopeRelayout.h"
#include "ui/theme/CategoryPalette.h"

#include <QScopedValueRollback>

#include <algorithm>
#include <unordered_map>

namespace post {
namespace {

constexpr double kSceneMargin = 40.0;

} // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent)
{
    // Items never move after layout: a BSP index makes hit tests on big graphs cheap.
    setItemIndexMethod(BspTreeIndex);
    setBackgroundBrush(theme_.background);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

GraphScene::~GraphScene()
{
    // ~QGraphicsScene deletes the items and announces the lost selection; by then this
    // part of the object is gone, so stop listening first.
    disconnect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
    selectingFromCode_ = true;
    clear();
}

void GraphScene::clearContent()
{
    {
        QScopedValueRollback guard(selectingFromCode_, true);
        clear();
    }
    nodes_.clear();
    edges_.clear();
    frames_.clear();
    applied_ = LayoutResult{};
    edgesOfNode_.clear();
    highlighted_.clear();
    selectedOp_ = kNoOp;
    selectedNode_ = -1;
    setSceneRect(QRectF());
}

void GraphScene::setContent(DocumentPtr document, ViewGraph view)
{
    clearContent();
    document_ = std::move(document);
    view_ = std::move(view);
    recolour();
}

void GraphScene::setDocument(DocumentPtr document)
{
    document_ = std::move(document);
    recolour();
}

LayoutInput GraphScene::layoutInputFor(const ViewGraph& view, LayoutEngine engine)
{
    LayoutInput input;
    input.engine = engine;
    input.nodeSizes.reserve(view.nodes.size());
    for (const ViewNode& node : view.nodes)
        input.nodeSizes.push_back(NodeItem::sizeFor(node.title, node.subtitle));
    input.edges.reserve(view.edges.size());
    for (const ViewEdge& e : view.edges) {
        if (e.twoWay)
            input.twoWayEdges.push_back(static_cast<int>(input.edges.size()));
        input.edges.emplace_back(e.from, e.to);
    }
    if (!view.frames.empty()) {
        input.nodeFrame.reserve(view.nodes.size());
        for (const ViewNode& node : view.nodes)
            input.nodeFrame.push_back(node.frame);
        for (const ViewFrame& frame : view.frames)
            input.frameParent.push_back(frame.parent);
    }
    return input;
}

void GraphScene::applyLayout(const LayoutResult& result)
{
    if (result.nodeRects.size() != view_.nodes.size() || result.edges.size() != view_.edges.size())
        return; // not a layout of this content
    {
        QScopedValueRollback guard(selectingFromCode_, true);
        clear();
    }
    nodes_.clear();
    edges_.clear();
    frames_.clear();
    highlighted_.clear();
    applied_ = result;
    if (!view_.frames.empty())
        ScopeRelayout::fillFrames(view_, applied_);
    for (size_t f = 0; f < view_.frames.size(); ++f) {
        const ViewFrame& frame = view_.frames[f];
        int depth = 0;
        for (int p = frame.parent; p >= 0; p = view_.frames[static_cast<size_t>(p)].parent)
            ++depth;
        auto* item = new FrameItem(static_cast<int>(f), applied_.frameRects[f], frame.title, frame.subtitle, depth);
        addItem(item);
        frames_.push_back(item);
    }
    edgesOfNode_.assign(view_.nodes.size(), {});
    nodes_.reserve(view_.nodes.size());
    for (size_t i = 0; i < view_.nodes.size(); ++i) {
        const ViewNode& node = view_.nodes[i];
        auto* item = new NodeItem(static_cast<int>(i), result.nodeRects[i], node.title, node.subtitle, node.isGroup());
        addItem(item);
        nodes_.push_back(item);
    }
    edges_.reserve(view_.edges.size());
    for (size_t i = 0; i < view_.edges.size(); ++i) {
        const ViewEdge& e = view_.edges[i];
        auto* item = new EdgeItem(e.from, e.to, result.edges[i]);
        addItem(item);
        edges_.push_back(item);
        edgesOfNode_[static_cast<size_t>(e.from)].push_back(item);
        edgesOfNode_[static_cast<size_t>(e.to)].push_back(item);
    }
    setSceneRect(applied_.bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    recolour();
    if (selectedOp_ != kNoOp)
        selectOp(selectedOp_);
}

NodeItem* GraphScene::itemForNode(int viewNode) const
{
    if (viewNode < 0 || viewNode >= static_cast<int>(nodes_.size()))
        return nullptr;
    return nodes_[static_cast<size_t>(viewNode)];
}

FrameItem* GraphScene::itemForFrame(int frame) const
{
    if (frame < 0 || frame >= static_cast<int>(frames_.size()))
        return nullptr;
    return frames_[static_cast<size_t>(frame)];
}

NodeItem* GraphScene::itemForOp(OpId op) const
{
    if (op < 0 || op >= static_cast<OpId>(view_.nodeOfOp.size()))
        return nullptr;
    return itemForNode(view_.nodeOfOp[static_cast<size_t>(op)]);
}

void GraphScene::setColourMode(ColourMode mode)
{
    if (mode_ == mode)
        return;
    mode_ = mode;
    recolour();
}

void GraphScene::setTheme(const ViewTheme& theme)
{
    theme_ = theme;
    setBackgroundBrush(theme_.background);
    recolour();
}

void GraphScene::recolour()
{
    if (!document_) {
        legend_ = {};
        emit legendChanged();
        return;
    }
    NodeColouring colouring = colourNodes(*document_, view_, mode_, theme_);
    for (NodeItem* item : nodes_) {
        item->setPaint(colouring.paints[static_cast<size_t>(item->viewNode())]);
        item->setAccentColours(theme_.selection, theme_.searchHit);
    }
    for (EdgeItem* item : edges_)
        item->setColours(theme_.edge, theme_.edgeHighlight);
    recolourFrames();
    applyMarks();
    legend_ = std::move(colouring.legend);
    emit legendChanged();
}

void GraphScene::recolourFrames()
{
    if (frames_.empty() || !view_.scopes)
        return;
    // Each level of nesting a little darker (lighter on dark), so nested frames read apart.
    const QColor tint = theme_.dark ? QColor(255, 255, 255, 14) : QColor(40, 70, 120, 16);
    QColor border = theme_.edge;
    border.setAlpha(110);
    const int devices = document_->cluster ? document_->cluster->deviceCount() : 0;
    const bool placed = !document_->placement.empty();
    for (FrameItem* item : frames_) {
        item->setColours(tint, border, theme_.text);
        std::vector<std::pair<QColor, double>> mix;
        const ViewFrame& frame = view_.frames[static_cast<size_t>(item->frame())];
        if (placed) {
            std::vector<int> counts;
            if (frame.scope >= 0) {
                counts = view_.scopes->deviceCounts(frame.scope, document_->placement, devices);
            } else {
                counts.assign(static_cast<size_t>(devices) + 1, 0);
                for (OpId op : frame.ops) {
                    const DeviceId d = document_->deviceOf(op);
                    ++counts[d >= 0 && d < devices ? static_cast<size_t>(d) : static_cast<size_t>(devices)];
                }
            }
            double total = 0;
            for (int c : counts)
                total += c;
            for (size_t d = 0; d < counts.size(); ++d)
                if (counts[d] > 0)
                    mix.emplace_back(d < static_cast<size_t>(devices) ? CategoryPalette::colour(static_cast<int>(d))
                                                                      : theme_.unplaced,
                                     counts[d] / total);
        }
        item->setMix(std::move(mix));
    }
}

void GraphScene::selectOp(OpId op)
{
    QScopedValueRollback guard(selectingFromCode_, true);
    clearSelection();
    selectedOp_ = op;
    NodeItem* item = itemForOp(op);
    if (item)
        item->setSelected(true);
    markSelectedEdges(item ? item->viewNode() : -1);
}

void GraphScene::highlightOps(const std::vector<OpId>& ops)
{
    for (NodeItem* item : highlighted_)
        item->setHighlighted(false);
    highlighted_.clear();
    for (OpId op : ops) {
        if (NodeItem* item = itemForOp(op)) {
            item->setHighlighted(true);
            highlighted_.push_back(item);
        }
    }
}

void GraphScene::setCriticalPath(std::uint64_t graphId, std::vector<OpId> ops)
{
    criticalGraph_ = graphId;
    criticalOps_ = std::move(ops);
    applyMarks();
}

void GraphScene::setCriticalPathShown(bool on)
{
    if (criticalShown_ == on)
        return;
    criticalShown_ = on;
    applyMarks();
}

void GraphScene::setMovedOps(std::uint64_t graphId, std::vector<DeviceId> movedTo)
{
    movedGraph_ = graphId;
    movedTo_ = std::move(movedTo);
    applyMarks();
}

EdgeItem* GraphScene::itemForEdge(int viewEdge) const
{
    if (viewEdge < 0 || viewEdge >= static_cast<int>(edges_.size()))
        return nullptr;
    return edges_[static_cast<size_t>(viewEdge)];
}

void GraphScene::applyMarks()
{
    if (nodes_.empty() && frames_.empty())
        return;
    const int opCount = document_ ? document_->opCount() : 0;
    const size_t ops = static_cast<size_t>(opCount);
    // Per op: on the path (shown, of this graph), and the device it moves to.
    std::vector<char> critical;
    if (criticalShown_ && document_ && criticalGraph_ == document_->graphId && !criticalOps_.empty()) {
        critical.assign(ops, 0);
        for (OpId op : criticalOps_)
            if (op >= 0 && op < opCount)
                critical[static_cast<size_t>(op)] = 1;
    }
    const bool moved = document_ && movedGraph_ == document_->graphId && movedTo_.size() == ops;
    if (critical.empty() && !moved) { // nothing to mark (the usual case): clear cheaply
        for (NodeItem* item : nodes_)
            item->setMarks({});
        for (FrameItem* item : frames_)
            item->setMarks({});
        for (EdgeItem* item : edges_)
            item->setCritical(false);
        return;
    }
    const int devices = document_ && document_->cluster ? document_->cluster->deviceCount() : 0;
    std::vector<int> to(static_cast<size_t>(devices), 0);
    auto marksOf = [&](auto&& opsOf) {
        NodeMarks marks;
        marks.criticalColour = theme_.critical;
        if (moved)
            std::fill(to.begin(), to.end(), 0);
        opsOf([&](OpId op) {
            if (!critical.empty() && critical[static_cast<size_t>(op)])
                ++marks.critical;
            if (moved && movedTo_[static_cast<size_t>(op)] != kNoDevice) {
                ++marks.moved;
                const DeviceId d = movedTo_[static_cast<size_t>(op)];
                if (d >= 0 && d < devices)
                    ++to[static_cast<size_t>(d)];
            }
        });
        if (marks.moved > 0) {
            // The device most of them move to.
            const auto most = std::max_element(to.begin(), to.end());
            marks.movedColour = most != to.end() && *most > 0
                ? CategoryPalette::colour(static_cast<int>(most - to.begin()))
                : theme_.unplaced;
        }
        return marks;
    };
    for (NodeItem* item : nodes_) {
        const ViewNode& node = view_.nodes[static_cast<size_t>(item->viewNode())];
        item->setMarks(marksOf([&](auto&& visit) {
            for (OpId op : node.ops)
                if (op >= 0 && op < opCount)
                    visit(op);
        }));
    }
    for (FrameItem* item : frames_) {
        const ViewFrame& frame = view_.frames[static_cast<size_t>(item->frame())];
        item->setMarks(marksOf([&](auto&& visit) {
            if (frame.scope >= 0 && view_.scopes) {
                for (OpId op : view_.scopes->opsBelow(frame.scope))
                    if (op >= 0 && op < opCount)
                        visit(op);
            } else {
                for (OpId op : frame.ops)
                    if (op >= 0 && op < opCount)
                        visit(op);
            }
        }));
    }
    // Edges: the view edge joining two consecutive ops of the path that an op edge links
    // (a wait for the device has no edge to draw), when they sit in different boxes.
    std::vector<char> criticalEdge(edges_.size(), 0);
    if (!critical.empty() && !edges_.empty()) {
        std::unordered_map<std::uint64_t, int> edgeOf;
        edgeOf.reserve(view_.edges.size());
        auto pairKey = [](int a, int b) { return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b); };
        for (size_t e = 0; e < view_.edges.size(); ++e)
            edgeOf.emplace(pairKey(view_.edges[e].from, view_.edges[e].to), static_cast<int>(e));
        const Graph& graph = *document_->graph;
        for (size_t i = 0; i + 1 < criticalOps_.size(); ++i) {
            const OpId a = criticalOps_[i];
            const OpId b = criticalOps_[i + 1];
            if (a < 0 || b < 0 || a >= opCount || b >= opCount)
                continue;
            const int na = view_.nodeOfOp[static_cast<size_t>(a)];
            const int nb = view_.nodeOfOp[static_cast<size_t>(b)];
            if (na == nb || na < 0 || nb < 0)
                continue;
            const auto out = graph.outEdges(a);
            if (std::none_of(out.begin(), out.end(), [&](EdgeId e) { return graph.edge(e).to == b; }))
                continue;
            auto it = edgeOf.find(pairKey(na, nb));
            if (it == edgeOf.end()) { // a two-way edge oriented the other way
                it = edgeOf.find(pairKey(nb, na));
                if (it == edgeOf.end() || !view_.edges[static_cast<size_t>(it->second)].twoWay)
                    continue;
            }
            criticalEdge[static_cast<size_t>(it->second)] = 1;
        }
    }
    for (size_t e = 0; e < edges_.size(); ++e)
        edges_[e]->setCritical(criticalEdge[e] != 0, theme_.critical);
}

void GraphScene::markSelectedEdges(int viewNode)
{
    if (selectedNode_ >= 0 && selectedNode_ < static_cast<int>(edgesOfNode_.size()))
        for (EdgeItem* e : edgesOfNode_[static_cast<size_t>(selectedNode_)])
            e->setHighlighted(false);
    selectedNode_ = viewNode;
    if (selectedNode_ >= 0 && selectedNode_ < static_cast<int>(edgesOfNode_.size()))
        for (EdgeItem* e : edgesOfNode_[static_cast<size_t>(selectedNode_)])
            e->setHighlighted(true);
}

void GraphScene::onSelectionChanged()
{
    if (selectingFromCode_)
        return;
    // One box at a time: the newly selected one wins (Ctrl+click would otherwise add).
    const QList<QGraphicsItem*> items = selectedItems();
    NodeItem* node = nullptr;
    for (QGraphicsItem* item : items) {
        if (item->type() != NodeItem::Type)
            continue;
        auto* candidate = static_cast<NodeItem*>(item);
        if (!node || candidate->viewNode() != selectedNode_)
            node = candidate;
    }
    if (items.size() > 1) {
        QScopedValueRollback guard(selectingFromCode_, true);
        for (QGraphicsItem* item : items)
            if (item != node)
                item->setSelected(false);
    }
    if (!node) {
        markSelectedEdges(-1);
        selectedOp_ = kNoOp;
        emit opSelected(kNoOp);
        return;
    }
    const ViewNode& vn = view_.nodes[static_cast<size_t>(node->viewNode())];
    const bool keep = selectedOp_ != kNoOp && view_.nodeOfOp[static_cast<size_t>(selectedOp_)] == node->viewNode();
    selectedOp_ = keep ? selectedOp_ : vn.ops.front();
    markSelectedEdges(node->viewNode());
    emit opSelected(selectedOp_);
}

} // namespace post
