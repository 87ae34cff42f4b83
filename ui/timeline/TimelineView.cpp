#include "ui/timeline/TimelineView.h"

#include "ui/theme/CategoryPalette.h"
#include "ui/timeline/TimeTicks.h"
#include "ui/util/Format.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextDocument>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace post {
namespace {

// Scroll bar units over the whole time domain (a double range does not fit an int).
constexpr int kScrollUnits = 1000000;
// Bars narrower than this are merged with their neighbours into one block.
constexpr double kMergeBelowPx = 2.0;
// A label is drawn inside bars at least this wide.
constexpr double kLabelAbovePx = 28.0;
constexpr double kHitSlackPx = 3.0;

QString formatMs(double us) { return QString::number(us / 1000.0, 'f', 3) + QStringLiteral(" ms"); }

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent)
    , theme_(ViewTheme::fromPalette(palette()))
{
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    viewport()->setMouseTracking(false);
    viewport()->setCursor(Qt::OpenHandCursor);
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (syncingBars_)
            return;
        fitted_ = false;
        const double domain = domainEnd() - domainStart();
        startUs_ = domainStart() + domain * value / kScrollUnits;
        viewport()->update();
    });
    connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));
}

void TimelineView::setStep(StepPtr step)
{
    const bool sameGraph = step && step_ && step->document->graphId == step_->document->graphId
        && step->document->cluster == step_->document->cluster;
    step_ = std::move(step);
    updateHeaderWidth();
    if (!sameGraph || fitted_)
        fit();
    else {
        clampView();
        updateScrollBars();
    }
    viewport()->update();
}

void TimelineView::setPlaceholderText(const QString& text)
{
    placeholder_ = text;
    viewport()->update();
}

void TimelineView::selectOp(OpId op)
{
    selected_ = op;
    viewport()->update();
}

void TimelineView::setShowCriticalPath(bool on)
{
    if (on == showCritical_)
        return;
    showCritical_ = on;
    viewport()->update();
    emit criticalPathToggled(on);
}

int TimelineView::laneCount() const { return step_ ? static_cast<int>(step_->lanes.size()) : 0; }

int TimelineView::barCount() const
{
    int n = 0;
    if (step_)
        for (const TimelineLane& lane : step_->lanes)
            n += static_cast<int>(lane.bars.size());
    return n;
}

double TimelineView::plotWidth() const { return std::max(1.0, viewport()->width() - plotLeft()); }

double TimelineView::visibleSpanUs() const { return plotWidth() / pxPerUs_; }

double TimelineView::laneTop(int lane) const { return kAxisHeight + lane * laneHeight_ - verticalScrollBar()->value(); }

double TimelineView::extentUs() const
{
    // A zero-length step (no ops, or only instant ones) still gets a visible microsecond.
    const double step = step_ ? step_->result.stepTimeUs : 0.0;
    return step > 0.0 ? step : 1.0;
}

// A margin of 1% either side so the first and last bars do not touch the edges.
double TimelineView::domainStart() const { return -0.01 * extentUs(); }

double TimelineView::domainEnd() const { return 1.01 * extentUs(); }

void TimelineView::fit()
{
    fitted_ = true;
    pxPerUs_ = plotWidth() / (domainEnd() - domainStart());
    startUs_ = domainStart();
    updateScrollBars();
    viewport()->update();
}

void TimelineView::zoomBy(double factor) { zoomAround(factor, plotLeft() + plotWidth() / 2); }

void TimelineView::showRange(double fromUs, double toUs)
{
    if (!(toUs > fromUs))
        return;
    fitted_ = false;
    pxPerUs_ = plotWidth() / (toUs - fromUs);
    startUs_ = fromUs;
    clampView();
    updateScrollBars();
    viewport()->update();
}

