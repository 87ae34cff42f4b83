#pragma once

#include "learn/LearnerOptions.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

struct LearnerOptionInfo {
    std::string key;
    std::string help;
};

// The learner constants settable by name (`post-cli place --set KEY=VALUE`).
const std::vector<LearnerOptionInfo>& learnerOptionKeys();

// Sets one option from text; returns what is wrong (unknown key, not a number, out of
// range) or nullopt on success.
std::optional<std::string> setLearnerOption(LearnerOptions& options, std::string_view key, std::string_view value);

} // namespace post
