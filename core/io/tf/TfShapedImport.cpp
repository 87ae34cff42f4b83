#include "core/io/tf/TfShapedImport.h"

#include "core/graph/TopologicalSort.h"
#include "core/io/tf/TfAttrs.h"
#include "core/io/tf/TfCpuOnlyOps.h"
#include "core/io/tf/TfShapeInference.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

// What a GraphDef node becomes.
enum class Role {
    Op,        // a ShapedOp
    Parameter, // Variable, VariableV2, VarHandleOp: a parameter tensor
    Constant,  // Const: a constant tensor
    Input,     // Placeholder: an input tensor without producer
    Alias,     // Identity / ReadVariableOp of one of the above: the same tensor
    NonStep,   // initialisation and checkpointing: not part of a training step
};

struct InputRef {
    int node = -1;
    int port = 0;
    bool control = false;
    const TextProtoField* field = nullptr;
};

template <std::size_t N> bool isOneOf(std::string_view op, const std::array<std::string_view, N>& names)
{
    return std::find(names.begin(), names.end(), op) != names.end();
}

constexpr std::array<std::string_view, 3> kParameterOps = {"Variable", "VariableV2", "VarHandleOp"};
constexpr std::array<std::string_view, 2> kConstantOps = {"Const", "HostConst"};
constexpr std::array<std::string_view, 2> kInputOps = {"Placeholder", "PlaceholderV2"};
constexpr std::array<std::string_view, 3> kAliasOps = {"Identity", "ReadVariableOp", "Snapshot"};
constexpr std::array<std::string_view, 2> kBackEdgeOps = {"NextIteration", "RefNextIteration"};
// Writes of a variable's initial value (recognised by a variable as first input).
constexpr std::array<std::string_view, 2> kAssignOps = {"Assign", "AssignVariableOp"};
constexpr std::array<std::string_view, 9> kCheckpointOps = {"SaveV2",
                                                            "Save",
                                                            "SaveSlices",
                                                            "MergeV2Checkpoints",
                                                            "RestoreV2",
                                                            "Restore",
                                                            "RestoreSlice",
                                                            "IsVariableInitialized",
                                                            "VarIsInitializedOp"};

// A SavedModel's save and restore functions, called through (Stateful)PartitionedCall.
bool isCheckpointCall(const TfNode& node)
{
    const std::optional<std::string> f = tfCalledFunction(node);
    return f && (f->find("_traced_save") != std::string::npos || f->find("_traced_restore") != std::string::npos);
}

bool isTrainingOp(const TfNode& node)
{
    const std::string_view op = node.op;
    return node.name.starts_with("gradients/") || node.name.find("/gradients/") != std::string::npos
        || op.starts_with("Apply") || op.starts_with("ResourceApply") || op.starts_with("SparseApply")
        || op.starts_with("ResourceSparseApply") || op.ends_with("Grad")
        || op.find("Backprop") != std::string_view::npos;
}

std::string lineOf(const TextProtoField& f) { return "line " + std::to_string(f.line); }

// Output tensors of all nodes together, and of one node (docs/importers.md, "Limits"). TF's
// widest ops (Split, Unpack, DynamicPartition) have as many outputs as an attribute says;
// real graphs stay in the thousands. The per-node cap keeps a reference like "a:491587",
// 10 bytes of input, from making half a million tensors (seconds in a sanitizer build).
constexpr std::int64_t kMaxTensors = 1'000'000;
constexpr std::int64_t kMaxNodeOutputs = 65'536;

class Importer {
public:
    Importer(const TfGraphDef& graph, const std::string& source, const ImportOptions& options)
        : nodes_(graph.nodes)
        , source_(source)
        , options_(options)
    {
        const std::size_t n = nodes_.size();
        inputs_.resize(n);
        consumers_.resize(n);
        maxPort_.assign(n, -1);
        maxPortField_.assign(n, nullptr);
        role_.assign(n, Role::Op);
        tensorsOf_.resize(n);
    }