void TimelineView::zoomAround(double factor, double anchorX)
{
    const double anchorUs = usOf(anchorX);
    pxPerUs_ *= factor;
    fitted_ = false;
    clampView();
    startUs_ = anchorUs - (anchorX - plotLeft()) / pxPerUs_;
    clampView();
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setStart(double us)
{
    startUs_ = us;
    fitted_ = false;
    clampView();
    updateScrollBars();
    viewport()->update();
}

void TimelineView::clampView()
{
    const double domain = domainEnd() - domainStart();
    // Zoom out to the whole step at most, in to a nanosecond across the plot at most.
    const double minPx = plotWidth() / domain;
    const double maxPx = plotWidth() / std::max(domain * 1e-7, 1e-3);
    pxPerUs_ = std::clamp(pxPerUs_, minPx, std::max(minPx, maxPx));
    const double span = visibleSpanUs();
    startUs_ = std::clamp(startUs_, domainStart(), std::max(domainStart(), domainEnd() - span));
}

double TimelineView::barInset(bool link) const
{
    // Transfers are drawn thinner than ops so the two kinds of lane read apart.
    return laneHeight_ * (link ? 0.25 : 0.125);
}

void TimelineView::updateLaneHeight()
{
    // Few lanes grow to fill the height (up to kMaxLaneHeight); many scroll.
    const int shown = std::max(0, viewport()->height() - kAxisHeight);
    laneHeight_ = laneCount() > 0 ? std::clamp(shown / laneCount(), kMinLaneHeight, kMaxLaneHeight) : kMinLaneHeight;
}

void TimelineView::updateScrollBars()
{
    updateLaneHeight();
    syncingBars_ = true;
    const double domain = domainEnd() - domainStart();
    const double visible = std::min(1.0, visibleSpanUs() / domain);
    QScrollBar* h = horizontalScrollBar();
    h->setRange(0, static_cast<int>(std::lround((1.0 - visible) * kScrollUnits)));
    h->setPageStep(std::max(1, static_cast<int>(std::lround(visible * kScrollUnits))));
    h->setSingleStep(std::max(1, h->pageStep() / 10));
    h->setValue(static_cast<int>(std::lround((startUs_ - domainStart()) / domain * kScrollUnits)));
    QScrollBar* v = verticalScrollBar();
    const int content = laneCount() * laneHeight_;
    const int shown = std::max(0, viewport()->height() - kAxisHeight);
    v->setRange(0, std::max(0, content - shown));
    v->setPageStep(std::max(1, shown));
    v->setSingleStep(laneHeight_);
    syncingBars_ = false;
}

// A lane's label starts after its swatch and keeps this much room to its right.
constexpr int kLabelLeft = 26;
constexpr int kLabelRight = 6;

void TimelineView::updateHeaderWidth()
{
    // The names' exact widths, rounded up: QFontMetrics::horizontalAdvance rounds to the
    // nearest pixel, and a name a fraction of a pixel wider than its room is elided, which cut
    // "GPU:0 collectives" (a fraction over its 104 px room) to "GPU:0 c…ectives".
    const QFontMetricsF metrics(font(), viewport());
    double widest = metrics.horizontalAdvance(QStringLiteral("GPU:0 → GPU:1"));
    if (step_)
        for (const TimelineLane& lane : step_->lanes)
            widest = std::max(widest, metrics.horizontalAdvance(lane.name));
    headerWidth_ = std::clamp(static_cast<int>(std::ceil(widest)) + 1 + kLabelLeft + kLabelRight, 90, kMaxHeaderWidth);
}

QString TimelineView::laneLabel(int lane) const
{
    if (!step_ || lane < 0 || lane >= laneCount())
        return {};
    const QFontMetrics metrics(font(), viewport());
    return metrics.elidedText(step_->lanes[static_cast<size_t>(lane)].name, Qt::ElideMiddle,
                              headerWidth_ - kLabelLeft - kLabelRight);
}

QString TimelineView::laneToolTip(int lane) const
{
    if (!step_ || lane < 0 || lane >= laneCount())
        return {};
    const TimelineLane& l = step_->lanes[static_cast<size_t>(lane)];
    if (l.kind == TimelineLane::Kind::Link)
        return tr("Link %1: the transfers it carried").arg(l.fullName);
    if (lane >= step_->deviceLaneCount - step_->collectiveLaneCount)
        return tr("%1: the collectives it ran on its communication channel, beside its compute lane").arg(l.fullName);
    return tr("%1: the ops it computed").arg(l.fullName);
}

int TimelineView::laneLabelAt(QPoint pos) const
{
    if (!step_ || pos.x() < 0 || pos.x() >= headerWidth_ || pos.y() < kAxisHeight)
        return -1;
    const int lane = static_cast<int>(
        std::floor((pos.y() - kAxisHeight + verticalScrollBar()->value()) / double(laneHeight_)));
    return lane >= 0 && lane < laneCount() ? lane : -1;
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    if (fitted_)
        fit();
    else {
        clampView();
        updateScrollBars();
    }
}

// --- painting ---

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), theme_.background);
    lastPaintedBars_ = 0;
    lastPaintedCritical_ = 0;
    if (!step_) {
        painter.setPen(theme_.mutedText);
        painter.drawText(viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        return;
    }
    const double plotTop = kAxisHeight;
    const QRectF lanesArea(plotLeft(), plotTop, plotWidth(), viewport()->height() - plotTop);

    painter.save();
    painter.setClipRect(lanesArea);
    const int first = std::max(0, static_cast<int>(verticalScrollBar()->value() / laneHeight_));
    for (int lane = first; lane < laneCount(); ++lane) {
        const double top = laneTop(lane);
        if (top > viewport()->height())
            break;
        paintLane(painter, lane, top);
    }
    // The end of the step, where every op and transfer is done.
    QPen endPen(theme_.mutedText, 1, Qt::DashLine);
    painter.setPen(endPen);
    const double endX = xOf(step_->result.stepTimeUs);
    painter.drawLine(QPointF(endX, plotTop), QPointF(endX, viewport()->height()));
    painter.restore();

    paintAxis(painter);
    paintHeader(painter);
}

