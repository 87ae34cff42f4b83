#include "core/run/RacePlacer.h"

#include "core/cluster/Cluster.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/GroupLocalSearch.h"
#include "core/learn/PolicyLearner.h"
#include "core/learn/PostSearch.h"
#include "core/run/LocalSearchPlacer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>

namespace post {
namespace {

void keepBetter(PlaceResult& best, const PlaceResult& candidate)
{
    if (!candidate.best.empty() && (best.best.empty() || betterResult(candidate, best))) {
        best.best = candidate.best;
        best.bestStepTimeUs = candidate.bestStepTimeUs;
        best.feasible = candidate.feasible;
    }
}

} // namespace

RacePlacer::RacePlacer(LearnerOptions options)
    : options_(std::move(options))
{
}

PlaceResult RacePlacer::place(const PlaceContext& context)
{
    using Clock = std::chrono::steady_clock;
    const auto began = Clock::now();
    validateLearnerOptions(options_);
    if (context.cluster.deviceCount() < 1)
        throw std::invalid_argument("cluster '" + context.cluster.name() + "' has no devices");
    EvaluationBudget budget(context.samples, context.seconds, context.stop, context.observer, began);
    const std::vector<ClassicalStart> starts = runClassicalStarts(context, budget);
    PlaceResult result;
    for (const ClassicalStart& s : starts)
        keepBetter(result, s.result);

    BatchEvaluator pool = makeSearchPool(context, options_.batchSize, options_.penalty);
    GroupLocalSearch search(context.graph, context.cluster, context.sim, pool);
    search.setBlockMoves(options_.blockMoves);

    if (!starts.empty() && !budget.exhausted()) {
        // 1. local-search's own climb from the best classical placement.
        const LocalSearchOutcome climbed = localSearchFrom(context, starts.front().result.best, search, budget,
                                                           options_.penalty);
        keepBetter(result, climbed.result);

        // 2. The race: warm runs from the climbed placement and the other distinct
        //    classical placements, and cold runs.
        std::vector<Placement> warmStarts{climbed.result.best};
        std::vector<std::string> armLabels{"warm: local search's best"};
        for (const ClassicalStart& s : starts) {
            if (static_cast<int>(warmStarts.size()) >= kWarmRuns)
                break;
            if (std::find(warmStarts.begin(), warmStarts.end(), s.result.best) == warmStarts.end()) {
                warmStarts.push_back(s.result.best);
                armLabels.push_back("warm: " + s.name);
            }
        }
        std::vector<LearnerOptions> armOptions;
        for (const Placement& p : warmStarts) {
            LearnerOptions o = options_;
            o.warmStart = p;
            armOptions.push_back(std::move(o));
        }
        for (int i = 0; i < kColdRuns; ++i) {
            armOptions.push_back(options_);
            armLabels.emplace_back("cold");
        }
        std::vector<std::unique_ptr<PostSearchRun>> arms;
        for (size_t i = 0; i < armOptions.size() && !budget.exhausted(); ++i) {
            budget.allow();
            arms.push_back(std::make_unique<PostSearchRun>(context, armOptions[i], pool, search, budget,
                                                           context.seed * 1000003ULL + i));
        }
        // The kicks' reserve (3. below): a share of what is left now, in samples and in
        // seconds; the race ends where it begins (a cap on the time budget).
        const bool kicks = options_.kickShare > 0.0;
        const int reserve = budget.left() >= std::numeric_limits<int>::max() / 2
            ? 0
            : static_cast<int>(options_.kickShare * budget.left());
        const double raceSeconds = context.seconds > 0.0 ? std::chrono::duration<double>(Clock::now() - began).count()
                + (1.0 - options_.kickShare) * budget.secondsLeft()
                                                         : 0.0;
        if (kicks && context.seconds > 0.0)
            budget.capTime(began
                           + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(raceSeconds)));
        PlaceResult raceBest = climbed.result;
        const bool walkOnStall = kicks && options_.plateauWalk;
        std::vector<int> alive(arms.size());
        std::iota(alive.begin(), alive.end(), 0);
        const int rounds = std::max(1, static_cast<int>(std::ceil(std::log2(std::max<size_t>(1, arms.size())))) + 1);
        for (int round = 0; round < rounds && !alive.empty(); ++round) {
            budget.allow();
            if (budget.exhausted())
                break;
            int left = budget.left() - reserve;
            if (context.seconds > 0.0) {
                // Evaluations the race's time left allows at the rate seen so far.
                const double elapsed = std::chrono::duration<double>(Clock::now() - began).count();
                const double rate = budget.used() / std::max(elapsed, 1e-3);
                const double remaining = std::max(0.0, (kicks ? raceSeconds : context.seconds) - elapsed);
                left = static_cast<int>(std::min<double>(left, rate * remaining));
            }
            if (kicks && left < options_.batchSize)
                break;
            const bool last = round == rounds - 1 || alive.size() == 1;
            // The survivor takes everything the race has: its samples, and its time by the cap.
            const int share = last
                ? (kicks ? budget.left() - reserve : std::numeric_limits<int>::max())
                : std::max(options_.batchSize, left / (rounds - round) / static_cast<int>(alive.size()));
            for (int a : alive) {
                if (budget.timeUp() || budget.stopRequested())
                    break;
                budget.allow();
                notePhase(budget, PhaseKind::LearnerRun,
                          "Post run " + std::to_string(a + 1) + " (" + armLabels[static_cast<size_t>(a)] + ")", a);
                arms[static_cast<size_t>(a)]->advance(share);
                if (last)
                    break; // the survivor takes everything that is left
            }
            std::stable_sort(alive.begin(), alive.end(), [&](int x, int y) {
                return betterResult(arms[static_cast<size_t>(x)]->result(), arms[static_cast<size_t>(y)]->result());
            });
            // With the plateau walk after it, a round that found nothing faster than the race
            // had before ends the race, and the walk gets the rest of its time.
            const PlaceResult& roundBest = arms[static_cast<size_t>(alive.front())]->result();
            if (betterResult(roundBest, raceBest))
                raceBest = roundBest;
            else if (walkOnStall)
                break;
            alive.resize((alive.size() + 1) / 2);
        }
        for (const auto& arm : arms)
            keepBetter(result, arm->result());

        // 3. The plateau walk, then the local search with kicks where it stalls (or the kicks
        //    alone), from the race's best, in what is left.
        budget.allow();
        budget.uncapTime();
        const std::uint64_t finishSeed = context.seed * 1000003ULL + arms.size();
        if (kicks && !budget.exhausted())
            keepBetter(result,
                       options_.plateauWalk
                           ? walkThenKicks(context, result.best, search, budget, options_.penalty, finishSeed).result
                           : kickedLocalSearch(context, result.best, search, budget, options_.penalty, finishSeed).result);
    }
    budget.allow();
    budget.noteStop();
    result.samplesUsed = budget.used();
    result.stopped = budget.stopped();
    result.wallSeconds = std::chrono::duration<double>(Clock::now() - began).count();
    return result;
}

} // namespace post
