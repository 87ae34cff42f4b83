#include "core/io/onnx/OnnxImportChecks.h"

#include "core/cost/ReshapeShape.h"
#include "core/io/onnx/OnnxNodeLocation.h"
#include "core/io/onnx/OnnxOpsetCompat.h"
#include "core/io/onnx/OnnxTensorData.h"
#include "core/util/InputError.h"

#include <unordered_map>

namespace post {
namespace {

bool hasSubgraph(const onnx::NodeProto& node)
{
    for (const auto& a : node.attribute())
        if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS)
            return true;
    return false;
}

bool isRandom(const std::string& type)
{
    return type.rfind("Random", 0) == 0 || type == "Multinomial" || type == "Bernoulli";
}

std::string dimsText(const std::vector<std::int64_t>& dims)
{
    std::string text = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        text += (i ? ", " : "") + std::to_string(dims[i]);
    return text + "]";
}

// Every fully known shape the last inference left (inputs, value infos, outputs, initializers).
std::unordered_map<std::string, std::vector<std::int64_t>> knownShapes(const onnx::GraphProto& graph)
{
    std::unordered_map<std::string, std::vector<std::int64_t>> shapes;
    auto add = [&shapes](const auto& infos) {
        for (const auto& vi : infos) {
            if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
                continue;
            std::vector<std::int64_t> dims;
            bool known = true;
            for (const auto& d : vi.type().tensor_type().shape().dim()) {
                known = known && d.has_dim_value() && d.dim_value() >= 0;
                dims.push_back(d.dim_value());
            }
            if (known)
                shapes[vi.name()] = std::move(dims);
        }
    };
    add(graph.input());
    add(graph.value_info());
    add(graph.output());
    for (const auto& init : graph.initializer())
        shapes[init.name()].assign(init.dims().begin(), init.dims().end());
    return shapes;
}

std::optional<std::int64_t> boolConstant(const onnx::GraphProto& graph, const std::string& name)
{
    for (const auto& init : graph.initializer())
        if (init.name() == name) {
            const auto t = decodeOnnxIntTensor(init, 1);
            return t && t->values.size() == 1 ? std::optional(t->values[0]) : std::nullopt;
        }
    return std::nullopt;
}

} // namespace

OnnxConstantChains findOnnxConstantChains(const onnx::GraphProto& graph, const std::unordered_set<std::string>& constants)
{
    std::unordered_set<std::string> known = constants;
    for (const auto& init : graph.initializer())
        if (isOnnxIntegerType(init.data_type()))
            known.insert(init.name());
    OnnxConstantChains chains;
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& node = graph.node(i);
        if (!isOnnxDefaultDomain(node.domain()) || hasSubgraph(node) || isRandom(node.op_type()))
            continue;
        bool allConstant = true;
        int inputs = 0;
        for (const auto& name : node.input())
            if (!name.empty()) {
                ++inputs;
                allConstant = allConstant && known.count(name) > 0;
            }
        if (!allConstant || inputs == 0)
            continue;
        chains.nodes.insert(i);
        for (const auto& out : node.output())
            if (!out.empty()) {
                known.insert(out);
                chains.outputs.insert(out);
            }
    }
    return chains;
}

