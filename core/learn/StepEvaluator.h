#pragma once

#include "core/graph/Placement.h"
#include "core/learn/Evaluation.h"

#include <functional>
#include <memory>

namespace post {

// Scores placements. One instance per thread (implementations keep scratch state).
class StepEvaluator {
public:
    virtual ~StepEvaluator() = default;
    virtual Evaluation evaluate(const Placement& placement) = 0;
};

// Makes one evaluator per worker thread.
using StepEvaluatorFactory = std::function<std::unique_ptr<StepEvaluator>()>;

} // namespace post
