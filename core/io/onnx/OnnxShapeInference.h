#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace post {

// Runs ONNX shape inference (strict, type-checked, no data propagation) on the model in
// place. `fileIndex[i]` is the file position of graph.node(i). Throws InputError naming
// the node the first inference error is about.
void inferOnnxShapes(onnx::ModelProto& model, const std::string& source, const std::vector<int>& fileIndex);

} // namespace post
