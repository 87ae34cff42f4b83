#pragma once

#include "core/learn/PolicyLearner.h"

namespace post {

// `post-alg1`: Post exactly as Gao, Chen, Li 2018, Algorithm 1 (PPO epochs every K samples and a
// cross-entropy step on the elite of the last N samples every N samples), kept for
// reproduction; Post Studio's own `post` is PostSearchLearner (core/learn/PostSearch.h).
class PostLearner final : public PolicyLearner {
public:
    explicit PostLearner(LearnerOptions options = {})
        : PolicyLearner("post-alg1", LearnerRules{.ppo = true, .crossEntropy = true}, std::move(options))
    {
    }
};

} // namespace post
