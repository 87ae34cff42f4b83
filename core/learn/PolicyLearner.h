#pragma once

#include "core/learn/BatchEvaluator.h"
#include "core/learn/LearnerOptions.h"
#include "core/learn/StepEvaluator.h"
#include "core/place/Placer.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace post {

// Throws std::invalid_argument naming the first option out of range.
void validateLearnerOptions(const LearnerOptions& options);

// Which updates the learning loop applies (Post = PPO + cross-entropy; none = random search).
struct LearnerRules {
    bool ppo = false;          // clipped-surrogate epochs on every batch of K samples
    bool crossEntropy = false; // every N samples: policy = smoothed elite frequencies
    bool reinforce = false;    // one policy-gradient step (EMA baseline) per batch of K
};

// The sampling loop of Post's Algorithm 1 shared by every learner: draw batches of K
// placements from a per-group categorical policy (one RNG, caller's thread), evaluate them
// in parallel, track the best feasible placement, and apply the configured updates.
// Results depend on the seed only, never on the thread count.
class PolicyLearner : public Placer {
public:
    // Makes the evaluator of one worker thread; the default runs the simulator.
    using EvaluatorMaker = post::EvaluatorMaker;

    PolicyLearner(std::string name, LearnerRules rules, LearnerOptions options);

    std::string name() const override { return name_; }
    PlaceResult place(const PlaceContext& context) override;

    const LearnerOptions& options() const { return options_; }
    const LearnerRules& rules() const { return rules_; }
    void setEvaluatorMaker(EvaluatorMaker maker) { evaluatorMaker_ = std::move(maker); }

private:
    std::string name_;
    LearnerRules rules_;
    LearnerOptions options_;
    EvaluatorMaker evaluatorMaker_;
};

} // namespace post
