#pragma once

#include "core/graph/Ids.h"
#include "core/graph/Placement.h"
#include "core/learn/Evaluation.h"
#include "core/learn/LearnerOptions.h"

#include <cstdint>
#include <span>
#include <vector>

namespace post {

class EvaluationBudget;
class Grouping;
struct PlaceContext;

// The plateau walk (docs/learners.md, "The plateau walk"): random moves of one colocation
// group to another device, or swaps of the devices of two groups joined by an edge, each
// kept when the placement is no slower (its penalised step time at most the current one's).
// A climb keeps strict improvements only, so it stops on the first plateau; most moves of a
// converged placement change nothing on the critical path and are taken, and the walk drifts
// along the plateau until a move shortens the step. Each candidate differs from the current
// placement in one or two groups, so it is re-timed incrementally (IncrementalSimulator).
//
// kChains walks run side by side (seeds from `seed`), each on its own thread where the
// context allows, in rounds of at most kRound candidates; after each round their candidates
// are recorded in the budget chain by chain, so at a sample budget the result depends on the
// seed alone, never on the thread count. The result is the best placement any walk reached
// (one that fits in memory first, then the fastest), never worse than `start`.
struct PlateauWalkResult {
    Placement best;
    Evaluation evaluation;
    long proposals = 0;   // candidates evaluated
    long taken = 0;       // of them, kept (no slower)
    long faster = 0;      // of them, strictly faster than the walk's placement before
    bool stalled = false; // ended by the stall rule (setStopOnStall), not by the budget
};

class PlateauWalk {
public:
    static constexpr int kChains = 2;
    static constexpr int kRound = 256;
    // Of the candidates, this share swaps two neighbouring groups; the rest move one group.
    static constexpr double kSwapShare = 0.3;

    // `groups` must be the colocation groups of context.graph (or a coarser grouping that
    // keeps them whole); moves go to `targets` (devices; empty: every device).
    PlateauWalk(const PlaceContext& context, const Grouping& groups, std::vector<DeviceId> targets,
                PenaltyOptions penalty);

    // The stall rule (docs/learners.md, "Where the walk stalls, kicks take over"): with it on,
    // the walk ends once, after a round, its candidates since its best last improved number
    // at least kStallSweeps sweeps of its moves (movable groups x other targets) and at least
    // as many as it walked before that improvement, and says so (stalled). Crossing a plateau
    // can take long: one of resnet_et's walks found its first improvement after 74 sweeps.
    static constexpr int kStallSweeps = 100;
    void setStopOnStall(bool on) { stopOnStall_ = on; }

    // Walks from `start` (evaluated as `startEvaluation`) until the budget ends (or it stalls).
    PlateauWalkResult run(const Placement& start, const Evaluation& startEvaluation, EvaluationBudget& budget,
                          std::uint64_t seed) const;

private:
    const PlaceContext& context_;
    const Grouping& groups_;
    std::vector<DeviceId> targets_;
    PenaltyOptions penalty_;
    std::vector<char> pinned_;           // per group: pinnedGroups()
    std::vector<std::vector<int>> near_; // per group: the groups joined to it by an edge
    bool stopOnStall_ = false;
};

} // namespace post
