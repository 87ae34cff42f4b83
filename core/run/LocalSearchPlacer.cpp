#include "core/run/LocalSearchPlacer.h"

#include "core/graph/Placement.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/GroupLocalSearch.h"
#include "core/learn/Grouping.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/learn/PlateauWalk.h"
#include "core/learn/PostSearch.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>

namespace post {

void notePhase(EvaluationBudget& budget, PhaseKind kind, std::string label, int run)
{
    if (ProgressObserver* observer = budget.observer())
        observer->onPhase(PhaseEvent{budget.used(), kind, run, std::move(label)});
}

ClassicalRunHooks classicalStartHooks(std::function<double()> secondsLeft, std::function<bool()> stopRequested)
{
    // The starts get a share of the time left when they begin; the climb from the best of
    // them, and the race after it, the rest (docs/learners.md, "The default placer").
    const double left = secondsLeft();
    const double reserved = std::isfinite(left) ? (1.0 - kClassicalStartsShare) * left : 0.0;
    // No start at all under a stop: the search returns what it has, nothing.
    return deadlineHooks([secondsLeft = std::move(secondsLeft), reserved] { return secondsLeft() - reserved; },
                         std::move(stopRequested), false);
}

std::vector<ClassicalStart> runClassicalStarts(const PlaceContext& context, EvaluationBudget& budget)
{
    notePhase(budget, PhaseKind::ClassicalStarts, "classical starts");
    // Each of a start's simulations is a sample of the search: reported as its final placement.
    const auto record = [&budget](const ClassicalStart& start) {
        Evaluation e;
        e.stepTimeUs = e.rawStepTimeUs = start.result.bestStepTimeUs;
        e.feasible = start.result.feasible;
        for (int i = 0; i < start.result.samplesUsed; ++i)
            budget.record(start.result.best, e);
    };
    std::vector<ClassicalStart> starts;
    if (context.start) { // the caller's, first: a tie with a classical placer keeps it
        ClassicalStart given{"start", {}};
        given.result.best = *context.start;
        Simulator simulator(context.graph, context.cluster, context.sim);
        const SimResult& run = simulator.run(*context.start);
        given.result.bestStepTimeUs = run.stepTimeUs;
        given.result.feasible = run.feasible;
        given.result.samplesUsed = 1;
        record(given);
        starts.push_back(std::move(given));
    }
    if (context.classicalStarts) { // run already, by these rules (in the table's order)
        for (const ClassicalStart& start : *context.classicalStarts) {
            record(start);
            starts.push_back(start);
        }
    } else {
        ClassicalRunHooks hooks = classicalStartHooks([&budget] { return budget.secondsLeft(); },
                                                      [&budget] { return budget.stopRequested(); });
        hooks.done = record;
        hooks.threads = context.threads; // the search's own threads: its evaluations begin after the starts
        for (ClassicalStart& start : runClassicalPlacers(context, classicalStartOrder(), hooks))
            starts.push_back(std::move(start));
        // The floor: every op on one device, a simulation per device, runs even where the share
        // ran out before its turn, so that no search from these starts ends slower than `single`
        // (rnnlm-2 on k80x4 at --time 0.001: m-ETF alone, 733.4 ms against single's 488.2).
        const bool single = std::any_of(starts.begin(), starts.end(),
                                        [](const ClassicalStart& s) { return s.name == "single"; });
        if (!single && !budget.stopRequested()) {
            ClassicalRunHooks once;
            once.done = record;
            for (ClassicalStart& start : runClassicalPlacers(context, {"single"}, once))
                starts.push_back(std::move(start));
        }
    }
    sortStarts(starts);
    return starts;
}

namespace {

Grouping colocationGroups(const Graph& graph)
{
    GroupingOptions colocation;
    colocation.strategy = GroupingStrategy::None;
    return groupOps(graph, colocation);
}

// `out` takes the placement `choice` of `groups` gives (pinned as every candidate was) and
// its evaluation.
void keepClimbed(const PlaceContext& context, const Grouping& groups, const std::vector<DeviceId>& choice,
                 const Evaluation& evaluation, LocalSearchOutcome& out)
{
    out.evaluation = evaluation;
    out.result.best = groups.expand(choice);
    applyCpuPinning(context.graph, context.cluster, out.result.best);
    out.result.bestStepTimeUs = evaluation.rawStepTimeUs;
    out.result.feasible = evaluation.feasible;
}

// The climb of localSearchFrom over colocation groups `groups`, without its phase note.
LocalSearchOutcome climbFrom(const PlaceContext& context, const Grouping& groups, const Placement& start,
                             GroupLocalSearch& search, EvaluationBudget& budget, const PenaltyOptions& penalty)
{
    LocalSearchOutcome out;
    PlacementEvaluator evaluator(context.graph, context.cluster, context.sim, penalty);
    Evaluation current = evaluator.evaluate(start);
    budget.record(start, current);
    std::vector<DeviceId> choice = groups.collapse(start, context.cluster.deviceCount());
    out.converged = search.climb(groups, choice, current, budget, std::numeric_limits<int>::max());
    keepClimbed(context, groups, choice, current, out);
    return out;
}

// Where kicks send groups: the devices that are not CPUs where there are two or more (a
// CPU is rarely worth a run of ops, and the climb still tries it op by op), else all.
std::vector<DeviceId> kickTargets(const Cluster& cluster)
{
    std::vector<DeviceId> targets;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        if (cluster.device(d).kind != DeviceKind::Cpu)
            targets.push_back(d);
    if (targets.size() < 2) {
        targets.clear();
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
            targets.push_back(d);
    }
    return targets;
}

// The groups in topological order of their first op.
std::vector<int> groupsInTopologicalOrder(const Graph& graph, const Grouping& groups)
{
    std::vector<int> order;
    std::vector<char> seen(static_cast<size_t>(groups.groupCount()), 0);
    for (OpId op : graph.topologicalOrder()) {
        const int g = groups.groupOf(op);
        if (!seen[static_cast<size_t>(g)]) {
            seen[static_cast<size_t>(g)] = 1;
            order.push_back(g);
        }
    }
    return order;
}

// One kick of `choice`: a run of consecutive groups of `order` moved to one target, or two
// targets exchanged within it.
void kick(std::vector<DeviceId>& choice, const std::vector<int>& order, const std::vector<DeviceId>& targets,
          std::mt19937_64& rng)
{
    constexpr int kShortest = 3;
    constexpr int kLongest = 40;
    const int groups = static_cast<int>(order.size());
    const int length = std::uniform_int_distribution<int>(std::min(kShortest, groups), std::min(kLongest, groups))(rng);
    const int first = std::uniform_int_distribution<int>(0, groups - length)(rng);
    const std::span<const int> run(order.data() + first, static_cast<size_t>(length));
    const auto pick = [&](int count) { return std::uniform_int_distribution<int>(0, count - 1)(rng); };
    const int count = static_cast<int>(targets.size());
    if (pick(2) == 0) {
        const DeviceId to = targets[static_cast<size_t>(pick(count))];
        for (int g : run)
            choice[static_cast<size_t>(g)] = to;
        return;
    }
    const int ia = pick(count);
    int ib = pick(count - 1);
    if (ib >= ia)
        ++ib;
    const DeviceId a = targets[static_cast<size_t>(ia)];
    const DeviceId b = targets[static_cast<size_t>(ib)];
    for (int g : run) {
        DeviceId& d = choice[static_cast<size_t>(g)];
        d = d == a ? b : (d == b ? a : d);
    }
}

} // namespace

LocalSearchOutcome localSearchFrom(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                   EvaluationBudget& budget, const PenaltyOptions& penalty)
{
    notePhase(budget, PhaseKind::LocalSearch, "local search");
    return climbFrom(context, colocationGroups(context.graph), start, search, budget, penalty);
}

LocalSearchOutcome kickedLocalSearch(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                     EvaluationBudget& budget, const PenaltyOptions& penalty, std::uint64_t seed)
{
    // A kicked climb ending within this factor of the best goes on to a full final scan (one
    // that ends in a lazy scan finding nothing is a local optimum only around what moved).
    constexpr double kPromising = 1.03;
    notePhase(budget, PhaseKind::LocalSearch, "local search with kicks");
    const Grouping groups = colocationGroups(context.graph);
    LocalSearchOutcome best = climbFrom(context, groups, start, search, budget, penalty);
    const int devices = context.cluster.deviceCount();
    const std::vector<int> order = groupsInTopologicalOrder(context.graph, groups);
    if (best.result.best.empty() || devices < 2 || order.size() < 2)
        return best;
    const std::vector<char> pinned = pinnedGroups(groups, context.graph, context.cluster);
    const std::vector<DeviceId> targets = kickTargets(context.cluster);
    PlacementEvaluator evaluator(context.graph, context.cluster, context.sim, penalty);
    std::mt19937_64 rng(seed);
    std::vector<DeviceId> bestChoice = groups.collapse(best.result.best, devices);
    Placement kicked;
    constexpr int kIdleKicks = 1000; // kicks in a row that move nothing (all pinned): no more
    for (int idle = 0; idle < kIdleKicks && !budget.exhausted();) {
        std::vector<DeviceId> choice = bestChoice;
        kick(choice, order, targets, rng);
        pinChoice(pinned, context.cluster, choice);
        if (choice == bestChoice) {
            ++idle;
            continue;
        }
        idle = 0;
        groups.expand(choice, kicked);
        applyCpuPinning(context.graph, context.cluster, kicked);
        Evaluation current = evaluator.evaluate(kicked);
        budget.record(kicked, current);
        search.setFullFinalScan(false);
        search.climb(groups, choice, current, budget, std::numeric_limits<int>::max());
        search.setFullFinalScan(true);
        if (current.stepTimeUs < best.evaluation.stepTimeUs * kPromising && !budget.exhausted())
            search.climb(groups, choice, current, budget, std::numeric_limits<int>::max());
        if (current.stepTimeUs < best.evaluation.stepTimeUs) {
            bestChoice = choice;
            keepClimbed(context, groups, choice, current, best);
        }
    }
    best.converged = false;
    return best;
}

LocalSearchOutcome plateauWalkFrom(const PlaceContext& context, const Placement& start, EvaluationBudget& budget,
                                   const PenaltyOptions& penalty, std::uint64_t seed, bool stopOnStall)
{
    notePhase(budget, PhaseKind::PlateauWalk, "plateau walk");
    const Grouping groups = colocationGroups(context.graph);
    LocalSearchOutcome out;
    Evaluation current = PlacementEvaluator(context.graph, context.cluster, context.sim, penalty).evaluate(start);
    budget.record(start, current);
    PlateauWalk walk(context, groups, kickTargets(context.cluster), penalty);
    walk.setStopOnStall(stopOnStall);
    const PlateauWalkResult walked = walk.run(start, current, budget, seed);
    out.evaluation = walked.evaluation;
    out.result.best = walked.best;
    out.result.bestStepTimeUs = walked.evaluation.rawStepTimeUs;
    out.result.feasible = walked.evaluation.feasible;
    out.stalled = walked.stalled;
    return out;
}

LocalSearchOutcome walkThenKicks(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                 EvaluationBudget& budget, const PenaltyOptions& penalty, std::uint64_t seed)
{
    LocalSearchOutcome walked = plateauWalkFrom(context, start, budget, penalty, seed, true);
    if (!walked.stalled || budget.exhausted())
        return walked;
    LocalSearchOutcome kicked = kickedLocalSearch(context, walked.result.best, search, budget, penalty, seed + 1);
    return betterResult(kicked.result, walked.result) ? kicked : walked;
}

PlaceResult LocalSearchPlacer::place(const PlaceContext& context)
{
    const auto began = std::chrono::steady_clock::now();
    if (context.cluster.deviceCount() < 1)
        throw std::invalid_argument("cluster '" + context.cluster.name() + "' has no devices");
    EvaluationBudget budget(context.samples, context.seconds, context.stop, context.observer, began);
    const std::vector<ClassicalStart> starts = runClassicalStarts(context, budget);
    PlaceResult result;
    if (!starts.empty()) {
        const PenaltyOptions penalty;
        BatchEvaluator pool = makeSearchPool(context, GroupLocalSearch::kWindow, penalty);
        GroupLocalSearch search(context.graph, context.cluster, context.sim, pool);
        result = localSearchFrom(context, starts.front().result.best, search, budget, penalty).result;
    }
    result.samplesUsed = budget.used();
    budget.noteStop();
    result.stopped = budget.stopped();
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return result;
}

} // namespace post
