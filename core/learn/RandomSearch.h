#pragma once

#include "core/learn/PolicyLearner.h"

namespace post {

// Baseline: uniform random placements of the groups (the policy never changes).
class RandomSearch final : public PolicyLearner {
public:
    explicit RandomSearch(LearnerOptions options = {})
        : PolicyLearner("random", LearnerRules{}, std::move(options))
    {
    }
};

} // namespace post
