#include "ui/charts/LearningChart.h"

#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"
#include "ui/charts/ChartColours.h"
#include "ui/charts/ChartTicks.h"
#include "ui/graphview/ViewTheme.h"
#include "ui/util/Format.h"

#include <QBuffer>
#include <QChart>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QGraphicsLayout>
#include <QImage>
#include <QKeyEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPixmap>
#include <QResizeEvent>
#include <QSvgGenerator>
#include <QTimer>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace post {

namespace {

bool known(double v) { return std::isfinite(v) && v > 0.0; }

// Drawing tens of thousands of markers stalls the GUI thread for hundreds of ms; past
// this many, the chart shows an even stride of the samples (the CSV keeps all of them,
// and the best-so-far line is exact whatever is drawn).
constexpr int kMaxDrawnSamples = 5000;

constexpr int kMarkerSize = 3;

// Snapshots come every 50 ms; the chart is refilled and repainted at most this often while
// they stream (each refill re-lays out every drawn point: the GUI thread's largest share of
// a run, which a 2-core machine takes from the search; docs/performance.md).
constexpr qint64 kMinRefreshMs = 200;

// Round ticks for a span: samples 1, 2 or 5 apart at least (ChartTicks).
double tickStep(double span, bool integral)
{
    double step = niceTickStep(span);
    if (integral && step < 10.0)
        step = step < 1.5 ? 1.0 : step < 3.0 ? 2.0 : 5.0;
    return step;
}

void setTicks(QValueAxis* axis, double step, bool integral)
{
    if (axis->tickType() != QValueAxis::TicksDynamic)
        axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setTickInterval(step);
    const QString format = integral ? QStringLiteral("%.0f") : tickLabelFormat(step);
    if (axis->labelFormat() != format)
        axis->setLabelFormat(format);
}

// A new range with ticks that fit it. The axis lays its ticks out for the new range with the
// interval it has: a 30x wider range at the old interval would make 30x the tick items (tens
// of thousands going from an empty chart to a run's range), so the interval changes first
// when it grows and after the range when it shrinks.
void setRangeWithTicks(QValueAxis* axis, double lo, double hi, bool integral)
{
    const double step = tickStep(hi - lo, integral);
    const bool grows = step >= axis->tickInterval();
    if (grows)
        setTicks(axis, step, integral);
    axis->setRange(lo, hi);
    if (!grows)
        setTicks(axis, step, integral);
}

QImage dotImage(const QColor& colour, int size)
{
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawEllipse(QRectF(0, 0, size, size));
    return image;
}

QVector<QPointF> thinned(const QVector<QPointF>& points)
{
    if (points.size() <= kMaxDrawnSamples)
        return points;
    const qsizetype stride = (points.size() + kMaxDrawnSamples - 1) / kMaxDrawnSamples;
    QVector<QPointF> out;
    out.reserve(points.size() / stride + 1);
    for (qsizetype i = 0; i < points.size(); i += stride)
        out.append(points[i]);
    return out;
}

} // namespace

LearningChart::LearningChart(QWidget* parent)
    : QChartView(new QChart, parent) // setChart() would orphan (leak) the default chart
{
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::RectangleRubberBand);
    setFocusPolicy(Qt::StrongFocus); // Escape resets the zoom
    QChart* chart = this->chart();
    chart->setTitle(tr("Learning curve"));
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setLocalizeNumbers(true);
    chart->setLocale(numberLocale());

    xAxis_ = new QValueAxis;
    xAxis_->setTitleText(tr("sample"));
    xAxis_->setLabelFormat(QStringLiteral("%d"));
    yAxis_ = new QValueAxis;
    yAxis_->setTitleText(tr("step time (ms)"));
    yAxis_->setLabelFormat(QStringLiteral("%g"));
    yLogAxis_ = new QLogValueAxis;
    yLogAxis_->setTitleText(tr("step time (ms, log)"));
    yLogAxis_->setLabelFormat(QStringLiteral("%.12g")); // 20,230 rather than 2.023e+04
    yLogAxis_->setBase(10.0);
    yLogAxis_->setMinorTickCount(-1); // 2..9 between the decades
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    // The strip is painted over the view: it follows the plot and the sample axis.
    connect(xAxis_, &QValueAxis::rangeChanged, viewport(), qOverload<>(&QWidget::update));
    connect(chart, &QChart::plotAreaChanged, viewport(), qOverload<>(&QWidget::update));
    // Round ticks for whatever range is shown (fitted, zoomed, panned); out-of-memory points
    // follow the top edge.
    connect(xAxis_, &QValueAxis::rangeChanged, this, &LearningChart::applyTicks);
    connect(yAxis_, &QValueAxis::rangeChanged, this, [this] {
        applyTicks();
        if (!infeasible_.isEmpty())
            scheduleRefresh();
    });
    connect(yLogAxis_, &QLogValueAxis::rangeChanged, this, [this] {
        if (!infeasible_.isEmpty())
            scheduleRefresh();
    });

    auto add = [chart](QLineSeries*& series, const QString& name) {
        series = new QLineSeries;
        series->setName(name);
        chart->addSeries(series);
    };
    add(feasibleSeries_, tr("sampled"));
    add(infeasibleSeries_, tr("out of memory (at top)"));
    add(eliteSeries_, tr("elite threshold"));
    add(bestSeries_, tr("best so far"));
    add(lowerBoundSeries_, tr("lower bound"));
    add(groupedBoundSeries_, tr("grouped bound"));
    add(singleDeviceSeries_, tr("best single GPU"));
    add(classicalSeries_, tr("best classical placer"));
    add(selectedSeries_, tr("shown sample"));
    eliteSegments_ = {eliteSeries_};
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    refreshTimer_ = new QTimer(this);
    refreshTimer_->setSingleShot(true);
    refreshTimer_->setInterval(0);
    connect(refreshTimer_, &QTimer::timeout, this, &LearningChart::refresh);
    applyTheme();
    reset();
    applyTicks();
}

