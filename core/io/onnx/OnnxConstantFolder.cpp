#include "core/io/onnx/OnnxConstantFolder.h"

#include "core/io/onnx/OnnxFoldOps.h"
#include "core/io/onnx/OnnxOpsetCompat.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace post {
namespace {

// Fully known dims of a value's type, or nothing.
bool knownDims(const onnx::TypeProto& type, std::vector<std::int64_t>& dims)
{
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return false;
    dims.clear();
    for (const auto& d : type.tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0)
            return false;
        dims.push_back(d.dim_value());
    }
    return true;
}

bool isDefaultDomain(const onnx::NodeProto& node) { return isOnnxDefaultDomain(node.domain()); }

} // namespace

void addNamesReadInBodies(const onnx::GraphProto& graph, std::unordered_set<std::string>& names, bool inBody)
{
    for (const auto& node : graph.node()) {
        if (inBody)
            names.insert(node.input().begin(), node.input().end());
        for (const auto& a : node.attribute()) {
            if (a.type() == onnx::AttributeProto::GRAPH)
                addNamesReadInBodies(a.g(), names, true);
            else if (a.type() == onnx::AttributeProto::GRAPHS)
                for (const auto& body : a.graphs())
                    addNamesReadInBodies(body, names, true);
        }
    }
}

OnnxConstantFolder::OnnxConstantFolder(onnx::GraphProto& graph, std::vector<int>& fileIndex, int opset,
                                       std::unordered_set<std::string> weightInputs)
    : graph_(graph)
    , fileIndex_(fileIndex)
    , opset_(opset)
    , weightInputs_(std::move(weightInputs))
{
    for (const auto& init : graph_.initializer())
        if (auto t = decodeOnnxIntTensor(init, kOnnxMaxFoldElements))
            known_.emplace(init.name(), std::move(*t));
}

void OnnxConstantFolder::collectShapes()
{
    shapes_.clear();
    std::vector<std::int64_t> dims;
    auto add = [&](const auto& infos) {
        for (const auto& vi : infos)
            if (knownDims(vi.type(), dims))
                shapes_[vi.name()] = dims;
    };
    add(graph_.input());
    add(graph_.value_info());
    add(graph_.output());
    for (const auto& init : graph_.initializer())
        shapes_[init.name()].assign(init.dims().begin(), init.dims().end());
}

// A Constant node becomes an initializer of the same name (any element type); like the
// file's own initializers it counts as a parameter of the ops that read it.
bool OnnxConstantFolder::foldConstantNode(const onnx::NodeProto& node)
{
    if (node.output_size() != 1 || node.attribute_size() != 1)
        return false;
    const auto& attr = node.attribute(0);
    onnx::TensorProto t;
    if (attr.name() == "value" && attr.type() == onnx::AttributeProto::TENSOR) {
        t = attr.t();
    } else if (attr.name() == "value_int" && attr.type() == onnx::AttributeProto::INT) {
        t.set_data_type(onnx::TensorProto::INT64);
        t.add_int64_data(attr.i());
    } else if (attr.name() == "value_ints" && attr.type() == onnx::AttributeProto::INTS) {
        t.set_data_type(onnx::TensorProto::INT64);
        t.add_dims(attr.ints_size());
        for (std::int64_t v : attr.ints())
            t.add_int64_data(v);
    } else if (attr.name() == "value_float" && attr.type() == onnx::AttributeProto::FLOAT) {
        t.set_data_type(onnx::TensorProto::FLOAT);
        t.add_float_data(attr.f());
    } else if (attr.name() == "value_floats" && attr.type() == onnx::AttributeProto::FLOATS) {
        t.set_data_type(onnx::TensorProto::FLOAT);
        t.add_dims(attr.floats_size());
        for (float v : attr.floats())
            t.add_float_data(v);
    } else {
        return false; // sparse and string constants stay nodes
    }
    const std::string& name = node.output(0);
    t.set_name(name);
    if (auto ints = decodeOnnxIntTensor(t, kOnnxMaxFoldElements))
        known_[name] = std::move(*ints);
    else if (auto reals = decodeOnnxRealTensor(t, kOnnxMaxRealElements)) // a literal scale, never a weight
        known_[name] = std::move(*reals);
    *graph_.add_initializer() = std::move(t);
    constantNodes_.insert(name);
    return true; // a constant of the file: a weight where an op reads it (not in folded_)
}