void TimelineView::paintLane(QPainter& painter, int laneIndex, double top)
{
    const TimelineLane& lane = step_->lanes[static_cast<size_t>(laneIndex)];
    const bool isLink = lane.kind == TimelineLane::Kind::Link;
    if (laneIndex % 2 == 1) {
        QColor stripe = theme_.text;
        stripe.setAlpha(theme_.dark ? 10 : 8);
        painter.fillRect(QRectF(plotLeft(), top, plotWidth(), laneHeight_), stripe);
    }
    const QColor category = CategoryPalette::colour(lane.device);
    const QColor fill = theme_.nodeFill(category);
    const QColor border = theme_.dark ? category.lighter(115) : category.darker(115);
    const QColor textColour = ViewTheme::textOn(fill);
    const double inset = barInset(isLink);
    const double barTop = top + inset;
    const double barHeight = laneHeight_ - 2 * inset;

    const double fromUs = usOf(plotLeft());
    const double toUs = usOf(plotLeft() + plotWidth());
    const auto& bars = lane.bars;
    // Ends are sorted like starts (bars never overlap): the first visible bar by binary search.
    auto it = std::lower_bound(bars.begin(), bars.end(), fromUs,
                               [](const TimelineBar& bar, double us) { return bar.endUs < us; });

    painter.setRenderHint(QPainter::Antialiasing, false);
    double runStart = 0.0, runEnd = -1e300;
    bool inRun = false;
    auto flushRun = [&] {
        if (!inRun)
            return;
        painter.fillRect(QRectF(runStart, barTop, std::max(runEnd - runStart, 1.0), barHeight), border);
        ++lastPaintedBars_;
        inRun = false;
    };
    std::vector<QRectF> outlined;
    std::vector<QRectF> critical;
    const Graph& graph = *step_->document->graph;
    const auto& transfers = step_->result.timeline.transfers;
    for (; it != bars.end() && it->startUs <= toUs; ++it) {
        const double x0 = xOf(it->startUs);
        const double x1 = xOf(it->endUs);
        const OpId op = isLink ? transfers[static_cast<size_t>(it->item)].producer : it->item;
        if (op == selected_ && selected_ != kNoOp)
            outlined.emplace_back(x0, barTop, std::max(x1 - x0, 1.0), barHeight);
        if (showCritical_
            && (isLink ? step_->transferOnCriticalPath[static_cast<size_t>(it->item)]
                       : step_->opOnCriticalPath[static_cast<size_t>(op)]))
            critical.emplace_back(x0, barTop, std::max(x1 - x0, 1.0), barHeight);
        if (x1 - x0 < kMergeBelowPx) {
            if (inRun && x0 <= runEnd + 1.0) {
                runEnd = std::max(runEnd, x1);
            } else {
                flushRun();
                inRun = true;
                runStart = x0;
                runEnd = x1;
            }
            continue;
        }
        flushRun();
        const QRectF rect(x0, barTop, x1 - x0, barHeight);
        painter.setPen(QPen(border, 1));
        painter.setBrush(fill);
        painter.drawRect(rect.adjusted(0, 0, -1, -1));
        ++lastPaintedBars_;
        if (rect.width() >= kLabelAbovePx && !isLink) {
            // Clip the label to the visible part of the bar so long bars keep it on screen.
            const double left = std::max(rect.left(), plotLeft()) + 3;
            const double right = std::min(rect.right(), plotLeft() + plotWidth()) - 3;
            if (right - left >= kLabelAbovePx - 6) {
                const QString name = QString::fromStdString(graph.op(op).name);
                painter.setPen(textColour);
                painter.drawText(QRectF(left, barTop, right - left, barHeight), Qt::AlignLeft | Qt::AlignVCenter,
                                 painter.fontMetrics().elidedText(name, Qt::ElideRight, static_cast<int>(right - left)));
            }
        }
    }
    flushRun();
    if (!critical.empty()) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(theme_.critical, 2));
        painter.setBrush(Qt::NoBrush);
        for (const QRectF& r : critical)
            painter.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
        lastPaintedCritical_ += static_cast<int>(critical.size());
    }
    if (!outlined.empty()) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(theme_.selection, 2));
        painter.setBrush(Qt::NoBrush);
        for (const QRectF& r : outlined)
            painter.drawRect(r.adjusted(-1.5, -1.5, 1.5, 1.5));
    }
}

