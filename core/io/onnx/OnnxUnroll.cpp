// Loops of known trip count unrolled, and sequences of known elements resolved (OnnxUnroll.h).
#include "core/io/onnx/OnnxUnroll.h"

#include "core/io/onnx/OnnxConstantFolder.h"
#include "core/io/onnx/OnnxOpsetCompat.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

constexpr std::int64_t kMaxUnrolledIterations = 64;

bool isDefaultDomain(const onnx::NodeProto& node) { return isOnnxDefaultDomain(node.domain()); }

std::optional<std::int64_t> knownScalar(const OnnxKnownValue& known, const std::string& name)
{
    const OnnxIntTensor* t = name.empty() ? nullptr : known(name);
    if (t == nullptr || t->isReal() || t->values.size() != 1)
        return std::nullopt;
    return t->values[0];
}

bool hasSubgraph(const onnx::NodeProto& node)
{
    for (const auto& a : node.attribute())
        if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS)
            return true;
    return false;
}

onnx::TensorProto int64Tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<std::int64_t>& values)
{
    return encodeOnnxIntTensor(OnnxIntTensor{onnx::TensorProto::INT64, dims, values, {}}, name);
}

// A Constant node holding `value`: the constant folder learns its value on its next pass.
onnx::NodeProto constantNode(const std::string& name, onnx::TensorProto value)
{
    onnx::NodeProto node;
    node.set_op_type("Constant");
    node.set_name(name);
    node.add_output(value.name());
    auto* a = node.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = std::move(value);
    return node;
}

onnx::NodeProto makeNode(const std::string& type, const std::string& name, const std::vector<std::string>& inputs,
                         const std::string& output)
{
    onnx::NodeProto node;
    node.set_op_type(type);
    node.set_name(name);
    for (const std::string& input : inputs)
        node.add_input(input);
    node.add_output(output);
    return node;
}

// What unrolling one Loop writes in its place: its constants (Constant nodes) and the nodes.
struct Unrolled {
    std::vector<onnx::NodeProto> nodes;
};

