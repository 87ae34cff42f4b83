#include "core/learn/Adam.h"

#include <cmath>

namespace post {

Adam::Adam(int rows, int cols, AdamOptions options)
    : options_(options)
    , m_(PolicyMatrix::Zero(rows, cols))
    , v_(PolicyMatrix::Zero(rows, cols))
{
}

void Adam::ascend(PolicyMatrix& parameters, const PolicyMatrix& gradient)
{
    ++steps_;
    m_ = options_.beta1 * m_ + (1.0 - options_.beta1) * gradient;
    v_ = options_.beta2 * v_ + (1.0 - options_.beta2) * gradient.cwiseProduct(gradient);
    const double c1 = 1.0 - std::pow(options_.beta1, steps_);
    const double c2 = 1.0 - std::pow(options_.beta2, steps_);
    parameters.array() += options_.learningRate * (m_.array() / c1) / ((v_.array() / c2).sqrt() + options_.epsilon);
}

void Adam::reset()
{
    m_.setZero();
    v_.setZero();
    steps_ = 0;
}

} // namespace post
