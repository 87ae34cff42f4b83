#include "ui/learn/BestPlacementFeed.h"

#include "ui/document/DocumentHub.h"
#include "ui/document/SimulatedStep.h"
#include "ui/document/StepSimulation.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/learn/PlacementCoalescer.h"

namespace post {

BestPlacementFeed::BestPlacementFeed(DocumentHub* hub, LearnerPanel* learner, QObject* parent)
    : QObject(parent)
    , hub_(hub)
    , coalescer_(new PlacementCoalescer(this))
{
    // First on the run's end: its final best is shown before anything else hears of the end.
    connect(learner, &LearnerPanel::finished, coalescer_, &PlacementCoalescer::flush);
    connect(learner, &LearnerPanel::runStarted, this, [this, learner] {
        algorithm_ = learner->algorithm();
        seed_ = learner->seed();
        seedKnown_ = learner->continuedFrom() == 0;
        start_ = startOf(learner->runStart());
    });
    connect(learner, &LearnerPanel::bestPlacement, coalescer_, &PlacementCoalescer::offer);
    connect(coalescer_, &PlacementCoalescer::apply, this,
            [this](const Placement& placement) { hub_->setPlacement(placement, provenance(), this); });
    connect(hub_, &DocumentHub::documentChanged, this, [this] {
        if (hub_->origin() != this)
            coalescer_->drop();
    });
    // None while the shown best's step is simulated: the waiting one goes when it is back.
    StepSimulation* steps = hub_->steps();
    coalescer_->setBusy([steps] { return steps->isBusy(); });
    connect(steps, &StepSimulation::busyChanged, coalescer_, [this](bool busy) {
        if (!busy)
            coalescer_->retry();
    });
}

PlacementProvenance BestPlacementFeed::provenance() const
{
    PlacementProvenance made;
    made.algorithm = algorithm_.toStdString();
    if (!algorithm_.isEmpty() && seedKnown_)
        made.seed = seed_;
    if (!algorithm_.isEmpty())
        made.start = start_;
    return made;
}

std::optional<PlacementStart> BestPlacementFeed::startOf(const Placement& start) const
{
    const DocumentPtr& shown = hub_->document();
    if (start.empty() || !shown || !shown->graph || !shown->cluster
        || start.size() != static_cast<size_t>(shown->opCount()))
        return std::nullopt;
    PlacementStart made;
    made.fingerprint = placementFingerprint(*shown->graph, *shown->cluster, start);
    // The shown step is the start's when it is of that placement, cluster and rule (it was
    // simulated for the window already: no second simulation here).
    const StepPtr& step = hub_->steps()->current();
    if (step && step->document && step->document->placement == start && step->document->cluster == shown->cluster
        && step->document->sim.dispatch == shown->sim.dispatch)
        made.stepTimeUs = step->result.stepTimeUs;
    return made;
}

} // namespace post
