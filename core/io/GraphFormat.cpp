#include "core/io/GraphFormat.h"

namespace post {

std::string_view toString(GraphFormat format)
{
    switch (format) {
    case GraphFormat::Auto:
        return "auto";
    case GraphFormat::PostGraph:
        return "post-graph";
    case GraphFormat::PipeDream:
        return "pipedream";
    case GraphFormat::Msr:
        return "msr";
    case GraphFormat::Dot:
        return "dot";
    case GraphFormat::TfPbtxt:
        return "pbtxt";
    case GraphFormat::Onnx:
        return "onnx";
    case GraphFormat::TorchEt:
        return "pytorch-et";
    case GraphFormat::ChakraJson:
        return "chakra-json";
    case GraphFormat::ChakraEt:
        return "chakra-et";
    case GraphFormat::Kineto:
        return "kineto";
    }
    return "auto";
}

std::optional<GraphFormat> parseGraphFormat(std::string_view text)
{
    for (GraphFormat f : {GraphFormat::Auto, GraphFormat::PostGraph, GraphFormat::PipeDream, GraphFormat::Msr,
                          GraphFormat::Dot, GraphFormat::TfPbtxt, GraphFormat::Onnx, GraphFormat::TorchEt,
                          GraphFormat::ChakraJson, GraphFormat::ChakraEt, GraphFormat::Kineto})
        if (toString(f) == text)
            return f;
    return std::nullopt;
}

} // namespace post
