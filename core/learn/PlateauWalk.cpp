#include "core/learn/PlateauWalk.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/Grouping.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/place/Placer.h"
#include "core/sim/IncrementalSimulator.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <random>
#include <thread>
#include <utility>

namespace post {

namespace {

// One candidate of a round: group `a` to `toA` and, for a swap, group `b` to `toB`.
struct Step {
    int a = -1;
    DeviceId toA = kNoDevice;
    int b = -1;
    DeviceId toB = kNoDevice;
    Evaluation evaluation;
    bool taken = false;
};

// Whether `a` is the better of two evaluations as results are ranked (betterResult): one that
// fits in memory first, then the faster. The walk itself follows the penalised step, which
// may rank a placement that does not fit below a slow one that does.
bool better(const Evaluation& a, const Evaluation& b)
{
    return fitsThenFaster(a.feasible, a.stepTimeUs, b.feasible, b.stepTimeUs);
}

void assign(const Grouping& groups, int group, DeviceId device, Placement& placement)
{
    for (OpId op : groups.members(group))
        placement[static_cast<size_t>(op)] = device;
}

// One walk: its placement (op level, as evaluated), each group's device, its best.
struct WalkChain {
    std::mt19937_64 rng;
    Placement placement;
    std::vector<DeviceId> choice;
    Evaluation current;
    Placement best;
    Evaluation bestEvaluation;
    std::unique_ptr<IncrementalSimulator> simulator; // its reference: `placement` after the last taken step
    std::vector<Step> round;                         // the candidates of the round being walked, in order
    Placement replay;                                // the placement at the round's start, for recording it
    long taken = 0;
    long faster = 0;
};

// The stall rule's count: the candidates in the order they are recorded, and the last that
// bettered the walk's best (so the rule, like the walk, depends on the seed alone).
struct StallCount {
    long recorded = 0;
    long lastBettered = 0;
    Evaluation best;
};

// Records the candidates of the round each chain walked as samples of the search, chain by
// chain, replaying its steps from the placement it had at the round's start; how many.
long recordRound(const Grouping& groups, std::vector<WalkChain>& chains, EvaluationBudget& budget, StallCount& stall)
{
    long recorded = 0;
    for (WalkChain& chain : chains) {
        for (const Step& step : chain.round) {
            const DeviceId fromA = chain.replay[static_cast<size_t>(groups.members(step.a).front())];
            assign(groups, step.a, step.toA, chain.replay);
            if (step.b >= 0)
                assign(groups, step.b, step.toB, chain.replay);
            budget.record(chain.replay, step.evaluation);
            ++stall.recorded;
            if (step.taken && better(step.evaluation, stall.best)) {
                stall.best = step.evaluation;
                stall.lastBettered = stall.recorded;
            }
            if (!step.taken) {
                assign(groups, step.a, fromA, chain.replay);
                if (step.b >= 0)
                    assign(groups, step.b, step.toA, chain.replay); // a swap: b came from a's new device
            }
        }
        recorded += static_cast<long>(chain.round.size());
    }
    return recorded;
}

} // namespace

PlateauWalk::PlateauWalk(const PlaceContext& context, const Grouping& groups, std::vector<DeviceId> targets,
                         PenaltyOptions penalty)
    : context_(context)
    , groups_(groups)
    , targets_(std::move(targets))
    , penalty_(penalty)
    , pinned_(pinnedGroups(groups, context.graph, context.cluster))
    , near_(adjacentGroups(groups, context.graph))
{
    if (targets_.empty())
        for (DeviceId d = 0; d < context.cluster.deviceCount(); ++d)
            targets_.push_back(d);
}

PlateauWalkResult PlateauWalk::run(const Placement& start, const Evaluation& startEvaluation, EvaluationBudget& budget,
                                   std::uint64_t seed) const
{
    PlateauWalkResult result{start, startEvaluation};
    std::vector<int> movable;
    for (int g = 0; g < groups_.groupCount(); ++g)
        if (pinned_.empty() || !pinned_[static_cast<size_t>(g)])
            movable.push_back(g);
    if (movable.empty() || targets_.size() < 2 || start.empty())
        return result;

    const double referenceUs = PlacementEvaluator::referenceTimeUs(context_.graph, context_.cluster);
    const double memoryBytes = PlacementEvaluator::finiteMemoryBytes(context_.cluster);
    std::vector<WalkChain> chains(kChains);
    const int devices = context_.cluster.deviceCount();
    for (int c = 0; c < kChains; ++c) {
        WalkChain& chain = chains[static_cast<size_t>(c)];
        chain.rng.seed(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(c) + 1);
        chain.placement = start;
        chain.choice = groups_.collapse(start, devices);
        chain.current = chain.bestEvaluation = startEvaluation;
        chain.best = start;
    }

    // One candidate of `chain`, evaluated, applied to its placement when no slower.
    const auto propose = [&](WalkChain& chain) {
        Step step;
        const auto pick = [&](size_t count) { return std::uniform_int_distribution<size_t>(0, count - 1)(chain.rng); };
        step.a = movable[pick(movable.size())];
        const DeviceId from = chain.choice[static_cast<size_t>(step.a)];
        const auto& near = near_[static_cast<size_t>(step.a)];
        if (std::uniform_real_distribution<double>(0.0, 1.0)(chain.rng) < kSwapShare && !near.empty()) {
            const int b = near[pick(near.size())];
            const DeviceId other = chain.choice[static_cast<size_t>(b)];
            if (other != from && (pinned_.empty() || !pinned_[static_cast<size_t>(b)])) {
                step.b = b;
                step.toA = other;
                step.toB = from;
            }
        }
        if (step.b < 0) {
            do
                step.toA = targets_[pick(targets_.size())];
            while (step.toA == from);
        }
        assign(groups_, step.a, step.toA, chain.placement);
        if (step.b >= 0)
            assign(groups_, step.b, step.toB, chain.placement);
        step.evaluation = PlacementEvaluator::evaluationOf(chain.simulator->run(chain.placement), context_.cluster,
                                                           referenceUs, memoryBytes, penalty_);
        step.taken = step.evaluation.stepTimeUs <= chain.current.stepTimeUs;
        if (step.taken) {
            chain.faster += step.evaluation.stepTimeUs < chain.current.stepTimeUs ? 1 : 0;
            ++chain.taken;
            chain.current = step.evaluation;
            chain.choice[static_cast<size_t>(step.a)] = step.toA;
            if (step.b >= 0)
                chain.choice[static_cast<size_t>(step.b)] = step.toB;
            chain.simulator->keepLastAsReference();
            if (better(step.evaluation, chain.bestEvaluation)) {
                chain.bestEvaluation = step.evaluation;
                chain.best = chain.placement;
            }
        } else {
            assign(groups_, step.a, from, chain.placement);
            if (step.b >= 0)
                assign(groups_, step.b, step.toA, chain.placement); // a swap: b came from a's new device
        }
        chain.round.push_back(step);
    };

    const int threads = std::min(kChains, searchThreads(context_, kChains));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    // Walks chains t, t + threads, ... for up to `quota[c]` candidates each (fewer when the
    // time is up or a stop is asked for).
    const auto walk = [&](int t, const std::vector<int>& quota) {
        try {
            for (int c = t; c < kChains; c += threads) {
                WalkChain& chain = chains[static_cast<size_t>(c)];
                if (!chain.simulator) { // made on the thread that walks it; its first run is the reference
                    chain.simulator = std::make_unique<IncrementalSimulator>(context_.graph, context_.cluster,
                                                                             context_.sim);
                    chain.simulator->run(chain.placement);
                }
                for (int i = 0; i < quota[static_cast<size_t>(c)] && !budget.timeUp() && !budget.stopRequested(); ++i)
                    propose(chain);
            }
        } catch (...) {
            errors[static_cast<size_t>(t)] = std::current_exception();
        }
    };

    const long stallMinimum = static_cast<long>(kStallSweeps) * static_cast<long>(movable.size())
        * static_cast<long>(targets_.size() - 1);
    StallCount stall{0, 0, startEvaluation};
    std::vector<int> quota(kChains);
    while (!budget.exhausted()) {
        const int left = budget.left();
        for (int c = 0; c < kChains; ++c) {
            quota[static_cast<size_t>(c)] = std::min(kRound, left / kChains + (c < left % kChains ? 1 : 0));
            WalkChain& chain = chains[static_cast<size_t>(c)];
            chain.round.clear();
            chain.replay = chain.placement;
        }
        {
            std::vector<std::jthread> workers;
            for (int t = 1; t < threads; ++t)
                workers.emplace_back(walk, t, std::cref(quota));
            walk(0, quota);
        }
        for (const std::exception_ptr& error : errors)
            if (error)
                std::rethrow_exception(error);
        const long recorded = recordRound(groups_, chains, budget, stall);
        if (recorded == 0)
            break;
        result.proposals += recorded;
        if (stopOnStall_ && stall.recorded - stall.lastBettered >= std::max(stallMinimum, stall.lastBettered)) {
            result.stalled = true;
            break;
        }
    }
    for (const WalkChain& chain : chains) {
        result.taken += chain.taken;
        result.faster += chain.faster;
        if (better(chain.bestEvaluation, result.evaluation)) {
            result.evaluation = chain.bestEvaluation;
            result.best = chain.best;
        }
    }
    return result;
}

} // namespace post
