#pragma once

#include "core/cost/OpCost.h"

#include <cstdint>
#include <map>
#include <optional>
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

    // A tensor that travels between ops: neither a parameter nor a constant.
    bool isActivation() const { return !isParameter && !isConstant; }
};

struct ShapedOp {
    std::string name;
    std::string type;               // ONNX op type ("Conv", "MatMul") or TF op ("Conv2D")
    std::vector<int> inputs;        // indices into ShapedGraph::tensors; -1 = absent optional input
    std::vector<int> outputs;       // indices into ShapedGraph::tensors
    std::vector<int> controlInputs; // indices into ShapedGraph::ops (TF "^name")
    // Integer attributes the cost model reads (kernel_shape, strides, group, ...).
    std::map<std::string, std::vector<std::int64_t>> intAttrs;
    // String attributes the cost model reads (Resize's mode, ...).
    std::map<std::string, std::string> stringAttrs;
    // Control flow (ONNX If, Loop, Scan): what its bodies cost, as the importer worked it
    // out (the larger branch, body x trip count); replaces the op's formula when set.
    std::optional<OpCost> bodyCost;
    std::string bodySummary; // how bodyCost was found, for the inspector and docs
    std::string colocate;    // optional colocation group
    bool cpuOnly = false;    // only a CPU can run it (Op::cpuOnly)
    std::string device;      // optional given device (TF GraphDef `device`)
    std::string location;    // where it came from, for error messages ("node 12")
};

// A dimension of a graph input that nothing gave a value (a symbolic ONNX dim_param
// other than the batch, a TF placeholder's -1): every cost that depends on it would be a
// guess, so the importers list them and the CLI refuses to time the graph until they are
// given (ImportOptions::dims, ImportOptions::inputShapes).
struct UnresolvedDim {
    std::string tensor; // the graph input
    int axis = 0;
    std::string symbol; // the dim_param, or empty when the dimension has no name
    int rank = 0;       // of the input, for messages ("--input-shape x=1,3,H,W")
    // The input's dimensions as far as they are known (-1 where not), so a whole
    // --input-shape can be offered with the known ones filled in (empty: not recorded).
    std::vector<std::int64_t> shape;
};

struct ShapedGraph {
    std::string name;
    std::string source; // file name for error messages
    std::vector<ShapedTensor> tensors;
    std::vector<ShapedOp> ops;
    std::vector<UnresolvedDim> unresolved;
    // Graph inputs the importer took as weights (an ONNX file exported without them,
    // whose parameters are graph inputs): counted in isParameter, and said by the CLI.
    int weightInputs = 0;
    // Exported by PyTorch: its ops run ATen's kernels, whose max pooling in a training step
    // keeps int64 argmax indices (atenMaxPoolCosts; docs/cost-model.md, "Pooling").
    bool atenKernels = false;
};

} // namespace post
