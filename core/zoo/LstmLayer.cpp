#include "core/zoo/LstmLayer.h"

namespace post {

LstmLayer::LstmLayer(TfGraphBuilder& b, std::string scope, std::int64_t inputSize, std::int64_t units, std::int64_t batch)
    : b_(b)
    , scope_(std::move(scope))
    , units_(units)
{
    b_.setColocation("");
    kernel_ = b_.sharedParameter(scope_ + "/kernel", {inputSize + units, 4 * units});
    bias_ = b_.sharedParameter(scope_ + "/bias", {4 * units});
    forgetBias_ = b_.constant(scope_ + "/forget_bias", {1});
    h_ = b_.constant(scope_ + "/zero_state_h", {batch, units});
    c_ = b_.constant(scope_ + "/zero_state_c", {batch, units});
}

int LstmLayer::step(int x)
{
    const std::string s = scope_ + "/t" + std::to_string(t_++) + "/";
    b_.setColocation(s.substr(0, s.size() - 1));
    const std::int64_t batch = b_.dim(x, 0);
    const int xh = b_.concat(s + "concat", {x, h_}, 1);
    const int product = b_.matmul(s + "MatMul", xh, kernel_);
    const int gates = b_.op(s + "BiasAdd", "BiasAdd", {product, bias_}, {{batch, 4 * units_}});
    const int i = b_.op(s + "split", "Split", {gates},
                        {{batch, units_}, {batch, units_}, {batch, units_}, {batch, units_}},
                        {{"num_split", {4}}, {"axis", {1}}});
    const int j = i + 1, f = i + 2, o = i + 3; // Split's outputs are consecutive tensors
    const int forget = b_.unary(s + "Sigmoid", "Sigmoid", b_.binary(s + "add", "AddV2", f, forgetBias_));
    const int keep = b_.binary(s + "mul", "Mul", c_, forget);
    // Nested calls are sequenced explicitly so op order does not depend on the compiler.
    const int input = b_.unary(s + "Sigmoid_1", "Sigmoid", i);
    const int candidate = b_.unary(s + "Tanh", "Tanh", j);
    const int write = b_.binary(s + "mul_1", "Mul", input, candidate);
    c_ = b_.binary(s + "add_1", "AddV2", keep, write);
    const int squashed = b_.unary(s + "Tanh_1", "Tanh", c_);
    const int output = b_.unary(s + "Sigmoid_2", "Sigmoid", o);
    h_ = b_.binary(s + "mul_2", "Mul", squashed, output);
    b_.setColocation("");
    return h_;
}

} // namespace post