LearningChart::~LearningChart()
{
    // The step-time axis that is not on the chart belongs to nobody.
    if (log_)
        delete yAxis_;
    else
        delete yLogAxis_;
}

void LearningChart::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event); // fits chart() to the view
    layoutStrip();
}

void LearningChart::layoutStrip()
{
    // A fifth of the height (60 to 150 px) under the sample axis; none in a tiny view.
    const int height = viewport()->height();
    const int strip = height < 240 ? 0 : std::clamp(height / 5, 60, 150);
    if (strip == stripHeight_)
        return;
    stripHeight_ = strip;
    QMargins margins = chart()->margins();
    margins.setBottom(strip + 6);
    chart()->setMargins(margins);
}

QRectF LearningChart::entropyStripRect() const
{
    if (stripHeight_ <= 0)
        return {};
    const QRectF plot = chart()->mapRectToScene(chart()->plotArea());
    const QRectF bounds = chart()->mapRectToScene(chart()->rect());
    const QRectF scene(plot.left(), bounds.bottom() - stripHeight_, plot.width(), stripHeight_ - 12.0);
    return QRectF(mapFromScene(scene).boundingRect());
}

QPointF LearningChart::entropyPosition(double x, double e) const
{
    const QRectF strip = entropyStripRect();
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    const double fx = hi > lo ? (x - lo) / (hi - lo) : 0.0;
    return QPointF(strip.left() + fx * strip.width(), strip.bottom() - std::clamp(e, 0.0, 1.0) * strip.height());
}

void LearningChart::drawForeground(QPainter* painter, const QRectF& rect)
{
    QChartView::drawForeground(painter, rect);
    painter->save();
    // drawForeground paints in scene coordinates; the strip is laid out in view coordinates.
    painter->resetTransform();
    paintEntropyStrip(painter);
    paintPhaseMarks(painter);
    // The certified gap and any grouped bound, in the plot's top right corner.
    const QString note = boundNote();
    if (!note.isEmpty()) {
        const QRectF plot = mapFromScene(chart()->mapToScene(chart()->plotArea())).boundingRect();
        QFont font = painter->font();
        font.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.9));
        painter->setFont(font);
        const QRectF box = painter->fontMetrics()
                               .boundingRect(plot.toRect().adjusted(8, 6, -8, -6), Qt::AlignRight | Qt::AlignTop, note)
                               .adjusted(-4, -2, 4, 2);
        QColor back = palette().color(QPalette::Base);
        back.setAlpha(215);
        painter->setPen(Qt::NoPen);
        painter->setBrush(back);
        painter->drawRect(box);
        painter->setPen(palette().color(QPalette::Text));
        painter->drawText(box.adjusted(4, 2, -4, -2), Qt::AlignRight | Qt::AlignTop, note);
    }
    painter->restore();
}

void LearningChart::paintEntropyStrip(QPainter* painter) const
{
    const QRectF strip = entropyStripRect();
    if (strip.height() < 8.0 || strip.width() < 8.0)
        return;
    const QColor text = palette().color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(40);
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(QPen(grid, 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(strip);
    painter->drawLine(QPointF(strip.left(), strip.center().y()), QPointF(strip.right(), strip.center().y()));
    // Labels: 0 and 1 on the left like the step-time axis, the name in the corner.
    QFont font = painter->font();
    font.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.85));
    painter->setFont(font);
    painter->setPen(text);
    const QFontMetricsF metrics(font);
    for (const auto& [value, label] : {std::pair{0.0, QStringLiteral("0")}, std::pair{1.0, QStringLiteral("1")}}) {
        const qreal y = strip.bottom() - value * strip.height();
        const QRectF box(strip.left() - metrics.horizontalAdvance(label) - 6, y - metrics.height() / 2,
                         metrics.horizontalAdvance(label) + 2, metrics.height());
        painter->drawText(box, Qt::AlignRight | Qt::AlignVCenter, label);
    }
    // Its name turned like the step-time axis's title, beside it.
    painter->save();
    painter->translate(strip.left() - 36.0, strip.center().y());
    painter->rotate(-90.0);
    QFont bold = font;
    bold.setBold(true);
    painter->setFont(bold);
    painter->drawText(QRectF(-strip.height(), -10.0, 2.0 * strip.height(), 20.0), Qt::AlignCenter, tr("entropy"));
    painter->restore();
    if (entropy_.isEmpty()) {
        painter->drawText(strip, Qt::AlignCenter, tr("no policy updates"));
        return;
    }
    // The points within the shown samples, at most about two per pixel.
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    // One polyline per phase: a race's runs each have their own policy, never joined.
    QList<QPolygonF> line;
    int segment = -1;
    const auto append = [&](const QPointF& p) {
        const int s = phases_.segmentOf(p.x());
        if (s != segment || line.isEmpty()) {
            line.append(QPolygonF{});
            segment = s;
        }
        line.back() << entropyPosition(p.x(), p.y());
    };
    const qsizetype stride = std::max<qsizetype>(
        1, entropy_.size() / std::max<qsizetype>(1, 2 * static_cast<qsizetype>(strip.width())));
    for (qsizetype i = 0; i < entropy_.size(); i += stride) {
        const QPointF& p = entropy_[i];
        if (p.x() >= lo && p.x() <= hi)
            append(p);
    }
    if (entropy_.back().x() >= lo && entropy_.back().x() <= hi && (entropy_.size() - 1) % stride != 0)
        append(entropy_.back());
    painter->setClipRect(strip.adjusted(0, -1, 0, 1));
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(ChartColours::forTheme(dark_).entropy, 1.2));
    for (const QPolygonF& part : line) {
        if (part.size() == 1)
            painter->drawEllipse(part.front(), 1.5, 1.5);
        else
            painter->drawPolyline(part);
    }
}

