#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include "core/io/onnx/OnnxTensorData.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace post {

// Every name the nodes of a control-flow op's bodies read (at any depth), added to `names`
// (`inBody`: the nodes of `graph` are in a body already): an outer value a body reads by name
// keeps the node that makes it.
void addNamesReadInBodies(const onnx::GraphProto& graph, std::unordered_set<std::string>& names, bool inBody = false);

// Folds what shape inference needs to be constant (docs/importers.md, "Constant folding"):
// Constant nodes become initializers, and shape-arithmetic nodes whose inputs are known
// (integer constants, or fully inferred shapes for Shape/Size) are replaced by an
// initializer holding their result. Folded nodes leave the graph; `fileIndex` (the
// position of each remaining node in the file) is kept in step with graph.node().
class OnnxConstantFolder {
public:
    // `weightInputs`: graph inputs that are the model's weights (an export without
    // initializers), which an Identity passes on as an initializer's (foldPass).
    OnnxConstantFolder(onnx::GraphProto& graph, std::vector<int>& fileIndex, int opset,
                       std::unordered_set<std::string> weightInputs = {});

    // One pass over the nodes in order, reading the shapes the last shape inference left
    // in the graph. Returns how many nodes were folded away. An Identity of a weight (an
    // initializer or a weight input) is taken away too, its readers reading the weight.
    int foldPass();

    // Names of the tensors shape arithmetic computed (constants, never parameters); the
    // initializers that Constant nodes became are not among them.
    const std::unordered_set<std::string>& foldedNames() const { return folded_; }
    // Names of the initializers the file's Constant nodes became.
    const std::unordered_set<std::string>& constantNodeNames() const { return constantNodes_; }
    // The value of a tensor the folder knows (a constant, or one it computed), else null.
    const OnnxIntTensor* knownValue(const std::string& name) const
    {
        const auto it = known_.find(name);
        return it == known_.end() ? nullptr : &it->second;
    }
    int opset() const { return opset_; }
    // Whether the last shape inference left the tensor a shape with every dimension known.
    bool shapeKnown(const std::string& name) const { return shapes_.count(name) > 0; }
    // That shape, else null.
    const std::vector<std::int64_t>* knownShape(const std::string& name) const
    {
        const auto it = shapes_.find(name);
        return it == shapes_.end() ? nullptr : &it->second;
    }

private:
    void collectShapes();
    bool foldConstantNode(const onnx::NodeProto& node);

    onnx::GraphProto& graph_;
    std::vector<int>& fileIndex_;
    int opset_;
    std::unordered_map<std::string, OnnxIntTensor> known_;
    std::unordered_map<std::string, std::vector<std::int64_t>> shapes_;
    std::unordered_set<std::string> folded_;
    std::unordered_set<std::string> constantNodes_;
    std::unordered_set<std::string> weightInputs_;
    std::size_t computedElements_ = 0; // of all tensors foldOnnxNode made, for kOnnxMaxComputedElements
};

} // namespace post
