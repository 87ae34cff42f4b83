#include "place/PlacerRegistry.h"

#include "classic/ClassicalPlacerFactory.h"
#include "learn/LearnerFactory.h"

#include <algorithm>

namespace post {

std::vector<std::string> placerNames()
{
    std::vector<std::string> names = learnerNames();
    for (std::string& n : classicalPlacerNames())
        names.push_back(std::move(n));
    return names;
}

bool placerUsesSeed(std::string_view name)
{
    const std::vector<std::string> learners = learnerNames();
    return std::find(learners.begin(), learners.end(), name) != learners.end();
}

std::unique_ptr<Placer> makePlacer(std::string_view name)
{
    if (placerUsesSeed(name))
        return makeLearner(name, LearnerOptions{});
    return makeClassicalPlacer(name);
}

} // namespace post