QAbstractAxis* LearningChart::stepAxis() const
{
    return log_ ? static_cast<QAbstractAxis*>(yLogAxis_) : static_cast<QAbstractAxis*>(yAxis_);
}

double LearningChart::stepAxisMin() const { return log_ ? yLogAxis_->min() : yAxis_->min(); }

double LearningChart::stepAxisMax() const { return log_ ? yLogAxis_->max() : yAxis_->max(); }

void LearningChart::setStepRange(double lo, double hi)
{
    if (log_)
        yLogAxis_->setRange(lo, hi);
    else
        setRangeWithTicks(yAxis_, lo, hi, false);
}

void LearningChart::setLogScale(bool on)
{
    if (on == log_)
        return;
    flush();
    QAbstractAxis* from = stepAxis();
    QAbstractAxis* to = on ? static_cast<QAbstractAxis*>(yLogAxis_) : static_cast<QAbstractAxis*>(yAxis_);
    const QList<QAbstractSeries*> series = chart()->series();
    for (QAbstractSeries* s : series)
        s->detachAxis(from);
    chart()->removeAxis(from); // kept (deleted with the view)
    chart()->addAxis(to, Qt::AlignLeft);
    for (QAbstractSeries* s : series)
        s->attachAxis(to);
    log_ = on;
    applyTheme(); // the new axis takes the chart's theme
    zoomed_ = false;
    setRangeWithTicks(xAxis_, 0, fittedXMax_, true);
    updateAxes(true);
    refresh();
}
void LearningChart::applyTheme()
{
    dark_ = ViewTheme::isDark(palette());
    chart()->setTheme(dark_ ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    // The theme's own background differs slightly from the window's: match the window.
    chart()->setBackgroundBrush(palette().color(QPalette::Base));
    chart()->setBackgroundRoundness(0);
    styleSeries();
}

void LearningChart::styleSeries()
{
    // One colour per series, distinct from each other and from the device colours in both
    // themes (ChartColours, tests/ui/test_colours).
    const ChartColours colours = ChartColours::forTheme(dark_);
    const auto translucent = [](QColor c, int alpha) {
        c.setAlpha(alpha);
        return c;
    };
    auto points = [](QLineSeries* series, const QColor& colour, int size) {
        QPen pen(colour, 0);
        pen.setStyle(Qt::NoPen); // markers only, no connecting line
        series->setPen(pen);
        series->setColor(colour);
        series->setMarkerSize(size);
        // A pre-drawn dot blitted per point: painting 5,000 antialiased ellipses took most
        // of the chart's repaint (about 3x slower; the end-of-run stall, docs/studio.md).
        series->setLightMarker(dotImage(colour, size));
    };
    auto line = [](QLineSeries* series, const QColor& colour, qreal width, Qt::PenStyle style = Qt::SolidLine) {
        series->setPen(QPen(colour, width, style));
    };
    points(feasibleSeries_, translucent(colours.sampled, dark_ ? 140 : 120), kMarkerSize);
    points(infeasibleSeries_, translucent(colours.outOfMemory, 160), kMarkerSize);
    for (QLineSeries* segment : eliteSegments_)
        line(segment, colours.elite, 1.5);
    line(bestSeries_, colours.best, 2.5);
    line(lowerBoundSeries_, colours.lowerBound, 1.2, Qt::DashLine);
    line(groupedBoundSeries_, colours.groupedBound, 1.2, Qt::DotLine);
    line(singleDeviceSeries_, colours.singleDevice, 1.2, Qt::DashLine);
    line(classicalSeries_, colours.classical, 1.4, Qt::DashDotLine);
    points(selectedSeries_, colours.selected, 9);
    updateLegend();
    viewport()->update(); // the entropy strip takes the palette's colours
}

void LearningChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && ViewTheme::isDark(palette()) != dark_)
        applyTheme();
}

void LearningChart::reset(int plannedSamples)
{
    feasible_.clear();
    infeasible_.clear();
    best_.clear();
    elite_.clear();
    entropy_.clear();
    phases_.clear();
    finished_ = false;
    titleAlgorithm_.clear(); // setRunTitle names the next run
    titleRestored_ = false;
    haveBest_ = false;
    bestMs_ = 0.0;
    bestSample_ = -1;
    bestFromSample_ = false;
    lowerBoundMs_ = 0.0;
    lowerBoundSource_.clear();
    polynomialBoundMs_ = 0.0;
    polynomialSource_.clear();
    provenBoundMs_ = 0.0;
    provenOptimal_ = false;
    groupedBoundMs_ = 0.0;
    groupedChunks_ = 0;
    singleDeviceMs_ = 0.0;
    classicalMs_ = std::numeric_limits<double>::quiet_NaN();
    classicalName_.clear();
    bestSeries_->setName(tr("best so far"));
    selected_ = -1;
    plannedSamples_ = plannedSamples;
    lastIndex_ = -1;
    zoomed_ = false; // a new run is followed from its start
    refresh();
    updateTitle();
}

