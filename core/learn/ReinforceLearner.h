#pragma once

#include "core/learn/PolicyLearner.h"

namespace post {

// Policy gradient with an EMA baseline and reward -sqrt(step time), as in
// Mirhoseini et al. 2017 (one Adam step per batch of K samples).
class ReinforceLearner final : public PolicyLearner {
public:
    explicit ReinforceLearner(LearnerOptions options = {})
        : PolicyLearner("reinforce", LearnerRules{.reinforce = true}, std::move(options))
    {
    }
};

} // namespace post
