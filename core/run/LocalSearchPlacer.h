#pragma once

#include "core/classic/ClassicalPlacers.h"
#include "core/learn/Evaluation.h"
#include "core/learn/LearnerOptions.h"
#include "core/place/Placer.h"
#include "core/place/ProgressObserver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace post {

class EvaluationBudget;
class GroupLocalSearch;

// Tells the budget's observer that a phase starts now (ProgressObserver::onPhase).
void notePhase(EvaluationBudget& budget, PhaseKind kind, std::string label, int run = -1);

// The classical placers of the table on `context` (no observer), in the table's order until
// the time budget is up (each runs to its end once started; the first always runs), best first: feasible
// before infeasible, then by step time (ties keep the table order). Their own simulations
// are recorded in `budget` (reported to its observer as samples of the placer's result).
// context.classicalStarts, when given, are taken as those runs (in the table's order, as
// runClassicalPlacers with classicalStartHooks gives them): recorded, sorted, not run again.
// context.start, when given, is simulated once and joins them as "start" (first among equals).
std::vector<ClassicalStart> runClassicalStarts(const PlaceContext& context, EvaluationBudget& budget);
// The rules by which runClassicalStarts runs them: within kClassicalStartsShare of the time left
// when they begin, each placer starts while some of that share is left (the first always,
// unless stopped), and one with a time-bounded part gets what is left of it.
inline constexpr double kClassicalStartsShare = 0.1;
ClassicalRunHooks classicalStartHooks(std::function<double()> secondsLeft, std::function<bool()> stopRequested);

// The hill climb of `local-search` from `start` over colocation groups: exactly what the
// placer does after its classical starts, shared with `post@best` so the default placer
// takes the same path at the same budget.
struct LocalSearchOutcome {
    PlaceResult result;
    Evaluation evaluation;
    bool converged = false;
    bool stalled = false; // a plateau walk ended by its stall rule (PlateauWalk::setStopOnStall)
};
LocalSearchOutcome localSearchFrom(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                   EvaluationBudget& budget, const PenaltyOptions& penalty);

// Iterated local search from `start` (docs/learners.md, "Kicks"): climbs it as
// localSearchFrom does, then, until the budget ends, kicks the best placement (a run of 3 to 40
// colocation groups, consecutive in topological order, moved together to one device, or two
// devices exchanged within it), climbs the kicked placement and keeps it when it is strictly
// better. A climb ends at a placement no single move, swap, merge or block move improves; a
// kick moves many groups at once, which no climb step does, and the climb after it keeps what
// they made possible. Deterministic per `seed` at a sample budget.
LocalSearchOutcome kickedLocalSearch(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                     EvaluationBudget& budget, const PenaltyOptions& penalty, std::uint64_t seed);

// The plateau walk from `start` (core/learn/PlateauWalk.h, docs/learners.md): random moves and
// neighbour swaps of colocation groups to the devices kicks go to, each kept when no slower,
// until the budget ends (or, with `stopOnStall`, until it stalls); the best placement reached,
// never worse than `start`. Deterministic per `seed` at a sample budget, whatever the threads.
LocalSearchOutcome plateauWalkFrom(const PlaceContext& context, const Placement& start, EvaluationBudget& budget,
                                   const PenaltyOptions& penalty, std::uint64_t seed, bool stopOnStall = false);

// post@best's search after its race (docs/learners.md, "The plateau walk"): the plateau walk
// from `start` until it stalls, then the local search with kicks from the best it reached, in
// what is left. On some graphs the walk crosses plateaus to faster placements (nasnetamobile,
// resnet_et); on others it drifts and finds nothing faster, and a kick's many moves at once
// lead on (GoogLeNet, squeezenet1_0). Deterministic per `seed` at a sample budget.
LocalSearchOutcome walkThenKicks(const PlaceContext& context, const Placement& start, GroupLocalSearch& search,
                                 EvaluationBudget& budget, const PenaltyOptions& penalty, std::uint64_t seed);

// `local-search`: the baseline that shows what learning adds (docs/placers.md). From the
// best classical placement, moves one colocation group to another device (groups on the
// simulated critical path first), then swaps neighbouring groups, keeping strict
// improvements, until nothing improves or the budget (samples, seconds) ends. Deterministic.
class LocalSearchPlacer final : public Placer {
public:
    std::string name() const override { return "local-search"; }
    PlaceResult place(const PlaceContext& context) override;
};

} // namespace post