void LearningChart::continueRun(int plannedSamples)
{
    plannedSamples_ = plannedSamples;
    selected_ = -1;
    if (zoomed_)
        resetZoom();
    scheduleRefresh();
}

namespace {

// How the legend names what gives the lower bound.
QString boundSourceLabel(const QString& source)
{
    if (source == QLatin1String("critical-path"))
        return LearningChart::tr("critical path");
    if (source == QLatin1String("device-windows"))
        return LearningChart::tr("device windows");
    if (source == QLatin1String("memory-split"))
        return LearningChart::tr("memory split");
    if (source == QLatin1String("milp"))
        return LearningChart::tr("milp, proven");
    return source; // work, fork-join
}

} // namespace

void LearningChart::setProvenBound(double opLevelMs, bool provenOptimal, double groupedMs, int groupedChunks)
{
    if (known(opLevelMs) && opLevelMs > provenBoundMs_) {
        provenBoundMs_ = opLevelMs;
        provenOptimal_ = provenOptimal;
    } else if (provenOptimal && known(opLevelMs) && opLevelMs >= provenBoundMs_) {
        provenOptimal_ = true;
    }
    if (known(groupedMs) && groupedChunks > 0) {
        groupedBoundMs_ = groupedMs;
        groupedChunks_ = groupedChunks;
    }
    setLowerBound(polynomialBoundMs_, polynomialSource_);
    scheduleRefresh();
}

void LearningChart::setLowerBound(double polynomialMs, const QString& source)
{
    polynomialBoundMs_ = polynomialMs;
    polynomialSource_ = source;
    // The largest bound valid for the graph; a grouped one never counts.
    if (provenBoundMs_ > polynomialMs) {
        lowerBoundMs_ = provenBoundMs_;
        lowerBoundSource_ = QStringLiteral("milp");
    } else {
        lowerBoundMs_ = polynomialMs;
        lowerBoundSource_ = source;
    }
}

QString LearningChart::boundNote() const
{
    QStringList parts;
    const double gap = certifiedGap();
    // milp's bound sits a millionth of the horizon below its proven optimum (its tolerances).
    if (lowerBoundSource_ == QLatin1String("milp") && provenOptimal_ && known(gap) && gap <= 1e-5)
        parts << tr("best proven optimal (milp)");
    else if (known(gap) || (haveBest_ && gap == 0.0))
        parts << (lowerBoundSource_.isEmpty() // a restored run does not know it
                      ? tr("certified gap %1% to the lower bound").arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1)
                      : tr("certified gap %1% to the lower bound (%2)")
                            .arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1)
                            .arg(boundSourceLabel(lowerBoundSource_)));
    if (groupedChunks_ > 0 && known(groupedBoundMs_))
        parts << tr("grouped bound %1 ms on %2 chunks: a bound of that grouping only, not of this graph")
                     .arg(groupedBoundMs_, 0, 'f', 3)
                     .arg(groupedChunks_);
    return parts.join(QStringLiteral("\n"));
}

double LearningChart::certifiedGap() const
{
    if (!haveBest_ || !known(lowerBoundMs_) || lowerBoundMs_ <= 0.0)
        return std::numeric_limits<double>::quiet_NaN();
    return std::max(0.0, bestMs_ - lowerBoundMs_) / lowerBoundMs_;
}

void LearningChart::addSnapshot(const LearnerSnapshot& snapshot)
{
    setLowerBound(snapshot.lowerBoundMs, snapshot.lowerBoundSource);
    // Unknown values leave the lines as they are: reset() cleared them for a new run, and a
    // continued run (which does not run the classical placers again) keeps the restored ones.
    if (known(snapshot.singleDeviceMs))
        singleDeviceMs_ = snapshot.singleDeviceMs;
    if (known(snapshot.classicalMs)) {
        if (classicalName_ != snapshot.classicalName) {
            classicalName_ = snapshot.classicalName;
            classicalSeries_->setName(classicalName_.isEmpty() ? tr("best classical placer")
                                                               : tr("best classical placer (%1)").arg(classicalName_));
        }
        classicalMs_ = snapshot.classicalMs;
    }
    if (known(snapshot.warmStartMs) && best_.isEmpty()) {
        // The starting placement was evaluated before sample 0 (not as a sample): it is
        // the best so far from the first sample on.
        best_.append(QPointF(0, snapshot.warmStartMs));
        bestMs_ = snapshot.warmStartMs;
        haveBest_ = true;
        bestFromSample_ = false;
        bestSeries_->setName(tr("best so far (from the warm start)"));
    }
    for (const LearnerSample& s : snapshot.samples) {
        lastIndex_ = std::max(lastIndex_, s.index);
        (s.feasible ? feasible_ : infeasible_).append(QPointF(s.index, s.stepMs));
        if (s.feasible && (!haveBest_ || s.stepMs < bestMs_)) {
            if (haveBest_)
                best_.append(QPointF(s.index, bestMs_)); // a step, not a slope
            best_.append(QPointF(s.index, s.stepMs));
            bestMs_ = s.stepMs;
            haveBest_ = true;
            bestSample_ = s.index;
            bestFromSample_ = true;
        }
    }
    for (const LearnerPhase& phase : snapshot.phases)
        phases_.add(phase);
    if (!snapshot.phases.empty())
        updateTitle();
    for (const LearnerUpdate& u : snapshot.updates) {
        if (u.kind == UpdateKind::CrossEntropy && std::isfinite(u.eliteThresholdMs))
            elite_.append(QPointF(u.afterSample, u.eliteThresholdMs));
        entropy_.append(QPointF(u.afterSample, u.entropy));
    }
    scheduleRefresh();
}