void checkOnnxConstantReshapes(const onnx::GraphProto& graph, const std::vector<int>& fileIndex,
                               const std::string& source, bool optionsChangedShapes)
{
    const auto shapes = knownShapes(graph);
    std::unordered_map<std::string, const onnx::TensorProto*> initializers;
    for (const auto& init : graph.initializer())
        initializers[init.name()] = &init;
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& node = graph.node(i);
        if (!isOnnxDefaultDomain(node.domain()) || node.op_type() != "Reshape" || node.input_size() < 2)
            continue;
        const auto data = shapes.find(node.input(0));
        const auto target = initializers.find(node.input(1));
        if (data == shapes.end() || target == initializers.end())
            continue;
        const auto wanted = decodeOnnxIntTensor(*target->second, 64);
        const auto elements = onnxElementCount(data->second);
        if (!wanted || wanted->dims.size() != 1 || !elements)
            continue;
        bool allowZero = false;
        for (const auto& a : node.attribute())
            allowZero = allowZero || (a.name() == "allowzero" && a.i() != 0);
        std::vector<std::int64_t> dims = wanted->values;
        for (std::size_t k = 0; k < dims.size(); ++k)
            if (dims[k] == 0 && !allowZero && k < data->second.size())
                dims[k] = data->second[k];
        if (reshapeHolds(dims, *elements))
            continue;
        throw InputError(
            source, onnxNodeLocation(fileIndex[static_cast<std::size_t>(i)], node),
            "reshapes " + dimsText(data->second) + " (" + std::to_string(*elements)
                + " elements) to the constant shape " + dimsText(wanted->values) + ", which cannot hold them"
                + (optionsChangedShapes
                       ? ": the file fixes this shape for the input shape it was exported with, so --batch, --dim "
                         "and --input-shape cannot change it; export the model with dynamic axes "
                         "(torch.onnx.export(..., dynamic_axes=...)) or keep the exported input shape"
                       : ""));
    }
}

std::optional<std::string> onnxInferenceExportNote(const onnx::ModelProto& model)
{
    const onnx::GraphProto& graph = model.graph();
    bool inferenceForm = false;
    bool foldedWeights = false; // a convolution's weight PyTorch's export computed (onnx::Conv_12)
    bool detection = false;     // boxes selected or regions pooled: a detection model
    for (const auto& node : graph.node()) {
        if (!isOnnxDefaultDomain(node.domain()))
            continue;
        detection = detection || node.op_type() == "NonMaxSuppression" || node.op_type() == "RoiAlign";
        foldedWeights = foldedWeights
            || (node.op_type() == "Conv" && node.input_size() > 1 && node.input(1).rfind("onnx::", 0) == 0);
        if (node.op_type() == "BatchNormalization") {
            int outputs = 0;
            for (const auto& out : node.output())
                outputs += out.empty() ? 0 : 1;
            bool training = outputs > 1;
            for (const auto& a : node.attribute())
                training = training || (a.name() == "training_mode" && a.i() != 0);
            if (training)
                return std::nullopt;
            inferenceForm = true;
        } else if (node.op_type() == "Dropout") {
            bool training = false;
            for (const auto& a : node.attribute())
                training = training || (a.name() == "is_test" && a.i() == 0); // opset < 7
            if (node.input_size() > 2 && !node.input(2).empty()) {
                const auto flag = boolConstant(graph, node.input(2));
                training = training || !flag || *flag != 0; // computed: may train
            }
            if (training)
                return std::nullopt;
            inferenceForm = true;
        }
    }
    // Without any: a PyTorch export whose eval mode folded its batch norms into the
    // convolutions, which then read weights the export computed, named onnx::Conv_N instead of
    // their module's `layer1.0.conv1.weight`. A training export of a network without batch
    // norm (ConvNeXt, Swin: layer norms) reads its convolutions' own weights: not noted.
    if (!inferenceForm && !(model.producer_name() == "pytorch" && foldedWeights))
        return std::nullopt;
    return std::string("this is an inference export (no BatchNormalization or Dropout in training form")
        + (inferenceForm ? "" : "; PyTorch's eval mode folded batch norms into the convolutions")
        + "): what they cost is not in the training step, which may be ~15% short; "
        + (detection ? "a detection model's training step (it samples its proposals at random) does not export to "
                       "ONNX: record it as a PyTorch execution trace instead (bench/record_training_step.py, "
                       "docs/importers.md)"
                     : "export with torch.onnx.export(..., training=torch.onnx.TrainingMode.TRAINING)");
}

bool isGenericOnnxGraphName(const std::string& name)
{
    return name.empty() || name == "torch_jit" || name == "main_graph" || name == "torch-jit-export";
}

} // namespace post
