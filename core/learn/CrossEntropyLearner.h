#pragma once

#include "core/learn/PolicyLearner.h"

namespace post {

// Ablation of Post: the cross-entropy step alone, every N samples.
class CrossEntropyLearner final : public PolicyLearner {
public:
    explicit CrossEntropyLearner(LearnerOptions options = {})
        : PolicyLearner("ce", LearnerRules{.crossEntropy = true}, std::move(options))
    {
    }
};

} // namespace post
