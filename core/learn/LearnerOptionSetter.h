#pragma once

#include "core/learn/LearnerOptions.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

struct LearnerOptionInfo {
    std::string key;
    std::string help;
    std::vector<std::string> choices; // the accepted words of a non-numeric option, else empty
};

// The learner constants settable by name (`post-cli place --set KEY=VALUE`).
const std::vector<LearnerOptionInfo>& learnerOptionKeys();

// Sets one option from text; returns what is wrong (unknown key, not a number, out of
// range) or nullopt on success.
std::optional<std::string> setLearnerOption(LearnerOptions& options, std::string_view key, std::string_view value);

// The option's current value in `options` as setLearnerOption() accepts it back (e.g. "20",
// "0.05", "chains"); nullopt for an unknown key.
std::optional<std::string> learnerOptionValue(const LearnerOptions& options, std::string_view key);

} // namespace post
