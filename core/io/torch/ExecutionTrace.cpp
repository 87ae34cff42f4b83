#include "core/io/torch/ExecutionTrace.h"

#include "core/cost/CostModel.h"
#include "core/cost/OpView.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/json/JsonInput.h"
#include "core/io/torch/AtenOps.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"
#include "core/util/TextNumber.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace post {
namespace {

using nlohmann::json;

enum class Phase { Forward, Backward, Optimizer };

constexpr std::string_view kPhaseNames[] = {"forward", "backward", "optimizer"};

// One node of the trace, as both layouts write it: 1.0.x ("parent", "inputs" as an array,
// "input_shapes", "input_types", "rf_id" / "tid" / "op_schema" on the node) and 1.1.x
// ("ctrl_deps", "inputs": {"values", "shapes", "types"}, "attrs": [{"name", "value"}]).
struct Node {
    std::int64_t id = 0;
    std::int64_t parent = -1;
    const char* parentKey = "ctrl_deps"; // "parent" in 1.0.x
    std::string name;
    bool op = false; // an operator (it has a schema), not a record_function label
    std::uint64_t rfId = 0;
    const json* inValues = nullptr;
    const json* inShapes = nullptr;
    const json* inTypes = nullptr;
    const json* outValues = nullptr;
    const json* outShapes = nullptr;
    const json* outTypes = nullptr;
    std::size_t index = 0; // in "nodes"
    // The six arrays above, owned: the document is read node by node and each node's JSON is
    // dropped once read. The pointers point into this array's elements, whose storage a move
    // keeps, so a Node moves but is never copied.
    json args;

    Node() = default;
    Node(Node&&) noexcept = default;
    Node& operator=(Node&&) noexcept = default;
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;
};

// A tensor argument: its storage (views share their base's), shape and element size.
struct TensorRef {
    std::uint64_t key = 0;
    std::vector<std::int64_t> shape;
    int elementBytes = 4;
};

std::string nodePath(std::size_t index) { return JsonInput::element("nodes", index); }

const json* attrOf(const json& node, std::string_view name)
{
    const auto attrs = node.find("attrs");
    if (attrs == node.end() || !attrs->is_array())
        return nullptr;
    for (const json& a : *attrs)
        if (a.is_object() && a.contains("name") && a["name"] == name && a.contains("value"))
            return &a["value"];
    return nullptr;
}

// The value of `key`: on the node (1.0.x) or in its attrs (1.1.x).
const json* fieldOf(const json& node, std::string_view key)
{
    const auto it = node.find(key);
    return it != node.end() ? &*it : attrOf(node, key);
}

std::int64_t integer(const JsonInput& in, const json& value, const std::string& path)
{
    if (!value.is_number_integer())
        in.fail(path, "must be an integer");
    return value.is_number_unsigned()
            && value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())
        ? std::numeric_limits<std::int64_t>::max()
        : value.get<std::int64_t>();
}

// values / shapes / types of one side ("inputs" or "outputs"), checked to be parallel arrays.
void readArgs(const JsonInput& in, const json& node, const std::string& path, std::string_view side,
              const json*& values, const json*& shapes, const json*& types)
{
    const json& io = in.require(node, side, path);
    const std::string ioPath = JsonInput::member(path, side);
    if (io.is_object()) { // 1.1.x
        values = &in.array(in.require(io, "values", ioPath), JsonInput::member(ioPath, "values"));
        shapes = &in.array(in.require(io, "shapes", ioPath), JsonInput::member(ioPath, "shapes"));
        types = &in.array(in.require(io, "types", ioPath), JsonInput::member(ioPath, "types"));
    } else { // 1.0.x: inputs, input_shapes, input_types
        const std::string prefix = side == "inputs" ? "input" : "output";
        values = &in.array(io, ioPath);
        shapes = &in.array(in.require(node, prefix + "_shapes", path), JsonInput::member(path, prefix + "_shapes"));
        types = &in.array(in.require(node, prefix + "_types", path), JsonInput::member(path, prefix + "_types"));
    }
    if (shapes->size() != values->size() || types->size() != values->size())
        in.fail(ioPath,
                "has " + std::to_string(values->size()) + " values but " + std::to_string(shapes->size())
                    + " shapes and " + std::to_string(types->size()) + " types");
}