void TimelineView::paintAxis(QPainter& painter)
{
    const QRectF axis(0, 0, viewport()->width(), kAxisHeight);
    painter.fillRect(axis, theme_.dark ? theme_.background.lighter(125) : theme_.background.darker(104));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    painter.setFont(small);
    const TimeTicks ticks = TimeTicks::make(usOf(plotLeft()), usOf(plotLeft() + plotWidth()), pxPerUs_, 80.0);
    QColor grid = theme_.text;
    grid.setAlpha(theme_.dark ? 38 : 30);
    for (double us : ticks.atUs) {
        const double x = std::round(xOf(us)) + 0.5;
        painter.setPen(grid);
        painter.drawLine(QPointF(x, kAxisHeight), QPointF(x, viewport()->height()));
        painter.setPen(theme_.mutedText);
        painter.drawLine(QPointF(x, kAxisHeight - 5), QPointF(x, kAxisHeight));
        const QString label = ticks.label(us);
        if (x + 3 + painter.fontMetrics().horizontalAdvance(label) < viewport()->width())
            painter.drawText(QRectF(x + 3, 0, 120, kAxisHeight - 3), Qt::AlignLeft | Qt::AlignBottom, label);
    }
    painter.setPen(theme_.panelBorder);
    painter.drawLine(QPointF(0, kAxisHeight - 0.5), QPointF(viewport()->width(), kAxisHeight - 0.5));
    painter.setFont(font());
}

