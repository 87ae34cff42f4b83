#include "core/io/onnx/OnnxReader.h"

#include "core/io/onnx/OnnxConstantFolder.h"
#include "core/io/onnx/OnnxModelCheck.h"
#include "core/io/onnx/OnnxNodeLocation.h"
#include "core/io/onnx/OnnxShapeInference.h"
#include "core/io/onnx/OnnxTensorData.h"
#include "core/util/InputError.h"

#include <climits>
#include <filesystem>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

// Shape inference and folding alternate until nothing folds; each round folds at least
// one node, so this only bounds pathological chains.
constexpr int kMaxFoldRounds = 32;

void setDims(onnx::TypeProto* type, const std::unordered_set<std::string>& symbols, std::int64_t batch)
{
    if (!type->has_tensor_type() || !type->tensor_type().has_shape())
        return;
    for (auto& d : *type->mutable_tensor_type()->mutable_shape()->mutable_dim())
        if (d.has_dim_param() && symbols.count(d.dim_param()))
            d.set_dim_value(batch); // replaces the dim_param (a oneof)
}

// The batch dimension is the leading dimension of a graph input when it is symbolic
// (a dim_param, or no value at all). Every dim with the same dim_param gets the batch too.
void pinBatch(onnx::GraphProto& graph, std::int64_t batch)
{
    std::unordered_set<std::string> initializers;
    for (const auto& init : graph.initializer())
        initializers.insert(init.name());
    std::unordered_set<std::string> symbols;
    for (auto& input : *graph.mutable_input()) {
        if (initializers.count(input.name()) || !input.type().has_tensor_type()
            || !input.type().tensor_type().has_shape() || input.type().tensor_type().shape().dim_size() == 0)
            continue;
        auto* first = input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
        if (first->has_dim_param())
            symbols.insert(first->dim_param());
        else if (!first->has_dim_value())
            first->set_dim_value(batch);
    }
    for (auto& vi : *graph.mutable_input())
        setDims(vi.mutable_type(), symbols, batch);
    for (auto& vi : *graph.mutable_output())
        setDims(vi.mutable_type(), symbols, batch);
    for (auto& vi : *graph.mutable_value_info())
        setDims(vi.mutable_type(), symbols, batch);
}

std::string graphName(const onnx::GraphProto& graph, const std::string& source)
{
    if (!graph.name().empty())
        return graph.name();
    return std::filesystem::path(source).stem().string();
}

// Turns the checked, inferred and folded model into a ShapedGraph.
class ShapedGraphWriter {
public:
    ShapedGraphWriter(const onnx::GraphProto& graph, const std::unordered_set<std::string>& folded)
        : graph_(graph)
        , folded_(folded)
    {
        for (const auto& vi : graph.input())
            types_[vi.name()] = &vi.type();
        for (const auto& vi : graph.value_info())
            types_[vi.name()] = &vi.type();
        for (const auto& vi : graph.output())
            types_[vi.name()] = &vi.type();
        for (const auto& init : graph.initializer())
            initializers_[init.name()] = &init;
    }

