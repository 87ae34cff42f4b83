#include "core/run/PlacerRegistry.h"

#include "core/classic/ClassicalPlacerFactory.h"
#include "core/learn/LearnerFactory.h"
#include "core/run/WarmStartedPlacer.h"

#include <algorithm>

namespace post {
namespace {

bool isLearner(std::string_view name)
{
    const std::vector<std::string> learners = learnerNames();
    return std::find(learners.begin(), learners.end(), name) != learners.end();
}

bool isClassical(std::string_view name)
{
    const std::vector<std::string> classical = classicalPlacerNames();
    return std::find(classical.begin(), classical.end(), name) != classical.end();
}

// "post@m-sct" -> {"post", "m-sct"}; no '@' -> {name, ""}.
std::pair<std::string_view, std::string_view> splitWarmStart(std::string_view name)
{
    const auto at = name.find('@');
    if (at == std::string_view::npos)
        return {name, {}};
    return {name.substr(0, at), name.substr(at + 1)};
}

} // namespace

std::vector<std::string> placerNames()
{
    std::vector<std::string> names = learnerNames();
    names.push_back("post@best");
    for (std::string& n : classicalPlacerNames())
        names.push_back(std::move(n));
    return names;
}

bool placerUsesSeed(std::string_view name) { return isLearner(splitWarmStart(name).first); }

std::unique_ptr<Placer> makePlacer(std::string_view name, const LearnerOptions& options)
{
    const auto [base, starter] = splitWarmStart(name);
    if (!starter.empty()) {
        if (!isLearner(base))
            return nullptr;
        std::vector<std::string> starters;
        if (starter == "best") {
            // The memory-aware classical placers; "single" and "cpu" never win a start.
            for (const char* s : {"m-etf", "m-sct", "m-topo", "round-robin", "metis"})
                starters.emplace_back(s);
        } else if (isClassical(starter)) {
            starters.emplace_back(starter);
        } else {
            return nullptr;
        }
        return std::make_unique<WarmStartedPlacer>(std::string(base), std::move(starters), std::string(name), options);
    }
    if (isLearner(name))
        return makeLearner(name, options);
    return makeClassicalPlacer(name);
}

} // namespace post