// nodes[i], as the rest of the reader needs it.
Node readNode(const JsonInput& in, json& value, std::size_t i)
{
    const std::string path = nodePath(i);
    const json& n = in.object(value, path);
    Node node;
    node.index = i;
    node.id = integer(in, in.require(n, "id", path), JsonInput::member(path, "id"));
    node.name = in.string(in.require(n, "name", path), JsonInput::member(path, "name"));
    node.parentKey = n.contains("ctrl_deps") ? "ctrl_deps" : "parent";
    node.parent = integer(in, in.require(n, node.parentKey, path), JsonInput::member(path, node.parentKey));
    if (const json* rf = fieldOf(n, "rf_id"))
        node.rfId = static_cast<std::uint64_t>(std::max<std::int64_t>(0, integer(in, *rf, path + ".rf_id")));
    if (const json* schema = fieldOf(n, "op_schema"); schema && schema->is_string())
        node.op = !schema->get_ref<const std::string&>().empty();
    else // no schema recorded: aten and c10d names are operators
        node.op = node.name.starts_with("aten::") || node.name.starts_with("c10d::");
    readArgs(in, n, path, "inputs", node.inValues, node.inShapes, node.inTypes);
    readArgs(in, n, path, "outputs", node.outValues, node.outShapes, node.outTypes);
    const std::array<const json**, 6> views = {&node.inValues,  &node.inShapes,  &node.inTypes,
                                               &node.outValues, &node.outShapes, &node.outTypes};
    node.args = json::array();
    for (const json** view : views) // moved out: `value` is dropped once read
        node.args.push_back(std::move(const_cast<json&>(**view)));
    for (std::size_t k = 0; k < views.size(); ++k)
        *views[k] = &node.args[k];
    return node;
}

// A tensor value [tensor_id, storage_id, offset, numel, itemsize, device] with its shape.
std::optional<TensorRef> tensorOf(const JsonInput& in, const json& value, const json& shape, const std::string& path)
{
    if (!value.is_array() || value.size() < 5 || !value[0].is_number_integer() || !value[1].is_number_integer())
        return std::nullopt;
    for (int k = 2; k < 5; ++k)
        if (!value[static_cast<std::size_t>(k)].is_number_integer())
            in.fail(path,
                    "a tensor is [tensor_id, storage_id, offset, numel, itemsize, device]; element " + std::to_string(k)
                        + " is not an integer");
    const auto tensorId = value[0].get<std::int64_t>(), storageId = value[1].get<std::int64_t>();
    if (tensorId == 0 && storageId == 0)
        return std::nullopt; // an undefined tensor
    TensorRef t;
    // Views share their base's storage; a storage id of 0 (none recorded) falls back to the tensor.
    t.key = storageId != 0 ? static_cast<std::uint64_t>(storageId)
                           : (std::uint64_t(1) << 63) | static_cast<std::uint64_t>(tensorId);
    const auto itemsize = value[4].get<std::int64_t>();
    t.elementBytes = itemsize >= 1 && itemsize <= 16 ? static_cast<int>(itemsize) : 4;
    if (!shape.is_array())
        in.fail(path, "the shape of a tensor must be a list of dimensions");
    for (const json& d : shape) {
        if (!d.is_number_integer())
            in.fail(path, "the shape of a tensor must be a list of integer dimensions");
        t.shape.push_back(std::max<std::int64_t>(d.get<std::int64_t>(), -1));
    }
    return t;
}

// Argument `arg`'s tensors: one, a list (GenericList[Tensor...]) or none. A value whose recorded
// type names no tensor holds none, whatever it looks like: an integer list of five or more has a
// tensor's [id, storage, offset, numel, itemsize] form (Swin-T's reshape to [2048, 49, 3, 3, 32],
// "GenericList[Int,Int,Int,Int,Int]", whose shapes are five empty lists).
std::vector<TensorRef> argTensors(const JsonInput& in, const json& values, const json& shapes, const json& types,
                                  std::size_t arg, const std::string& path)
{
    std::vector<TensorRef> result;
    if (const json& type = types[arg];
        type.is_string() && type.get_ref<const std::string&>().find("Tensor") == std::string::npos)
        return result;
    const json& value = values[arg];
    const json& shape = shapes[arg];
    if (auto t = tensorOf(in, value, shape, JsonInput::element(path, arg))) {
        result.push_back(std::move(*t));
    } else if (value.is_array() && shape.is_array() && shape.size() == value.size()) {
        for (std::size_t k = 0; k < value.size(); ++k)
            if (auto e = tensorOf(in, value[k], shape[k], JsonInput::element(JsonInput::element(path, arg), k)))
                result.push_back(std::move(*e));
    }
    return result;
}

