#pragma once

#include "core/graph/Placement.h"

#include <cstdint>

namespace post {

// How ops are bundled into the groups the policy places (docs/learners.md).
enum class GroupingStrategy : std::uint8_t {
    Auto,       // chains for small graphs; chains then topological chunks for large ones
    None,       // one group per op (colocation groups still merged)
    Chains,     // an op with a single consumer joins it
    Chunks,     // contiguous runs of the topological order, balanced by compute
    NameScopes, // ops sharing the first `scopeDepth` components of their '/'-separated names
};

struct GroupingOptions {
    GroupingStrategy strategy = GroupingStrategy::Auto;
    // Auto: graphs up to this many ops use chain merging only.
    int autoChainOpLimit = 200;
    // Chunks (and Auto above the limit): the group count is capped here. A few hundred
    // keeps the policy small enough to learn in 2,400 samples while leaving room to balance.
    int maxGroups = 256;
    // Chains: a merge is refused when the merged group would own more than this share of
    // the graph's compute, so a long chain (VGG, forward-only profiles) stays splittable.
    double chainMaxComputeShare = 1.0 / 32.0;
    // NameScopes: how many leading name components form the scope.
    int scopeDepth = 1;
};

enum class InfeasiblePenalty : std::uint8_t {
    // raw step time + reference x (base + slope x excess / memory of the cluster):
    // infeasible placements are ranked by how far they overflow, so the learners still
    // get a signal pointing back to feasibility when most samples run out of memory.
    GrowingWithExcess,
    // A constant failure signal: reference x fixedFactor, whatever the placement.
    Fixed,
};

// The reference time is the whole graph run serially on the best single device, so the
// penalty has the scale of the problem whatever the units of the profile.
struct PenaltyOptions {
    InfeasiblePenalty kind = InfeasiblePenalty::GrowingWithExcess;
    double base = 1.0;         // GrowingWithExcess: reference multiples added for any overflow
    double slope = 4.0;        // GrowingWithExcess: reference multiples per cluster-memory of excess
    double fixedFactor = 10.0; // Fixed: step time reported = reference x this
};

struct AdamOptions {
    double learningRate = 0.05;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
};

// Every constant of the learners (defaults chosen by the sweep in docs/learners.md).
struct LearnerOptions {
    int batchSize = 20;                  // K: samples between PPO / REINFORCE updates; also the parallel batch
    int ceInterval = 100;                // N: samples between cross-entropy steps (rounded up to a multiple of K)
    double eliteFraction = 0.1;          // rho: the best ceil(rho N) of the last N samples are the elite
    double ceSmoothing = 0.05;           // eps: p = (1 - eps) p_elite + eps / D keeps every device reachable
    int ppoEpochs = 10;                  // gradient steps on each batch of K
    double ppoClip = 0.2;                // clipped surrogate: ratio kept in [1 - clip, 1 + clip]
    double entropyBonus = 0.0;           // PPO: weight of the mean entropy added to the objective
    double reinforceBaselineDecay = 0.9; // EMA of the reward (Mirhoseini et al. 2017)
    AdamOptions adam;
    GroupingOptions grouping;
    PenaltyOptions penalty;
    // Warm start: when non-empty, each group starts with `warmStartMass` on the device this
    // placement gives its ops (majority vote), the rest spread evenly.
    Placement warmStart;
    double warmStartMass = 0.9;
    // Split groups whose ops the warm start puts on different devices, so the policy can
    // express the start exactly and explore single moves around it.
    bool refineGroupsByWarmStart = true;

    // Post Studio's Post (`post`, core/learn/PostSearch, docs/learners.md) on top of
    // Algorithm 1; each ingredient can be turned off for ablations. `post-alg1`, `ce`,
    // `ppo`, `reinforce` and `random` ignore them.
    bool symmetryBreaking = true; // relabel interchangeable devices canonically per sample
    bool coarseToFine = true;     // start chain-like graphs from few contiguous chunks, split later
    bool localSearch = true;      // hill-climb the best and elite placements after CE steps
    bool blockMoves = true;       // the climb also moves the blocks the critical path says delay it
    bool restarts = true;         // refine or restart when entropy collapses without improvement
    // post@best: the share of the budget (samples or time) its last part, from the race's best,
    // takes; 0 gives the race everything.
    double kickShare = 0.3;
    // post@best: that last part is the plateau walk (PlateauWalk) when on, followed by the local
    // search with kicks where the walk stalls (walkThenKicks); off, the local search with kicks.
    bool plateauWalk = true;
    // Coarse-to-fine applies to graphs narrower than this: average width = total work /
    // critical path (1 for a chain); wider (branchy) graphs start at the fine grouping.
    double coarseWidthLimit = 3.0;
    // Guided sampling (GuidedSampler): how strongly each group's draw favours the devices
    // where its first op would finish earliest given the draws before it, per mean op time of
    // delay; 0 samples from the per-group policy alone. While it is on, `post` places op by op
    // (Auto grouping becomes None: colocation groups only) and coarse-to-fine is off: the
    // sampler's pull toward the inputs' device already draws contiguous runs.
    double guide = 30.0;
    // milp (not a learner, but set the same way): chunks of its grouped mode; 0 solves the
    // op-level model when it fits and the most chunks that fit otherwise (docs/placers.md).
    int milpGroups = 0;
};

} // namespace post