std::optional<Unrolled> unrollLoop(const onnx::NodeProto& loop, int opset, const OnnxKnownValue& known, std::size_t budget)
{
    const onnx::GraphProto* body = nullptr;
    for (const auto& a : loop.attribute())
        if (a.name() == "body" && a.type() == onnx::AttributeProto::GRAPH)
            body = &a.g();
    if (body == nullptr || loop.input_size() < 2)
        return std::nullopt;
    const std::optional<std::int64_t> trips = knownScalar(known, loop.input(0));
    if (!trips || *trips < 0 || *trips > kMaxUnrolledIterations
        || static_cast<std::size_t>(*trips) * static_cast<std::size_t>(body->node_size() + 1) > budget)
        return std::nullopt;
    const std::string& condition = loop.input(1);
    if (!condition.empty() && knownScalar(known, condition).value_or(0) == 0)
        return std::nullopt;
    const int carried = loop.input_size() - 2;
    const int scans = body->output_size() - 1 - carried;
    if (body->input_size() != carried + 2 || scans < 0 || loop.output_size() > carried + scans
        || (scans > 0 && *trips == 0))
        return std::nullopt;
    // Only a Loop that carries a sequence: one over tensors stays one op, costed from its body.
    bool sequence = false;
    for (int j = 0; j < carried; ++j)
        sequence = sequence || body->input(2 + j).type().has_sequence_type();
    if (!sequence)
        return std::nullopt;
    for (const auto& node : body->node())
        if (hasSubgraph(node))
            return std::nullopt;
    // The condition must stay true: the body hands on its own, or a known true of the graph
    // outside (torch's export: an Identity of the Loop's own condition), directly or through an
    // Identity.
    const std::string& conditionIn = body->input(1).name();
    std::string conditionOut = body->output(0).name();
    std::unordered_set<std::string> inBody = {body->input(0).name(), conditionIn};
    for (const auto& input : body->input())
        inBody.insert(input.name());
    for (const auto& init : body->initializer())
        inBody.insert(init.name());
    for (const auto& node : body->node()) {
        if (node.op_type() == "Identity" && node.output_size() == 1 && node.output(0) == conditionOut
            && node.input_size() == 1)
            conditionOut = node.input(0);
        inBody.insert(node.output().begin(), node.output().end());
    }
    if (conditionOut != conditionIn && (inBody.count(conditionOut) || knownScalar(known, conditionOut).value_or(0) == 0))
        return std::nullopt;

    Unrolled out;
    const std::string stem = (loop.output_size() > 0 && !loop.output(0).empty() ? loop.output(0) : loop.name())
        + "/unrolled";
    std::string conditionName = condition;
    if (conditionName.empty()) {
        conditionName = stem + "/true";
        out.nodes.push_back(constantNode(
            conditionName, encodeOnnxIntTensor(OnnxIntTensor{onnx::TensorProto::BOOL, {}, {1}, {}}, conditionName)));
    }
    // The iteration number, as the body declares it: a scalar, or one element.
    const auto& iterationType = body->input(0).type();
    const bool vector = iterationType.has_tensor_type() && iterationType.tensor_type().has_shape()
        && iterationType.tensor_type().shape().dim_size() == 1;
    std::vector<std::string> values(loop.input().begin() + 2, loop.input().end());
    std::vector<std::vector<std::string>> scanned(static_cast<std::size_t>(scans));
    // The copies are named "<Loop>/unrolledN/<body node>": post_torch's sidecar knows the Loop,
    // and its module runs them (parseOpModules).
    const std::string loopName = loop.name().empty() ? stem : loop.name();
    for (std::int64_t i = 0; i < *trips; ++i) {
        const std::string suffix = "/unrolled" + std::to_string(i);
        std::unordered_map<std::string, std::string> rename;
        const std::string iteration = stem + "/iteration" + std::to_string(i);
        out.nodes.push_back(constantNode(
            iteration, int64Tensor(iteration, vector ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{}, {i})));
        rename[body->input(0).name()] = iteration;
        rename[conditionIn] = conditionName;
        for (int j = 0; j < carried; ++j)
            rename[body->input(2 + j).name()] = values[static_cast<std::size_t>(j)];
        for (const auto& init : body->initializer()) {
            onnx::TensorProto copy = init;
            copy.set_name(init.name() + suffix);
            rename[init.name()] = copy.name();
            out.nodes.push_back(constantNode(copy.name(), std::move(copy)));
        }
        for (const auto& node : body->node())
            for (const std::string& output : node.output())
                if (!output.empty())
                    rename[output] = output + suffix;
        auto renamed = [&](const std::string& name) {
            const auto it = rename.find(name);
            return it == rename.end() ? name : it->second; // a name of the outer graph
        };
        for (const auto& node : body->node()) {
            onnx::NodeProto copy = node;
            copy.set_name(loopName + suffix + "/" + (node.name().empty() ? node.op_type() : node.name()));
            for (std::string& input : *copy.mutable_input())
                if (!input.empty())
                    input = renamed(input);
            for (std::string& output : *copy.mutable_output())
                if (!output.empty())
                    output = renamed(output);
            out.nodes.push_back(std::move(copy));
        }
        for (int j = 0; j < carried; ++j)
            values[static_cast<std::size_t>(j)] = renamed(body->output(1 + j).name());
        for (int k = 0; k < scans; ++k)
            scanned[static_cast<std::size_t>(k)].push_back(renamed(body->output(1 + carried + k).name()));
    }
    const std::string& name = loopName;
    for (int j = 0; j < carried && j < loop.output_size(); ++j)
        if (!loop.output(j).empty())
            out.nodes.push_back(makeNode("Identity", name + "/carried" + std::to_string(j),
                                         {values[static_cast<std::size_t>(j)]}, loop.output(j)));
    const std::string axes = stem + "/scan_axes";
    if (scans > 0 && opset >= 13)
        out.nodes.push_back(constantNode(axes, int64Tensor(axes, {1}, {0})));
    for (int k = 0; k < scans && carried + k < loop.output_size(); ++k) {
        const std::string& result = loop.output(carried + k);
        if (result.empty())
            continue;
        onnx::NodeProto concat;
        concat.set_op_type("Concat");
        concat.set_name(name + "/scan" + std::to_string(k));
        concat.add_output(result);
        auto* axis = concat.add_attribute();
        axis->set_name("axis");
        axis->set_type(onnx::AttributeProto::INT);
        axis->set_i(0);
        std::int64_t i = 0;
        for (const std::string& element : scanned[static_cast<std::size_t>(k)]) {
            const std::string stacked = result + "/unsqueezed" + std::to_string(i);
            onnx::NodeProto unsqueeze = makeNode(
                "Unsqueeze", name + "/scan" + std::to_string(k) + "/unsqueeze" + std::to_string(i++), {element}, stacked);
            if (opset >= 13) {
                unsqueeze.add_input(axes);
            } else {
                auto* a = unsqueeze.add_attribute();
                a->set_name("axes");
                a->set_type(onnx::AttributeProto::INTS);
                a->add_ints(0);
            }
            out.nodes.push_back(std::move(unsqueeze));
            concat.add_input(stacked);
        }
        out.nodes.push_back(std::move(concat));
    }
    return out;
}

