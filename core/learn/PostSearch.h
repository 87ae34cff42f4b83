#pragma once

#include "core/learn/BatchEvaluator.h"
#include "core/learn/LearnerOptions.h"
#include "core/learn/StepEvaluator.h"
#include "core/place/Placer.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace post {

class BatchEvaluator;
class EvaluationBudget;
class GroupLocalSearch;

// Post Studio's Post (`post`, docs/learners.md): Algorithm 1's sampling from a per-group
// softmax with CE steps and PPO, plus device-symmetry breaking, a coarse-to-fine action
// space chosen from the graph's shape, simulator-guided local search of the best and elite
// placements, and a refine-or-restart rule when the policy collapses without improving.
// One run can be advanced in slices (the race of `post@best` gives its arms turns); every
// evaluation comes out of the shared budget. Deterministic per seed, whatever the threads.
class PostSearchRun {
public:
    PostSearchRun(const PlaceContext& context, const LearnerOptions& options, BatchEvaluator& evaluator,
                  GroupLocalSearch& localSearch, EvaluationBudget& budget, std::uint64_t seed);
    ~PostSearchRun();
    PostSearchRun(const PostSearchRun&) = delete;
    PostSearchRun& operator=(const PostSearchRun&) = delete;

    // Spends up to `evaluations` more (fewer when the budget ends first).
    void advance(int evaluations);
    // Best placement so far (feasible first), `samplesUsed` left to the caller.
    const PlaceResult& result() const;
    // The penalised step time of the best (orders infeasible results among themselves).
    double bestPenalisedUs() const;
    // What the run settled on, for the docs and tests: groups now, refinements, restarts.
    int groupCount() const;
    int initialGroupCount() const;
    int refinements() const;
    int restarts() const;

private:
    struct State;
    std::unique_ptr<State> s_;
};

// `post` as a Placer: one PostSearchRun over the whole budget (samples and/or time).
class PostSearchLearner final : public Placer {
public:
    using EvaluatorMaker = post::EvaluatorMaker;

    explicit PostSearchLearner(LearnerOptions options = {});
    std::string name() const override { return "post"; }
    PlaceResult place(const PlaceContext& context) override;

    const LearnerOptions& options() const { return options_; }
    void setEvaluatorMaker(EvaluatorMaker maker) { evaluatorMaker_ = std::move(maker); }

private:
    LearnerOptions options_;
    EvaluatorMaker evaluatorMaker_;
};

} // namespace post
