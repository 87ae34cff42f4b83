#pragma once

#include <optional>
#include <string_view>

namespace post {

// Which ready op an idle device starts (docs/simulator.md, "Time", rule 4).
enum class Dispatch {
    // The op that became ready first, ties to the lower OpId: TensorFlow's executor order.
    ReadyOrder,
    // The ready op with the longest path to the end of the step (each op at its fastest
    // duration over the cluster's devices, transfers free), ties to the lower OpId: the
    // order a static list scheduler gives (XLA, or a graph given control edges in that order).
    CriticalPath,
};

inline std::string_view dispatchName(Dispatch d) { return d == Dispatch::CriticalPath ? "critical-path" : "ready"; }

inline std::optional<Dispatch> dispatchFromName(std::string_view name)
{
    if (name == "ready")
        return Dispatch::ReadyOrder;
    if (name == "critical-path")
        return Dispatch::CriticalPath;
    return std::nullopt;
}

struct SimOptions {
    // Parameter memory per device is param_bytes x this factor: weights, their
    // gradients and one optimizer slot (SGD with momentum, as PipeDream profiled).
    // Op::residentBytes is added unscaled.
    double optimizerStateFactor = 3.0;
    // Leave out the edges no run depends on (core/sim/ImpliedEdges.h); false: every edge as
    // given (the tests check that both time every placement alike, bit for bit).
    bool leaveOutImpliedEdges = true;
    Dispatch dispatch = Dispatch::ReadyOrder;
};

} // namespace post
