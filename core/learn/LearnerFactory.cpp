#include "core/learn/LearnerFactory.h"

#include "core/learn/CrossEntropyLearner.h"
#include "core/learn/PostLearner.h"
#include "core/learn/PpoLearner.h"
#include "core/learn/RandomSearch.h"
#include "core/learn/ReinforceLearner.h"

namespace post {

std::unique_ptr<Placer> makeLearner(std::string_view name, const LearnerOptions& options)
{
    if (name == "post")
        return std::make_unique<PostLearner>(options);
    if (name == "ce")
        return std::make_unique<CrossEntropyLearner>(options);
    if (name == "ppo")
        return std::make_unique<PpoLearner>(options);
    if (name == "reinforce")
        return std::make_unique<ReinforceLearner>(options);
    if (name == "random")
        return std::make_unique<RandomSearch>(options);
    return nullptr;
}

std::vector<std::string> learnerNames() { return {"post", "ce", "ppo", "reinforce", "random"}; }

} // namespace post
