#include "core/classic/ClassicalReport.h"

#include "core/place/ProgressObserver.h"
#include "core/sim/Simulator.h"

#include <stdexcept>

namespace post {

PlaceResult reportPlacement(const PlaceContext& context, Placement placement, PlacerClock::time_point start,
                            int samplesUsed, const SimResult* simulated)
{
    // Ops without a GPU kernel stay on the CPU whatever the placer chose (docs/placers.md).
    if (applyCpuPinning(context.graph, context.cluster, placement) > 0)
        simulated = nullptr; // the placer's own run timed another placement
    if (auto problem = placementProblem(context.graph, context.cluster, placement))
        throw std::logic_error("classical placer produced an invalid placement: " + *problem);
    PlaceResult result;
    if (simulated) {
        result.bestStepTimeUs = simulated->stepTimeUs;
        result.feasible = simulated->feasible;
    } else {
        Simulator simulator(context.graph, context.cluster, context.sim);
        const SimResult& run = simulator.run(placement);
        result.bestStepTimeUs = run.stepTimeUs;
        result.feasible = run.feasible;
    }
    result.best = std::move(placement);
    result.samplesUsed = samplesUsed;
    if (context.observer)
        context.observer->onSample(SampleEvent{samplesUsed - 1, result.bestStepTimeUs, result.feasible, &result.best});
    result.wallSeconds = std::chrono::duration<double>(PlacerClock::now() - start).count();
    return result;
}

} // namespace post
