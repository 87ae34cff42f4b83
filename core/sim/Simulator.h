#pragma once

#include "core/graph/Placement.h"
#include "core/sim/SimOptions.h"
#include "core/sim/SimResult.h"

namespace post {

class Graph;
class Cluster;
namespace detail {
struct SimWork;
}

// Simulates one training step of `graph` on `cluster` for a placement (semantics in
// docs/simulator.md). Keeps its work arrays between calls so run() allocates nothing
// after the first call. Not thread-safe: use one Simulator per thread. The graph and
// cluster must outlive it.
class Simulator {
public:
    Simulator(const Graph& graph, const Cluster& cluster, SimOptions options = {});
    ~Simulator();
    Simulator(const Simulator&) = delete;
    Simulator& operator=(const Simulator&) = delete;

    // `placement` must pass placementProblem() (colocation is not re-checked here).
    const SimResult& run(const Placement& placement, bool recordTimeline = false);

    const Graph& graph() const { return graph_; }
    const Cluster& cluster() const { return cluster_; }
    const SimOptions& options() const { return options_; }

private:
    const Graph& graph_;
    const Cluster& cluster_;
    SimOptions options_;
    detail::SimWork* work_;
    SimResult result_;
};

// The device furthest over its memory in `result` (the largest peak / capacity above 1), or
// kNoDevice when every peak fits: what an out-of-memory message names.
DeviceId mostOverMemory(const Cluster& cluster, const SimResult& result);

} // namespace post