void LearningChart::finishRun(double bestMs)
{
    finished_ = true;
    updateTitle(); // a run that never reached its learning says so now
    if (known(bestMs) && !(haveBest_ && !(bestMs < bestMs_))) {
        // Found by evaluations that were not samples (a learner's final pick): a last step
        // down at the end of the run, so the line ends at the run's result.
        const double x = std::max(lastIndex_, 0);
        if (haveBest_)
            best_.append(QPointF(x, bestMs_));
        best_.append(QPointF(x, bestMs));
        bestMs_ = bestMs;
        haveBest_ = true;
        bestFromSample_ = false;
    }
    refresh(); // the whole run at once, not at the next throttled refill
}

QStringList LearningChart::legendNames() const
{
    QStringList names;
    for (QLegendMarker* marker : chart()->legend()->markers())
        if (marker->isVisible())
            names << marker->label();
    return names;
}

void LearningChart::updateLegend()
{
    // Only what is drawn: an empty series (no elite threshold from a PPO run, no classical
    // reference, no out-of-memory sample) has no legend entry.
    bool changed = false;
    for (QAbstractSeries* series : chart()->series()) {
        // The elite threshold's later phases are drawn without a legend entry of their own.
        const bool extraElite = series != eliteSeries_ && eliteSegments_.contains(series);
        const bool drawn = series != selectedSeries_ && !extraElite && static_cast<QLineSeries*>(series)->count() > 0;
        for (QLegendMarker* marker : chart()->legend()->markers(series))
            if (marker->isVisible() != drawn) {
                marker->setVisible(drawn);
                changed = true;
            }
    }
    // QLegend does not lay itself out again when a marker is shown again.
    if (changed && chart()->legend()->layout())
        chart()->legend()->layout()->invalidate();
}

void LearningChart::scheduleRefresh()
{
    if (refreshTimer_->isActive())
        return;
    const qint64 since = sinceRefresh_.isValid() ? sinceRefresh_.elapsed() : kMinRefreshMs;
    refreshTimer_->start(static_cast<int>(std::max<qint64>(0, kMinRefreshMs - since)));
}

void LearningChart::flush()
{
    if (refreshTimer_->isActive())
        refresh();
}

void LearningChart::refresh()
{
    refreshTimer_->stop();
    sinceRefresh_.restart();
    updateAxes();
    // Out-of-memory samples carry a penalty, not a time: all of them at the top edge, as the
    // legend says (however fast their penalised value would look).
    const double top = outOfMemoryY();
    QVector<QPointF> pinned = thinned(infeasible_);
    for (QPointF& p : pinned)
        p.setY(top);
    QVector<QPointF> best = best_;
    if (haveBest_ && lastIndex_ > best.back().x())
        best.append(QPointF(lastIndex_, bestMs_));
    feasibleSeries_->replace(thinned(feasible_));
    infeasibleSeries_->replace(pinned);
    bestSeries_->replace(best);
    const QList<QVector<QPointF>> eliteParts = phases_.split(elite_);
    while (eliteSegments_.size() < eliteParts.size()) {
        auto* segment = new QLineSeries;
        segment->setName(eliteSeries_->name());
        chart()->addSeries(segment);
        segment->attachAxis(xAxis_);
        segment->attachAxis(stepAxis());
        segment->setPen(eliteSeries_->pen());
        eliteSegments_.append(segment);
        // The legend makes the new series' marker in a later pass: hide it then too.
        QTimer::singleShot(0, this, &LearningChart::updateLegend);
    }
    for (qsizetype i = 0; i < eliteSegments_.size(); ++i)
        eliteSegments_[i]->replace(i < eliteParts.size() ? eliteParts[i] : QVector<QPointF>{});
    viewport()->update(); // the entropy strip
    const double xEnd = fittedXMax_;
    auto reference = [xEnd](QLineSeries* series, double ms) {
        series->replace(known(ms) ? QVector<QPointF>{QPointF(0, ms), QPointF(xEnd, ms)} : QVector<QPointF>{});
    };
    reference(lowerBoundSeries_, lowerBoundMs_);
    reference(groupedBoundSeries_, groupedChunks_ > 0 ? groupedBoundMs_ : 0.0);
    {
        const QString name = lowerBoundSource_.isEmpty()
            ? tr("lower bound")
            : tr("lower bound (%1)").arg(boundSourceLabel(lowerBoundSource_));
        if (lowerBoundSeries_->name() != name)
            lowerBoundSeries_->setName(name);
        const QString grouped = tr("grouped bound (%n chunks)", nullptr, groupedChunks_);
        if (groupedChunks_ > 0 && groupedBoundSeries_->name() != grouped)
            groupedBoundSeries_->setName(grouped);
    }
    reference(singleDeviceSeries_, singleDeviceMs_);
    reference(classicalSeries_, classicalMs_);
    QVector<QPointF> selected;
    if (selected_ >= 0) {
        for (const QVector<QPointF>* points : {&feasible_, &infeasible_})
            for (const QPointF& p : *points)
                if (static_cast<int>(p.x()) == selected_)
                    selected.append(QPointF(p.x(), points == &infeasible_ ? top : std::min(p.y(), stepAxisMax())));
    }
    selectedSeries_->replace(selected);
    updateLegend();
}

