// LearningChart: the axes (fitted to the data, zoomed, panned, linear or log) and their round ticks.
#include "ui/charts/LearningChart.h"

#include "ui/charts/ChartTicks.h"
#include "ui/charts/LearningChartInternal.h"

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace post {

using chartdetail::known;

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
        setChartRange(yAxis_, lo, hi, false);
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
    setChartRange(xAxis_, 0, fittedXMax_, true);
    updateAxes(true);
    refresh();
}

void LearningChart::pan(qreal dx, qreal dy)
{
    if (dx == 0.0 && dy == 0.0)
        return;
    flush();
    zoomed_ = true;
    chart()->scroll(-dx, dy); // the data follows the mouse
}

void LearningChart::updateAxes(bool force)
{
    // Every range change makes each series recompute its geometry: change only when needed.
    // While a run goes, its whole budget (under a time limit: a round number past the last
    // sample, at most the budget); once it has ended (short of the budget: a time limit or
    // Stop), the samples it drew.
    int planned = ended_ ? 0 : plannedSamples_;
    if (timeLimited_ && !ended_) {
        // The first of 10, 20, 50, 100, 200, ... at least a fifth past the last sample.
        const double wanted = 1.2 * (lastIndex_ + 1);
        double round = 10.0;
        for (int i = 0; round < wanted && round < 2e9; ++i)
            round *= i % 3 == 1 ? 2.5 : 2.0; // 10 -> 20 -> 50 -> 100 -> ...
        planned = std::min(planned, static_cast<int>(std::min(round, 2e9)));
    }
    fittedXMax_ = std::max({planned, lastIndex_ + 1, 10});
    if (!zoomed_ && (xAxis_->max() != fittedXMax_ || xAxis_->min() != 0.0))
        setChartRange(xAxis_, 0, fittedXMax_, true);
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0.0;
    for (const QPointF& p : feasible_) {
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
    }
    for (double ref : {lowerBoundMs_, groupedChunks_ > 0 ? groupedBoundMs_ : 0.0, singleDeviceMs_, classicalMs_,
                       hostDispatchMs_, haveBest_ ? bestMs_ : 0.0}) {
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
    // The host-dispatch line is a reference the legend names with its figure: it is drawn, even
    // above that band (eager PyTorch's host thread can take longer than any placement's step).
    if (known(hostDispatchMs_))
        hi = std::max(hi, hostDispatchMs_);
    // Nothing to show yet: whole-number ticks, every one labelled (0-10 ms by 2; on the log
    // axis the decades 1, 10, 100 ms: its 0.1-1 range labelled only "1").
    const double emptyMin = log_ ? 1.0 : 0.0;
    const double emptyMax = log_ ? 100.0 : 10.0;
    if (!std::isfinite(lo) || hi <= 0.0) {
        fittedYMax_ = emptyMax;
        if (!zoomed_ && (stepAxisMin() != emptyMin || stepAxisMax() != emptyMax))
            setStepRange(emptyMin, emptyMax);
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
    if (!force && lo >= shownMin && hi <= shownMax && fills && !(shownMin == emptyMin && shownMax == emptyMax)) {
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
        const double step = chartTickStep(top - bottom, false);
        bottom = std::max(0.0, std::floor(bottom / step) * step);
        top = std::ceil(top / step) * step;
    }
    setChartRange(yAxis_, bottom, top, false);
    fittedYMax_ = yAxis_->max();
}

void LearningChart::applyTicks()
{
    // After a range change made elsewhere (QChartView's rubber band, scroll): those keep or
    // shrink the span, so the ticks laid out meanwhile were never more than now.
    setChartTicks(xAxis_, chartTickStep(xAxis_->max() - xAxis_->min(), true), true);
    if (!log_)
        setChartTicks(yAxis_, chartTickStep(yAxis_->max() - yAxis_->min(), false), false);
}

void LearningChart::zoomTo(double firstSample, double lastSample, double lowMs, double highMs)
{
    if (!(lastSample > firstSample) || !(highMs > lowMs))
        return;
    flush();
    zoomed_ = true;
    setChartRange(xAxis_, firstSample, lastSample, true);
    setStepRange(lowMs, highMs);
}

void LearningChart::resetZoom()
{
    if (!zoomed_)
        return;
    zoomed_ = false;
    setChartRange(xAxis_, 0, fittedXMax_, true);
    updateAxes(true);
    refresh();
}

} // namespace post
