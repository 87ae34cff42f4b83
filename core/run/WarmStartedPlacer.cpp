#include "core/run/WarmStartedPlacer.h"

#include "core/classic/ClassicalPlacers.h"
#include "core/cluster/Cluster.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"

#include <algorithm>
#include <chrono>

namespace post {
namespace {

// Shifts sample numbers so a second run continues the first one's numbering.
class OffsetObserver : public ProgressObserver {
public:
    OffsetObserver(ProgressObserver* target, int offset)
        : target_(target)
        , offset_(offset)
    {
    }
    void onSample(const SampleEvent& event) override
    {
        SampleEvent e = event;
        e.index += offset_;
        target_->onSample(e);
    }
    void onUpdate(const UpdateEvent& event) override
    {
        UpdateEvent e = event;
        e.afterSample += offset_;
        target_->onUpdate(e);
    }
    void onPhase(const PhaseEvent& event) override
    {
        PhaseEvent e = event;
        e.firstSample += offset_;
        target_->onPhase(e);
    }
    double takePausedSeconds() override { return target_->takePausedSeconds(); }

private:
    ProgressObserver* target_;
    int offset_;
};

} // namespace

WarmStartedPlacer::WarmStartedPlacer(std::string learner, std::vector<std::string> starters, std::string name,
                                     LearnerOptions options)
    : learner_(std::move(learner))
    , starters_(std::move(starters))
    , name_(std::move(name))
    , options_(std::move(options))
{
}

PlaceResult WarmStartedPlacer::place(const PlaceContext& context)
{
    const auto began = std::chrono::steady_clock::now();
    ClassicalRunHooks hooks;
    hooks.skipFailures = false; // a starter that does not apply is an error of this name
    // The live views show the learner's samples only.
    const std::vector<ClassicalStart> starts = runClassicalPlacers(context, starters_, hooks);
    int classicalSamples = 0;
    for (const ClassicalStart& s : starts)
        classicalSamples += s.result.samplesUsed;
    const PlaceResult& start = bestStart(starts, context.cluster.name(), name_).result;

    LearnerOptions warmOptions = options_;
    warmOptions.warmStart = start.best;
    PlaceContext warmContext = context;
    // The classical placers' evaluations come out of the same budget, so every
    // algorithm in a comparison gets exactly `samples` simulations.
    const int learnerBudget = std::max(2, context.samples - classicalSamples);
    warmContext.samples = learnerBudget / 2;
    // A time budget is split the same way: the warm run ends at half of it, the cold one at the end.
    auto secondsLeft = [&](double share) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        return std::max(1e-3, share * context.seconds - elapsed);
    };
    if (context.seconds > 0.0)
        warmContext.seconds = secondsLeft(0.5);
    PlaceResult result = makeLearner(learner_, warmOptions)->place(warmContext);

    const int coldSamples = learnerBudget - result.samplesUsed;
    if (!result.stopped && coldSamples > 0) {
        PlaceContext coldContext = context;
        coldContext.samples = coldSamples;
        if (context.seconds > 0.0)
            coldContext.seconds = secondsLeft(1.0);
        OffsetObserver shifted(context.observer, result.samplesUsed);
        if (context.observer)
            coldContext.observer = &shifted;
        PlaceResult cold = makeLearner(learner_, options_)->place(coldContext);
        const int used = result.samplesUsed + cold.samplesUsed;
        const bool stopped = cold.stopped;
        if (betterResult(cold, result))
            result = std::move(cold);
        result.samplesUsed = used;
        result.stopped = stopped;
    }
    if (betterResult(start, result)) {
        result.best = start.best;
        result.bestStepTimeUs = start.bestStepTimeUs;
        result.feasible = start.feasible;
    }
    result.samplesUsed += classicalSamples;
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return result;
}

} // namespace post