    ShapedGraph write(const std::string& source, const std::vector<int>& fileIndex)
    {
        out_.name = graphName(graph_, source);
        out_.source = source;
        std::unordered_set<std::string> opNames;
        for (int i = 0; i < graph_.node_size(); ++i) {
            const auto& node = graph_.node(i);
            const int at = fileIndex[static_cast<std::size_t>(i)];
            ShapedOp op;
            op.name = node.name();
            if (op.name.empty()) {
                op.name = node.op_type();
                op.name.append("_").append(std::to_string(at));
            }
            while (!opNames.insert(op.name).second) // names need not be unique in ONNX
                op.name.append("#").append(std::to_string(at));
            op.type = node.op_type();
            op.location = onnxNodeLocation(at, node);
            for (const auto& name : node.input()) // -1 keeps the place of an omitted optional input
                op.inputs.push_back(name.empty() ? -1 : tensor(name));
            for (const auto& name : node.output())
                if (!name.empty())
                    op.outputs.push_back(tensor(name));
            copyIntAttributes(node, op);
            out_.ops.push_back(std::move(op));
        }
        return std::move(out_);
    }

private:
    int tensor(const std::string& name)
    {
        if (auto it = index_.find(name); it != index_.end())
            return it->second;
        ShapedTensor t;
        t.name = name;
        if (auto init = initializers_.find(name); init != initializers_.end()) {
            const onnx::TensorProto& p = *init->second;
            t.shape.assign(p.dims().begin(), p.dims().end());
            t.elementBytes = onnxElementBytes(p.data_type());
            // Trained weights are floating point; integer initializers and what the
            // folder made are shape constants, index tables and the like.
            t.isParameter = isOnnxFloatType(p.data_type()) && !folded_.count(name);
            t.isConstant = !t.isParameter;
        } else if (auto type = types_.find(name); type != types_.end() && type->second->has_tensor_type()) {
            const auto& tt = type->second->tensor_type();
            t.elementBytes = onnxElementBytes(tt.elem_type());
            if (tt.has_shape()) {
                for (const auto& d : tt.shape().dim())
                    t.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
            } else {
                t.shape = {-1}; // rank unknown
            }
        } else {
            t.shape = {-1}; // no type inferred (an op of an unknown domain, a sequence, ...)
        }
        if (t.elementBytes == 0)
            t.elementBytes = 4; // strings and unknown types: counted like float32
        const int id = static_cast<int>(out_.tensors.size());
        out_.tensors.push_back(std::move(t));
        index_.emplace(name, id);
        return id;
    }

    void copyIntAttributes(const onnx::NodeProto& node, ShapedOp& op)
    {
        for (const auto& a : node.attribute()) {
            if (a.type() == onnx::AttributeProto::INT)
                op.intAttrs[a.name()] = {a.i()};
            else if (a.type() == onnx::AttributeProto::INTS)
                op.intAttrs[a.name()].assign(a.ints().begin(), a.ints().end());
        }
        // kernel_shape is optional on Conv: the weight's spatial dims then.
        if ((node.op_type() == "Conv" || node.op_type() == "ConvTranspose") && !op.intAttrs.count("kernel_shape")
            && op.inputs.size() >= 2 && op.inputs[1] >= 0) {
            const auto& w = out_.tensors[static_cast<std::size_t>(op.inputs[1])].shape;
            if (w.size() > 2)
                op.intAttrs["kernel_shape"].assign(w.begin() + 2, w.end());
        }
    }

    const onnx::GraphProto& graph_;
    const std::unordered_set<std::string>& folded_;
    std::unordered_map<std::string, const onnx::TypeProto*> types_;
    std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
    std::unordered_map<std::string, int> index_;
    ShapedGraph out_;
};

} // namespace

ShapedGraph readOnnxShapedGraph(std::string_view content, const std::string& source, const ImportOptions& options)
{
    if (options.batch < 1 || options.batch > INT_MAX)
        throw InputError(source, "option batch", "must be an integer >= 1, got " + std::to_string(options.batch));
    onnx::ModelProto model = parseOnnxModel(content, source);
    const int opset = checkOnnxModel(model, source);
    onnx::GraphProto& graph = *model.mutable_graph();
    std::vector<int> fileIndex(static_cast<std::size_t>(graph.node_size()));
    std::iota(fileIndex.begin(), fileIndex.end(), 0);
    pinBatch(graph, options.batch);
    OnnxConstantFolder folder(graph, fileIndex, opset);
    inferOnnxShapes(model, source, fileIndex);
    for (int round = 0; round < kMaxFoldRounds && folder.foldPass() > 0; ++round)
        inferOnnxShapes(model, source, fileIndex);
    return ShapedGraphWriter(graph, folder.foldedNames()).write(source, fileIndex);
}

Graph parseOnnxGraph(std::string_view content, const std::string& source, const ImportOptions& options, CostReport* report)
{
    return buildTrainingGraph(readOnnxShapedGraph(content, source, options), CostModelOptions{}, report);
}

bool looksLikeOnnxModel(std::string_view content)
{
    if (content.empty() || content.size() > static_cast<std::size_t>(INT_MAX))
        return false;
    onnx::ModelProto model;
    return model.ParseFromArray(content.data(), static_cast<int>(content.size())) && model.has_graph()
        && model.graph().node_size() > 0;
}

} // namespace post