// An integer list or integer argument as an attribute ([3, 3] for kernel_size, 32 for groups).
std::optional<std::vector<std::int64_t>> intArg(const json& values, int arg)
{
    if (arg < 0 || static_cast<std::size_t>(arg) >= values.size())
        return std::nullopt;
    const json& v = values[static_cast<std::size_t>(arg)];
    if (v.is_number_integer())
        return std::vector<std::int64_t>{v.get<std::int64_t>()};
    if (!v.is_array() || v.empty())
        return std::nullopt;
    std::vector<std::int64_t> list;
    for (const json& e : v) {
        if (!e.is_number_integer())
            return std::nullopt;
        list.push_back(e.get<std::int64_t>());
    }
    return list;
}

// The trace's nesting: children by parent, roots (nodes whose parent is absent or themselves).
struct Tree {
    std::vector<std::vector<std::size_t>> children;
    std::vector<std::size_t> roots;
};

Tree buildTree(const JsonInput& in, const std::vector<Node>& nodes)
{
    std::unordered_map<std::int64_t, std::size_t> byId;
    byId.reserve(nodes.size());
    for (const Node& n : nodes)
        if (!byId.emplace(n.id, n.index).second)
            in.fail(JsonInput::member(nodePath(n.index), "id"),
                    "node id " + std::to_string(n.id) + " is used by an earlier node too");
    Tree tree;
    tree.children.resize(nodes.size());
    for (const Node& n : nodes) {
        const auto parent = byId.find(n.parent);
        if (parent == byId.end() || n.parent == n.id)
            tree.roots.push_back(n.index);
        else
            tree.children[parent->second].push_back(n.index);
    }
    for (auto& list : tree.children)
        std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return nodes[a].id < nodes[b].id; });
    // A node no root reaches has a cycle of parents above it (or is in one): refused, as every
    // walk down the nesting (the step's subtree, the units) would go round it for ever.
    std::vector<char> reached(nodes.size(), 0);
    std::vector<std::size_t> stack(tree.roots.begin(), tree.roots.end());
    while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        reached[i] = 1;
        stack.insert(stack.end(), tree.children[i].begin(), tree.children[i].end());
    }
    for (const Node& n : nodes)
        if (!reached[n.index])
            in.fail(JsonInput::member(nodePath(n.index), n.parentKey),
                    "node " + std::to_string(n.id) + "'s parents form a cycle (parent " + std::to_string(n.parent)
                        + "): no root of the trace reaches it");
    return tree;
}

// Nodes reachable from the roots (every node: buildTree refuses a cycle of parents), each after
// its children.
std::vector<std::size_t> postOrder(const Tree& tree, std::size_t count)
{
    std::vector<std::size_t> order;
    order.reserve(count);
    std::vector<std::pair<std::size_t, std::size_t>> stack; // node, next child
    for (std::size_t root : tree.roots) {
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            if (next < tree.children[node].size()) {
                const std::size_t child = tree.children[node][next++];
                stack.emplace_back(child, 0);
            } else {
                order.push_back(node);
                stack.pop_back();
            }
        }
    }
    return order;
}

struct Trace {
    const JsonInput& in;
    std::vector<Node> nodes;
    Tree tree;

    std::vector<TensorRef> tensors(std::size_t node, bool outputs, std::optional<std::size_t> arg = {}) const
    {
        const Node& n = nodes[node];
        const json& values = outputs ? *n.outValues : *n.inValues;
        const json& shapes = outputs ? *n.outShapes : *n.inShapes;
        const json& types = outputs ? *n.outTypes : *n.inTypes;
        const std::string path = JsonInput::member(JsonInput::member(nodePath(n.index), outputs ? "outputs" : "inputs"),
                                                   "values");
        std::vector<TensorRef> result;
        for (std::size_t a = arg.value_or(0); a < values.size() && (!arg || a == *arg); ++a)
            for (TensorRef& t : argTensors(in, values, shapes, types, a, path))
                result.push_back(std::move(t));
        return result;
    }
};

