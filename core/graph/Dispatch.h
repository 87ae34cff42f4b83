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

} // namespace post