// An If whose condition is known, replaced by the branch it takes: the branch's nodes (their
// names are the model's own: ONNX names each value once, bodies included), its constants as
// Constant nodes, and an Identity from each of its results to the If's outputs.
std::optional<Unrolled> inlineIf(const onnx::NodeProto& node, const OnnxKnownValue& known)
{
    const std::optional<std::int64_t> condition = knownScalar(known, node.input_size() > 0 ? node.input(0) : "");
    if (!condition)
        return std::nullopt;
    const onnx::GraphProto* branch = nullptr;
    for (const auto& a : node.attribute())
        if (a.name() == (*condition != 0 ? "then_branch" : "else_branch") && a.type() == onnx::AttributeProto::GRAPH)
            branch = &a.g();
    if (branch == nullptr || branch->output_size() < node.output_size())
        return std::nullopt;
    // The branch's nodes keep their output names, so an If or Loop among them, whose bodies
    // read those names, comes out whole (torchvision's batched_nms squeezes its result
    // through an If within the If of an empty input); a later round may take it in turn.
    // Named "<If>/taken/<branch node>", as the unrolled Loops' copies are (post_torch's module).
    Unrolled out;
    const std::string name = (node.name().empty() ? node.output(0) : node.name()) + "/taken/";
    for (const auto& init : branch->initializer())
        out.nodes.push_back(constantNode(name + init.name(), init));
    for (const auto& inner : branch->node()) {
        onnx::NodeProto& copy = out.nodes.emplace_back(inner);
        copy.set_name(name + (inner.name().empty() ? inner.op_type() : inner.name()));
    }
    for (int j = 0; j < node.output_size(); ++j)
        if (!node.output(j).empty())
            out.nodes.push_back(
                makeNode("Identity", name + "result" + std::to_string(j), {branch->output(j).name()}, node.output(j)));
    return out;
}

} // namespace

int unrollOnnxLoops(onnx::GraphProto& graph, std::vector<int>& fileIndex, int opset, const OnnxKnownValue& known,
                    const OnnxShapeKnown& shaped, std::size_t& budget)
{
    if (opset < 14)
        return 0;
    bool any = false;
    for (const auto& node : graph.node())
        any = any || (isDefaultDomain(node) && (node.op_type() == "Loop" || node.op_type() == "If"));
    if (!any)
        return 0;
    int count = 0;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    std::vector<int> index;
    for (int i = 0; i < graph.node_size(); ++i) {
        onnx::NodeProto& node = *graph.mutable_node(i);
        const int at = fileIndex[static_cast<std::size_t>(i)];
        std::optional<Unrolled> unrolled;
        // With shaped results it stays one op, costed from its body.
        const bool unshaped = std::any_of(node.output().begin(), node.output().end(),
                                          [&](const std::string& out) { return !out.empty() && !shaped(out); });
        if (unshaped && isDefaultDomain(node) && node.op_type() == "Loop")
            unrolled = unrollLoop(node, opset, known, budget);
        else if (unshaped && isDefaultDomain(node) && node.op_type() == "If")
            unrolled = inlineIf(node, known);
        if (unrolled && unrolled->nodes.size() > budget)
            unrolled.reset();
        if (!unrolled) {
            nodes.Add(std::move(node));
            index.push_back(at);
            continue;
        }
        budget -= unrolled->nodes.size();
        ++count;
        for (onnx::NodeProto& copy : unrolled->nodes) {
            nodes.Add(std::move(copy));
            index.push_back(at);
        }
    }
    graph.mutable_node()->Swap(&nodes);
    fileIndex = std::move(index);
    return count;
}

