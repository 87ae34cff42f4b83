#pragma once

#include <optional>
#include <string_view>

namespace post {

// The graph formats (core/io/ImporterTable has a row for each: sniffing, reading, options,
// docs). Kineto is a format that is recognised and refused: a profile, not a graph.
enum class GraphFormat { Auto, PostGraph, PipeDream, Msr, Dot, TfPbtxt, Onnx, TorchEt, ChakraJson, ChakraEt, Kineto };

// The name --format takes: "auto", "post-graph", "pipedream", "msr", "dot", "pbtxt", "onnx",
// "pytorch-et", "chakra-json", "chakra-et", "kineto".
std::string_view toString(GraphFormat format);
std::optional<GraphFormat> parseGraphFormat(std::string_view text);

} // namespace post
