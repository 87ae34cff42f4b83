#include "ui/charts/LearningChart.h"

#include "core/sim/LowerBound.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"
#include "ui/charts/ChartColours.h"
#include "ui/charts/ChartTicks.h"
#include "ui/charts/LearningChartInternal.h"
#include "ui/theme/ViewTheme.h"
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

using chartdetail::known;

namespace {

// Drawing tens of thousands of markers stalls the GUI thread for hundreds of ms; past
// this many, the chart shows an even stride of the samples (the CSV keeps all of them,
// and the best-so-far line is exact whatever is drawn).
constexpr int kMaxDrawnSamples = 5000;

// Snapshots come every 50 ms; the chart is refilled and repainted at most this often while
// they stream (each refill re-lays out every drawn point: the GUI thread's largest share of
// a run, which a 2-core machine takes from the search; docs/performance.md).
constexpr qint64 kMinRefreshMs = 200;

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
    add(hostDispatchSeries_, tr("host dispatch"));
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

void LearningChart::setHostDispatch(double ms)
{
    const double value = known(ms) ? ms : std::numeric_limits<double>::quiet_NaN();
    if (value == hostDispatchMs_ || (std::isnan(value) && std::isnan(hostDispatchMs_)))
        return; // every placement of the graph arrives with its figure: the same, mostly
    hostDispatchMs_ = value;
    // The figure in the legend too: the line may lie above the band the axis shows. It comes
    // before the words, which the legend cuts first where its entries outgrow the chart's
    // width (seven of them with a classical placer's name and a bound's source).
    hostDispatchSeries_->setName(known(hostDispatchMs_)
                                     ? tr("host dispatch %1 (eager PyTorch)").arg(formatMilliseconds(hostDispatchMs_))
                                     : tr("host dispatch"));
    refresh();
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
    ended_ = false;
    timeLimited_ = false;
    lastIndex_ = -1;
    zoomed_ = false; // a new run is followed from its start
    refresh();
    updateTitle();
}

void LearningChart::continueRun(int plannedSamples)
{
    plannedSamples_ = plannedSamples;
    ended_ = false;
    timeLimited_ = false;
    selected_ = -1;
    if (zoomed_)
        resetZoom();
    scheduleRefresh();
}

namespace {

// How the legend names what gives the lower bound.
QString legendSourceLabel(const QString& source)
{
    return source == QLatin1String("milp") ? LearningChart::tr("milp, proven") : boundSourceLabel(source);
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
    // The largest bound valid for the graph; a grouped one never counts. A milp run that proved
    // its placement optimal keeps its own bound where the polynomial one is no more than its
    // tolerance above it (a millionth of the horizon): the proof is the solver's.
    const bool proof = provenOptimal_ && provenBoundMs_ >= polynomialMs * (1.0 - 1e-5);
    if (provenBoundMs_ > polynomialMs || (known(provenBoundMs_) && provenBoundMs_ > 0.0 && proof)) {
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
    if (lowerBoundSource_ == QLatin1String("milp") && provenOptimal_ && std::isfinite(gap) && gap <= 1e-5)
        parts << tr("best proven optimal (milp)");
    else if (known(gap) || (haveBest_ && gap == 0.0))
        parts << (lowerBoundSource_.isEmpty() // a restored run does not know it
                      ? tr("certified gap %1% to the lower bound").arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1)
                      : tr("certified gap %1% to the lower bound (%2)")
                            .arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1)
                            .arg(legendSourceLabel(lowerBoundSource_)));
    if (groupedChunks_ > 0 && known(groupedBoundMs_))
        parts << tr("grouped bound %1 ms on %2 chunks: a bound of that grouping only, not of this graph")
                     .arg(groupedBoundMs_, 0, 'f', 3)
                     .arg(groupedChunks_);
    return parts.join(QStringLiteral("\n"));
}

double LearningChart::certifiedGap() const
{
    if (!haveBest_ || !known(lowerBoundMs_))
        return std::numeric_limits<double>::quiet_NaN();
    return post::certifiedGap(bestMs_, lowerBoundMs_);
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

void LearningChart::setTimeLimited(bool limited)
{
    timeLimited_ = limited;
    scheduleRefresh();
}

void LearningChart::finishRun(double bestMs)
{
    finished_ = true;
    ended_ = true;
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
            : tr("lower bound (%1)").arg(legendSourceLabel(lowerBoundSource_));
        if (lowerBoundSeries_->name() != name)
            lowerBoundSeries_->setName(name);
        const QString grouped = tr("grouped bound (%n chunks)", nullptr, groupedChunks_);
        if (groupedChunks_ > 0 && groupedBoundSeries_->name() != grouped)
            groupedBoundSeries_->setName(grouped);
    }
    reference(singleDeviceSeries_, singleDeviceMs_);
    reference(classicalSeries_, classicalMs_);
    reference(hostDispatchSeries_, hostDispatchMs_);
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

double LearningChart::outOfMemoryY() const
{
    const double lo = stepAxisMin();
    const double hi = stepAxisMax();
    if (log_ && lo > 0.0 && hi > lo)
        return hi / std::pow(hi / lo, 0.015);
    return hi - 0.015 * (hi - lo);
}

QList<QLineSeries*> LearningChart::eliteSeries() const { return eliteSegments_; }

void LearningChart::setRunTitle(const QString& algorithm, int samples, bool restored, Dispatch dispatch)
{
    titleAlgorithm_ = algorithm;
    titleSamples_ = samples;
    titleRestored_ = restored;
    titleDispatch_ = dispatch;
    updateTitle();
}

QString LearningChart::title() const
{
    if (titleAlgorithm_.isEmpty())
        return tr("Learning curve");
    const QLocale numbers = numberLocale();
    const int drawn = lastIndex_ + 1;
    QString base;
    if (titleSamples_ <= 0) // no sample budget (milp, a classical placer): what it simulated
        base = finished_ && drawn > 0 ? tr("Search: %1, %2 simulations").arg(titleAlgorithm_, numbers.toString(drawn))
                                      : tr("Search: %1").arg(titleAlgorithm_);
    else if (finished_ && drawn > 0 && drawn < titleSamples_) // a time limit or Stop ended it
        base = tr("Learning curve: %1, %2 of %3 samples")
                   .arg(titleAlgorithm_, numbers.toString(drawn), numbers.toString(titleSamples_));
    else
        base = tr("Learning curve: %1, %2 samples").arg(titleAlgorithm_, numbers.toString(titleSamples_));
    if (titleDispatch_ != Dispatch::ReadyOrder) // every step time drawn is that rule's
        base += tr(", %1 dispatch").arg(QString::fromLatin1(dispatchName(titleDispatch_)));
    if (titleRestored_)
        base += tr(" (restored)");
    const QString did = phases_.describe(finished_);
    return did.isEmpty() ? base : base + QStringLiteral(" — ") + did;
}

void LearningChart::updateTitle()
{
    if (chart()->title() != title())
        chart()->setTitle(title());
}

} // namespace post
