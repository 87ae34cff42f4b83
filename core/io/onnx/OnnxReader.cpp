#include "core/io/onnx/OnnxReader.h"

#include "core/graph/TopologicalSort.h"
#include "core/io/onnx/OnnxConstantFolder.h"
#include "core/io/onnx/OnnxDataSizes.h"
#include "core/io/onnx/OnnxImportChecks.h"
#include "core/io/onnx/OnnxModelCheck.h"
#include "core/io/onnx/OnnxNodeLocation.h"
#include "core/io/onnx/OnnxOpsetCompat.h"
#include "core/io/onnx/OnnxOwnShapes.h"
#include "core/io/onnx/OnnxShapeInference.h"
#include "core/io/onnx/OnnxTensorData.h"
#include "core/io/onnx/OnnxUnroll.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

constexpr int kMaxFoldRounds = 32;
constexpr int kMaxDataSizeRounds = 4 * kMaxFoldRounds;

void setSymbols(onnx::TypeProto* type, const std::map<std::string, std::int64_t>& symbols)
{
    if (!type->has_tensor_type() || !type->tensor_type().has_shape())
        return;
    for (auto& d : *type->mutable_tensor_type()->mutable_shape()->mutable_dim())
        if (d.has_dim_param())
            if (auto it = symbols.find(d.dim_param()); it != symbols.end())
                d.set_dim_value(it->second); // replaces the dim_param (a oneof)
}

std::string joined(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& n : names)
        text += (text.empty() ? "" : ", ") + n;
    return text.empty() ? "none" : text;
}

// The graph inputs that are the model's weights in a file exported without them
// (`torch.onnx.export(..., export_params=False)` makes every parameter a graph input and
// writes no initializer; docs/importers.md, "Parameters"): in a file without any
// initializer, every input after the first whose shape is fully given, of rank 1 or more,
// of a floating-point type, and not named by --input-shape. The first input is the data
// (PyTorch lists the model's own inputs first, then the parameters).
std::unordered_set<std::string> weightInputs(const onnx::GraphProto& graph, const ImportOptions& options)
{
    std::unordered_set<std::string> out;
    if (graph.initializer_size() > 0)
        return out;
    for (int i = 1; i < graph.input_size(); ++i) {
        const auto& input = graph.input(i);
        if (!input.type().has_tensor_type() || options.inputShapes.count(input.name()))
            continue;
        const auto& tt = input.type().tensor_type();
        const int type = tt.elem_type();
        if (type != onnx::TensorProto::FLOAT && type != onnx::TensorProto::FLOAT16
            && type != onnx::TensorProto::BFLOAT16 && type != onnx::TensorProto::DOUBLE)
            continue;
        if (!tt.has_shape() || tt.shape().dim_size() == 0)
            continue;
        bool fixed = true;
        for (const auto& d : tt.shape().dim())
            fixed = fixed && d.has_dim_value() && d.dim_value() > 0;
        if (fixed)
            out.insert(input.name());
    }
    return out;
}

std::string shapeText(const onnx::TensorShapeProto& shape, std::int64_t first)
{
    std::string text;
    for (int i = 0; i < shape.dim_size(); ++i) {
        const auto& d = shape.dim(i);
        text += (i ? "," : "")
            + (i == 0                  ? std::to_string(first)
                   : d.has_dim_value() ? std::to_string(d.dim_value())
                                       : d.dim_param());
    }
    return text;
}

