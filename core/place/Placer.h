#pragma once

#include "core/graph/Placement.h"
#include "core/place/ProvenBounds.h"
#include "core/sim/SimOptions.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace post {

class Graph;
class Cluster;
class ProgressObserver;
struct ClassicalStart; // core/classic/ClassicalPlacers.h

struct PlaceContext {
    const Graph& graph;
    const Cluster& cluster;
    SimOptions sim;
    int samples = 2400; // evaluation budget for learners; ignored by classical placers
    std::uint64_t seed = 1;
    int threads = 0; // 0: all cores
    ProgressObserver* observer = nullptr;
    const std::atomic<bool>* stop = nullptr; // checked between samples
    // Wall-time budget of learners in seconds, counted from the call of place() (0: none);
    // a learner stops at whichever of `samples` and this ends first. Classical placers ignore it.
    double seconds = 0.0;
    // lowerBound(graph, cluster, sim).valueUs() when the caller has computed it (0: not known; a
    // placer that needs it computes it). Bounding a large graph takes a sizeable part of a
    // short budget (0.2 s on nasnetamobile), so it is computed once per command.
    double lowerBoundUs = 0.0;
    // The classical placers' results on this graph, cluster and rule, run by the caller as
    // runClassicalStarts (core/run/LocalSearchPlacer.h) runs them, best first (Post Studio's
    // reference lines): the searches that start from them take these instead of running the
    // placers again (null: they run them).
    const std::vector<ClassicalStart>* classicalStarts = nullptr;
    // A placement to start from (post-cli place --start): the searches that start from the
    // classical placers (local-search, post@best) take it as one more start, named "start",
    // timed as the classical starts are (null: none). It must pass placementProblem().
    const Placement* start = nullptr;
};

struct PlaceResult {
    Placement best;
    double bestStepTimeUs = 0.0; // simulated step time of `best`
    bool feasible = false;
    int samplesUsed = 0;
    double wallSeconds = 0.0;
    bool stopped = false; // ended early by the stop flag
    ProvenBounds bounds;  // what the placer proved (milp); none for the others
};

// How results are ranked: one that fits in memory beats one that does not, then the faster.
inline bool fitsThenFaster(bool aFeasible, double aStepUs, bool bFeasible, double bStepUs)
{
    if (aFeasible != bFeasible)
        return aFeasible;
    return aStepUs < bStepUs;
}

// Whether `a` is the better result (fitsThenFaster).
inline bool betterResult(const PlaceResult& a, const PlaceResult& b)
{
    return fitsThenFaster(a.feasible, a.bestStepTimeUs, b.feasible, b.bestStepTimeUs);
}

// Common face of learners and classical placers, so the CLI and GUI treat them alike.
class Placer {
public:
    virtual ~Placer() = default;
    virtual std::string name() const = 0;
    virtual PlaceResult place(const PlaceContext& context) = 0;
};

} // namespace post
