#pragma once

#include "core/place/Placer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace post {

// One classical placer: the one list every consumer reads (the placer registry's classical
// rows, `LEARNER@best`'s starters, the searches' classical starts, milp's incumbent).
struct ClassicalPlacerRow {
    std::string name;
    std::function<std::unique_ptr<Placer>()> make;
    std::string description; // one line
    // 0: no start for LEARNER@best ("single" and "cpu" never win one); otherwise the order in
    // which LEARNER@best tries it (ties between starters go to the earlier one).
    int warmStartOrder = 0;
    // Run after every other placer among a search's starts (classicalStartOrder()): m-SCT,
    // whose LP takes what is left of the starts' share (docs/learners.md).
    bool lastAmongStarts = false;
};

// The classical placers, in the order the CLI and GUI list them.
const std::vector<ClassicalPlacerRow>& classicalPlacerRows();
// The row called `name`, or nullptr.
const ClassicalPlacerRow* findClassicalPlacer(const std::string& name);
// The names of the memory-aware placers LEARNER@best starts from, in their warmStartOrder.
std::vector<std::string> warmStartCandidates();
// Every classical name in the order a search that wants the best of all of them runs them
// (local-search's and post@best's starts, Post Studio's reference lines, milp's incumbent):
// LEARNER@best's candidates first (in their order), then the others in the table's order, so
// that ties go to the memory-aware placers; the lastAmongStarts ones at the end, so that their
// cost does not keep the cheaper ones out of a short run.
std::vector<std::string> classicalStartOrder();

// A classical placer's result, for the searches that start from them.
struct ClassicalStart {
    std::string name;
    PlaceResult result;
};

// What runClassicalPlacers() asks its caller (each may be absent).
struct ClassicalRunHooks {
    std::function<bool(size_t startsSoFar)> mayStart; // before each placer: run it? (absent: yes)
    // then, when it runs: its name, its index among `names` and their count (a progress line)
    std::function<void(const std::string& name, size_t index, size_t count)> starting;
    std::function<void(PlaceContext&)> adjust;       // its context, before it runs
    std::function<void(const ClassicalStart&)> done; // after it gave a start
    bool skipFailures = true; // a placer that throws (cpu without a CPU) gives no start; false: rethrow
    // Placers run at once (the placers are independent; 0: all cores). With more than one,
    // mayStart, starting and adjust are called from the worker threads (mayStart with the
    // placer's index among `names`: the first is index 0), and `done` from the caller's thread
    // once all have ended, in `names`' order. The lastAmongStarts placers run after the others,
    // one at a time (m-SCT, whose LP takes what the others left of the time).
    int threads = 1;
};

// Hooks for a search that runs the classical placers before a deadline. A placer runs to its
// end once started (on a 107,741-op graph they take seconds each); the next one only while
// `secondsLeft()` is above 0 and no stop is requested; the first one also when time is up, so
// that the search has a start, and with `firstDespiteStop` even under a stop (milp, which
// returns nothing without an incumbent). Each placer gets what is left as its own limit (m-SCT's
// LP stops there); an infinite secondsLeft() (no time limit) leaves the context's.
ClassicalRunHooks deadlineHooks(std::function<double()> secondsLeft, std::function<bool()> stopRequested,
                                bool firstDespiteStop);

// Runs the named classical placers on `context` without its observer (the live views show the
// caller's own evaluations), in the given order, under `hooks`. Results in run order.
std::vector<ClassicalStart> runClassicalPlacers(const PlaceContext& context, const std::vector<std::string>& names,
                                                const ClassicalRunHooks& hooks = {});
// Best first: feasible before infeasible, then by step time (ties keep the run order).
void sortStarts(std::vector<ClassicalStart>& starts);
// The best start (feasible first, then the least step time; the earliest among ties); an
// InputError naming the cluster when there is none.
const ClassicalStart& bestStart(const std::vector<ClassicalStart>& starts, const std::string& clusterName,
                                const std::string& who);

} // namespace post
