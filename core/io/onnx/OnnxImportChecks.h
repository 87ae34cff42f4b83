#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only):
// what the reader checks and notes once shapes are inferred and constants folded
// (docs/importers.md, "ONNX", steps 7-8).
#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace post {

// The nodes of `graph` (top level) computed from constants alone, and what they make: a
// node whose every input is a constant root or made by such a node, of the default domain,
// without subgraphs and not random. Roots are `constants` (what the folder computed, the
// file's Constant nodes) and the file's integer and bool initializers; a float initializer
// is a trainable weight, so an op that reads one (a Gather of a bias table) stays an op.
// ConstantOfShape generating a model's weights, and the float tail of Swin's attention
// mask, are such chains: their results are tensors, not ops with gradients.
struct OnnxConstantChains {
    std::unordered_set<int> nodes;           // indices into graph.node()
    std::unordered_set<std::string> outputs; // what they make
};
OnnxConstantChains findOnnxConstantChains(const onnx::GraphProto& graph,
                                          const std::unordered_set<std::string>& constants);

// Refuses a Reshape whose target is a constant of the file and whose input's element count
// it does not hold (a classifier's Reshape to [1, 2048] after --batch 32 or --input-shape),
// naming the node. `optionsChangedShapes`: the message says the options made the mismatch.
void checkOnnxConstantReshapes(const onnx::GraphProto& graph, const std::vector<int>& fileIndex,
                               const std::string& source, bool optionsChangedShapes);

// A note for a model exported for inference (no BatchNormalization or Dropout in training
// form, and either some in inference form or a PyTorch export with convolutions, whose eval
// mode folds batch norms into them): its training step lacks them. nullopt otherwise.
std::optional<std::string> onnxInferenceExportNote(const onnx::ModelProto& model);

// True for graph names exporters give every model (torch_jit, main_graph, torch-jit-export,
// empty): the file's name says more.
bool isGenericOnnxGraphName(const std::string& name);

} // namespace post