void TimelineView::paintHeader(QPainter& painter)
{
    const QRectF header(0, 0, headerWidth_, viewport()->height());
    painter.fillRect(header, theme_.dark ? theme_.background.lighter(118) : theme_.background.darker(103));
    painter.setPen(theme_.mutedText);
    painter.drawText(QRectF(8, 0, headerWidth_ - 8, kAxisHeight - 3), Qt::AlignLeft | Qt::AlignBottom, tr("time (ms)"));
    painter.save();
    painter.setClipRect(QRectF(0, kAxisHeight, headerWidth_, viewport()->height() - kAxisHeight));
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (int lane = 0; lane < laneCount(); ++lane) {
        const double top = laneTop(lane);
        if (top + laneHeight_ < kAxisHeight)
            continue;
        if (top > viewport()->height())
            break;
        const TimelineLane& l = step_->lanes[static_cast<size_t>(lane)];
        const bool isLink = l.kind == TimelineLane::Kind::Link;
        const QColor colour = CategoryPalette::colour(l.device);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colour);
        if (isLink)
            painter.drawEllipse(QRectF(12, top + laneHeight_ / 2.0 - 3, 6, 6));
        else
            painter.drawRoundedRect(QRectF(10, top + laneHeight_ / 2.0 - 5, 10, 10), 2, 2);
        painter.setPen(isLink ? theme_.mutedText : theme_.text);
        painter.drawText(QRectF(kLabelLeft, top, headerWidth_ - kLabelLeft, laneHeight_),
                         Qt::AlignLeft | Qt::AlignVCenter, laneLabel(lane));
        if (lane == step_->deviceLaneCount && lane > 0) {
            // Devices above, links below.
            painter.setPen(theme_.panelBorder);
            painter.drawLine(QPointF(0, top + 0.5), QPointF(viewport()->width(), top + 0.5));
        }
    }
    painter.restore();
    painter.setPen(theme_.panelBorder);
    painter.drawLine(QPointF(headerWidth_ - 0.5, 0), QPointF(headerWidth_ - 0.5, viewport()->height()));
}

// --- hit testing ---

TimelineView::BarRef TimelineView::barAt(QPoint pos) const
{
    if (!step_ || pos.x() < plotLeft() || pos.y() < kAxisHeight)
        return {};
    const int lane = static_cast<int>(
        std::floor((pos.y() - kAxisHeight + verticalScrollBar()->value()) / double(laneHeight_)));
    if (lane < 0 || lane >= laneCount())
        return {};
    const auto& bars = step_->lanes[static_cast<size_t>(lane)].bars;
    const double us = usOf(pos.x());
    const double slack = kHitSlackPx / pxPerUs_;
    auto it = std::lower_bound(bars.begin(), bars.end(), us - slack,
                               [](const TimelineBar& bar, double t) { return bar.endUs < t; });
    int best = -1;
    double bestDistance = slack;
    for (; it != bars.end() && it->startUs <= us + slack; ++it) {
        const double distance = us < it->startUs ? it->startUs - us : us > it->endUs ? us - it->endUs : 0.0;
        if (distance <= bestDistance) {
            // Inside a bar beats near one; among bars equally near, the later (on top) one.
            best = static_cast<int>(it - bars.begin());
            bestDistance = distance;
            if (distance == 0.0 && it->endUs > it->startUs)
                break;
        }
    }
    if (best < 0)
        return {};
    return BarRef{lane, best};
}

QRectF TimelineView::barRect(BarRef ref) const
{
    if (!step_ || !ref.valid())
        return {};
    const TimelineLane& lane = step_->lanes[static_cast<size_t>(ref.lane)];
    const TimelineBar& bar = lane.bars[static_cast<size_t>(ref.index)];
    const double inset = barInset(lane.kind == TimelineLane::Kind::Link);
    const double x0 = xOf(bar.startUs);
    return QRectF(x0, laneTop(ref.lane) + inset, std::max(xOf(bar.endUs) - x0, 1.0), laneHeight_ - 2 * inset);
}

OpId TimelineView::opOf(BarRef ref) const
{
    if (!step_ || !ref.valid())
        return kNoOp;
    const TimelineLane& lane = step_->lanes[static_cast<size_t>(ref.lane)];
    const int item = lane.bars[static_cast<size_t>(ref.index)].item;
    return lane.kind == TimelineLane::Kind::Link ? step_->result.timeline.transfers[static_cast<size_t>(item)].producer
                                                 : item;
}

