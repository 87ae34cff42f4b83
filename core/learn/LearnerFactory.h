#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/place/Placer.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// The learner called `name` (one of learnerNames()), or nullptr for an unknown name.
std::unique_ptr<Placer> makeLearner(std::string_view name, const LearnerOptions& options = {});

// post, ce, ppo, reinforce, random.
std::vector<std::string> learnerNames();

} // namespace post
