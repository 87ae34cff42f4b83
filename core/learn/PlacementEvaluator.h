#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/learn/StepEvaluator.h"
#include "core/sim/IncrementalSimulator.h"
#include "core/sim/Simulator.h"

#include <memory>

namespace post {

class Graph;
class Cluster;

// Scores placements with the simulator, penalising those that run out of memory.
class PlacementEvaluator final : public StepEvaluator {
public:
    PlacementEvaluator(const Graph& graph, const Cluster& cluster, SimOptions sim, PenaltyOptions penalty);

    Evaluation evaluate(const Placement& placement) override;

    // Placements evaluated from now on that differ from `reference` in a few ops (a local
    // search's candidates) are re-timed by resuming its simulation (IncrementalSimulator)
    // when the resume point is late enough to pay: the same evaluations, bit for bit. The
    // reference is simulated lazily, by the first evaluate() that can resume from it late
    // (estimated with the previous reference's times), so that references no candidate
    // can use cost nothing.
    void setReference(const Placement& reference);
    // How the incremental simulator ran (zeros before the first setReference), and how many
    // evaluations it re-timed.
    IncrementalSimulator::Stats incrementalStats() const;
    long resumedEvaluations() const { return resumedEvaluations_; }

    // The graph run serially on its best single device: the penalty's time scale.
    static double referenceTimeUs(const Graph& graph, const Cluster& cluster);
    // Memory of the cluster's devices with a finite capacity (the excess's scale).
    static double finiteMemoryBytes(const Cluster& cluster);
    // What a learner sees of simulation `sim` on `cluster`: its step time, penalised by the
    // memory above the devices' capacities (the scales as above).
    static Evaluation evaluationOf(const SimResult& sim, const Cluster& cluster, double referenceUs, double memoryBytes,
                                   const PenaltyOptions& penalty);
    // The learning signal for a simulated step (pure, for tests).
    static double penalisedStepTimeUs(double rawUs, bool feasible, double excessBytes, double referenceUs,
                                      double memoryBytes, const PenaltyOptions& penalty);

private:
    Simulator simulator_;
    std::unique_ptr<IncrementalSimulator> incremental_; // made by the first setReference()
    Placement pendingReference_;
    bool referencePending_ = false;
    long resumedEvaluations_ = 0;
    PenaltyOptions penalty_;
    double referenceUs_;
    double memoryBytes_;
};

} // namespace post
