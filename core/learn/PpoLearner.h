#pragma once

#include "core/learn/PolicyLearner.h"

namespace post {

// Ablation of Post: PPO's clipped surrogate alone, every K samples.
class PpoLearner final : public PolicyLearner {
public:
    explicit PpoLearner(LearnerOptions options = {})
        : PolicyLearner("ppo", LearnerRules{.ppo = true}, std::move(options))
    {
    }
};

} // namespace post