// The batch (options.batch, when not 1) goes nowhere on an input whose leading dimension the
// export fixed: a warning names each such input, and when no input takes the batch at all
// nothing could change, so the import is refused (docs/importers.md, "Dimensions").
void checkFixedBatch(const std::vector<onnx::ValueInfoProto*>& inputs, int batchTaken, const ImportOptions& options,
                     const std::string& source, std::vector<std::string>& warnings)
{
    if (options.batch == 1)
        return;
    std::vector<std::string> fixed;
    std::string example;
    for (const auto* input : inputs) {
        const auto& tt = input->type().tensor_type();
        if (options.inputShapes.count(input->name()) || !tt.has_shape() || tt.shape().dim_size() == 0)
            continue;
        const auto& first = tt.shape().dim(0);
        if (!first.has_dim_value() || first.dim_value() == options.batch)
            continue;
        fixed.push_back("'" + input->name() + "' (" + std::to_string(first.dim_value()) + ")");
        if (example.empty())
            example = input->name() + "=" + shapeText(tt.shape(), options.batch);
    }
    if (fixed.empty())
        return;
    const std::string batch = std::to_string(options.batch);
    const std::string what = "the export fixed the leading dimension of input(s) " + joined(fixed)
        + " (no dynamic batch axis), so batch " + batch + " does not apply to them";
    const std::string how = "export with torch.onnx.export(..., dynamic_axes={...: {0: 'batch'}}), or give the "
                            "whole shape with --input-shape "
        + example;
    if (batchTaken == 0)
        throw InputError(source, "option batch",
                         "batch " + batch + " changes nothing: " + what + "; " + how
                             + " (a Reshape to a constant shape may still refuse it)");
    warnings.push_back(what + ": their costs are for the fixed size; " + how);
}

// Gives the graph inputs their dimensions (docs/importers.md, "Dimensions"):
// --input-shape sets a whole input; --dim NAME sets a symbolic dimension wherever it
// appears; the batch goes to the leading dimension of every input where it is symbolic
// (and to every dim sharing that dim_param). What is left symbolic on an input is
// returned: nothing counts as 1 silently. The model's weights given as inputs
// (`weights`) are not data and take none of it.
std::vector<UnresolvedDim> pinDims(onnx::GraphProto& graph, const ImportOptions& options, const std::string& source,
                                   const std::unordered_set<std::string>& weights, std::vector<std::string>& warnings)
{
    std::unordered_set<std::string> initializers;
    for (const auto& init : graph.initializer())
        initializers.insert(init.name());
    std::vector<onnx::ValueInfoProto*> inputs;
    std::vector<std::string> inputNames;
    for (auto& input : *graph.mutable_input())
        if (!initializers.count(input.name()) && !weights.count(input.name()) && input.type().has_tensor_type()) {
            inputs.push_back(&input);
            inputNames.push_back("'" + input.name() + "'");
        }
    std::map<std::string, std::int64_t> symbols;
    std::set<std::string> known; // every dim_param of the model's declared values
    auto collect = [&known](const auto& infos) {
        for (const auto& vi : infos)
            if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
                for (const auto& d : vi.type().tensor_type().shape().dim())
                    if (d.has_dim_param())
                        known.insert(d.dim_param());
    };
    collect(graph.input());
    collect(graph.output());
    collect(graph.value_info());

    bool refixed = false; // --input-shape changed a dimension the export fixed
    for (const auto& entry : options.inputShapes) {
        const std::string& name = entry.first; // not a structured binding: the lambda captures it
        const std::vector<std::int64_t>& dims = entry.second;
        const auto it = std::find_if(inputs.begin(), inputs.end(), [&](auto* vi) { return vi->name() == name; });
        if (it == inputs.end())
            throw InputError(source, "option input-shape",
                             "no graph input '" + name + "' (inputs: " + joined(inputNames) + ")");
        auto* shape = (*it)->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() != 0 && shape->dim_size() != static_cast<int>(dims.size()))
            throw InputError(source, "option input-shape",
                             "input '" + name + "' has rank " + std::to_string(shape->dim_size()) + ", got "
                                 + std::to_string(dims.size()) + " dimensions");
        if (shape->dim_size() == 0)
            for (std::size_t i = 0; i < dims.size(); ++i)
                shape->add_dim();
        for (std::size_t i = 0; i < dims.size(); ++i) {
            if (dims[i] < 1 || dims[i] > INT_MAX)
                throw InputError(source, "option input-shape",
                                 "input '" + name + "' dimension " + std::to_string(i) + " must be >= 1, got "
                                     + std::to_string(dims[i]));
            auto* d = shape->mutable_dim(static_cast<int>(i));
            if (d->has_dim_param())
                symbols.emplace(d->dim_param(), dims[i]); // the same name elsewhere gets it too
            refixed = refixed || (d->has_dim_value() && d->dim_value() != dims[i]);
            d->set_dim_value(dims[i]);
        }
    }
    for (const auto& [name, value] : options.dims) {
        if (!known.count(name)) {
            std::vector<std::string> names;
            for (const auto& k : known)
                names.push_back("'" + k + "'");
            throw InputError(source, "option dim",
                             "no symbolic dimension '" + name
                                 + "' in the model (its symbolic dimensions: " + joined(names) + ")");
        }
        if (value < 1 || value > INT_MAX)
            throw InputError(source, "option dim", "'" + name + "' must be >= 1, got " + std::to_string(value));
        symbols[name] = value;
    }
    int batchTaken = 0;
    for (auto* input : inputs) {
        auto& tt = *input->mutable_type()->mutable_tensor_type();
        if (!tt.has_shape() || tt.shape().dim_size() == 0)
            continue;
        auto* first = tt.mutable_shape()->mutable_dim(0);
        if (first->has_dim_param()) {
            const auto [it, added] = symbols.emplace(first->dim_param(), options.batch);
            batchTaken += added || it->second == options.batch ? 1 : 0;
        } else if (!first->has_dim_value()) {
            first->set_dim_value(options.batch);
            ++batchTaken;
        }
    }
    checkFixedBatch(inputs, batchTaken, options, source, warnings);
    for (auto& vi : *graph.mutable_input())
        setSymbols(vi.mutable_type(), symbols);
    for (auto& vi : *graph.mutable_output())
        setSymbols(vi.mutable_type(), symbols);
    for (auto& vi : *graph.mutable_value_info())
        setSymbols(vi.mutable_type(), symbols);
    if (refixed) {
        // The shapes the exporter wrote for the outputs and intermediate values follow the
        // input shape it traced with: stale now, so inference works them out again.
        for (auto* infos : {graph.mutable_output(), graph.mutable_value_info()})
            for (auto& vi : *infos)
                if (vi.type().has_tensor_type())
                    vi.mutable_type()->mutable_tensor_type()->clear_shape();
    }

    std::vector<UnresolvedDim> unresolved;
    for (auto* input : inputs) {
        const auto& tt = input->type().tensor_type();
        if (!tt.has_shape())
            continue;
        std::vector<std::int64_t> known;
        for (int i = 0; i < tt.shape().dim_size(); ++i) {
            const auto& d = tt.shape().dim(i);
            known.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
        }
        for (int i = 0; i < tt.shape().dim_size(); ++i) {
            const auto& d = tt.shape().dim(i);
            if (d.has_dim_value() && d.dim_value() >= 0)
                continue;
            unresolved.push_back(UnresolvedDim{input->name(), i, d.has_dim_param() ? d.dim_param() : std::string(),
                                               tt.shape().dim_size(), known});
        }
    }
    return unresolved;
}

