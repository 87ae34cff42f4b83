#include "ui/graphview/GraphScene.h"

#include "core/graph/ScopeTree.h"
#include "ui/graphview/CategoryPalette.h"
#include "ui/graphview/EdgeItem.h"
#include "ui/graphview/FrameItem.h"
#include "ui/graphview/NodeColourer.h"
#include "ui/graphview/NodeItem.h"
#include "ui/layout/ScopeRelayout.h"

#include <QScopedValueRollback>

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
