#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include <onnx/onnx_pb.h>

#include <string>

namespace post {

// "node 12 'conv1' (Conv)": the node's 0-based position in the file's graph.node list,
// its name when it has one, and its op type.
inline std::string onnxNodeLocation(int fileIndex, const onnx::NodeProto& node)
{
    std::string text = "node " + std::to_string(fileIndex);
    if (!node.name().empty())
        text += " '" + node.name() + "'";
    return text + " (" + node.op_type() + ")";
}

} // namespace post