// An operator that computes by itself: any but bookkeeping (its kernels are not in the trace,
// so a nested allocation says nothing), except a maybe-alias operator (to, contiguous, reshape)
// that computes only when its outputs are fresh storages (else through a nested operator).
bool computesItself(const Trace& trace, std::size_t i)
{
    const Node& n = trace.nodes[i];
    if (!n.op || isBookkeepingAten(n.name))
        return false;
    if (!isMaybeAliasAten(n.name))
        return true;
    std::unordered_set<std::uint64_t> inputs;
    for (const TensorRef& t : trace.tensors(i, false))
        inputs.insert(t.key);
    for (const TensorRef& t : trace.tensors(i, true))
        if (!inputs.count(t.key))
            return trace.tree.children[i].empty(); // a nested operator made the copy, if any
    return false;
}

struct Unit {
    std::size_t node = 0;
    Phase phase = Phase::Forward;
    std::vector<std::uint64_t> rfIds;
};

struct Selection {
    std::vector<Unit> units;
    int folded = 0;
    int nested = 0;
    int steps = 0;
    std::string step;
};

// The step read: the last ProfilerStep#N, as the id range its subtree spans (the autograd
// thread's nodes of that step fall in it); the whole trace when there is none.
std::pair<std::int64_t, std::int64_t> stepRange(const Trace& trace, Selection& selection)
{
    std::optional<std::size_t> last;
    for (const Node& n : trace.nodes)
        if (!n.op && n.name.starts_with("ProfilerStep#")) {
            ++selection.steps;
            if (!last || n.id > trace.nodes[*last].id)
                last = n.index;
        }
    if (!last)
        return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    selection.step = trace.nodes[*last].name;
    std::int64_t end = trace.nodes[*last].id;
    std::vector<std::size_t> stack{*last};
    while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        end = std::max(end, trace.nodes[i].id);
        stack.insert(stack.end(), trace.tree.children[i].begin(), trace.tree.children[i].end());
    }
    return {trace.nodes[*last].id, end};
}

// The ops of the graph: the outermost operators that compute, each with the phase of the
// labels above it; every operator below one is counted with it, bookkeeping is folded.
Selection selectUnits(const Trace& trace, const ImportOptions& options)
{
    const std::size_t count = trace.nodes.size();
    std::vector<char> computes(count, 0);
    const std::vector<std::size_t> order = postOrder(trace.tree, count);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t i = order[k];
        const Node& n = trace.nodes[i];
        bool any = computesItself(trace, i);
        if (!(n.op && isBookkeepingAten(n.name)))
            for (std::size_t c : trace.tree.children[i])
                any = any || computes[c];
        computes[i] = any ? 1 : 0;
        if (options.progress && k % 8192 == 0)
            options.progress("Reading the execution trace: operators", 0.4 + 0.3 * double(k) / double(order.size()));
    }
    Selection sel;
    const std::pair<std::int64_t, std::int64_t> range = stepRange(trace, sel);
    const auto inStep = [&](std::size_t i) {
        return trace.nodes[i].id >= range.first && trace.nodes[i].id <= range.second;
    };
    // Counts the operators below `top` (and their rf_ids into `unit`).
    const auto below = [&](std::size_t top, Unit* unit) {
        int ops = 0;
        std::vector<std::size_t> stack(trace.tree.children[top].begin(), trace.tree.children[top].end());
        while (!stack.empty()) {
            const std::size_t i = stack.back();
            stack.pop_back();
            ops += trace.nodes[i].op ? 1 : 0;
            if (unit && trace.nodes[i].rfId != 0)
                unit->rfIds.push_back(trace.nodes[i].rfId);
            stack.insert(stack.end(), trace.tree.children[i].begin(), trace.tree.children[i].end());
        }
        return ops;
    };
    std::vector<std::pair<std::size_t, Phase>> stack;
    for (auto r = trace.tree.roots.rbegin(); r != trace.tree.roots.rend(); ++r)
        stack.emplace_back(*r, Phase::Forward);
    bool mainThreadSeen = false;
    while (!stack.empty()) {
        auto [i, phase] = stack.back();
        stack.pop_back();
        const Node& n = trace.nodes[i];
        if (!n.op) {
            // The first thread is the one that runs the step; PyTorch runs the backward pass of
            // device tensors on autograd threads of their own.
            if (n.name.ends_with("|thread]")) {
                phase = mainThreadSeen ? Phase::Backward : Phase::Forward;
                mainThreadSeen = true;
            } else if (n.name.starts_with("Optimizer."))
                phase = Phase::Optimizer;
            else if (n.name.starts_with("autograd::engine::evaluate_function") && phase != Phase::Optimizer)
                phase = Phase::Backward;
            const auto& kids = trace.tree.children[i];
            for (auto c = kids.rbegin(); c != kids.rend(); ++c)
                stack.emplace_back(*c, phase);
            continue;
        }
        if (!inStep(i))
            continue;
        if (computes[i]) {
            Unit unit{i, phase, {}};
            if (n.rfId != 0)
                unit.rfIds.push_back(n.rfId);
            sel.nested += below(i, &unit);
            std::sort(unit.rfIds.begin(), unit.rfIds.end());
            sel.units.push_back(std::move(unit));
        } else {
            sel.folded += 1 + below(i, nullptr);
        }
    }
    std::sort(sel.units.begin(), sel.units.end(),
              [&](const Unit& a, const Unit& b) { return trace.nodes[a.node].id < trace.nodes[b.node].id; });
    return sel;
}

