#pragma once

#include "core/exact/MilpGrouping.h"
#include "core/place/Placer.h"

namespace post {

// The exact placer (docs/placers.md, "milp"): a mixed-integer model of placement and schedule
// under the simulator's semantics, solved with CBC inside the time budget, with cuts that
// exclude placements whose simulated step is no better than the best found, until the
// model's optimum is a simulated step time (then `best` is optimal) or time runs out. Its
// result carries the proven bound (PlaceResult::bounds.solverBoundUs).
//
// Grouped mode: a graph of more than kMaxOps ops, or whose model would exceed kMaxBinaries
// binaries or kMaxRows rows, is solved on a coarsening (core/exact/MilpGrouping.h: contiguous
// chunks of the topological order, colocation kept), the most chunks whose model fits, or
// `groups` chunks when that is given (an InputError when their model does not fit). Its
// placement is expanded to the ops and re-timed by the simulator; the solver's bound and
// optimality hold for the coarse graph only, so they go to PlaceResult::bounds.groupedBoundUs,
// groupedBoundGroups and groupedOptimal, never to solverBoundUs.
class MilpPlacer : public Placer {
public:
    static constexpr int kMaxOps = 60;
    static constexpr long kMaxBinaries = 20000;
    static constexpr long kMaxRows = 20000;         // above, one LP of the model takes seconds
    static constexpr double kDefaultSeconds = 10.0; // when PlaceContext::seconds is 0

    // groups: 0 solves the op-level model when it fits and the largest grouping that fits
    // otherwise; N > 0 always solves on N chunks (op-level when N >= the graph's ops).
    explicit MilpPlacer(int groups = 0)
        : groups_(groups)
    {
    }

    std::string name() const override { return "milp"; }
    PlaceResult place(const PlaceContext& context) override;

private:
    int groups_ = 0;
};

// Whether milp's op-level model of `graph` on `cluster` is within its limits (kMaxOps ops,
// kMaxBinaries binaries, kMaxRows rows).
bool milpFitsOpLevel(const Graph& graph, const Cluster& cluster, const SimOptions& sim);

} // namespace post

namespace post {

// The coarsening grouped mode solves: the most bands (core/exact/MilpGrouping.h, at most one
// chunk per accelerator in a band) whose chunks, at most `groups` (0: MilpPlacer::kMaxOps),
// make a model within milp's limits. Throws InputError (field milp-groups when `groups` > 0)
// when none does.
MilpCoarsening milpGrouping(const Graph& graph, const Cluster& cluster, const SimOptions& sim, int groups = 0);

} // namespace post
