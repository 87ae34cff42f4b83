#include "core/run/PlacerRegistry.h"

#include "core/classic/ClassicalPlacers.h"
#include "core/exact/MilpPlacer.h"
#include "core/learn/CrossEntropyLearner.h"
#include "core/learn/PostLearner.h"
#include "core/learn/PostSearch.h"
#include "core/learn/PpoLearner.h"
#include "core/learn/RandomSearch.h"
#include "core/learn/ReinforceLearner.h"
#include "core/run/LocalSearchPlacer.h"
#include "core/run/RacePlacer.h"
#include "core/run/WarmStartName.h"
#include "core/run/WarmStartedPlacer.h"

#include <stdexcept>

namespace post {
namespace {

template <class T> std::function<std::unique_ptr<Placer>(const LearnerOptions&)> learner()
{
    return [](const LearnerOptions& o) -> std::unique_ptr<Placer> { return std::make_unique<T>(o); };
}

template <class T> std::function<std::unique_ptr<Placer>(const LearnerOptions&)> plain()
{
    return [](const LearnerOptions&) -> std::unique_ptr<Placer> { return std::make_unique<T>(); };
}

// "post@m-sct" -> {"post", "m-sct"}; no '@' -> {name, ""}.
std::pair<std::string_view, std::string_view> splitWarmStart(std::string_view name)
{
    if (const std::optional<WarmStartName> parts = splitWarmStartName(name))
        return {parts->learner, parts->starter};
    return {name, {}};
}

bool isKind(std::string_view name, PlacerKind kind)
{
    const PlacerInfo* row = findPlacer(name);
    return row && row->kind == kind;
}

} // namespace

const std::vector<PlacerInfo>& placerTable()
{
    static const std::vector<PlacerInfo> table = [] {
        std::vector<PlacerInfo> rows = {
            {"post", PlacerKind::Learner, learner<PostSearchLearner>(),
             "Post Studio's Post: CE + PPO on samples drawn by list scheduling guided by the policy, "
             "symmetry breaking, local search, restarts"},
            {"post-alg1", PlacerKind::Learner, learner<PostLearner>(),
             "Post exactly as the paper's Algorithm 1: CE steps plus PPO on a per-group device policy "
             "(Gao et al. 2018)"},
            {"ce", PlacerKind::Learner, learner<CrossEntropyLearner>(),
             "Ablation of Algorithm 1: cross-entropy steps only"},
            {"ppo", PlacerKind::Learner, learner<PpoLearner>(), "Ablation of Algorithm 1: PPO updates only"},
            {"reinforce", PlacerKind::Learner, learner<ReinforceLearner>(),
             "REINFORCE with a moving-average baseline (Mirhoseini et al. 2017)"},
            {"random", PlacerKind::Learner, learner<RandomSearch>(),
             "Uniform random placements: the floor any learner must beat"},
            {"post@best", PlacerKind::Race,
             [](const LearnerOptions& o) -> std::unique_ptr<Placer> { return std::make_unique<RacePlacer>(o); },
             "The default: local search from the best classical placement, then a race of warm and cold Post runs"},
            {"milp", PlacerKind::Exact,
             [](const LearnerOptions& o) -> std::unique_ptr<Placer> {
                 return std::make_unique<MilpPlacer>(o.milpGroups);
             },
             "Exact: CBC solves placement and schedule as a MILP within --time (default 10 s), op-level up to 60 ops "
             "(proven bound), larger graphs on contiguous chunks (a bound of the grouping only)"},
            {"local-search", PlacerKind::Baseline, plain<LocalSearchPlacer>(),
             "Hill climb over colocation groups from the best classical placement (moves, then neighbour swaps)"},
        };
        // The classical placers: core/classic's one list.
        for (const ClassicalPlacerRow& row : classicalPlacerRows())
            rows.push_back({row.name, PlacerKind::Classical,
                            [make = row.make](const LearnerOptions&) -> std::unique_ptr<Placer> { return make(); },
                            row.description});
        return rows;
    }();
    return table;
}

const PlacerInfo* findPlacer(std::string_view name)
{
    for (const PlacerInfo& row : placerTable())
        if (row.name == name)
            return &row;
    return nullptr;
}

std::vector<std::string> placerNames()
{
    std::vector<std::string> names;
    for (const PlacerInfo& row : placerTable())
        names.push_back(row.name);
    return names;
}

std::vector<std::string> placerNames(PlacerKind kind)
{
    std::vector<std::string> names;
    for (const PlacerInfo& row : placerTable())
        if (row.kind == kind)
            names.push_back(row.name);
    return names;
}

std::vector<std::string> classicalPlacerNames() { return placerNames(PlacerKind::Classical); }
std::vector<std::string> learnerNames() { return placerNames(PlacerKind::Learner); }

std::vector<std::string> defaultComparisonNames()
{
    std::vector<std::string> names;
    for (const PlacerInfo& row : placerTable())
        if (row.kind != PlacerKind::Exact)
            names.push_back(row.name);
    return names;
}

bool placerUsesSeed(std::string_view name)
{
    if (const PlacerInfo* row = findPlacer(name))
        return row->kind == PlacerKind::Learner || row->kind == PlacerKind::Race;
    return isKind(splitWarmStart(name).first, PlacerKind::Learner);
}

bool placerUsesSampleBudget(std::string_view name)
{
    if (const PlacerInfo* row = findPlacer(name))
        return row->kind == PlacerKind::Learner || row->kind == PlacerKind::Race || row->kind == PlacerKind::Baseline;
    return isKind(splitWarmStart(name).first, PlacerKind::Learner);
}

bool placerUsesLowerBound(std::string_view name) { return isKind(name, PlacerKind::Exact); }

StartUse placerStartUse(std::string_view name)
{
    const PlacerInfo* row = findPlacer(name);
    if (!row || name == "random") // LEARNER@PLACER starts from its placer; random draws uniformly
        return StartUse::None;
    if (row->kind == PlacerKind::Learner)
        return StartUse::Policy;
    return row->kind == PlacerKind::Race || row->kind == PlacerKind::Baseline ? StartUse::Start : StartUse::None;
}

std::unique_ptr<Placer> makePlacerFrom(std::string_view name, LearnerOptions options, const Placement& start,
                                       PlaceContext& context)
{
    switch (placerStartUse(name)) {
    case StartUse::Policy:
        options.warmStart = start;
        return makePlacer(name, options);
    case StartUse::Start:
        context.start = &start;
        return makePlacer(name, options);
    case StartUse::None:
        break;
    }
    if (!findPlacer(name) && !makePlacer(name))
        return nullptr;
    throw std::invalid_argument(std::string(name) + " does not start from a placement");
}

std::string placerDescription(std::string_view name)
{
    if (const PlacerInfo* row = findPlacer(name))
        return row->description;
    const auto [base, starter] = splitWarmStart(name);
    if (starter.empty() || !isKind(base, PlacerKind::Learner))
        return {};
    if (starter == "best")
        return std::string(base)
            + " started from the best memory-aware classical placement (half the budget warm, half cold)";
    if (!isKind(starter, PlacerKind::Classical))
        return {};
    return std::string(base) + " started from the " + std::string(starter)
        + " placement (half the budget warm, half cold)";
}

std::unique_ptr<Placer> makePlacer(std::string_view name, const LearnerOptions& options)
{
    if (const PlacerInfo* row = findPlacer(name))
        return row->make(options);
    const auto [base, starter] = splitWarmStart(name);
    if (starter.empty() || !isKind(base, PlacerKind::Learner))
        return nullptr;
    std::vector<std::string> starters;
    if (starter == "best") {
        starters = warmStartCandidates(); // the memory-aware ones: "single" and "cpu" never win a start
    } else if (isKind(starter, PlacerKind::Classical)) {
        starters.emplace_back(starter);
    } else {
        return nullptr;
    }
    return std::make_unique<WarmStartedPlacer>(std::string(base), std::move(starters), std::string(name), options);
}

std::unique_ptr<Placer> makeClassicalPlacer(std::string_view name)
{
    return isKind(name, PlacerKind::Classical) ? findPlacer(name)->make({}) : nullptr;
}

std::unique_ptr<Placer> makeLearner(std::string_view name, const LearnerOptions& options)
{
    return isKind(name, PlacerKind::Learner) ? findPlacer(name)->make(options) : nullptr;
}

} // namespace post