double tensorBytes(const TensorRef& t)
{
    double elements = 1.0;
    for (std::int64_t d : t.shape)
        elements *= static_cast<double>(std::max<std::int64_t>(d, 1));
    return elements * t.elementBytes;
}

// ATen's max pooling as the ONNX path costs it (docs/cost-model.md, "Pooling"): the forward
// also writes an int64 index per output; the backward zeroes the input gradient and gathers
// through the indices of every window covering an input element. `op` is the rule's MaxPool:
// the input and the pooled output (for the backward, the incoming gradient, shaped as it).
void maxPoolAsAtenRunsIt(const ShapedGraph& g, const ShapedOp& op, bool backward, OpCost& cost)
{
    const auto c = atenMaxPoolCosts(g, op);
    if (!c)
        return;
    if (backward)
        cost = c->backward;
    else
        cost.bytesWritten += c->indexBytes;
}

// The least element size of the inputs of the matrix operators nested in `node`, 0 when
// there are none. Under autocast an operator (aten::linear, aten::conv2d) records its FP32
// arguments and casts them inside: the nested product says what its kernels compute in.
int nestedMatrixElementBytes(const Trace& trace, std::size_t node)
{
    int least = 0;
    std::vector<std::size_t> stack{node};
    while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        for (std::size_t child : trace.tree.children[i])
            stack.push_back(child);
        const Node& n = trace.nodes[i];
        if (i == node || !n.op)
            continue;
        if (const AtenCostRule* rule = atenCostRule(n.name); rule && isMatrixType(rule->type)) {
            const std::vector<TensorRef> inputs = trace.tensors(i, false);
            if (!inputs.empty() && (least == 0 || inputs.front().elementBytes < least))
                least = inputs.front().elementBytes;
        }
    }
    return least;
}

// One op's tensors as the cost model's ShapedGraph: what the rule feeds its formula.
struct CostedUnit {
    OpCost cost;
    bool known = true;
    std::vector<TensorRef> reads, writes;
};