int OnnxConstantFolder::foldPass()
{
    collectShapes();
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    std::vector<int> keptIndex;
    std::vector<OnnxFoldInput> inputs;
    int foldedCount = 0;
    // An Identity of a weight (PyTorch's eval exports read shared or folded weights through
    // one, in the root's scope) is the weight itself: its readers read the initializer, so the
    // weight is their parameter and no op sends it to them every step.
    std::unordered_set<std::string> initializers = weightInputs_, outputs;
    for (const auto& init : graph_.initializer())
        initializers.insert(init.name());
    for (const auto& out : graph_.output())
        outputs.insert(out.name());
    addNamesReadInBodies(graph_, outputs, false); // kept, as the graph's outputs are
    std::unordered_map<std::string, std::string> aliasOf;
    for (int i = 0; i < graph_.node_size(); ++i) {
        onnx::NodeProto& node = *graph_.mutable_node(i);
        bool folded = false;
        if (isDefaultDomain(node) && node.op_type() == "Constant") {
            folded = foldConstantNode(node);
        } else if (isDefaultDomain(node) && node.op_type() == "Identity" && node.input_size() == 1
                   && node.output_size() == 1 && initializers.count(node.input(0)) && !known_.count(node.input(0))
                   && !outputs.count(node.output(0)) && !node.output(0).empty()) {
            aliasOf[node.output(0)] = node.input(0);
            folded = true;
        } else if (node.output_size() >= 1
                   && std::none_of(node.output().begin(), node.output().end(),
                                   [](const std::string& name) { return name.empty(); })) {
            inputs.assign(static_cast<std::size_t>(node.input_size()), {});
            for (int k = 0; k < node.input_size(); ++k) {
                const std::string& name = node.input(k);
                auto& in = inputs[static_cast<std::size_t>(k)];
                in.present = !name.empty();
                if (auto it = known_.find(name); it != known_.end())
                    in.value = &it->second;
                if (auto it = shapes_.find(name); it != shapes_.end())
                    in.shape = &it->second;
            }
            const std::size_t room = kOnnxMaxComputedElements - computedElements_;
            std::optional<std::vector<OnnxIntTensor>> values;
            if (isDefaultDomain(node) && node.op_type() == "Split") {
                values = foldOnnxSplit(node, inputs, opset_, room);
            } else if (node.output_size() == 1) {
                if (auto value = foldOnnxNode(node, inputs, opset_, room))
                    values.emplace(1, std::move(*value));
            }
            if (values) {
                for (std::size_t k = 0; k < values->size(); ++k) {
                    OnnxIntTensor& value = (*values)[k];
                    computedElements_ += value.size();
                    const std::string& name = node.output(static_cast<int>(k));
                    *graph_.add_initializer() = encodeOnnxIntTensor(value, name);
                    shapes_[name] = value.dims;
                    known_[name] = std::move(value);
                    folded_.insert(name);
                }
                folded = true;
            }
        }
        if (folded) {
            ++foldedCount;
        } else {
            kept.Add(std::move(node));
            keptIndex.push_back(fileIndex_[static_cast<std::size_t>(i)]);
        }
    }
    if (!aliasOf.empty())
        for (onnx::NodeProto& node : kept)
            for (std::string& input : *node.mutable_input())
                if (const auto it = aliasOf.find(input); it != aliasOf.end())
                    input = it->second; // an Identity's input is a weight: no chains
    graph_.mutable_node()->Swap(&kept);
    fileIndex_ = std::move(keptIndex);
    // The tensors folded now are initializers: the entries the last shape inference left for
    // them in value_info go. With one there, ONNX 1.12's inference does not read the
    // initializer's values, so an Expand to a folded shape got none (torchvision's MViT).
    if (foldedCount > 0) {
        google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> infos;
        for (onnx::ValueInfoProto& info : *graph_.mutable_value_info())
            if (!known_.count(info.name()) && !constantNodes_.count(info.name()))
                infos.Add(std::move(info));
        graph_.mutable_value_info()->Swap(&infos);
    }
    return foldedCount;
}

} // namespace post
