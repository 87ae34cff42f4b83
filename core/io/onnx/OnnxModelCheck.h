#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>
#include <vector>

namespace post {

// Parses a serialized ModelProto; throws InputError (naming `source`) if it does not parse.
onnx::ModelProto parseOnnxModel(std::string_view content, const std::string& source);

// The model's ai.onnx opset as written. Throws InputError for a missing graph, an IR
// version above kOnnxMaxIrVersion, or an opset outside the range this build reads.
int readOnnxOpset(const onnx::ModelProto& model, const std::string& source);

// Validates the model (as downgradeOnnxModel left it) with the ONNX checker, node by node
// so an error names the node: "node 12" is fileIndex[12], its position in the file.
// Throws InputError for a node the checker rejects or an input nothing defines.
void checkOnnxModel(const onnx::ModelProto& model, const std::string& source, const std::vector<int>& fileIndex);

} // namespace post