CostedUnit costUnit(const Trace& trace, const Unit& unit)
{
    const Node& n = trace.nodes[unit.node];
    CostedUnit result;
    result.reads = trace.tensors(unit.node, false);
    result.writes = trace.tensors(unit.node, true);
    // An in-place operator (add_, _foreach_mul_, allreduce_) writes its first argument, which
    // the trace may list among its outputs too: each tensor is written once.
    if (n.name.ends_with("_") || isCollectiveName(n.name))
        for (TensorRef& t : trace.tensors(unit.node, false, 0))
            result.writes.push_back(std::move(t));
    {
        std::unordered_set<std::uint64_t> seen;
        std::erase_if(result.writes, [&seen](const TensorRef& t) { return !seen.insert(t.key).second; });
    }
    const AtenCostRule* rule = atenCostRule(n.name);
    ShapedGraph g;
    g.source = "trace";
    ShapedOp s;
    s.name = n.name;
    s.type = rule ? std::string(rule->type) : n.name;
    const auto add = [&g](const TensorRef& t, std::vector<int>& into) {
        ShapedTensor tensor;
        tensor.shape = t.shape;
        tensor.elementBytes = t.elementBytes;
        g.tensors.push_back(std::move(tensor));
        into.push_back(static_cast<int>(g.tensors.size() - 1));
    };
    if (rule && !rule->inputs.empty()) {
        for (int a : rule->inputs)
            for (const TensorRef& t : trace.tensors(unit.node, false, static_cast<std::size_t>(a)))
                add(t, s.inputs);
    } else {
        for (const TensorRef& t : result.reads)
            add(t, s.inputs);
    }
    if (rule && !rule->outputs.empty()) {
        for (int a : rule->outputs)
            for (const TensorRef& t : trace.tensors(unit.node, !rule->outputsFromArgs, static_cast<std::size_t>(a)))
                add(t, s.outputs);
    } else {
        for (const TensorRef& t : result.writes)
            add(t, s.outputs);
    }
    if (rule)
        for (const auto& [attr, arg] : rule->attrs)
            if (auto values = intArg(*n.inValues, arg))
                s.intAttrs[std::string(attr)] = std::move(*values);
    result.cost = estimateOpCost(g, s);
    result.known = rule != nullptr && result.cost.known;
    if (s.type == "MaxPool")
        maxPoolAsAtenRunsIt(g, s, n.name.ends_with("_backward"), result.cost);
    if (result.cost.matrix)
        if (const int nested = nestedMatrixElementBytes(trace, unit.node); nested > 0 && nested < result.cost.elementBytes)
            result.cost.elementBytes = nested;
    const double factor = rule ? rule->factor : 1.0;
    result.cost.flops *= factor;
    result.cost.bytesRead *= factor;
    result.cost.bytesWritten *= factor;
    result.cost.streaming = isStreamingOpType(s.type);
    return result;
}

// The ops, their costs and the data edges: a storage's last writer feeds each later reader.
Graph buildGraph(const Trace& trace, const Selection& sel, const std::string& source, ImportedGraph& imported,
                 ExecutionTraceReport& report)
{
    const CostModelOptions costOptions;
    std::vector<CostedUnit> costed;
    costed.reserve(sel.units.size());
    std::unordered_set<std::uint64_t> optimizerWrites;
    for (const Unit& unit : sel.units) {
        costed.push_back(costUnit(trace, unit));
        if (unit.phase == Phase::Optimizer)
            for (const TensorRef& t : costed.back().writes)
                optimizerWrites.insert(t.key);
    }
    GraphBuilder builder(graphNameFromSource(source));
    std::unordered_map<std::uint64_t, std::size_t> lastWriter;
    std::unordered_set<std::uint64_t> paramCounted;
    std::map<std::string, int> unknown;
    for (std::size_t u = 0; u < sel.units.size(); ++u) {
        const Unit& unit = sel.units[u];
        const Node& n = trace.nodes[unit.node];
        const CostedUnit& c = costed[u];
        Op op;
        op.name = std::string(kPhaseNames[static_cast<int>(unit.phase)]) + "/" + n.name + "#" + std::to_string(n.id);
        op.type = n.name;
        for (int k = 0; k < kDeviceKindCount; ++k)
            op.timeUs[static_cast<std::size_t>(k)] = rooflineTimeUs(c.cost,
                                                                    costOptions.reference[static_cast<std::size_t>(k)]);
        op.flops = c.cost.flops;
        op.memoryBytes = c.cost.bytesRead + c.cost.bytesWritten;
        op.winogradFlops = c.cost.winogradFlops;
        op.winogradGemmBytes = c.cost.winogradGemmBytes;
        op.winogradTransformBytes = c.cost.winogradTransformBytes;
        op.matrixOp = c.cost.matrix;
        op.convolution = c.cost.convolution;
        op.narrowConvolution = c.cost.narrow;
        op.passBytes = c.cost.passBytes;
        op.streaming = c.cost.streaming;
        op.precision = precisionOfElementBytes(c.cost.elementBytes);
        std::unordered_set<std::uint64_t> written;
        for (const TensorRef& t : c.writes)
            if (written.insert(t.key).second)
                op.outputBytes += tensorBytes(t);
        // A collective of the graph: it runs on its device's communication channel, timed by
        // the ring model for the tensors it writes (docs/simulator.md, "Collectives").
        if (const CollectiveKind kind = collectiveKindOfName(n.name); kind != CollectiveKind::None) {
            op.collective = kind;
            op.collectiveBytes = op.outputBytes;
            op.timeUs = {};
            op.flops = op.memoryBytes = 0.0;
            op.winogradFlops = op.winogradGemmBytes = op.winogradTransformBytes = 0.0;
            op.matrixOp = false;
            ++report.graphCollectives;
        }
        std::map<std::size_t, double> bytesFrom;
        for (const TensorRef& t : c.reads) {
            // A parameter (read by the forward pass, updated by the optimizer) belongs to its first reader.
            if (optimizerWrites.count(t.key) && unit.phase == Phase::Forward) {
                if (paramCounted.insert(t.key).second)
                    op.paramBytes += tensorBytes(t);
                continue;
            }
            const auto w = lastWriter.find(t.key);
            if (w != lastWriter.end() && w->second != u)
                bytesFrom[w->second] += tensorBytes(t);
        }
        if (!c.known)
            ++unknown[n.name];
        report.totalFlops += op.flops;
        if (unit.phase == Phase::Forward)
            report.forwardFlops += op.flops;
        (unit.phase == Phase::Forward        ? report.forwardOps
             : unit.phase == Phase::Backward ? report.backwardOps
                                             : report.optimizerOps)++;
        report.collectiveOps += isCollectiveName(n.name) ? 1 : 0;
        builder.addOp(std::move(op));
        for (const auto& [from, bytes] : bytesFrom) {
            builder.addEdge(static_cast<OpId>(from), static_cast<OpId>(u), bytes);
            ++report.dataEdges;
        }
        for (const TensorRef& t : c.writes)
            lastWriter[t.key] = u;
        imported.recordFunctionIds.push_back(unit.rfIds);
    }
    for (const auto& [type, count] : unknown)
        imported.unknownOpTypes.emplace_back(type, count);
    return std::move(builder).build();
}

