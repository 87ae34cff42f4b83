#pragma once

#include "core/graph/Graph.h"
#include "core/sim/SimResult.h"

#include <vector>

namespace post {

// The critical path of a simulated step: the chain of ops and transfers that made the step
// as long as it is, walked back from the op that ends last; each one's start waited for the
// one before it (an input arriving, or the device finishing its previous op). Ops and
// indices into the timeline's transfers, in time order; the flags are per OpId and per
// transfer.
struct CriticalPath {
    std::vector<OpId> ops;
    std::vector<int> transfers;
    std::vector<bool> opOnPath;
    std::vector<bool> transferOnPath;
};

// `result` must hold the timeline (Simulator::run with recordTimeline) of a run of `graph`.
// Empty when the timeline is.
CriticalPath criticalPath(const Graph& graph, const SimResult& result);

} // namespace post
