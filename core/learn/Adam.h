#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/learn/Policy.h"

namespace post {

// Adam (Kingma & Ba 2015) for gradient ascent on a matrix of parameters.
class Adam {
public:
    Adam() = default;
    Adam(int rows, int cols, AdamOptions options);

    // parameters += step along `gradient` (ascent).
    void ascend(PolicyMatrix& parameters, const PolicyMatrix& gradient);
    // Forget the moments, e.g. after the parameters were replaced wholesale.
    void reset();
    int steps() const { return steps_; }

private:
    AdamOptions options_;
    PolicyMatrix m_, v_;
    int steps_ = 0;
};

} // namespace post
