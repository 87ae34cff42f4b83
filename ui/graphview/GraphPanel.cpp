#include "ui/graphview/GraphPanel.h"

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

#include <QEvent>
#include <QVBoxLayout>

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
{
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
    // Overlays follow the viewport's size: the view's own Resize reaches a filter before
    // QAbstractScrollArea lays its viewport out, so placing them then used the old size.
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

void GraphPanel::setDocument(DocumentPtr document)
{
    if (!scene_->document() || scene_->document()->graphId != document->graphId)
        expanded_.clear();
    pendingDocument_.reset();
    pendingView_.reset();
    retry_->hide();
    LayoutPlan plan = LayoutPolicy::plan(*document->graph, grouping_, expanded_);
    search_->setGraph(document->graph);
    scene_->setContent(std::move(document), std::move(plan.view));
    view_->setPlaceholderText(tr("Laying out the graph…"));
    updateOverviewVisibility();
    pendingRequest_ = layout_->request(scene_->layoutInput(plan.engine));
    emit layoutStarted();
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
    LayoutPlan plan = LayoutPolicy::plan(*document->graph, grouping_, expanded_);
    pendingDocument_ = document;
    pendingView_ = std::move(plan.view);
    retry_->hide();
    pendingRequest_ = layout_->request(GraphScene::layoutInputFor(*pendingView_, plan.engine));
    emit layoutStarted();
}

void GraphPanel::expandGroup(const QString& key)
{
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
    if (!expanded_.remove(key))
        return;
    focusOp_ = focus;
    relayout();
}

void GraphPanel::collapseAllGroups()
{
    if (expanded_.isEmpty())
        return;
    expanded_.clear();
    focusOp_ = kNoOp;
    relayout();
}

void GraphPanel::updateDocument(DocumentPtr document)
{
    if (pendingDocument_)
        pendingDocument_ = document;
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
    expanded_.clear();
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
    const double x = first ? first->sceneBoundingRect().center().x() : scene_->sceneRect().center().x();
    view_->centerOn(x, scene_->sceneRect().top() + visible.height() / 2);
}

void GraphPanel::setColourMode(ColourMode mode) { scene_->setColourMode(mode); }

ColourMode GraphPanel::colourMode() const { return scene_->colourMode(); }

void GraphPanel::setOverviewWanted(bool wanted)
{
    overviewWanted_ = wanted;
    updateOverviewVisibility();
}

bool GraphPanel::isLayoutBusy() const { return layout_->isBusy(); }

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