int LearningChart::sampleAt(const QPoint& viewPos)
{
    flush(); // the axes as drawn
    constexpr qreal kPickPixels = 6.0;
    const QPointF scenePos = mapToScene(viewPos);
    const QPointF chartPos = chart()->mapFromScene(scenePos);
    if (!chart()->plotArea().adjusted(-kPickPixels, -kPickPixels, kPickPixels, kPickPixels).contains(chartPos))
        return -1;
    const double top = outOfMemoryY();
    int best = -1;
    qreal bestDistance = kPickPixels * kPickPixels;
    // Only points drawn can be picked: the same stride as refresh().
    for (const QVector<QPointF>* points : {&feasible_, &infeasible_}) {
        const QVector<QPointF> drawn = thinned(*points);
        for (const QPointF& p : drawn) {
            const QPointF at = chart()->mapToPosition(
                QPointF(p.x(), points == &infeasible_ ? top : std::min(p.y(), stepAxisMax())), feasibleSeries_);
            const QPointF d = at - chartPos;
            const qreal distance = d.x() * d.x() + d.y() * d.y();
            if (distance <= bestDistance) {
                bestDistance = distance;
                best = static_cast<int>(p.x());
            }
        }
    }
    return best;
}

std::optional<QPoint> LearningChart::samplePosition(int index)
{
    flush();
    const double top = outOfMemoryY();
    for (const QVector<QPointF>* points : {&feasible_, &infeasible_})
        for (const QPointF& p : *points)
            if (static_cast<int>(p.x()) == index) {
                // A far outlier above the shown range counts as at the top edge.
                const QPointF at = chart()->mapToPosition(
                    QPointF(p.x(), points == &infeasible_ ? top : std::min(p.y(), stepAxisMax())), feasibleSeries_);
                return mapFromScene(chart()->mapToScene(at));
            }
    return std::nullopt;
}

void LearningChart::selectSample(int index)
{
    selected_ = index;
    refresh();
    emit sampleClicked(index);
}

void LearningChart::showBest()
{
    flush();
    const int index = bestSampleIndex();
    if (index < 0) {
        if (haveBest_)
            emit bestRequested();
        return;
    }
    if (zoomed_ && (index < xAxis_->min() || index > xAxis_->max() || bestMs_ < stepAxisMin() || bestMs_ > stepAxisMax()))
        resetZoom();
    selectSample(index);
}

void LearningChart::pan(qreal dx, qreal dy)
{
    if (dx == 0.0 && dy == 0.0)
        return;
    flush();
    zoomed_ = true;
    chart()->scroll(-dx, dy); // the data follows the mouse
}

void LearningChart::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::MiddleButton
        || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier))) {
        panning_ = true;
        panFrom_ = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton) {
        const int index = sampleAt(event->position().toPoint());
        if (index >= 0) {
            selectSample(index);
            event->accept();
            return;
        }
    }
    QChartView::mousePressEvent(event);
}

void LearningChart::mouseMoveEvent(QMouseEvent* event)
{
    if (panning_) {
        const QPoint at = event->position().toPoint();
        pan(at.x() - panFrom_.x(), at.y() - panFrom_.y());
        panFrom_ = at;
        event->accept();
        return;
    }
    QChartView::mouseMoveEvent(event);
}

void LearningChart::updateAxes(bool force)
{
    // Every range change makes each series recompute its geometry: change only when needed.
    fittedXMax_ = std::max({plannedSamples_, lastIndex_ + 1, 10});
    if (!zoomed_ && (xAxis_->max() != fittedXMax_ || xAxis_->min() != 0.0))
        setRangeWithTicks(xAxis_, 0, fittedXMax_, true);
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0.0;
    for (const QPointF& p : feasible_) {
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
    }
    for (double ref : {lowerBoundMs_, groupedChunks_ > 0 ? groupedBoundMs_ : 0.0, singleDeviceMs_, classicalMs_,
                       haveBest_ ? bestMs_ : 0.0}) {
        if (known(ref)) {
            lo = std::min(lo, ref);
            hi = std::max(hi, ref);
        }
    }
    // Early random samples can be many times slower than the baseline: keep the
    // interesting band (up to 3x the single GPU) readable. On the linear axis also up to
    // twice the best classical placer (the default's classical starts include the CPU and
    // round-robin placements, 9x m-SCT on nasnetamobile) and the single-GPU line; the log
    // axis shows everything.
    if (known(singleDeviceMs_))
        hi = std::min(hi, 3.0 * singleDeviceMs_);
    if (!log_ && known(classicalMs_)) {
        const double single = known(singleDeviceMs_) ? 1.05 * singleDeviceMs_ : 0.0;
        hi = std::min(hi, std::max(2.0 * classicalMs_, single));
    }
    const double emptyMin = log_ ? 0.1 : 0.0;
    if (!std::isfinite(lo) || hi <= 0.0) {
        fittedYMax_ = 1.0;
        if (!zoomed_ && (stepAxisMin() != emptyMin || stepAxisMax() != 1.0))
            setStepRange(emptyMin, 1.0);
        return;
    }
    if (zoomed_) {
        fittedYMax_ = std::max(fittedYMax_, hi);
        return;
    }
    // Keep the current range while the data fits and fills at least half of it (of its
    // decades, on the log axis).
    const double shownMin = stepAxisMin();
    const double shownMax = stepAxisMax();
    const bool fills = log_ ? lo > 0.0 && std::log(hi / lo) >= 0.5 * std::log(shownMax / shownMin)
                            : (hi - lo) >= 0.5 * (shownMax - shownMin);
    if (!force && lo >= shownMin && hi <= shownMax && fills && !(shownMin == emptyMin && shownMax == 1.0)) {
        fittedYMax_ = shownMax;
        return;
    }
    if (log_) {
        const double low = lo > 0.0 ? lo : hi * 1e-3;
        yLogAxis_->setRange(low / 1.15, hi * 1.15);
        fittedYMax_ = yLogAxis_->max();
        return;
    }
    const double pad = std::max((hi - lo) * 0.06, hi * 0.01);
    // Ends on ticks: rounded out to the spacing of the range they make (rounding can widen
    // it into the next spacing, so twice).
    double bottom = std::max(0.0, lo - pad);
    double top = hi + pad;
    for (int i = 0; i < 2; ++i) {
        const double step = tickStep(top - bottom, false);
        bottom = std::max(0.0, std::floor(bottom / step) * step);
        top = std::ceil(top / step) * step;
    }
    setRangeWithTicks(yAxis_, bottom, top, false);
    fittedYMax_ = yAxis_->max();
}

