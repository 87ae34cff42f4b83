#include "ui/graphview/GraphPanel.h"

#include "core/graph/ScopeTree.h"
#include "ui/graphview/FrameItem.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/GraphView.h"
#include "ui/graphview/GroupExpander.h"
#include "ui/graphview/LegendWidget.h"
#include "ui/graphview/NodeItem.h"
#include "ui/graphview/OpSearchWidget.h"
#include "ui/graphview/OverviewWidget.h"
#include "ui/graphview/RetryOverlay.h"
#include "ui/layout/LayoutController.h"
#include "ui/layout/LayoutPolicy.h"
#include "ui/layout/ViewGraphBuilder.h"
#include "ui/util/BackgroundJobs.h"

#include <QEvent>
#include <QKeyEvent>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace post {
namespace {

constexpr int kMargin = 10;
constexpr int kSearchWidth = 340;
constexpr int kOverviewMaxWidth = 220;
constexpr int kOverviewMaxHeight = 220;
// Below this zoom node labels are not drawn; a fit that small starts at the top instead.
constexpr double kReadableZoom = 0.45;

} // namespace

GraphPanel::GraphPanel(QWidget* parent)
    : QWidget(parent)
    , scene_(new GraphScene(this))
    , view_(new GraphView(this))
    , legend_(new LegendWidget(view_))
    , overview_(nullptr)
    , search_(new OpSearchWidget(view_))
    , layout_(new LayoutController(this))
    , retry_(new RetryOverlay(view_))
    , treeWatcher_(new QFutureWatcher<std::shared_ptr<const ScopeTree>>(this))
{
    connect(treeWatcher_, &QFutureWatcher<std::shared_ptr<const ScopeTree>>::finished, this, &GraphPanel::onTreeBuilt);
    view_->setScene(scene_);
    view_->setPlaceholderText(tr("Open a graph with File ▸ Open… or drop a file here"));
    overview_ = new OverviewWidget(view_, view_);
    overview_->hide();
    search_->hide();
    legend_->hide();
    retry_->hide();
    connect(retry_, &RetryOverlay::retry, this, &GraphPanel::relayout);
    new GroupExpander(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    // Overlays follow the viewport's size: the view's own Resize comes before its viewport is
    // resized, so the viewport's is the one to follow.
    view_->installEventFilter(this);
    view_->viewport()->installEventFilter(this);

    connect(scene_, &GraphScene::opSelected, this, &GraphPanel::opSelected);
    connect(scene_, &GraphScene::legendChanged, this, [this] {
        legend_->setLegend(scene_->legend());
        legend_->setVisible(!scene_->legend().title.isEmpty() && scene_->nodeItemCount() > 0);
        placeOverlays();
    });
    connect(search_, &OpSearchWidget::opPicked, this, [this](OpId op) {
        selectOp(op, true);
        emit opSelected(op);
    });
    connect(search_, &OpSearchWidget::matchesChanged, scene_, &GraphScene::highlightOps);
    connect(search_, &OpSearchWidget::closed, this, [this] {
        scene_->highlightOps({});
        placeOverlays();
        view_->setFocus();
    });
    connect(search_, &OpSearchWidget::matchesChanged, this, &GraphPanel::placeOverlays);
    connect(layout_, &LayoutController::layoutReady, this, &GraphPanel::onLayoutReady);
    connect(layout_, &LayoutController::layoutFailed, this,
            [this](quint64, const QString& message) { emit layoutFailed(message); });
    connect(layout_, &LayoutController::cancelled, this, &GraphPanel::onLayoutCancelled);
    connect(layout_, &LayoutController::busyChanged, this, &GraphPanel::layoutBusyChanged);
    applyTheme();
}

GraphPanel::~GraphPanel() = default;

bool GraphPanel::usesScopes(const Graph& graph)
{
    if (grouping_ != Grouping::Scopes && (grouping_ != Grouping::Auto || graph.opCount() <= LayoutPolicy::kScopesAboveOps))
        return false;
    if (scopesGraph_ != &graph || !scopes_) {
        scopes_ = LayoutPolicy::scopeTree(graph);
        scopesGraph_ = &graph;
        openScopes_.clear();
        openSeries_.clear();
    }
    return grouping_ == Grouping::Scopes || LayoutPolicy::prefersScopes(graph, *scopes_);
}

LayoutPlan GraphPanel::planFor(const Graph& graph)
{
    if (!usesScopes(graph))
        return LayoutPolicy::plan(graph, grouping_, expanded_);
    if (openScopes_.empty()) {
        openScopes_ = scopes_->openWithin(LayoutPolicy::kScopeBudget);
        openSeries_.clear();
    }
    return LayoutPolicy::scopedPlan(graph, scopes_, openScopes_, openSeries_);
}

bool GraphPanel::showsScopes() const { return scene_->viewGraph().isScoped(); }

void GraphPanel::setDocument(DocumentPtr document)
{
    if (!scene_->document() || scene_->document()->graphId != document->graphId) {
        expanded_.clear();
        scopes_.reset();
        scopesGraph_ = nullptr;
        openScopes_.clear();
    }
    pendingDocument_.reset();
    pendingView_.reset();
    pendingOpening_.reset();
    retry_->hide();
    const Graph& graph = *document->graph;
    const bool wantsTree = grouping_ == Grouping::Scopes
        || (grouping_ == Grouping::Auto && graph.opCount() > LayoutPolicy::kScopesAboveOps);
    if (wantsTree && (scopesGraph_ != &graph || !scopes_) && graph.opCount() > kScopeTreeOffThreadAbove) {
        // Build the scope tree on a pool thread; onTreeBuilt() goes on from here.
        layout_->cancel();
        pendingRequest_ = 0;
        search_->setGraph(document->graph);
        scene_->setContent(document, ViewGraph{});
        view_->setPlaceholderText(tr("Grouping %1 ops by name scope or layer…").arg(graph.opCount()));
        updateOverviewVisibility();
        if (treeGraph_ != &graph) {
            treeGraph_ = &graph;
            treeWatcher_->setFuture(
                runInBackground([shared = document->graph] { return LayoutPolicy::scopeTree(*shared); }));
        }
        emit layoutStarted();
        emit layoutBusyChanged(true);
        return;
    }
    treeGraph_ = nullptr; // a tree still being built for another graph is dropped
    LayoutPlan plan = planFor(*document->graph);
    search_->setGraph(document->graph);
    scene_->setContent(std::move(document), std::move(plan.view));
    view_->setPlaceholderText(tr("Laying out the graph…"));
    updateOverviewVisibility();
    pendingRequest_ = layout_->request(scene_->layoutInput(plan.engine));
    emit layoutStarted();
}

void GraphPanel::onTreeBuilt()
{
    const std::shared_ptr<const ScopeTree> tree = treeWatcher_->future().result();
    const DocumentPtr document = scene_->document();
    if (!treeGraph_ || !document || document->graph.get() != treeGraph_)
        return; // for a graph no longer shown (a newer build is on its way, or none is wanted)
    if (tree->opCount(ScopeTree::kRoot) != document->graph->opCount())
        return; // not this graph's tree
    treeGraph_ = nullptr;
    scopes_ = tree;
    scopesGraph_ = document->graph.get();
    openScopes_.clear();
    openSeries_.clear();
    setDocument(document); // the tree is there now: draws as for any graph
}

void GraphPanel::setGrouping(Grouping grouping)
{
    if (grouping_ == grouping)
        return;
    grouping_ = grouping;
    relayout();
}

void GraphPanel::relayout()
{
    const DocumentPtr document = pendingDocument_ ? pendingDocument_ : scene_->document();
    if (!document)
        return;
    if (scene_->nodeItemCount() == 0) {
        setDocument(document); // nothing drawn to keep
        return;
    }
    LayoutPlan plan = planFor(*document->graph);
    pendingOpening_.reset();
    pendingDocument_ = document;
    pendingView_ = std::move(plan.view);
    retry_->hide();
    pendingRequest_ = layout_->request(GraphScene::layoutInputFor(*pendingView_, plan.engine));
    emit layoutStarted();
}

void GraphPanel::expandGroup(const QString& key)
{
    if (showsScopes()) {
        openScope(key);
        return;
    }
    if (expanded_.contains(key))
        return;
    const ViewGraph& view = scene_->viewGraph();
    const auto node = std::find_if(view.nodes.begin(), view.nodes.end(), [&](const ViewNode& n) { return n.key == key; });
    focusOp_ = node != view.nodes.end() ? node->ops.front() : kNoOp;
    expanded_.insert(key);
    relayout();
}

void GraphPanel::collapseGroup(const QString& key, OpId focus)
{
    if (showsScopes()) {
        closeScope(key);
        return;
    }
    if (!expanded_.remove(key))
        return;
    focusOp_ = focus;
    relayout();
}

void GraphPanel::collapseAllGroups()
{
    if (showsScopes()) {
        if (scene_->viewGraph().frames.empty())
            return;
        openScopes_ = {ScopeTree::kRoot};
        openSeries_.clear();
        focusOp_ = kNoOp;
        relayout();
        return;
    }
    if (expanded_.isEmpty())
        return;
    expanded_.clear();
    focusOp_ = kNoOp;
    relayout();
}

void GraphPanel::openScope(const QString& key)
{
    const ViewGraph& view = scene_->viewGraph();
    const int box = view.nodeWithKey(key);
    if (box < 0 || !scene_->document() || scene_->nodeItemCount() == 0)
        return;
    const ViewNode& node = view.nodes[static_cast<size_t>(box)];
    std::vector<int> open = view.openScopes;
    std::vector<std::pair<int, QString>> series = view.openSeries;
    if (node.kind == ViewNode::Kind::Scope)
        open.push_back(node.scope);
    else if (node.kind == ViewNode::Kind::Series)
        series.emplace_back(node.scope, key);
    else
        return;
    ViewGraph next = ViewGraphBuilder::scoped(*scene_->document()->graph, view.scopes, std::move(open),
                                              std::move(series));
    const int frame = next.frameWithKey(key);
    if (frame < 0)
        return;
    ScopeRelayout::Inner inner = ScopeRelayout::innerOf(next, frame);
    const ViewGraph content = ScopeRelayout::innerView(next, inner);
    pendingDocument_.reset();
    pendingView_.reset();
    pendingOpening_ = ScopeOpening{scene_->document(), std::move(next), key, std::move(inner)};
    retry_->hide();
    pendingRequest_ = layout_->request(GraphScene::layoutInputFor(content, LayoutPolicy::engineFor(content)));
    emit layoutStarted();
}

void GraphPanel::closeScope(const QString& key)
{
    const ViewGraph& view = scene_->viewGraph();
    const int frame = view.frameWithKey(key);
    if (frame < 0 || !scene_->document())
        return;
    if (pendingOpening_)
        layout_->cancel(); // its layout starts from the drawing this changes
    // What closes with it: the scope (or the series' member scopes) and everything open inside.
    const ViewFrame& closing = view.frames[static_cast<size_t>(frame)];
    const std::vector<int> roots = closing.scope >= 0 ? std::vector<int>{closing.scope} : closing.members;
    auto inside = [&](int s) {
        return std::any_of(roots.begin(), roots.end(), [&](int r) { return view.scopes->isWithin(s, r); });
    };
    std::vector<int> open;
    for (int s : view.openScopes)
        if (!inside(s))
            open.push_back(s);
    std::vector<std::pair<int, QString>> series;
    for (const auto& entry : view.openSeries)
        if (entry.second != key && !inside(entry.first))
            series.push_back(entry);
    ViewGraph next = ViewGraphBuilder::scoped(*scene_->document()->graph, view.scopes, std::move(open),
                                              std::move(series));
    const int box = next.nodeWithKey(key);
    if (box < 0)
        return;
    const ViewNode& node = next.nodes[static_cast<size_t>(box)];
    const LayoutResult layout = ScopeRelayout::closed(view, scene_->appliedLayout(), next, key,
                                                      NodeItem::sizeFor(node.title, node.subtitle));
    if (!layout.ok())
        return;
    showScopeChange(scene_->document(), std::move(next), layout, key);
}

void GraphPanel::showScopeChange(DocumentPtr document, ViewGraph view, const LayoutResult& layout, QString key)
{
    // The view stays where it is: the same scene point remains at the viewport's top left.
    const QPointF topLeft = view_->mapToScene(view_->viewport()->rect().topLeft());
    const OpId selected = scene_->selectedOp();
    openScopes_ = view.openScopes;
    openSeries_ = view.openSeries;
    lastLayout_ = {layout.engine, layout.elapsedMs};
    scene_->setContent(std::move(document), std::move(view));
    scene_->applyLayout(layout);
    scene_->selectOp(selected);
    drawnExpanded_ = expanded_;
    const QPointF shift = view_->mapToScene(view_->viewport()->rect().topLeft()) - topLeft;
    const QTransform t = view_->transform();
    view_->horizontalScrollBar()->setValue(view_->horizontalScrollBar()->value() - qRound(shift.x() * t.m11()));
    view_->verticalScrollBar()->setValue(view_->verticalScrollBar()->value() - qRound(shift.y() * t.m22()));
    // Bring the opened frame (or the closed box) into view, its top left first.
    QRectF target;
    const ViewGraph& shown = scene_->viewGraph();
    if (const int f = shown.frameWithKey(key); f >= 0)
        target = scene_->appliedLayout().frameRects[static_cast<size_t>(f)];
    else if (const int n = shown.nodeWithKey(key); n >= 0)
        target = scene_->appliedLayout().nodeRects[static_cast<size_t>(n)];
    if (!target.isNull()) {
        const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
        target.setSize(target.size().boundedTo(visible.size() * 0.9));
        view_->ensureVisible(target, 20, 20);
    }
    retry_->hide();
    view_->setPlaceholderText(QString());
    overview_->refit();
    updateOverviewVisibility();
    emit layoutApplied();
}

void GraphPanel::openSelectedScope()
{
    const NodeItem* item = scene_->itemForOp(scene_->selectedOp());
    if (!item || !showsScopes())
        return;
    const ViewNode& node = scene_->viewGraph().nodes[static_cast<size_t>(item->viewNode())];
    if (node.kind == ViewNode::Kind::Scope || node.kind == ViewNode::Kind::Series)
        openScope(node.key);
}

void GraphPanel::closeSelectedScope()
{
    const NodeItem* item = scene_->itemForOp(scene_->selectedOp());
    if (!item || !showsScopes())
        return;
    const ViewGraph& view = scene_->viewGraph();
    const int frame = view.nodes[static_cast<size_t>(item->viewNode())].frame;
    if (frame >= 0)
        closeScope(view.frames[static_cast<size_t>(frame)].key);
}

void GraphPanel::updateDocument(DocumentPtr document)
{
    if (pendingDocument_)
        pendingDocument_ = document;
    if (pendingOpening_)
        pendingOpening_->document = document;
    scene_->setDocument(std::move(document));
}

void GraphPanel::showDocument(DocumentPtr document)
{
    if (!document)
        clear();
    else if (scene_->document() && scene_->document()->graphId == document->graphId)
        updateDocument(std::move(document));
    else
        setDocument(std::move(document));
}

void GraphPanel::clear()
{
    layout_->cancel();
    pendingRequest_ = 0;
    pendingDocument_.reset();
    pendingView_.reset();
    pendingOpening_.reset();
    expanded_.clear();
    scopes_.reset();
    scopesGraph_ = nullptr;
    if (treeGraph_) {
        treeGraph_ = nullptr;
        emit layoutBusyChanged(false);
    }
    openScopes_.clear();
    retry_->hide();
    search_->setGraph(nullptr);
    scene_->setContent(nullptr, {});
    view_->setPlaceholderText(tr("Open a graph with File ▸ Open… or drop a file here"));
    updateOverviewVisibility();
}

void GraphPanel::onLayoutReady(const LayoutResult& result)
{
    if (result.requestId != pendingRequest_)
        return; // a layout of something no longer shown
    pendingRequest_ = 0;
    if (pendingOpening_) {
        ScopeOpening opening = std::move(*pendingOpening_);
        pendingOpening_.reset();
        opening.inner.layout = result;
        LayoutResult layout = ScopeRelayout::opened(scene_->viewGraph(), scene_->appliedLayout(), opening.next,
                                                    opening.key, opening.inner);
        if (!layout.ok())
            return;
        layout.engine = result.engine;
        layout.elapsedMs = result.elapsedMs;
        showScopeChange(std::move(opening.document), std::move(opening.next), layout, opening.key);
        return;
    }
    lastLayout_ = {result.engine, result.elapsedMs};
    if (pendingView_) {
        const OpId selected = scene_->selectedOp();
        scene_->setContent(std::move(pendingDocument_), std::move(*pendingView_));
        pendingDocument_.reset();
        pendingView_.reset();
        scene_->selectOp(selected); // re-applied by applyLayout
    }
    scene_->applyLayout(result);
    drawnExpanded_ = expanded_;
    retry_->hide();
    view_->setPlaceholderText(scene_->nodeItemCount() == 0 ? tr("The graph has no ops") : QString());
    legend_->setVisible(!scene_->legend().title.isEmpty() && scene_->nodeItemCount() > 0);
    overview_->refit();
    updateOverviewVisibility();
    if (NodeItem* focus = scene_->itemForOp(focusOp_))
        view_->centreOnItem(focus);
    else
        showStartOfGraph();
    focusOp_ = kNoOp;
    emit layoutApplied();
}

void GraphPanel::onLayoutCancelled(quint64 requestId)
{
    if (requestId == pendingRequest_) {
        pendingRequest_ = 0;
        if (pendingView_)
            expanded_ = drawnExpanded_; // a relayout: the previous drawing stays, as it was
        pendingDocument_.reset();
        pendingView_.reset();
        pendingOpening_.reset();
        focusOp_ = kNoOp;
        if (scene_->nodeItemCount() == 0 && scene_->document()) {
            view_->setPlaceholderText(QString());
            retry_->setMessage(tr("Layout cancelled: the graph is not drawn.\n"
                                  "Large graphs are faster with View ▸ Show ▸ Groups."));
            retry_->show();
            retry_->raise();
            placeOverlays();
        }
    }
    emit layoutCancelled();
}

void GraphPanel::showStartOfGraph()
{
    view_->fitToWindow();
    if (view_->zoom() >= kReadableZoom || scene_->nodeItemCount() == 0)
        return;
    // Too big to read whole: start readable at the top, where the data enters.
    view_->setZoom(0.85);
    const Graph& graph = *scene_->document()->graph;
    NodeItem* first = graph.opCount() > 0 ? scene_->itemForOp(graph.topologicalOrder().front()) : nullptr;
    const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
    // What to show: the first op's box or, in a scope view, the outermost frame around it
    // when that fits (the whole "input" scope rather than one of its boxes).
    QRectF focus = first ? first->sceneBoundingRect() : QRectF();
    if (first && showsScopes()) {
        const ViewGraph& view = scene_->viewGraph();
        for (int f = view.nodes[static_cast<size_t>(first->viewNode())].frame; f >= 0;
             f = view.frames[static_cast<size_t>(f)].parent) {
            const QRectF frame = scene_->appliedLayout().frameRects[static_cast<size_t>(f)];
            if (frame.width() > visible.width() * 0.8 || frame.height() > visible.height() * 0.8)
                break;
            focus = frame;
        }
    }
    const double x = first ? focus.center().x() : scene_->sceneRect().center().x();
    // Near the top of the view (in a scope view it need not be at the top of the scene: its
    // frame may sit lower than a bigger one beside it).
    const double top = first ? std::max(scene_->sceneRect().top(), focus.top() - 60) : scene_->sceneRect().top();
    view_->centerOn(x, top + visible.height() / 2);
    // Not under the legend in the view's top right corner.
    if (first && legend_->isVisible()) {
        const QRect box = view_->mapFromScene(focus).boundingRect();
        const QRect legend = legend_->geometry().translated(-view_->viewport()->pos());
        if (box.intersects(legend.adjusted(-kMargin, -kMargin, kMargin, kMargin)))
            view_->horizontalScrollBar()->setValue(view_->horizontalScrollBar()->value() + box.right() - legend.left()
                                                   + 2 * kMargin);
    }
}

void GraphPanel::setColourMode(ColourMode mode) { scene_->setColourMode(mode); }

ColourMode GraphPanel::colourMode() const { return scene_->colourMode(); }

void GraphPanel::setOverviewWanted(bool wanted)
{
    overviewWanted_ = wanted;
    updateOverviewVisibility();
}

bool GraphPanel::isLayoutBusy() const { return layout_->isBusy() || treeGraph_ != nullptr; }

void GraphPanel::selectOp(OpId op, bool centre)
{
    scene_->selectOp(op);
    if (centre)
        view_->centreOnItem(scene_->itemForOp(op));
}

void GraphPanel::showSearch()
{
    search_->activate();
    placeOverlays();
}

void GraphPanel::cancelLayout()
{
    if (treeGraph_) {
        // Grouping by scope: its result will be dropped; nothing is drawn yet.
        treeGraph_ = nullptr;
        emit layoutBusyChanged(false);
        view_->setPlaceholderText(QString());
        retry_->setMessage(tr("Layout cancelled: the graph is not drawn."));
        retry_->show();
        retry_->raise();
        placeOverlays();
        emit layoutCancelled();
        return;
    }
    layout_->cancel(); // onLayoutCancelled() keeps the drawing or offers to lay out again
}

void GraphPanel::fitToWindow() { view_->fitToWindow(); }

void GraphPanel::actualSize() { view_->actualSize(); }

void GraphPanel::updateOverviewVisibility()
{
    overview_->setVisible(overviewWanted_ && scene_->nodeItemCount() > kOverviewAboveNodes);
    placeOverlays();
}

void GraphPanel::placeOverlays()
{
    // Right-hand column: search (when open), legend, and the overview at the bottom. Graphs
    // are laid out top-down from the left edge of the scene, so the right side is freer.
    const QRect area = view_->viewport()->geometry();
    const int searchWidth = std::min(kSearchWidth, area.width() - 2 * kMargin);
    search_->setFixedWidth(std::max(searchWidth, 120));
    search_->adjustSize();
    search_->move(area.right() - search_->width() - kMargin, area.top() + kMargin);
    const int legendTop = search_->isVisible() ? search_->geometry().bottom() + kMargin : area.top() + kMargin;
    legend_->resize(legend_->sizeHint());
    legend_->move(area.right() - legend_->width() - kMargin, legendTop);
    // The overview keeps the scene's aspect ratio within its maximum box.
    const QRectF scene = scene_->sceneRect();
    QSize size(kOverviewMaxWidth, kOverviewMaxHeight);
    if (!scene.isEmpty()) {
        const double aspect = scene.width() / scene.height();
        size = aspect > 1.0 ? QSize(kOverviewMaxWidth, std::max(60, int(kOverviewMaxWidth / aspect)))
                            : QSize(std::max(60, int(kOverviewMaxHeight * aspect)), kOverviewMaxHeight);
    }
    size = size.boundedTo(QSize(area.width() / 3, area.height() / 2));
    overview_->setGeometry(area.right() - size.width() - kMargin, area.bottom() - size.height() - kMargin, size.width(),
                           size.height());
    overview_->refit();
    retry_->adjustSize();
    retry_->move(area.center() - QPoint(retry_->width() / 2, retry_->height() / 2));
}

bool GraphPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == view_->viewport() && event->type() == QEvent::Resize)
        placeOverlays();
    if (watched == view_ && event->type() == QEvent::KeyPress && showsScopes()) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() == Qt::NoModifier || key->modifiers() == Qt::KeypadModifier) {
            if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
                openSelectedScope();
                return true;
            }
            if (key->key() == Qt::Key_Backspace) {
                closeSelectedScope();
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void GraphPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
}

void GraphPanel::applyTheme()
{
    const ViewTheme theme = ViewTheme::fromPalette(palette());
    scene_->setTheme(theme);
    legend_->setPanelColours(theme.panel, theme.panelBorder, theme.text);
}

} // namespace post
