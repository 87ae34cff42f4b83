#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/learn/StepEvaluator.h"
#include "core/sim/Simulator.h"

namespace post {

class Graph;
class Cluster;

// Scores placements with the simulator, penalising those that run out of memory.
class PlacementEvaluator final : public StepEvaluator {
public:
    PlacementEvaluator(const Graph& graph, const Cluster& cluster, SimOptions sim, PenaltyOptions penalty);

    Evaluation evaluate(const Placement& placement) override;

    // The graph run serially on its best single device: the penalty's time scale.
    static double referenceTimeUs(const Graph& graph, const Cluster& cluster);
    // Memory of the cluster's devices with a finite capacity (the excess's scale).
    static double finiteMemoryBytes(const Cluster& cluster);
    // The learning signal for a simulated step (pure, for tests).
    static double penalisedStepTimeUs(double rawUs, bool feasible, double excessBytes, double referenceUs,
                                      double memoryBytes, const PenaltyOptions& penalty);

private:
    Simulator simulator_;
    PenaltyOptions penalty_;
    double referenceUs_;
    double memoryBytes_;
};

} // namespace post