// Every name a node reads, including the outer-scope names its subgraphs read.
void namesRead(const onnx::NodeProto& node, std::vector<const std::string*>& out)
{
    for (const auto& name : node.input())
        if (!name.empty())
            out.push_back(&name);
    for (const auto& a : node.attribute()) {
        if (a.type() == onnx::AttributeProto::GRAPH)
            for (const auto& n : a.g().node())
                namesRead(n, out);
        else if (a.type() == onnx::AttributeProto::GRAPHS)
            for (const auto& g : a.graphs())
                for (const auto& n : g.node())
                    namesRead(n, out);
    }
}

// The names a control-flow node's bodies read from outside them, in order of first use.
std::vector<std::string> outerNamesRead(const onnx::NodeProto& node)
{
    std::unordered_set<std::string> defined;
    std::vector<const std::string*> reads;
    std::function<void(const onnx::GraphProto&)> walk = [&](const onnx::GraphProto& g) {
        for (const auto& vi : g.input())
            defined.insert(vi.name());
        for (const auto& init : g.initializer())
            defined.insert(init.name());
        for (const auto& n : g.node()) {
            for (const auto& out : n.output())
                defined.insert(out);
            for (const auto& name : n.input())
                if (!name.empty())
                    reads.push_back(&name);
            for (const auto& a : n.attribute()) {
                if (a.type() == onnx::AttributeProto::GRAPH)
                    walk(a.g());
                for (const auto& sub : a.graphs())
                    walk(sub);
            }
        }
    };
    for (const auto& a : node.attribute()) {
        if (a.type() == onnx::AttributeProto::GRAPH)
            walk(a.g());
        for (const auto& sub : a.graphs())
            walk(sub);
    }
    std::vector<std::string> names;
    std::unordered_set<std::string> seen;
    for (const std::string* name : reads)
        if (!defined.count(*name) && seen.insert(*name).second)
            names.push_back(*name);
    return names;
}

