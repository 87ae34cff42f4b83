#pragma once

#include <optional>
#include <string_view>

namespace post {

enum class GraphFormat { Auto, PostGraph, PipeDream, Msr, Dot, TfPbtxt, Onnx };

std::string_view toString(GraphFormat format);
// Accepts "auto", "post-graph", "pipedream", "msr", "dot", "pbtxt", "onnx".
std::optional<GraphFormat> parseGraphFormat(std::string_view text);

} // namespace post
