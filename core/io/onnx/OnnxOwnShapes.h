#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

namespace post {

// Shapes libonnx 1.12 cannot infer, from the project's own rules: the outputs of nodes
// moved to kOnnxOpaqueDomain (ops newer than opset 17) and of common ops of other domains
// (com.microsoft's fused activations and normalisations) whose outputs have no type yet.
// Element-wise and normalisation ops give their first input's type; BitwiseAnd/Or/Xor
// broadcast two inputs; DequantizeLinear and QuantizeLinear keep the shape and take the
// scale's or zero point's type; Attention keeps the query's shape with the value's last
// dimension. Adds value_info for what it infers; returns how many outputs got a type.
// An op without a rule keeps its outputs unknown (named, without a shape).
int inferOwnOnnxShapes(onnx::GraphProto& graph);

} // namespace post