    TfShapedImport run(const std::string& graphName)
    {
        TfShapedImport result;
        result.shaped.name = graphName;
        result.shaped.source = source_;
        resolveInputs();
        topologicalOrder();
        assignRoles();
        markNonStep();
        readColocation();
        colocateUpdatesWithVariables();
        if (!options_.dims.empty())
            throw InputError(source_, "option dim",
                             "a TensorFlow GraphDef has no named dimensions; give placeholders their shapes with "
                             "--input-shape NAME=d0,d1,...");
        makeTensors(result.shaped);
        for (const auto& [name, dims] : options_.inputShapes)
            if (!placeholders_.count(name))
                throw InputError(source_, "option input-shape", "no placeholder '" + name + "' in the graph");
        result.shaped.unresolved = std::move(unresolved_);
        makeOps(result);
        anchor(result);
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            if (role_[i] == Role::Op && isTrainingOp(nodes_[i])) {
                result.isTrainingGraph = true;
                result.trainingEvidence = "node '" + nodes_[i].name + "' (" + nodes_[i].op + ", line "
                    + std::to_string(nodes_[i].line) + ")";
                break;
            }
        return result;
    }

private:
    [[noreturn]] void fail(const TextProtoField& at, const std::string& message) const
    {
        throw InputError(source_, lineOf(at), message);
    }

