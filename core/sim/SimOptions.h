#pragma once

#include "core/graph/Dispatch.h"

#include <optional>

namespace post {

class Graph;

struct SimOptions {
    // Parameter memory per device is param_bytes x this factor: weights, their gradients
    // and the optimizer's state. Unset: by the graph (optimizerStateFactor() below).
    // Op::residentBytes is added unscaled.
    std::optional<double> optimizerStateFactor;
    // Leave out the edges no run depends on (core/sim/ImpliedEdges.h); false: every edge as
    // given (the tests check that both time every placement alike, bit for bit).
    bool leaveOutImpliedEdges = true;
    Dispatch dispatch = Dispatch::ReadyOrder;
};

// The factor `options` give, or by the graph's optimizer: 4 (weights, gradients and Adam's two
// moments) when an op's type names Adam (ApplyAdam and its TensorFlow variants, ATen's fused
// Adam), else 3 (one slot: SGD with momentum, as PipeDream profiled).
double optimizerStateFactor(const Graph& graph, const SimOptions& options);
// `options` with optimizerStateFactor set, as above (what a simulator keeps).
SimOptions resolvedFor(const Graph& graph, SimOptions options);

} // namespace post