QString TimelineView::toolTipFor(BarRef ref) const
{
    if (!step_ || !ref.valid())
        return {};
    const Graph& graph = *step_->document->graph;
    const TimelineLane& lane = step_->lanes[static_cast<size_t>(ref.lane)];
    const TimelineBar& bar = lane.bars[static_cast<size_t>(ref.index)];
    const QString times = tr("Start %1, end %2\nDuration %3")
                              .arg(formatMs(bar.startUs), formatMs(bar.endUs),
                                   formatMicroseconds(bar.endUs - bar.startUs));
    if (lane.kind == TimelineLane::Kind::Device) {
        const Op& op = graph.op(bar.item);
        return tr("%1\nType: %2\nDevice: %3\n")
                   .arg(QString::fromStdString(op.name), QString::fromStdString(op.type), lane.fullName)
            + times;
    }
    const TransferSpan& t = step_->result.timeline.transfers[static_cast<size_t>(bar.item)];
    QString text = tr("Transfer of %1's output\nBytes: %2\nLink: %3\n")
                       .arg(QString::fromStdString(graph.op(t.producer).name), formatBytes(t.bytes), lane.fullName)
        + times;
    if (t.startUs > t.requestUs)
        text += tr("\nWaited %1 for the link").arg(formatMicroseconds(t.startUs - t.requestUs));
    return text;
}

// --- interaction ---

bool TimelineView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const BarRef bar = barAt(help->pos());
        if (const int lane = laneLabelAt(help->pos()); lane >= 0) // the label column: the lane's whole name
            QToolTip::showText(help->globalPos(), laneToolTip(lane), viewport());
        else if (bar.valid())
            QToolTip::showText(help->globalPos(), Qt::convertFromPlainText(toolTipFor(bar), Qt::WhiteSpaceNormal),
                               viewport(), barRect(bar).toAlignedRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y() / 4);
    } else if ((event->modifiers() & Qt::ShiftModifier) || std::abs(delta.x()) > std::abs(delta.y())) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        setStart(startUs_ - d / 120.0 * visibleSpanUs() / 10.0);
    } else {
        const double x = std::clamp(event->position().x(), plotLeft(), plotLeft() + plotWidth());
        zoomAround(std::pow(1.0015, delta.y()), x);
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QAbstractScrollArea::mousePressEvent(event);
    pressed_ = true;
    dragging_ = false;
    pressPos_ = event->position().toPoint();
    pressStartUs_ = startUs_;
    pressScrollY_ = verticalScrollBar()->value();
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    if (!pressed_)
        return QAbstractScrollArea::mouseMoveEvent(event);
    const QPoint d = event->position().toPoint() - pressPos_;
    if (!dragging_ && d.manhattanLength() >= 4) {
        dragging_ = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    if (dragging_) {
        setStart(pressStartUs_ - d.x() / pxPerUs_);
        verticalScrollBar()->setValue(pressScrollY_ - d.y());
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !pressed_)
        return QAbstractScrollArea::mouseReleaseEvent(event);
    pressed_ = false;
    viewport()->setCursor(Qt::OpenHandCursor);
    if (dragging_)
        return;
    const OpId op = opOf(barAt(event->position().toPoint()));
    if (op != kNoOp) {
        selectOp(op);
        emit opClicked(op);
    }
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_F:
    case Qt::Key_Home:
        fit();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.5);
        break;
    case Qt::Key_Minus:
        zoomBy(1 / 1.5);
        break;
    case Qt::Key_Left:
        setStart(startUs_ - visibleSpanUs() / 10);
        break;
    case Qt::Key_Right:
        setStart(startUs_ + visibleSpanUs() / 10);
        break;
    case Qt::Key_C:
        setShowCriticalPath(!showCritical_);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

void TimelineView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) {
        theme_ = ViewTheme::fromPalette(palette());
        viewport()->update();
    } else if (event->type() == QEvent::FontChange) {
        updateHeaderWidth();
    }
    QAbstractScrollArea::changeEvent(event);
}

} // namespace post
