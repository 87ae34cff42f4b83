#pragma once

#include "core/learn/PolicyLearner.h"

namespace post {

// Post (Gao, Chen, Li 2018, Algorithm 1): PPO epochs every K samples and a
// cross-entropy step on the elite of the last N samples every N samples.
class PostLearner final : public PolicyLearner {
public:
    explicit PostLearner(LearnerOptions options = {})
        : PolicyLearner("post", LearnerRules{.ppo = true, .crossEntropy = true}, std::move(options))
    {
    }
};

} // namespace post
