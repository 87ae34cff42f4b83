#include "core/io/onnx/OnnxShapeInference.h"

#include "core/io/onnx/OnnxGuardedSchemas.h"
#include "core/io/onnx/OnnxNodeLocation.h"
#include "core/util/InputError.h"

#include <onnx/shape_inference/implementation.h>

namespace post {
namespace {

void eraseAll(std::string& text, const std::string& what)
{
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what))
        text.erase(at, what.size());
}

std::string trimmed(std::string text)
{
    const auto first = text.find_first_not_of(" \n");
    const auto last = text.find_last_not_of(" \n");
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

// ONNX reports "(op_type:MatMul, node name: mm): message"; finds that node and the message.
InputError toInputError(const std::string& what, const onnx::GraphProto& graph, const std::string& source,
                        const std::vector<int>& fileIndex)
{
    std::string text = what;
    eraseAll(text, "[ShapeInferenceError] ");
    eraseAll(text, "[TypeInferenceError] ");
    eraseAll(text, "Shape inference error(s): ");
    const auto open = text.find("(op_type:");
    const auto comma = text.find(", node name: ", open);
    const auto close = text.find("): ", comma);
    if (open == std::string::npos || comma == std::string::npos || close == std::string::npos)
        return InputError(source, "shape inference", trimmed(text));
    const std::string type = text.substr(open + 9, comma - open - 9);
    const std::string name = text.substr(comma + 13, close - comma - 13);
    std::string message = text.substr(close + 3);
    if (const auto eol = message.find('\n'); eol != std::string::npos)
        message.erase(eol); // several errors: the first one is enough
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& node = graph.node(i);
        if (node.op_type() == type && node.name() == name)
            return InputError(source, onnxNodeLocation(fileIndex[static_cast<std::size_t>(i)], node),
                              "shape inference failed: " + trimmed(message));
    }
    return InputError(source, "node '" + name + "' (" + type + ")", "shape inference failed: " + trimmed(message));
}

} // namespace

void inferOnnxShapes(onnx::ModelProto& model, const std::string& source, const std::vector<int>& fileIndex)
{
    // No data propagation: ONNX 1.12's propagation functions index shapes with unchecked
    // values (a Slice step beyond 32 bits reads past the shape: fuzz-regressions/onnx), and
    // OnnxConstantFolder already computes the shape arithmetic, checked, between rounds.
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/false);
    try {
        const OnnxGuardedSchemas schemas;
        onnx::shape_inference::InferShapes(model, &schemas, options);
    } catch (const std::exception& e) {
        throw toInputError(e.what(), model.graph(), source, fileIndex);
    }
}

} // namespace post