void addNotes(const ExecutionTraceReport& r, ImportedGraph& imported)
{
    std::string what = r.step.empty() ? std::string("the whole trace")
                                      : r.step + " (the last of " + std::to_string(r.profilerSteps) + " profiler steps)";
    imported.notes.push_back(
        "execution trace, schema " + r.schema + ": " + what + " as " + withThousands(imported.graph.opCount())
        + " ops (" + withThousands(r.forwardOps) + " forward, " + withThousands(r.backwardOps) + " backward, "
        + withThousands(r.optimizerOps) + " optimizer) from " + withThousands(r.traceNodes) + " trace nodes; "
        + withThousands(r.foldedBookkeeping) + " views, allocations and no-op copies folded away, "
        + withThousands(r.nestedOps) + " operators nested in an op counted with it");
    imported.notes.push_back(
        "op times are roofline estimates from the recorded shapes and types where no measured times are "
        "given (--costs; docs/cost-model.md)");
    if (r.graphCollectives > 0)
        imported.notes.push_back(
            std::to_string(r.graphCollectives)
            + " collective(s) (c10d all-reduce, broadcast, ...) run on their device's communication channel, beside "
              "its compute, timed by the ring model from the bytes of the tensors they write over the cluster's links "
              "(by their measured time where --costs gives one), for the cluster's GPUs as ranks (the "
              "trace states no group size); the other ranks are not in this graph (docs/importers.md, \"PyTorch "
              "execution traces\")");
    if (r.collectiveOps > r.graphCollectives)
        imported.warnings.push_back(
            std::to_string(r.collectiveOps - r.graphCollectives)
            + " communication op(s) (c10d send, recv, ...) are costed as one pass over their tensors: the transfers "
              "to the other ranks are not in this graph (docs/importers.md, \"PyTorch execution traces\")");
}

} // namespace

