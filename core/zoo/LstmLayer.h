#pragma once

#include "core/zoo/TfGraphBuilder.h"

#include <string>

namespace post {

// One LSTM layer unrolled over time steps as TF 1.x's BasicLSTMCell builds it: per step
// ConcatV2([x, h]) -> MatMul(kernel) -> BiasAdd -> Split into i, j, f, o ->
// c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j), h' = tanh(c') * sigmoid(o)
// (14 ops). The kernel [inputSize + units, 4 units] and bias are read once through Identity
// ops shared by every step; each step's ops form one colocation group.
class LstmLayer {
public:
    LstmLayer(TfGraphBuilder& b, std::string scope, std::int64_t inputSize, std::int64_t units, std::int64_t batch);

    // Advances one step with input x [batch, inputSize]; returns the new h.
    int step(int x);
    int h() const { return h_; }
    int c() const { return c_; }

private:
    TfGraphBuilder& b_;
    std::string scope_;
    std::int64_t units_;
    int kernel_, bias_, forgetBias_;
    int h_, c_;
    int t_ = 0;
};

} // namespace post
