#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace post {

// A forward (inference) graph with tensor shapes: what the ONNX and TensorFlow importers
// read and what the model zoo generates. The cost model turns it into a training-step
// Graph (buildTrainingGraph). Plain data; the producer fills it, nothing validates here.
struct ShapedTensor {
    std::string name;
    // Dimensions; -1 for a dimension that could not be inferred.
    std::vector<std::int64_t> shape;
    int elementBytes = 4; // float32 unless the producer knows better
    // A trainable parameter (ONNX initializer, TF Variable): counted as the
    // consumer's parameter bytes, not as an activation sent between devices.
    bool isParameter = false;
    // A constant that is not trained (folded shape constants, lookup tables).
    bool isConstant = false;
};

struct ShapedOp {
    std::string name;
    std::string type;               // ONNX op type ("Conv", "MatMul") or TF op ("Conv2D")
    std::vector<int> inputs;        // indices into ShapedGraph::tensors; -1 = absent optional input
    std::vector<int> outputs;       // indices into ShapedGraph::tensors
    std::vector<int> controlInputs; // indices into ShapedGraph::ops (TF "^name")
    // Integer attributes the cost model reads (kernel_shape, strides, group, ...).
    std::map<std::string, std::vector<std::int64_t>> intAttrs;
    std::string colocate; // optional colocation group
    bool cpuOnly = false; // only a CPU can run it (Op::cpuOnly)
    std::string device;   // optional given device (TF GraphDef `device`)
    std::string location; // where it came from, for error messages ("node 12")
};

struct ShapedGraph {
    std::string name;
    std::string source; // file name for error messages
    std::vector<ShapedTensor> tensors;
    std::vector<ShapedOp> ops;
};

} // namespace post
