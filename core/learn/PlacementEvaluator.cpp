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
        // Ops may use the roofline or their time for the device's type here.
        if ((device.peakFlops > 0.0 && device.memoryBandwidth > 0.0) || !device.type.empty()) {
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

void PlacementEvaluator::setReference(const Placement& reference)
{
    if (!incremental_)
        incremental_ = std::make_unique<IncrementalSimulator>(simulator_.graph(), simulator_.cluster(),
                                                              simulator_.options());
    pendingReference_ = reference;
    referencePending_ = true;
}

IncrementalSimulator::Stats PlacementEvaluator::incrementalStats() const
{
    return incremental_ ? incremental_->stats() : IncrementalSimulator::Stats{};
}

Evaluation PlacementEvaluator::evaluate(const Placement& placement)
{
    // Resuming costs about a tenth of a run besides what it replays: for a resume point
    // before a fifth of the reference's step (and for a learner's samples, far from the
    // reference) the plain simulator is used.
    bool resume = false;
    if (incremental_) {
        const bool known = incremental_->hasReference();
        const double worth = known ? 0.2 * incremental_->referenceResult().stepTimeUs : 0.0;
        if (referencePending_ && placement.size() == pendingReference_.size()
            && (!known || incremental_->firstReadUs(placement, pendingReference_, worth) >= worth)) {
            referencePending_ = false;
            incremental_->setReference(pendingReference_); // resumed from the previous one if it can
        }
        if (!referencePending_ && incremental_->hasReference())
            resume = incremental_->resumeTimeUs(placement) >= 0.2 * incremental_->referenceResult().stepTimeUs;
    }
    resumedEvaluations_ += resume ? 1 : 0;
    const SimResult& sim = resume ? incremental_->run(placement) : simulator_.run(placement);
    return evaluationOf(sim, simulator_.cluster(), referenceUs_, memoryBytes_, penalty_);
}

Evaluation PlacementEvaluator::evaluationOf(const SimResult& sim, const Cluster& cluster, double referenceUs,
                                            double memoryBytes, const PenaltyOptions& penalty)
{
    Evaluation e;
    e.rawStepTimeUs = sim.stepTimeUs;
    e.feasible = sim.feasible;
    for (DeviceId d = 0; d < cluster.deviceCount() && d < static_cast<DeviceId>(sim.peakMemoryBytes.size()); ++d)
        e.excessMemoryBytes += std::max(0.0, sim.peakMemoryBytes[static_cast<size_t>(d)] - cluster.device(d).memoryBytes);
    e.stepTimeUs = penalisedStepTimeUs(e.rawStepTimeUs, e.feasible, e.excessMemoryBytes, referenceUs, memoryBytes,
                                       penalty);
    return e;
}

} // namespace post
