#include "core/classic/MemoryFeedback.h"

#include "core/cluster/Cluster.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace post {

PlaceResult placeWithMemoryFeedback(const PlaceContext& context, const BudgetedPlacement& build,
                                    PlacerClock::time_point start, int maxRounds)
{
    const Cluster& cluster = context.cluster;
    std::vector<double> budgets;
    for (const Device& d : cluster.devices())
        budgets.push_back(d.memoryBytes);

    Simulator simulator(context.graph, cluster, context.sim);
    Placement best;
    SimResult bestRun;
    double bestOvershoot = std::numeric_limits<double>::infinity();
    Placement previous;
    int rounds = 0;
    while (rounds < maxRounds) {
        Placement placement = build(budgets);
        applyCpuPinning(context.graph, cluster, placement); // ops without a GPU kernel stay on the CPU
        if (rounds > 0 && placement == previous)
            break; // tighter budgets changed nothing: more rounds would not either
        if (auto problem = placementProblem(context.graph, cluster, placement))
            throw std::logic_error("classical placer produced an invalid placement: " + *problem);
        ++rounds;
        const SimResult& run = simulator.run(placement);
        double overshoot = 0.0;
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
            overshoot += std::max(0.0, run.peakMemoryBytes[static_cast<size_t>(d)] - cluster.device(d).memoryBytes);
        if (run.feasible || overshoot < bestOvershoot) {
            best = placement;
            bestRun = run;
            bestOvershoot = overshoot;
        }
        if (run.feasible)
            break;
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
            const double peak = run.peakMemoryBytes[static_cast<size_t>(d)];
            const double capacity = cluster.device(d).memoryBytes;
            if (peak > capacity)
                budgets[static_cast<size_t>(d)] *= capacity / peak * 0.97;
        }
        previous = std::move(placement);
    }
    return reportPlacement(context, std::move(best), start, rounds, &bestRun);
}

} // namespace post