void LearningChart::applyTicks()
{
    // After a range change made elsewhere (QChartView's rubber band, scroll): those keep or
    // shrink the span, so the ticks laid out meanwhile were never more than now.
    setTicks(xAxis_, tickStep(xAxis_->max() - xAxis_->min(), true), true);
    if (!log_)
        setTicks(yAxis_, tickStep(yAxis_->max() - yAxis_->min(), false), false);
}

double LearningChart::outOfMemoryY() const
{
    const double lo = stepAxisMin();
    const double hi = stepAxisMax();
    if (log_ && lo > 0.0 && hi > lo)
        return hi / std::pow(hi / lo, 0.015);
    return hi - 0.015 * (hi - lo);
}

QList<QLineSeries*> LearningChart::eliteSeries() const { return eliteSegments_; }

void LearningChart::setRunTitle(const QString& algorithm, int samples, bool restored)
{
    titleAlgorithm_ = algorithm;
    titleSamples_ = samples;
    titleRestored_ = restored;
    updateTitle();
}

QString LearningChart::title() const
{
    if (titleAlgorithm_.isEmpty())
        return tr("Learning curve");
    const QString base = (titleRestored_ ? tr("Learning curve: %1, %2 samples (restored)")
                                         : tr("Learning curve: %1, %2 samples"))
                             .arg(titleAlgorithm_, numberLocale().toString(titleSamples_));
    const QString did = phases_.describe(finished_);
    return did.isEmpty() ? base : base + QStringLiteral(" — ") + did;
}

void LearningChart::updateTitle()
{
    if (chart()->title() != title())
        chart()->setTitle(title());
}

void LearningChart::paintPhaseMarks(QPainter* painter) const
{
    if (phases_.empty())
        return;
    const QRectF plot = mapFromScene(chart()->mapToScene(chart()->plotArea())).boundingRect();
    const QRectF strip = entropyStripRect();
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    if (!(hi > lo) || plot.width() < 8.0)
        return;
    const auto xOf = [&](double sample) { return plot.left() + (sample - lo) / (hi - lo) * plot.width(); };
    QColor line = palette().color(QPalette::Text);
    line.setAlpha(90);
    QColor text = palette().color(QPalette::Text);
    text.setAlpha(190);
    QFont font = painter->font();
    font.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.8));
    painter->save();
    painter->setClipping(false); // the entropy strip leaves its clip set
    painter->setFont(font);
    painter->setRenderHint(QPainter::Antialiasing, false);
    const QFontMetricsF metrics(font);
    const auto& phases = phases_.phases();
    for (size_t i = 0; i < phases.size(); ++i) {
        const double start = phases[i].firstSample;
        const double end = i + 1 < phases.size() ? phases[i + 1].firstSample : hi;
        if (end < lo || start > hi)
            continue;
        const double x = xOf(std::max(start, lo));
        if (start > lo) { // where a phase begins: a dashed line through the plot and the strip
            painter->setPen(QPen(line, 1, Qt::DashLine));
            painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            if (!strip.isEmpty())
                painter->drawLine(QPointF(x, strip.top()), QPointF(x, strip.bottom()));
        }
        const QString label = phases[i].kind == PhaseKind::LearnerRun ? tr("run %1").arg(phases[i].run + 1)
                                                                      : phases[i].label;
        const double room = xOf(std::min(end, hi)) - x - 6.0;
        if (metrics.horizontalAdvance(label) <= room) {
            painter->setPen(text);
            painter->drawText(QPointF(x + 3.0, plot.top() + metrics.ascent() + 2.0), label);
        }
    }
    painter->restore();
}

void LearningChart::zoomTo(double firstSample, double lastSample, double lowMs, double highMs)
{
    if (!(lastSample > firstSample) || !(highMs > lowMs))
        return;
    flush();
    zoomed_ = true;
    setRangeWithTicks(xAxis_, firstSample, lastSample, true);
    setStepRange(lowMs, highMs);
}

void LearningChart::resetZoom()
{
    if (!zoomed_)
        return;
    zoomed_ = false;
    setRangeWithTicks(xAxis_, 0, fittedXMax_, true);
    updateAxes(true);
    refresh();
}