int resolveOnnxSequences(onnx::GraphProto& graph, std::vector<int>& fileIndex, const OnnxKnownValue& known)
{
    static const std::unordered_set<std::string> kSequenceOps = {
        "SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceLength", "ConcatFromSequence"};
    bool any = false;
    for (const auto& node : graph.node())
        any = any || (isDefaultDomain(node) && kSequenceOps.count(node.op_type()));
    if (!any)
        return 0;
    // Names that must stay: the graph's outputs and what a body reads from outside.
    std::unordered_set<std::string> graphOutputs;
    for (const auto& output : graph.output())
        graphOutputs.insert(output.name());
    addNamesReadInBodies(graph, graphOutputs);
    std::unordered_map<std::string, std::vector<std::string>> sequences; // name -> its elements
    std::unordered_map<std::string, std::string> alias;                  // SequenceAt's output -> the element
    int changed = 0;
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    std::vector<int> index;
    for (int i = 0; i < graph.node_size(); ++i) {
        onnx::NodeProto& node = *graph.mutable_node(i);
        for (std::string& input : *node.mutable_input())
            if (const auto it = alias.find(input); it != alias.end())
                input = it->second;
        const std::string type = isDefaultDomain(node) ? node.op_type() : std::string();
        const std::string out = node.output_size() == 1 ? node.output(0) : std::string();
        const auto in = node.input_size() > 0 ? sequences.find(node.input(0)) : sequences.end();
        bool keep = true;
        if (type == "SequenceEmpty" && !out.empty()) {
            sequences[out] = {};
        } else if (type == "SequenceConstruct" && !out.empty()) {
            sequences[out] = std::vector<std::string>(node.input().begin(), node.input().end());
        } else if (type == "Identity" && !out.empty() && in != sequences.end()) {
            sequences[out] = in->second;
        } else if (type == "SequenceInsert" && !out.empty() && in != sequences.end() && node.input_size() > 1) {
            const auto size = static_cast<std::int64_t>(in->second.size());
            std::optional<std::int64_t> at = size;
            if (node.input_size() > 2 && !node.input(2).empty()) {
                at = knownScalar(known, node.input(2));
                if (at && *at < 0)
                    *at += size;
            }
            if (at && *at >= 0 && *at <= size) {
                std::vector<std::string> elements = in->second;
                elements.insert(elements.begin() + *at, node.input(1));
                sequences[out] = std::move(elements);
            }
        } else if (type == "SequenceAt" && !out.empty() && in != sequences.end() && !graphOutputs.count(out)) {
            const auto size = static_cast<std::int64_t>(in->second.size());
            if (const auto position = knownScalar(known, node.input_size() > 1 ? node.input(1) : std::string())) {
                const std::int64_t at = *position < 0 ? *position + size : *position;
                if (at >= 0 && at < size) {
                    alias[out] = in->second[static_cast<std::size_t>(at)];
                    keep = false;
                }
            }
        } else if (type == "SequenceLength" && !out.empty() && in != sequences.end()) {
            node = constantNode(node.name(), int64Tensor(out, {}, {static_cast<std::int64_t>(in->second.size())}));
            ++changed;
        } else if (type == "ConcatFromSequence" && !out.empty() && in != sequences.end() && !in->second.empty()) {
            bool newAxis = false;
            for (const auto& a : node.attribute())
                newAxis = newAxis || (a.name() == "new_axis" && a.i() != 0);
            if (!newAxis) {
                onnx::NodeProto concat = makeNode("Concat", node.name(), in->second, out);
                for (const auto& a : node.attribute())
                    if (a.name() == "axis")
                        *concat.add_attribute() = a;
                node = std::move(concat);
                ++changed;
            }
        }
        if (!keep) {
            ++changed;
            continue;
        }
        nodes.Add(std::move(node));
        index.push_back(fileIndex[static_cast<std::size_t>(i)]);
    }
    // Sequences nothing reads any more leave, last first (their readers come after them).
    std::unordered_map<std::string, int> readers;
    auto countReads = [&](const onnx::NodeProto& node, int by) {
        for (const std::string& input : node.input())
            readers[input] += by;
    };
    for (const auto& node : nodes)
        countReads(node, 1);
    std::vector<bool> dropped(static_cast<std::size_t>(nodes.size()), false);
    for (int i = nodes.size(); i-- > 0;) {
        const onnx::NodeProto& node = nodes.Get(i);
        const bool sequence = isDefaultDomain(node) && node.output_size() == 1 && sequences.count(node.output(0))
            && !graphOutputs.count(node.output(0));
        if (sequence && readers[node.output(0)] == 0) {
            dropped[static_cast<std::size_t>(i)] = true;
            countReads(node, -1);
            ++changed;
        }
    }
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    std::vector<int> keptIndex;
    for (int i = 0; i < nodes.size(); ++i)
        if (!dropped[static_cast<std::size_t>(i)]) {
            kept.Add(std::move(*nodes.Mutable(i)));
            keptIndex.push_back(index[static_cast<std::size_t>(i)]);
        }
    graph.mutable_node()->Swap(&kept);
    fileIndex = std::move(keptIndex);
    return changed;
}

} // namespace post