// Puts the nodes in topological order (ONNX requires it; runtimes accept any order), the
// file position of each in fileIndex. Refuses a cycle, naming its nodes.
void sortNodes(onnx::GraphProto& graph, std::vector<int>& fileIndex, const std::string& source)
{
    const auto n = static_cast<std::size_t>(graph.node_size());
    std::unordered_map<std::string, int> producer;
    for (std::size_t i = 0; i < n; ++i)
        for (const auto& out : graph.node(static_cast<int>(i)).output())
            if (!out.empty())
                producer.emplace(out, static_cast<int>(i));
    std::vector<std::vector<int>> successors(n);
    bool sorted = true;
    std::vector<const std::string*> reads;
    for (std::size_t i = 0; i < n; ++i) {
        reads.clear();
        namesRead(graph.node(static_cast<int>(i)), reads);
        for (const std::string* name : reads)
            if (auto it = producer.find(*name); it != producer.end() && it->second != static_cast<int>(i)) {
                successors[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
                sorted = sorted && it->second < static_cast<int>(i);
            } else if (it != producer.end()) {
                sorted = false; // reads its own output: a cycle of one
                successors[i].push_back(static_cast<int>(i));
            }
    }
    if (sorted)
        return;
    const TopologicalSort order = topologicalSort(successors);
    if (!order.acyclic()) {
        const int first = order.cycle.front();
        throw InputError(source, onnxNodeLocation(fileIndex[static_cast<std::size_t>(first)], graph.node(first)),
                         "the nodes form a cycle: " + describeCycle(order.cycle, [&](int i) {
                             const auto& node = graph.node(i);
                             return node.name().empty()
                                 ? node.op_type() + " #" + std::to_string(fileIndex[static_cast<std::size_t>(i)])
                                 : node.name();
                         }));
    }
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    std::vector<int> index;
    for (int i : order.order) {
        *nodes.Add() = std::move(*graph.mutable_node(i));
        index.push_back(fileIndex[static_cast<std::size_t>(i)]);
    }
    graph.mutable_node()->Swap(&nodes);
    fileIndex = std::move(index);
}

// The graph's own name, or the file's stem where the exporter gives every model the same
// one (torch_jit, main_graph, ...).
std::string graphName(const onnx::GraphProto& graph, const std::string& source)
{
    if (!isGenericOnnxGraphName(graph.name()))
        return graph.name();
    const std::string stem = std::filesystem::path(source).stem().string();
    return stem.empty() ? graph.name() : stem;
}

std::string flopText(double flops)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g GFLOP", flops / 1e9);
    return buffer;
}

// Turns the checked, inferred and folded model (or one of its subgraphs) into a ShapedGraph.
class ShapedGraphWriter {
public:
    ShapedGraphWriter(const onnx::GraphProto& graph, const std::unordered_set<std::string>& folded,
                      const ShapedGraphWriter* outer = nullptr, const std::unordered_set<std::string>* weights = nullptr,
                      const OnnxConstantChains* chains = nullptr)
        : graph_(graph)
        , folded_(folded)
        , outer_(outer)
        , weights_(weights)
        , chains_(chains)
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
            if (chains_ && chains_->nodes.count(i))
                continue; // computed from constants alone: its result is a tensor, not an op
            const auto& node = graph_.node(i);
            const int at = fileIndex.empty() ? i : fileIndex[static_cast<std::size_t>(i)];
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
            copyAttributes(node, op);
            if (op.type == "If" || op.type == "Loop" || op.type == "Scan") {
                // What the bodies read from this scope (weights, activations) are inputs of
                // the op: its parameters and its dependencies.
                for (const std::string& name : outerNamesRead(node))
                    if (std::find(node.input().begin(), node.input().end(), name) == node.input().end()
                        && (typeOf(name) || initializerOf(name)))
                        op.inputs.push_back(tensor(name));
                costControlFlow(node, op, source);
            }
            out_.ops.push_back(std::move(op));
        }
        return std::move(out_);
    }

