#include "core/run/LocalSearchPlacer.h"

#include "core/graph/Placement.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/GroupLocalSearch.h"
#include "core/learn/Grouping.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/learn/PostSearch.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <stdexcept>

namespace post {

void notePhase(EvaluationBudget& budget, PhaseKind kind, std::string label, int run)
{
    if (ProgressObserver* observer = budget.observer())
        observer->onPhase(PhaseEvent{budget.used(), kind, run, std::move(label)});
}

ClassicalRunHooks classicalStartHooks(std::function<double()> secondsLeft, std::function<bool()> stopRequested)
{
    // No start at all under a stop: the search returns what it has, nothing.
    return deadlineHooks(std::move(secondsLeft), std::move(stopRequested), false);
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
        for (ClassicalStart& start : runClassicalPlacers(context, classicalPlacerNames(), hooks))
            starts.push_back(std::move(start));
    }
    sortStarts(starts);
    return starts;
}

LocalSearchOutcome localSearchFrom(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                   EvaluationBudget& budget, const PenaltyOptions& penalty)
{
    notePhase(budget, PhaseKind::LocalSearch, "local search");
    LocalSearchOutcome out;
    GroupingOptions colocation;
    colocation.strategy = GroupingStrategy::None;
    const Grouping groups = groupOps(context.graph, colocation);
    PlacementEvaluator evaluator(context.graph, context.cluster, context.sim, penalty);
    Evaluation current = evaluator.evaluate(start);
    budget.record(start, current);
    std::vector<DeviceId> choice = groups.collapse(start, context.cluster.deviceCount());
    out.converged = search.climb(groups, choice, current, budget, std::numeric_limits<int>::max());
    out.evaluation = current;
    out.result.best = groups.expand(choice);
    applyCpuPinning(context.graph, context.cluster, out.result.best); // as every candidate was
    out.result.bestStepTimeUs = current.rawStepTimeUs;
    out.result.feasible = current.feasible;
    return out;
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
