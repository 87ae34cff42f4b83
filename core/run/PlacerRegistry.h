#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/place/Placer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace post {

enum class PlacerKind : std::uint8_t {
    Learner,   // samples placements from a learned distribution (seeded)
    Race,      // races warm and cold learner runs (seeded)
    Baseline,  // deterministic search from the classical placements (local-search)
    Classical, // one deterministic heuristic
    Exact,     // proves a bound and, time permitting, optimality (milp): named explicitly, not run by default
};

// One row of the table of every placement algorithm: `post-cli --help`, the GUI's
// algorithm picker, `compare` and makePlacer() all read it.
struct PlacerInfo {
    std::string name;
    PlacerKind kind;
    std::function<std::unique_ptr<Placer>(const LearnerOptions&)> make; // options: learners only
    std::string description;                                            // one line
};

// The table, in the order the CLI and GUI list it: learners, races, baselines, classical.
const std::vector<PlacerInfo>& placerTable();
// The row of `name`, or nullptr (LEARNER@PLACER names have no row: see makePlacer()).
const PlacerInfo* findPlacer(std::string_view name);

// Every name of the table, in its order.
std::vector<std::string> placerNames();
// The names of one kind (classicalPlacerNames(): single, cpu, round-robin, m-topo, m-etf,
// m-sct, metis; learnerNames(): post, post-alg1, ce, ppo, reinforce, random).
std::vector<std::string> placerNames(PlacerKind kind);
std::vector<std::string> classicalPlacerNames();
std::vector<std::string> learnerNames();
// What a comparison runs when no algorithm is named: every name but the exact placers, which
// take their whole time budget and refuse graphs above their size limit (`--algos milp`).
std::vector<std::string> defaultComparisonNames();
// True for algorithms whose result depends on the seed (learners, races, LEARNER@PLACER).
bool placerUsesSeed(std::string_view name);
// True for algorithms that stop at a number of samples (learners, races, local-search); the
// classical placers and milp simulate as many placements as their method needs.
bool placerUsesSampleBudget(std::string_view name);
// True for algorithms that build the polynomial lower bound into their search
// (PlaceContext::lowerBoundUs: milp's model, a row C >= the bound); the others only
// report it, so post-cli place and Post Studio compute it beside them.
bool placerUsesLowerBound(std::string_view name);
// How `name` starts from a placement given to it (post-cli place --start, the Studio's "from
// the shown placement"): a learner's policy starts on it (LearnerOptions::warmStart, evaluated
// first); post@best and local-search take it as PlaceContext::start, one more start beside the
// classical placers; the others (random, classical, milp, LEARNER@PLACER) cannot. Either way
// the result is never worse than the given placement.
enum class StartUse : std::uint8_t { None, Policy, Start };
StartUse placerStartUse(std::string_view name);
// The placer `name` started from `start` as placerStartUse says: a learner made with
// `options.warmStart = start`, or the placer made with `options` and `context.start` pointed at
// `start` (which must outlive the run). nullptr for an unknown name; std::invalid_argument
// when `name` cannot start from a placement.
std::unique_ptr<Placer> makePlacerFrom(std::string_view name, LearnerOptions options, const Placement& start,
                                       PlaceContext& context);
// The one-line description of a table row or of LEARNER@PLACER; empty for an unknown name.
std::string placerDescription(std::string_view name);

// The placer called `name`: a table row, or LEARNER@PLACER (a learner warm-started from a
// classical placer, or from the best memory-aware one for LEARNER@best; see
// WarmStartedPlacer). nullptr for an unknown name. `options` configure learners.
std::unique_ptr<Placer> makePlacer(std::string_view name, const LearnerOptions& options = {});
// Only names of the given kind (nullptr otherwise).
std::unique_ptr<Placer> makeClassicalPlacer(std::string_view name);
std::unique_ptr<Placer> makeLearner(std::string_view name, const LearnerOptions& options = {});

} // namespace post
