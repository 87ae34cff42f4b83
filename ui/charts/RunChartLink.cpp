#include "ui/charts/RunChartLink.h"

#include "ui/charts/LearningChart.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/BestPlacementFeed.h"
#include "ui/learn/LearnerPanel.h"

#include <limits>

namespace post {

RunChartLink::RunChartLink(LearningChart* chart, LearnerPanel* learner, DocumentHub* hub, const BestPlacementFeed* feed,
                           BestLookup best, QObject* parent)
    : QObject(parent)
    , chart_(chart)
    , learner_(learner)
    , hub_(hub)
    , feed_(feed)
    , best_(std::move(best))
{
    connect(learner, &LearnerPanel::runStarted, this, &RunChartLink::runStarted);
    connect(learner, &LearnerPanel::resetRequested, chart, [chart] { chart->reset(); });
    connect(learner, &LearnerPanel::snapshot, chart, &LearningChart::addSnapshot);
    connect(learner, &LearnerPanel::finished, this, [this](const LearnerOutcome& outcome) {
        if (!learner_->showsRun())
            return; // a run of another graph or cluster, stopped when this one came: the chart shows this one
        const PlaceResult& r = outcome.result;
        const bool placed = outcome.error.isEmpty() && r.feasible;
        chart_->finishRun(placed ? r.bestStepTimeUs / 1000.0 // NaN: ended, nothing to add
                                 : std::numeric_limits<double>::quiet_NaN());
        if (outcome.error.isEmpty() && r.bounds.any()) // milp's bounds
            showBounds(r.bounds);
    });
    connect(hub, &DocumentHub::provenBoundFound, this, &RunChartLink::showBound);
    connect(chart, &LearningChart::sampleClicked, this, &RunChartLink::showSample);
    connect(chart, &LearningChart::bestRequested, this, &RunChartLink::showBest);
}

void RunChartLink::runStarted(int samples)
{
    if (learner_->continuedFrom() > 0) // a restored run goes on: its points stay
        chart_->continueRun(samples);
    else
        chart_->reset(samples);
    chart_->setTimeLimited(learner_->timeLimit() > 0.0);
    chart_->setRunTitle(learner_->algorithm(), samples, false, learner_->dispatch());
}

void RunChartLink::showBound(const ProvenBound& bound)
{
    // Only a bound of the chart's run: its graph on its cluster.
    if (bound.cluster != 0 && bound.graphId == learner_->runGraphId()
        && bound.cluster == reinterpret_cast<quintptr>(learner_->runCluster()))
        showBounds(bound.bounds);
}

void RunChartLink::showBounds(const ProvenBounds& bounds)
{
    chart_->setProvenBound(bounds.opLevelUs() / 1000.0, bounds.provenOptimal, bounds.groupedBoundUs / 1000.0,
                           bounds.groupedBoundGroups);
}

bool RunChartLink::fitsDocument(const Placement& placement) const
{
    const DocumentPtr& document = hub_->document();
    return !placement.empty() && document && placement.size() == static_cast<size_t>(document->opCount());
}

void RunChartLink::showSample(int index)
{
    int shown = -1;
    Placement placement = learner_->samplePlacement(index, &shown);
    if (!fitsDocument(placement)) {
        emit placementStatus(tr("Sample %1's placement was not kept").arg(index));
        return;
    }
    hub_->setPlacement(std::move(placement), feed_->provenance(), chart_);
    emit placementStatus(shown == index
                             ? tr("Showing sample %1's placement").arg(index)
                             : tr("Showing sample %1's placement (the nearest kept to %2)").arg(shown).arg(index));
}

void RunChartLink::showBest()
{
    // The best so far is no sample (a warm start, a final pick): the run's best placement.
    Placement best = best_ ? best_() : Placement{};
    if (!fitsDocument(best)) {
        emit placementStatus(tr("The best placement is not known yet (it is shown when the run ends)"));
        return;
    }
    hub_->setPlacement(std::move(best), feed_->provenance(), chart_);
    emit placementStatus(tr("Showing the run's best placement"));
}

} // namespace post