void LearningChart::mouseReleaseEvent(QMouseEvent* event)
{
    if (panning_) {
        panning_ = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    if (event->button() == Qt::RightButton) {
        event->accept(); // the context menu, not QChartView's zoom-out
        return;
    }
    const double xMin = xAxis_->min();
    const double xMax = xAxis_->max();
    const double yMin = stepAxisMin();
    const double yMax = stepAxisMax();
    QChartView::mouseReleaseEvent(event); // ends a rubber band with zoomIn()
    if (xAxis_->min() != xMin || xAxis_->max() != xMax || stepAxisMin() != yMin || stepAxisMax() != yMax)
        zoomed_ = true;
}

void LearningChart::wheelEvent(QWheelEvent* event)
{
    const int steps = event->angleDelta().y() / 120;
    if (steps == 0) {
        QChartView::wheelEvent(event);
        return;
    }
    flush();
    if (event->modifiers() & Qt::ShiftModifier) { // pans the samples, like the timeline
        pan(steps * 0.1 * chart()->plotArea().width(), 0.0);
        event->accept();
        return;
    }
    // Zoom about the point under the cursor, on both axes: it stays where it is (the strip
    // follows the sample axis).
    const QPointF chartPos = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const QPointF at = chart()->mapToValue(chartPos, feasibleSeries_);
    const double factor = std::pow(0.8, steps);
    zoomed_ = true;
    setRangeWithTicks(xAxis_, at.x() - (at.x() - xAxis_->min()) * factor, at.x() + (xAxis_->max() - at.x()) * factor,
                      true);
    if (log_) { // the same in decades
        const double about = std::max(at.y(), 1e-300);
        setStepRange(about / std::pow(about / stepAxisMin(), factor), about * std::pow(stepAxisMax() / about, factor));
    } else {
        setStepRange(at.y() - (at.y() - stepAxisMin()) * factor, at.y() + (stepAxisMax() - at.y()) * factor);
    }
    event->accept();
}

void LearningChart::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && zoomed_) {
        resetZoom();
        event->accept();
        return;
    }
    const QRectF plot = chart()->plotArea();
    switch (event->key()) {
    case Qt::Key_B:
        showBest();
        break;
    case Qt::Key_L:
        setLogScale(!log_);
        break;
    case Qt::Key_Left:
        pan(0.1 * plot.width(), 0.0);
        break;
    case Qt::Key_Right:
        pan(-0.1 * plot.width(), 0.0);
        break;
    case Qt::Key_Up:
        pan(0.0, 0.1 * plot.height());
        break;
    case Qt::Key_Down:
        pan(0.0, -0.1 * plot.height());
        break;
    default:
        QChartView::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool LearningChart::savePng(const QString& path)
{
    flush();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!grab().save(&buffer, "PNG"))
        return false;
    try {
        writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    } catch (const InputError&) {
        return false;
    }
    return true;
}

void LearningChart::saveSvg(const QString& path)
{
    flush();
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size());
    svg.setViewBox(QRect(QPoint(0, 0), size()));
    svg.setResolution(logicalDpiX()); // text keeps its on-screen size against the plot
    svg.setTitle(chart()->title());
    svg.setDescription(QStringLiteral("Learning curve exported by Post Studio"));
    {
        QPainter painter(&svg);
        painter.setRenderHint(QPainter::Antialiasing);
        // The scene, not the widget: vector output rather than a pixmap of the screen.
        scene()->render(&painter, QRectF(QPoint(0, 0), size()), sceneRect());
        paintEntropyStrip(&painter); // the view's foreground, which scene()->render() leaves out
        paintPhaseMarks(&painter);
    }
    const QByteArray& bytes = buffer.data();
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
}

void LearningChart::saveCsv(const QString& path) const
{
    std::ostringstream out;
    out.precision(10);
    out << "series,x,y\n";
    auto write = [&out](const char* name, const QVector<QPointF>& points) {
        for (const QPointF& p : points)
            out << name << ',' << p.x() << ',' << p.y() << '\n';
    };
    write("sampled", feasible_);
    write("out_of_memory", infeasible_);
    write("best", best_);
    write("elite_threshold", elite_);
    write("entropy", entropy_);
    if (known(lowerBoundMs_))
        out << "lower_bound,0," << lowerBoundMs_ << '\n';
    if (groupedChunks_ > 0 && known(groupedBoundMs_))
        out << "grouped_bound,0," << groupedBoundMs_ << '\n';
    if (known(singleDeviceMs_))
        out << "single_gpu,0," << singleDeviceMs_ << '\n';
    if (known(classicalMs_))
        out << "best_classical,0," << classicalMs_ << '\n';
    writeFileAtomically(path.toStdString(), out.str());
}

void LearningChart::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    QAction* reset = menu.addAction(tr("Reset Zoom"), this, &LearningChart::resetZoom);
    reset->setShortcut(Qt::Key_Escape);
    reset->setEnabled(zoomed_);
    QAction* best = menu.addAction(tr("Show Best"), this, &LearningChart::showBest);
    best->setShortcut(Qt::Key_B);
    best->setEnabled(haveBest_);
    QAction* log = menu.addAction(tr("Logarithmic Step Times"), this, [this](bool on) { setLogScale(on); });
    log->setCheckable(true);
    log->setChecked(log_);
    log->setShortcut(Qt::Key_L);
    menu.addSeparator();
    menu.addAction(tr("Save Chart as PNG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Chart"), QStringLiteral("learning.png"),
                                                          tr("PNG images (*.png)"));
        if (!path.isEmpty() && !savePng(path))
            QMessageBox::warning(this, tr("Save Chart"), tr("Could not write %1.").arg(path));
    });
    menu.addAction(tr("Save Chart as SVG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Chart"), QStringLiteral("learning.svg"),
                                                          tr("SVG images (*.svg)"));
        if (path.isEmpty())
            return;
        try {
            saveSvg(path);
        } catch (const InputError& e) {
            QMessageBox::warning(this, tr("Save Chart"), QString::fromUtf8(e.what()));
        }
    });
    menu.addAction(tr("Save Points as CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Points"), QStringLiteral("learning.csv"),
                                                          tr("CSV files (*.csv)"));
        if (path.isEmpty())
            return;
        try {
            saveCsv(path);
        } catch (const InputError& e) {
            QMessageBox::warning(this, tr("Save Points"), QString::fromUtf8(e.what()));
        }
    });
    menu.exec(event->globalPos());
}

} // namespace post