private:
    const onnx::TypeProto* typeOf(const std::string& name) const
    {
        if (auto it = types_.find(name); it != types_.end())
            return it->second;
        return outer_ ? outer_->typeOf(name) : nullptr;
    }
    const onnx::TensorProto* initializerOf(const std::string& name) const
    {
        if (auto it = initializers_.find(name); it != initializers_.end())
            return it->second;
        return outer_ && !types_.count(name) ? outer_->initializerOf(name) : nullptr;
    }

    int tensor(const std::string& name)
    {
        if (auto it = index_.find(name); it != index_.end())
            return it->second;
        ShapedTensor t;
        t.name = name;
        const onnx::TypeProto* type = typeOf(name);
        if (const onnx::TensorProto* init = initializerOf(name)) {
            t.shape.assign(init->dims().begin(), init->dims().end());
            t.elementBytes = onnxElementBytes(init->data_type());
            // Initializers and Constant nodes of the file are the weights, of any type
            // (int8 weights of a quantized model too); what the folder computed is not.
            t.isParameter = !folded_.count(name);
            t.isConstant = !t.isParameter;
            if (t.elementBytes == 0 && init->data_type() > onnx::TensorProto::BFLOAT16)
                t.elementBytes = 1; // int4, uint4, float4: packed, counted as a byte each
        } else if (type && type->has_tensor_type()) {
            const auto& tt = type->tensor_type();
            t.elementBytes = onnxElementBytes(tt.elem_type());
            if (tt.has_shape()) {
                for (const auto& d : tt.shape().dim())
                    t.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
            } else {
                t.shape = {-1}; // rank unknown
            }
            if (t.elementBytes == 0 && tt.elem_type() > onnx::TensorProto::BFLOAT16)
                t.elementBytes = 1;
            if (weights_ != nullptr && weights_->count(name)) {
                t.isParameter = true;
                ++out_.weightInputs;
            }
            if (chains_ != nullptr && chains_->outputs.count(name)) {
                // Made from constants (a ConstantOfShape weight, a mask): a float one is a
                // weight the model holds, an integer one an index table.
                t.isParameter = isOnnxFloatType(tt.elem_type());
                t.isConstant = !t.isParameter;
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

    void copyAttributes(const onnx::NodeProto& node, ShapedOp& op)
    {
        for (const auto& a : node.attribute()) {
            if (a.type() == onnx::AttributeProto::INT)
                op.intAttrs[a.name()] = {a.i()};
            else if (a.type() == onnx::AttributeProto::INTS)
                op.intAttrs[a.name()].assign(a.ints().begin(), a.ints().end());
            else if (a.type() == onnx::AttributeProto::STRING && a.s().size() <= 256)
                op.stringAttrs[a.name()] = a.s();
        }
        // kernel_shape is optional on Conv: the weight's spatial dims then.
        const int weight = node.op_type() == "QLinearConv" ? 3 : 1;
        if ((node.op_type() == "Conv" || node.op_type() == "ConvTranspose" || node.op_type() == "ConvInteger"
             || node.op_type() == "QLinearConv")
            && !op.intAttrs.count("kernel_shape") && static_cast<int>(op.inputs.size()) > weight
            && op.inputs[static_cast<std::size_t>(weight)] >= 0) {
            const auto& w = out_.tensors[static_cast<std::size_t>(op.inputs[static_cast<std::size_t>(weight)])].shape;
            if (w.size() > 2)
                op.intAttrs["kernel_shape"].assign(w.begin() + 2, w.end());
        }
    }

    // What one body costs: the sum of its ops (nested control flow included).
    OpCost bodyCost(const onnx::GraphProto& body, const std::string& source, int& ops) const
    {
        static const std::unordered_set<std::string> noFolds;
        ShapedGraphWriter inner(body, noFolds, this);
        const ShapedGraph g = inner.write(source, {});
        OpCost total;
        for (const ShapedOp& op : g.ops) {
            const OpCost c = estimateOpCost(g, op);
            total.flops += c.flops;
            total.bytesRead += c.bytesRead;
            total.bytesWritten += c.bytesWritten;
        }
        ops = static_cast<int>(g.ops.size());
        return total;
    }

    std::optional<std::int64_t> constantScalar(const std::string& name) const
    {
        const onnx::TensorProto* init = name.empty() ? nullptr : initializerOf(name);
        if (!init)
            return std::nullopt;
        auto t = decodeOnnxIntTensor(*init, 1);
        if (!t || t->values.size() != 1)
            return std::nullopt;
        return t->values[0];
    }

    // If: the larger branch, or the one a constant condition takes; Loop: the body x a
    // constant trip count; Scan: the body x the scanned axis (docs/cost-model.md).
    void costControlFlow(const onnx::NodeProto& node, ShapedOp& op, const std::string& source) const
    {
        std::map<std::string, const onnx::GraphProto*> bodies;
        for (const auto& a : node.attribute())
            if (a.type() == onnx::AttributeProto::GRAPH)
                bodies[a.name()] = &a.g();
        if (op.type == "If") {
            const auto* thenBranch = bodies.count("then_branch") ? bodies["then_branch"] : nullptr;
            const auto* elseBranch = bodies.count("else_branch") ? bodies["else_branch"] : nullptr;
            if (!thenBranch || !elseBranch)
                return;
            int thenOps = 0;
            int elseOps = 0;
            const OpCost thenCost = bodyCost(*thenBranch, source, thenOps);
            const OpCost elseCost = bodyCost(*elseBranch, source, elseOps);
            const auto cond = node.input_size() > 0 ? constantScalar(node.input(0)) : std::nullopt;
            const bool takeThen = cond ? *cond != 0
                                       : thenCost.flops + thenCost.bytesRead >= elseCost.flops + elseCost.bytesRead;
            op.bodyCost = takeThen ? thenCost : elseCost;
            op.bodySummary = "then_branch: " + std::to_string(thenOps) + " ops, " + flopText(thenCost.flops)
                + "; else_branch: " + std::to_string(elseOps) + " ops, " + flopText(elseCost.flops) + "; costed as "
                + (takeThen ? "then_branch" : "else_branch")
                + (cond ? " (the constant condition takes it)" : " (the larger)");
            return;
        }
        const auto* body = bodies.count("body") ? bodies["body"] : nullptr;
        if (!body)
            return;
        int bodyOps = 0;
        OpCost cost = bodyCost(*body, source, bodyOps);
        std::optional<double> trips;
        if (op.type == "Loop") {
            if (const auto m = node.input_size() > 0 ? constantScalar(node.input(0)) : std::nullopt; m && *m >= 0)
                trips = static_cast<double>(*m);
        } else if (const auto it = op.intAttrs.find("num_scan_inputs"); it != op.intAttrs.end() && !it->second.empty()) {
            // The scan inputs are the node's last num_scan_inputs inputs (op.inputs has the
            // outer-scope names the body reads after them).
            const auto scanInputs = static_cast<std::size_t>(std::max<std::int64_t>(it->second[0], 0));
            const auto nodeInputs = static_cast<std::size_t>(node.input_size());
            if (scanInputs > 0 && scanInputs <= nodeInputs && op.inputs[nodeInputs - scanInputs] >= 0) {
                const ShapedTensor& x = out_.tensors[static_cast<std::size_t>(op.inputs[nodeInputs - scanInputs])];
                std::int64_t axis = 0;
                if (auto a = op.intAttrs.find("scan_input_axes"); a != op.intAttrs.end() && !a->second.empty())
                    axis = a->second[0];
                if (axis < 0)
                    axis += static_cast<std::int64_t>(x.shape.size());
                if (axis >= 0 && axis < static_cast<std::int64_t>(x.shape.size())
                    && x.shape[static_cast<std::size_t>(axis)] >= 0)
                    trips = static_cast<double>(x.shape[static_cast<std::size_t>(axis)]);
            }
        }
        const double n = trips.value_or(1.0);
        cost.flops *= n;
        cost.bytesRead *= n;
        cost.bytesWritten *= n;
        op.bodyCost = cost;
        op.bodySummary = "body: " + std::to_string(bodyOps) + " ops, "
            + (trips ? "x " + std::to_string(static_cast<long long>(n)) + " iterations"
                     : std::string("trip count unknown: counted once"));
    }

    const onnx::GraphProto& graph_;
    const std::unordered_set<std::string>& folded_;
    const ShapedGraphWriter* outer_;
    const std::unordered_set<std::string>* weights_; // graph inputs that are weights (weightInputs)
    const OnnxConstantChains* chains_;               // nodes computed from constants (top level only)
    std::unordered_map<std::string, const onnx::TypeProto*> types_;
    std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
    std::unordered_map<std::string, int> index_;
    ShapedGraph out_;
};

// Shape inference, the project's own shape rules and folding alternate until nothing
// changes; each round folds or infers at least one node, so the bound only stops
// pathological chains.
// Where that stops with an op whose output size depends on the data (OnnxDataSizes.h), the
// size given or its most gives that output a shape, and the rounds go on from there: each
// such step shapes at least one output, and all of them together run at most
// kMaxDataSizeRounds rounds.
void inferAndFold(onnx::ModelProto& model, OnnxConstantFolder& folder, const std::string& source,
                  std::vector<int>& fileIndex, const ImportOptions& options, std::vector<DataDependentSize>& sizes)
{
    const OnnxKnownValue known = [&folder](const std::string& name) { return folder.knownValue(name); };
    std::size_t unrollBudget = kOnnxUnrollBudget;
    inferOnnxShapes(model, source, fileIndex);
    for (int round = 0, total = 0; round < kMaxFoldRounds && total < kMaxDataSizeRounds; ++round, ++total) {
        const int own = inferOwnOnnxShapes(*model.mutable_graph());
        const int folded = folder.foldPass();
        // Loops that run a known number of times, and the sequences they fill (tensor_split).
        onnx::GraphProto& graph = *model.mutable_graph();
        const int unrolled = unrollOnnxLoops(
                                 graph, fileIndex, folder.opset(), known,
                                 [&folder](const std::string& name) { return folder.shapeKnown(name); }, unrollBudget)
            + resolveOnnxSequences(graph, fileIndex, known);
        if (own + folded + unrolled == 0) {
            if (shapeOnnxDataDependentSizes(graph, fileIndex, folder, options.counts, options.countsAtMost, source, sizes)
                == 0)
                break;
            round = -1; // a new start: the shapes after the sizes
        }
        inferOnnxShapes(model, source, fileIndex);
    }
}

// What one read of a model gives: the shaped graph, and what the user should be told.
struct OnnxRead {
    ShapedGraph shaped;
    std::vector<std::string> warnings;
    std::vector<std::string> notes;
    std::string producer;                               // ModelProto.producer_name ("pytorch", "tf2onnx", ...)
    std::vector<std::vector<std::int64_t>> inputShapes; // ImportedGraph::inputShapes
    std::vector<DataDependentSize> sizes;               // ImportedGraph::dataDependentSizes
};

OnnxRead readOnnx(std::string_view content, const std::string& source, const ImportOptions& options)
{
    if (options.batch < 1 || options.batch > INT_MAX)
        throw InputError(source, "option batch", "must be an integer >= 1, got " + std::to_string(options.batch));
    OnnxRead read;
    onnx::ModelProto model = parseOnnxModel(content, source);
    read.producer = model.producer_name();
    const int opset = readOnnxOpset(model, source);
    onnx::GraphProto& graph = *model.mutable_graph();
    std::vector<int> fileIndex(static_cast<std::size_t>(graph.node_size()));
    std::iota(fileIndex.begin(), fileIndex.end(), 0);
    sortNodes(graph, fileIndex, source);
    downgradeOnnxModel(model, opset);
    checkOnnxModel(model, source, fileIndex);
    const std::unordered_set<std::string> weights = weightInputs(graph, options);
    std::vector<UnresolvedDim> unresolved = pinDims(graph, options, source, weights, read.warnings);
    {
        std::unordered_set<std::string> initializers;
        for (const auto& init : graph.initializer())
            initializers.insert(init.name());
        for (const auto& input : graph.input()) // the data inputs, as pinDims takes them
            if (!initializers.count(input.name()) && !weights.count(input.name()) && input.type().has_tensor_type()) {
                std::vector<std::int64_t>& dims = read.inputShapes.emplace_back();
                for (const auto& d : input.type().tensor_type().shape().dim())
                    dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
            }
    }
    OnnxConstantFolder folder(graph, fileIndex, std::min(opset, kOnnxLibraryOpset), weights);
    inferAndFold(model, folder, source, fileIndex, options, read.sizes);
    checkOnnxGivenSizes(options.counts, read.sizes, source);
    if (std::string note = dataDependentSizesNote(read.sizes); !note.empty())
        read.notes.push_back(std::move(note));
    const bool optionsChangedShapes = options.batch != 1 || !options.dims.empty() || !options.inputShapes.empty();
    checkOnnxConstantReshapes(graph, fileIndex, source, optionsChangedShapes);
    if (auto note = onnxInferenceExportNote(model))
        read.notes.push_back(std::move(*note));
    std::unordered_set<std::string> constants = folder.foldedNames();
    constants.insert(folder.constantNodeNames().begin(), folder.constantNodeNames().end());
    const OnnxConstantChains chains = findOnnxConstantChains(graph, constants);
    read.shaped = ShapedGraphWriter(graph, folder.foldedNames(), nullptr, &weights, &chains).write(source, fileIndex);
    read.shaped.unresolved = std::move(unresolved);
    read.shaped.atenKernels = read.producer == "pytorch";
    return read;
}

// Where the first activation without a full shape is made ("node 12 'x' (Mod)"), or empty.
std::string firstUnshapedOp(const ShapedGraph& g)
{
    for (const ShapedOp& op : g.ops)
        for (int t : op.outputs) {
            const ShapedTensor& tensor = g.tensors[static_cast<std::size_t>(t)];
            if (tensor.isActivation()
                && std::any_of(tensor.shape.begin(), tensor.shape.end(), [](std::int64_t d) { return d < 0; }))
                return op.location + ", tensor '" + tensor.name + "'";
        }
    return {};
}

// Kernel fusion follows the framework that runs the model: a PyTorch export runs in eager
// mode, each op its own kernel; other producers (tf2onnx, the ONNX model zoo) are fused, as
// TensorFlow's and ONNX Runtime's graph optimisers fuse element-wise chains.
FusionChoice onnxFusion(const OnnxRead& read, const ImportOptions& options)
{
    if (read.producer == "pytorch")
        return fusionChoice(options, false, "exported by PyTorch, whose eager mode runs each op as its own kernel");
    return fusionChoice(options, true,
                        "ONNX from "
                            + (read.producer.empty() ? std::string("an unnamed producer") : "'" + read.producer + "'")
                            + ": fused as graph runtimes fuse element-wise chains");
}

} // namespace

ShapedGraph readOnnxShapedGraph(std::string_view content, const std::string& source, const ImportOptions& options)
{
    return readOnnx(content, source, options).shaped;
}

Graph parseOnnxGraph(std::string_view content, const std::string& source, const ImportOptions& options, CostReport* report)
{
    const OnnxRead read = readOnnx(content, source, options);
    return buildTrainingGraph(read.shaped, importCostOptions(options, onnxFusion(read, options)), report);
}

ImportedGraph importOnnxGraph(std::string_view content, const std::string& source, const ImportOptions& options)
{
    OnnxRead read = readOnnx(content, source, options);
    ImportedGraph imported;
    imported.unshapedFrom = firstUnshapedOp(read.shaped);
    CostReport report;
    const FusionChoice fusion = onnxFusion(read, options);
    imported.graph = buildTrainingGraph(read.shaped, importCostOptions(options, fusion), &report);
    imported.fused = fusion.fused;
    imported.fusionWhy = fusion.why;
    imported.eagerHost = read.producer == "pytorch" && !fusion.fused;
    imported.source = source;
    imported.format = GraphFormat::Onnx;
    imported.warnings = std::move(read.warnings);
    imported.notes = std::move(read.notes);
    if (report.weightInputs > 0)
        imported.notes.push_back(std::to_string(report.weightInputs)
                                 + " graph input(s) taken as the model's weights: the file has no initializers "
                                   "(exported without its weights, e.g. export_params=False)");
    imported.unknownOpTypes = std::move(report.unknownTypes);
    imported.forwardFlops = report.totalForwardFlops;
    imported.unresolvedDims = std::move(report.unresolved);
    imported.inputShapes = std::move(read.inputShapes);
    imported.unshapedTensors = std::move(report.unshapedTensors);
    imported.dataDependentSizes = std::move(read.sizes);
    if (imported.unshapedTensors.empty())
        imported.unshapedFrom.clear();
    return imported;
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
