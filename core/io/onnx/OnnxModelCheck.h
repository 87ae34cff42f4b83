#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>

namespace post {

// Parses a serialized ModelProto; throws InputError (naming `source`) if it does not parse.
onnx::ModelProto parseOnnxModel(std::string_view content, const std::string& source);

// Validates the model with the ONNX checker, node by node so an error names the node.
// Returns the opset of the default (ai.onnx) domain. Throws InputError for a missing
// graph, an unsupported IR version or opset, or a node the checker rejects.
int checkOnnxModel(const onnx::ModelProto& model, const std::string& source);

} // namespace post
