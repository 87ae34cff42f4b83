#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include "core/io/onnx/OnnxTensorData.h"

#include <functional>
#include <string>
#include <vector>

namespace post {

// A tensor's value where the constant folder knows it (OnnxConstantFolder::knownValue), else null.
using OnnxKnownValue = std::function<const OnnxIntTensor*(const std::string&)>;
// Whether shape inference gave a tensor a shape with every dimension known.
using OnnxShapeKnown = std::function<bool(const std::string&)>;

// The Loops of the main graph that fill a sequence a known number of times, unrolled
// (docs/importers.md, step 7): a carried value a sequence (whose elements no shape inference
// follows), the trip count known (at most 64), the condition a known true that the body hands
// on unchanged, no subgraph inside the body. Any other Loop stays one op, costed from its body. Each iteration's copy of the body's nodes, its
// names suffixed and the iteration number a constant, takes the Loop's place; the carried
// values it ends with reach the Loop's outputs through Identity nodes, the scan outputs
// through Unsqueeze and Concat. `fileIndex` stays in step with graph.node() (the copies take
// the Loop's place in the file). Opset 14 and later only (Identity of a sequence). torch 1.13
// exports torch.tensor_split as such a Loop filling a sequence (torchvision's MViT). An If whose
// condition is known and whose results have no shape otherwise (its branches' differ) is
// replaced by the branch it takes (its nodes, and Identity nodes to the If's outputs): MViT
// squeezes a dimension where it is 1 through one. Returns how many Loops and Ifs it replaced.
// `budget` is how many nodes unrolling may still add in this import (kOnnxUnrollBudget to
// start): a Loop that would pass it stays as it is, so a file of many long Loops cannot grow
// the graph without end.
int unrollOnnxLoops(onnx::GraphProto& graph, std::vector<int>& fileIndex, int opset, const OnnxKnownValue& known,
                    const OnnxShapeKnown& shaped, std::size_t& budget);

// Nodes unrolling may add to one import (MViT-V1-B: 38 Loops of 7 body nodes, once each).
inline constexpr std::size_t kOnnxUnrollBudget = 100'000;

// Sequences whose elements are known by name (SequenceEmpty, SequenceConstruct, SequenceInsert
// at the end or a known position, an Identity of one) resolved: SequenceAt at a known position
// reads that element itself, SequenceLength becomes a constant, ConcatFromSequence without a
// new axis a Concat; sequence nodes nothing reads any more leave the graph. Returns how many
// nodes it replaced or removed.
int resolveOnnxSequences(onnx::GraphProto& graph, std::vector<int>& fileIndex, const OnnxKnownValue& known);

} // namespace post
