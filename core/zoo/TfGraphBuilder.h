#pragma once

#include "core/cost/ShapedGraph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace post {

using TensorShape = std::vector<std::int64_t>;

// Builds a ShapedGraph the way TensorFlow 1.x graphs look: NHWC activations, HWIO
// convolution filters, one op per TF kernel (Conv2D, FusedBatchNorm, Relu, ...) with TF's
// attribute spelling in intAttrs (strides and ksize as 4-vectors). Op names are
// "<scope>/<Type>"-style paths, unique within the graph. Trainable variables become
// parameter tensors; a variable read by several ops (an LSTM kernel over time steps, tied
// embeddings) goes through one Identity "read" op, as in TF, so its bytes are counted
// once and a consumer on another device receives it as a tensor.
class TfGraphBuilder {
public:
    explicit TfGraphBuilder(std::string graphName);

    // Colocation group given to the ops added from now on ("" = free).
    void setColocation(std::string group) { colocate_ = std::move(group); }

    // A graph input fed by the input pipeline (a Placeholder op producing it).
    int placeholder(const std::string& name, TensorShape shape, int elementBytes = 4);
    int parameter(const std::string& name, TensorShape shape);
    // A tensor that is not trained (moving statistics, zero states, masks).
    int constant(const std::string& name, TensorShape shape, int elementBytes = 4);
    // A parameter read through an Identity op, for variables with several consumers.
    int sharedParameter(const std::string& name, TensorShape shape);

    // A generic op: returns the index of its first output (outputs are consecutive).
    int op(const std::string& name, const std::string& type, std::vector<int> inputs,
           std::vector<TensorShape> outputShapes, std::map<std::string, std::vector<std::int64_t>> intAttrs = {});

    const TensorShape& shape(int tensor) const;
    std::int64_t dim(int tensor, int axis) const; // negative axis counts from the end

    // Layers in TF spelling. `padding` is "SAME" or "VALID".
    int conv2d(const std::string& scope, int x, std::int64_t filters, int kh, int kw, int stride,
               const std::string& padding);
    int biasAdd(const std::string& scope, int x);
    // FusedBatchNorm in training mode and the six ops that update its moving mean and
    // variance; `scale` false = gamma fixed at 1 (slim's Inception). Returns y.
    int fusedBatchNorm(const std::string& scope, int x, bool scale);
    int pool(const std::string& name, const std::string& type, int x, int k, int stride, const std::string& padding);
    int concat(const std::string& name, const std::vector<int>& xs, int axis);
    int matmul(const std::string& name, int a, int b, bool transposeB = false);
    // x [.., in] -> x W + b with W [in, units] a parameter (or `shared` read tensor).
    int dense(const std::string& scope, int x, std::int64_t units, bool bias = true);
    int unary(const std::string& name, const std::string& type, int x);
    int binary(const std::string& name, const std::string& type, int a, int b); // broadcasting
    int reshape(const std::string& name, int x, TensorShape shape);
    int reduce(const std::string& name, const std::string& type, int x, std::vector<int> axes, bool keepDims);
    // Sparse softmax cross-entropy of logits [N, C] and int labels [N], then its Mean.
    int sparseSoftmaxLoss(const std::string& scope, int logits, int labels);

    ShapedGraph take() &&;

private:
    int addTensor(std::string name, TensorShape shape, int elementBytes, bool isParameter, bool isConstant);

    ShapedGraph graph_;
    std::string colocate_;
};

} // namespace post
