#include "core/learn/PlacementEvaluator.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace post {

PlacementEvaluator::PlacementEvaluator(const Graph& graph, const Cluster& cluster, SimOptions sim, PenaltyOptions penalty)
    : simulator_(graph, cluster, sim)
    , penalty_(penalty)
    , referenceUs_(referenceTimeUs(graph, cluster))
    , memoryBytes_(finiteMemoryBytes(cluster))
{
}

double PlacementEvaluator::referenceTimeUs(const Graph& graph, const Cluster& cluster)
{
    double best = std::numeric_limits<double>::infinity();
    for (const Device& device : cluster.devices()) {
        if (device.peakFlops > 0.0 && device.memoryBandwidth > 0.0) { // ops may use the roofline here
            double total = 0.0;
            for (const Op& op : graph.ops())
                total += opTimeUs(op, device);
            best = std::min(best, total);
        } else {
            best = std::min(best, graph.totalTimeUs(device.kind) / device.speed);
        }
    }
    // A graph of zero-cost ops still needs a positive scale for the penalty to bite.
    return std::isfinite(best) && best > 0.0 ? best : 1.0;
}

double PlacementEvaluator::finiteMemoryBytes(const Cluster& cluster)
{
    double total = 0.0;
    for (const Device& device : cluster.devices())
        if (std::isfinite(device.memoryBytes))
            total += device.memoryBytes;
    return total > 0.0 ? total : 1.0;
}

double PlacementEvaluator::penalisedStepTimeUs(double rawUs, bool feasible, double excessBytes, double referenceUs,
                                               double memoryBytes, const PenaltyOptions& penalty)
{
    if (feasible)
        return rawUs;
    if (penalty.kind == InfeasiblePenalty::Fixed)
        return referenceUs * penalty.fixedFactor;
    return rawUs + referenceUs * (penalty.base + penalty.slope * excessBytes / memoryBytes);
}

Evaluation PlacementEvaluator::evaluate(const Placement& placement)
{
    const SimResult& sim = simulator_.run(placement);
    const Cluster& cluster = simulator_.cluster();
    Evaluation e;
    e.rawStepTimeUs = sim.stepTimeUs;
    e.feasible = sim.feasible;
    for (DeviceId d = 0; d < cluster.deviceCount() && d < static_cast<DeviceId>(sim.peakMemoryBytes.size()); ++d)
        e.excessMemoryBytes += std::max(0.0, sim.peakMemoryBytes[static_cast<size_t>(d)] - cluster.device(d).memoryBytes);
    e.stepTimeUs = penalisedStepTimeUs(e.rawStepTimeUs, e.feasible, e.excessMemoryBytes, referenceUs_, memoryBytes_,
                                       penalty_);
    return e;
}

} // namespace post