    void resolveInputs()
    {
        std::unordered_map<std::string_view, int> index;
        index.reserve(nodes_.size());
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            index.emplace(nodes_[i].name, static_cast<int>(i));
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            const TfNode& node = nodes_[i];
            for (const TextProtoField* f : node.inputs) {
                InputRef ref;
                ref.field = f;
                std::string_view text = f->value;
                if (text.starts_with("^")) {
                    ref.control = true;
                    text.remove_prefix(1);
                } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
                    const std::string_view port = text.substr(colon + 1);
                    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), ref.port);
                    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || ref.port < 0)
                        fail(*f,
                             "input '" + f->value + "' of node '" + node.name
                                 + "': the port after ':' must be a number >= 0");
                    text = text.substr(0, colon);
                }
                const auto it = index.find(text);
                if (it == index.end())
                    fail(*f, "input '" + f->value + "' of node '" + node.name + "' names no node in the graph");
                ref.node = it->second;
                if (isOneOf(nodes_[static_cast<std::size_t>(ref.node)].op, kBackEdgeOps))
                    continue; // a loop's back edge: the body is counted once
                if (!ref.control && ref.port > maxPort_[static_cast<std::size_t>(ref.node)]) {
                    maxPort_[static_cast<std::size_t>(ref.node)] = ref.port;
                    maxPortField_[static_cast<std::size_t>(ref.node)] = f;
                }
                consumers_[static_cast<std::size_t>(ref.node)].push_back(static_cast<int>(i));
                inputs_[i].push_back(ref);
            }
        }
    }

    // The project's topological sort (core/graph/TopologicalSort) over data and control
    // inputs, ties in file order.
    void topologicalOrder()
    {
        TopologicalSort sorted = topologicalSort(consumers_); // one entry per input: the edges
        if (sorted.acyclic()) {
            order_ = std::move(sorted.order);
            return;
        }
        // Named from the node the walk back along inputs started at, each followed by its input.
        std::string cycle;
        for (auto it = sorted.cycle.rbegin(); it != sorted.cycle.rend(); ++it) {
            const TfNode& node = nodes_[static_cast<std::size_t>(*it)];
            cycle += (cycle.empty() ? "" : " <- ") + ("'" + node.name + "' (line " + std::to_string(node.line) + ")");
        }
        throw InputError(source_, "line " + std::to_string(nodes_[static_cast<std::size_t>(sorted.cycle.back())].line),
                         "the graph has a cycle: " + cycle);
    }

    const InputRef* firstData(std::size_t i) const
    {
        for (const InputRef& r : inputs_[i])
            if (!r.control)
                return &r;
        return nullptr;
    }

    void assignRoles()
    {
        for (int i : order_) {
            const auto k = static_cast<std::size_t>(i);
            const std::string_view op = nodes_[k].op;
            if (isOneOf(op, kParameterOps))
                role_[k] = Role::Parameter;
            else if (isOneOf(op, kConstantOps))
                role_[k] = Role::Constant;
            else if (isOneOf(op, kInputOps))
                role_[k] = Role::Input;
            else if (const InputRef* in = firstData(k);
                     in && isOneOf(op, kAliasOps) && role_[static_cast<std::size_t>(in->node)] != Role::Op)
                role_[k] = Role::Alias;
        }
    }

    // Assigning initial values and checkpointing, and the nodes that only feed or only
    // follow those, are not part of a step.
    void markNonStep()
    {
        const std::size_t n = nodes_.size();
        std::vector<char> marked(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            if (role_[i] != Role::Op)
                continue;
            const InputRef* in = firstData(i);
            const bool assign = isOneOf(nodes_[i].op, kAssignOps) && in
                && role_[static_cast<std::size_t>(in->node)] == Role::Parameter;
            marked[i] = assign || isOneOf(nodes_[i].op, kCheckpointOps) || isCheckpointCall(nodes_[i]);
        }
        bool changed = true;
        while (changed) {
            changed = false;
            for (std::size_t i = 0; i < n; ++i) {
                if (marked[i] || role_[i] != Role::Op)
                    continue;
                const auto& cons = consumers_[i];
                const bool onlyFeeds = !cons.empty() && std::all_of(cons.begin(), cons.end(), [&](int c) {
                    return marked[static_cast<std::size_t>(c)] != 0;
                });
                const auto& ins = inputs_[i];
                const bool onlyFollows = !ins.empty() && std::all_of(ins.begin(), ins.end(), [&](const InputRef& r) {
                    return marked[static_cast<std::size_t>(r.node)] != 0;
                });
                if (onlyFeeds || onlyFollows) {
                    marked[i] = 1;
                    changed = true;
                }
            }
        }
        for (std::size_t i = 0; i < n; ++i)
            if (marked[i])
                role_[i] = Role::NonStep;
    }

    int newTensor(ShapedGraph& g, std::string name, std::optional<TfAttrs::Shape> shape, int elementBytes, Role role)
    {
        ShapedTensor t;
        t.name = std::move(name);
        t.shape = shape ? std::move(*shape) : TfAttrs::Shape{}; // unknown rank: no dims, like the cost model expects
        t.elementBytes = elementBytes;
        t.isParameter = role == Role::Parameter;
        t.isConstant = role == Role::Constant;
        g.tensors.push_back(std::move(t));
        shapeKnown_.push_back(shape.has_value());
        constValues_.emplace_back();
        return static_cast<int>(g.tensors.size()) - 1;
    }

    void makeTensors(ShapedGraph& g)
    {
        for (int i : order_) {
            const auto k = static_cast<std::size_t>(i);
            const TfNode& node = nodes_[k];
            if (role_[k] == Role::NonStep)
                continue;
            if (role_[k] == Role::Alias) {
                const InputRef* in = firstData(k);
                tensorsOf_[k].push_back(tensorOf(*in));
                if (maxPort_[k] > 0)
                    fail(*node.field,
                         "node '" + node.name + "' (" + node.op + ") has one output; an input asks for port "
                             + std::to_string(maxPort_[k]));
                continue;
            }
            const TfAttrs attrs(node, source_);
            const auto listed = attrs.outputShapes();
            // Outputs up to the highest port a consumer reads: "a:2000000000" must not make
            // two billion tensors.
            const std::int64_t wanted = std::max(static_cast<std::int64_t>(listed.size()), std::int64_t{maxPort_[k]} + 1);
            if (wanted > kMaxNodeOutputs) {
                const std::string limit = "a node may have at most " + std::to_string(kMaxNodeOutputs) + " outputs";
                if (maxPortField_[k] && std::int64_t{maxPort_[k]} + 1 == wanted)
                    fail(*maxPortField_[k],
                         "input '" + maxPortField_[k]->value + "': node '" + node.name + "' would have "
                             + std::to_string(wanted) + " outputs; " + limit);
                fail(*node.field,
                     "node '" + node.name + "': _output_shapes lists " + std::to_string(wanted) + " shapes; " + limit);
            }
            if (std::max<std::int64_t>(wanted, 1) > kMaxTensors - tensorCount_) {
                const std::string limit = "a graph may have at most " + std::to_string(kMaxTensors) + " tensors";
                if (maxPortField_[k] && std::int64_t{maxPort_[k]} + 1 == wanted)
                    fail(*maxPortField_[k],
                         "input '" + maxPortField_[k]->value + "': node '" + node.name + "' would have "
                             + std::to_string(wanted) + " outputs; " + limit);
                fail(*node.field, "node '" + node.name + "': " + limit);
            }
            int count = static_cast<int>(wanted);
            if (!listed.empty() && maxPort_[k] >= static_cast<int>(listed.size()))
                for (int c : consumers_[k])
                    for (const InputRef& r : inputs_[static_cast<std::size_t>(c)])
                        if (r.node == i && !r.control && r.port >= static_cast<int>(listed.size()))
                            fail(*r.field,
                                 "input '" + r.field->value + "': node '" + node.name + "' has "
                                     + std::to_string(listed.size()) + " outputs (its _output_shapes)");
            std::optional<TfAttrs::Shape> first;
            bool firstKnown = false;
            if (role_[k] == Role::Parameter) {
                // VarHandleOp's own output is a resource handle; the tensor is the variable.
                first = attrs.shapeAttr("shape");
                firstKnown = first.has_value();
            }
            // A listed shape with unknown sizes (-1, as TF writes for a placeholder of
            // unknown batch or image size) is completed from the inputs' shapes, so that
            // --input-shape reaches every op, not only the placeholder (docs/importers.md).
            if (!firstKnown && !listed.empty() && fullyKnown(listed[0])) {
                first = listed[0];
                firstKnown = true;
            }
            if (!firstKnown) {
                first = completed(listed.empty() ? std::nullopt : listed[0],
                                  inferTfOutputShape(node, attrs, inputInfos(g, k)));
                if (first && listed.empty())
                    count = std::max(count, 1);
            }
            if (role_[k] == Role::Input)
                first = placeholderShape(node.name, std::move(first));
            const int bytes = attrs.firstElementBytes({"dtype", "T", "DstT", "out_type"});
            tensorCount_ += count;
            for (int p = 0; p < count; ++p) {
                std::optional<TfAttrs::Shape> shape = p == 0      ? first
                    : listed.size() > static_cast<std::size_t>(p) ? listed[static_cast<std::size_t>(p)]
                                                                  : std::nullopt;
                const int t = newTensor(g, p == 0 ? node.name : node.name + ":" + std::to_string(p), std::move(shape),
                                        bytes, role_[k]);
                tensorsOf_[k].push_back(t);
            }
            if (role_[k] == Role::Constant && count > 0)
                constValues_[static_cast<std::size_t>(tensorsOf_[k][0])] = attrs.constInts();
            if ((node.op == "Shape" || node.op == "ShapeN") && role_[k] == Role::Op)
                recordShapeValues(g, k);
        }
    }

    static bool fullyKnown(const std::optional<TfAttrs::Shape>& shape)
    {
        return shape && std::all_of(shape->begin(), shape->end(), [](std::int64_t d) { return d >= 0; });
    }

    // The listed shape with its unknown sizes taken from the inferred one (same rank), or the
    // inferred shape when nothing is listed; a size the file gives is kept.
    static std::optional<TfAttrs::Shape> completed(std::optional<TfAttrs::Shape> listed,
                                                   std::optional<TfAttrs::Shape> inferred)
    {
        if (!listed)
            return inferred;
        if (!inferred || inferred->size() != listed->size())
            return listed;
        for (std::size_t i = 0; i < listed->size(); ++i)
            if ((*listed)[i] < 0)
                (*listed)[i] = (*inferred)[i];
        return listed;
    }

    // What shape inference knows of node k's data inputs.
    std::vector<TfInputInfo> inputInfos(const ShapedGraph& g, std::size_t k) const
    {
        std::vector<TfInputInfo> infos;
        for (const InputRef& r : inputs_[k]) {
            if (r.control)
                continue;
            TfInputInfo info;
            if (role_[static_cast<std::size_t>(r.node)] != Role::NonStep) {
                const int t = tensorOf(r);
                info.shape = shapeKnown_[static_cast<std::size_t>(t)] ? &g.tensors[static_cast<std::size_t>(t)].shape
                                                                      : nullptr;
                const auto& cv = constValues_[static_cast<std::size_t>(t)];
                info.constValues = cv ? &*cv : nullptr;
            }
            infos.push_back(info);
        }
        return infos;
    }

    // A Shape (ShapeN) op of fully known inputs holds their sizes as values, which a
    // Reshape, Tile or Conv2DBackpropInput downstream reads like a constant.
    void recordShapeValues(const ShapedGraph& g, std::size_t k)
    {
        const std::vector<TfInputInfo> infos = inputInfos(g, k);
        for (std::size_t p = 0; p < infos.size() && p < tensorsOf_[k].size(); ++p)
            if (infos[p].shape && fullyKnown(*infos[p].shape))
                constValues_[static_cast<std::size_t>(tensorsOf_[k][p])] = *infos[p].shape;
    }

    // A placeholder's shape with the options applied (--input-shape, --batch); what stays
    // -1 is listed as unresolved.
    std::optional<TfAttrs::Shape> placeholderShape(const std::string& name, std::optional<TfAttrs::Shape> shape)
    {
        placeholders_.insert(name);
        if (auto given = options_.inputShapes.find(name); given != options_.inputShapes.end()) {
            if (shape && shape->size() != given->second.size())
                throw InputError(source_, "option input-shape",
                                 "placeholder '" + name + "' has rank " + std::to_string(shape->size()) + ", got "
                                     + std::to_string(given->second.size()) + " dimensions");
            return given->second;
        }
        if (!shape)
            return shape;
        for (std::size_t i = 0; i < shape->size(); ++i) {
            if ((*shape)[i] >= 0)
                continue;
            if (i == 0)
                (*shape)[i] = options_.batch;
            else
                unresolved_.push_back(
                    UnresolvedDim{name, static_cast<int>(i), {}, static_cast<int>(shape->size()), *shape});
        }
        return shape;
    }

    int tensorOf(const InputRef& r) const
    {
        return tensorsOf_[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.port)];
    }

    // Integer attributes for the cost model, as TensorFlow writes them: strides, ksize
    // and dilations over all four NHWC/NCHW dimensions; booleans as 0/1; the string
    // attributes it may use as flags.
    static void addIntAttrs(ShapedOp& op, const TfAttrs& attrs)
    {
        for (const char* key : {"strides", "ksize", "dilations"})
            if (auto v = attrs.ints(key))
                op.intAttrs[key] = std::move(*v);
        for (const char* flag : {"transpose_a", "transpose_b", "adj_x", "adj_y"})
            if (const auto b = attrs.boolean(flag))
                op.intAttrs[flag] = {*b ? 1 : 0};
        if (const auto format = attrs.string("data_format"))
            op.intAttrs["data_format_nchw"] = {*format == "NCHW" ? 1 : 0};
        if (const auto padding = attrs.string("padding"))
            op.intAttrs["padding_same"] = {*padding == "SAME" ? 1 : 0};
    }

    void makeOps(TfShapedImport& result)
    {
        ShapedGraph& g = result.shaped;
        result.opOfNode.assign(nodes_.size(), -1);
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            if (role_[i] == Role::Op)
                result.opOfNode[i] = static_cast<int>(g.ops.size()), g.ops.emplace_back();
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            if (role_[i] != Role::Op)
                continue;
            const TfNode& node = nodes_[i];
            const TfAttrs attrs(node, source_);
            ShapedOp& op = g.ops[static_cast<std::size_t>(result.opOfNode[i])];
            op.name = node.name;
            op.type = node.op;
            for (const InputRef& r : inputs_[i]) {
                const Role from = role_[static_cast<std::size_t>(r.node)];
                if (from == Role::NonStep)
                    continue;
                if (!r.control)
                    op.inputs.push_back(tensorOf(r));
                else if (from == Role::Op)
                    op.controlInputs.push_back(result.opOfNode[static_cast<std::size_t>(r.node)]);
            }
            op.outputs = tensorsOf_[i];
            addIntAttrs(op, attrs);
            op.colocate = colocateOf_[i];
            op.cpuOnly = tfOpHasNoGpuKernel(node.op);
            op.device = node.device;
            op.location = "line " + std::to_string(node.line);
        }
        // An op named by another's `loc:@` is in that colocation group itself.
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            if (role_[i] != Role::Op)
                continue;
            ShapedOp& op = g.ops[static_cast<std::size_t>(result.opOfNode[i])];
            if (op.colocate.empty() && colocationTargets_.contains(nodes_[i].name))
                op.colocate = nodes_[i].name;
        }
    }

    // An op that updates a variable in place (Apply*, Assign*, Scatter*: its first input is
    // the variable's ref or resource handle) runs on the variable's device in TensorFlow
    // even where the file has no `_class: "loc:@..."` for it.
    void colocateUpdatesWithVariables()
    {
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            if (role_[i] != Role::Op || !colocateOf_[i].empty())
                continue;
            const std::string_view op = nodes_[i].op;
            const bool update = op.starts_with("Apply") || op.starts_with("ResourceApply")
                || op.starts_with("SparseApply") || op.starts_with("ResourceSparseApply") || op.starts_with("Assign")
                || op.starts_with("Scatter") || op.starts_with("ResourceScatter");
            const InputRef* in = update ? firstData(i) : nullptr;
            if (in && role_[static_cast<std::size_t>(in->node)] == Role::Parameter) {
                colocateOf_[i] = nodes_[static_cast<std::size_t>(in->node)].name;
                colocationTargets_.insert(colocateOf_[i]);
            }
        }
    }

    // `_class: "loc:@X"` of every node (the first one when it lists several).
    void readColocation()
    {
        colocateOf_.assign(nodes_.size(), std::string());
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            if (const TextProtoField* cls = nodes_[i].attr("_class"))
                if (const TextProtoField* list = cls->find("list"))
                    for (const TextProtoField& s : list->fields)
                        if (s.name == "s" && !s.isMessage && s.value.starts_with("loc:@") && s.value.size() > 5) {
                            colocateOf_[i] = s.value.substr(5);
                            colocationTargets_.insert(colocateOf_[i]);
                            break;
                        }
    }

    // The op whose device each node takes when a placement is written back.
    void anchor(TfShapedImport& result) const
    {
        const std::size_t n = nodes_.size();
        std::vector<int>& anchor = result.anchorOfNode;
        anchor = result.opOfNode;
        // A node colocated with X, and X itself, go with the ops of X's colocation group
        // (a variable with its Apply* update, not with the first op reading it).
        std::unordered_map<std::string_view, int> groupOp;
        for (std::size_t k = 0; k < result.shaped.ops.size(); ++k)
            if (!result.shaped.ops[k].colocate.empty())
                groupOp.try_emplace(result.shaped.ops[k].colocate, static_cast<int>(k));
        for (std::size_t i = 0; i < n; ++i) {
            if (anchor[i] >= 0)
                continue;
            const auto it = groupOp.find(colocateOf_[i].empty() ? std::string_view(nodes_[i].name)
                                                                : std::string_view(colocateOf_[i]));
            if (it != groupOp.end())
                anchor[i] = it->second;
        }
        // A variable, constant or placeholder (and its reads) go with the first op reading it.
        for (std::size_t i = 0; i < n; ++i) {
            if (role_[i] != Role::Op)
                continue;
            for (const InputRef& r : inputs_[i]) {
                auto p = static_cast<std::size_t>(r.node);
                while (!r.control
                       && (role_[p] == Role::Alias || role_[p] == Role::Parameter || role_[p] == Role::Constant
                           || role_[p] == Role::Input)) {
                    if (anchor[p] < 0)
                        anchor[p] = result.opOfNode[i];
                    if (role_[p] != Role::Alias)
                        break;
                    p = static_cast<std::size_t>(firstData(p)->node);
                }
            }
        }
        // The rest (initialisers, unread constants) follow a placed neighbour: an input
        // first (an Assign goes with its variable), else a consumer.
        bool changed = true;
        while (changed) {
            changed = false;
            for (std::size_t i = 0; i < n; ++i) {
                if (anchor[i] >= 0)
                    continue;
                for (const InputRef& r : inputs_[i])
                    if (anchor[static_cast<std::size_t>(r.node)] >= 0) {
                        anchor[i] = anchor[static_cast<std::size_t>(r.node)];
                        break;
                    }
                if (anchor[i] < 0)
                    for (int c : consumers_[i])
                        if (anchor[static_cast<std::size_t>(c)] >= 0) {
                            anchor[i] = anchor[static_cast<std::size_t>(c)];
                            break;
                        }
                changed = changed || anchor[i] >= 0;
            }
        }
        // Colocated with a node that has no op in its group: that node's device.
        std::unordered_map<std::string_view, int> index;
        for (std::size_t i = 0; i < n; ++i)
            index.emplace(nodes_[i].name, static_cast<int>(i));
        for (std::size_t i = 0; i < n; ++i) {
            if (result.opOfNode[i] >= 0 || colocateOf_[i].empty())
                continue;
            const auto it = index.find(colocateOf_[i]);
            if (it != index.end() && anchor[static_cast<std::size_t>(it->second)] >= 0)
                anchor[i] = anchor[static_cast<std::size_t>(it->second)];
        }
        // A read of a variable (ReadVariableOp of a resource, Identity of a ref) runs where
        // the variable lives, as TensorFlow's placer colocates resource and ref edges.
        for (std::size_t i = 0; i < n; ++i) {
            if (role_[i] != Role::Alias)
                continue;
            auto p = static_cast<std::size_t>(firstData(i)->node);
            while (role_[p] == Role::Alias)
                p = static_cast<std::size_t>(firstData(p)->node);
            if (role_[p] == Role::Parameter && anchor[p] >= 0)
                anchor[i] = anchor[p];
        }
    }

    const std::vector<TfNode>& nodes_;
    const std::string& source_;
    std::vector<std::vector<InputRef>> inputs_;
    std::vector<std::vector<int>> consumers_;
    std::vector<int> maxPort_;
    std::vector<const TextProtoField*> maxPortField_; // the input asking for maxPort_
    std::int64_t tensorCount_ = 0;
    std::vector<int> order_;
    std::vector<Role> role_;
    std::vector<std::string> colocateOf_;
    std::unordered_set<std::string> colocationTargets_;
    std::vector<std::vector<int>> tensorsOf_;
    const ImportOptions& options_;
    std::unordered_set<std::string> placeholders_;
    std::vector<UnresolvedDim> unresolved_;
    std::vector<bool> shapeKnown_;
    std::vector<std::optional<std::vector<std::int64_t>>> constValues_;
};

} // namespace

TfShapedImport importTfGraphDef(const TfGraphDef& graph, const std::string& source, const std::string& graphName,
                                const ImportOptions& options)
{
    return Importer(graph, source, options).run(graphName);
}

} // namespace post