Graph applyRecordFunctionTimes(const ImportedGraph& imported, const RecordFunctionTimes& times, int* matched,
                               const std::string& source)
{
    const Graph& g = imported.graph;
    if (imported.recordFunctionIds.size() != static_cast<std::size_t>(g.opCount()))
        throw std::invalid_argument("applyRecordFunctionTimes: the graph has no record-function ids");
    constexpr int kCpu = static_cast<int>(DeviceKind::Cpu), kGpu = static_cast<int>(DeviceKind::Gpu);
    std::vector<Op> ops;
    ops.reserve(static_cast<std::size_t>(g.opCount()));
    int count = 0;
    for (OpId id = 0; id < g.opCount(); ++id) {
        Op op = g.op(id);
        const auto& ids = imported.recordFunctionIds[static_cast<std::size_t>(id)];
        bool any = false;
        double gpu = 0.0;
        for (std::uint64_t rf : ids)
            if (const auto it = times.gpuUs.find(rf); it != times.gpuUs.end()) {
                gpu += it->second;
                any = true;
            }
        if (any) {
            op.timeUs[kGpu] = std::min(gpu, GraphBuilder::kMaxTimeUs);
            op.measuredKinds |= 1U << kGpu;
        }
        // The operator's own duration is its time on a CPU only where it launched no GPU work:
        // otherwise it is the host's dispatch of the kernels (tens of microseconds for a
        // convolution that a CPU would take milliseconds over), and the CPU time stays the
        // estimate. A CPU trace's operators all keep theirs.
        if (!ids.empty() && !any)
            if (const auto it = times.cpuUs.find(ids.front()); it != times.cpuUs.end()) {
                op.timeUs[kCpu] = std::min(it->second, GraphBuilder::kMaxTimeUs);
                op.measuredKinds |= 1U << kCpu;
                any = true;
            }
        count += any ? 1 : 0;
        if (any && !source.empty())
            op.measuredBy = source;
        ops.push_back(std::move(op));
    }
    if (matched)
        *matched = count;
    return withOps(g, std::move(ops));
}

bool looksLikeExecutionTrace(std::string_view text)
{
    const std::string_view head = text.substr(0, 4096);
    return head.find("\"schema\"") != std::string_view::npos && head.find("\"nodes\"") != std::string_view::npos;
}

ImportedGraph parseExecutionTrace(std::string_view text, const std::string& source, const ImportOptions& options,
                                  ExecutionTraceReport* report)
{
    const JsonInput in(source);
    if (options.progress)
        options.progress("Reading the execution trace: JSON", 0.0);
    // Node by node: the document is never held whole (a 53 MB trace of 102,287 nodes took
    // 427 MB as one).
    std::vector<Node> nodes;
    if (const std::size_t first = text.find_first_not_of(" \t\r\n"); first != std::string_view::npos && text[first] == '[')
        in.object(json::array(), ""); // a root array would be streamed as nodes: refused as itself
    // A node's error waits for the document's: syntax, then the root's fields, then the first
    // bad node, as when the whole document was read first.
    std::optional<InputError> nodeError;
    const json top = in.parseStreaming(text, "nodes", [&](json& node, std::size_t i) {
        if (i == 0 && options.progress)
            options.progress("Reading the execution trace: nodes", 0.1);
        if (nodeError)
            return;
        try {
            nodes.push_back(readNode(in, node, i));
        } catch (const InputError& e) {
            nodeError = e;
        }
    });
    in.object(top, "");
    ExecutionTraceReport local;
    local.schema = in.string(in.require(top, "schema", ""), "schema");
    in.array(in.require(top, "nodes", ""), "nodes"); // its elements were streamed: it is left empty
    if (nodeError)
        throw *nodeError;
    if (nodes.empty())
        in.fail("nodes", "the trace has no nodes");
    Trace trace{in, std::move(nodes), {}};
    trace.tree = buildTree(in, trace.nodes);
    const Selection sel = selectUnits(trace, options);
    if (sel.units.empty())
        in.fail("nodes",
                "no operator in " + (sel.step.empty() ? std::string("the trace") : sel.step)
                    + " computes anything (only views, allocations and labels)");
    local.traceNodes = static_cast<int>(trace.nodes.size());
    local.profilerSteps = sel.steps;
    local.step = sel.step;
    local.foldedBookkeeping = sel.folded;
    local.nestedOps = sel.nested;
    if (options.progress)
        options.progress("Reading the execution trace: costs and edges", 0.75);
    ImportedGraph imported;
    imported.source = source;
    try {
        imported.graph = buildGraph(trace, sel, source, imported, local);
    } catch (const GraphError& e) {
        throw InputError(source, "nodes", e.what());
    }
    imported.forwardFlops = local.forwardFlops;
    imported.fused = false; // each op is the kernel eager PyTorch ran; --fusion does not apply
    imported.fusionWhy = "PyTorch execution trace: each op costed as eager PyTorch ran it";
    imported.eagerHost = true;
    addNotes(local, imported);
    if (report)
        *report = std::move(local);
    if (options.progress)
        options.progress("Reading the execution trace: done", 1.0);
    return imported;
}

} // namespace post
