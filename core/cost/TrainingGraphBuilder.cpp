#include "core/cost/CostModel.h"

#include "core/cost/Fusion.h"
#include "core/cost/OpView.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/graph/TopologicalSort.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

constexpr const char* kGradSuffix = "/grad";

// Checks the forward graph and answers what buildTrainingGraph needs to know about it.
class ForwardGraph {
public:
    explicit ForwardGraph(const ShapedGraph& graph)
        : g_(graph)
    {
    }

    void validate();
    std::vector<int> topologicalOrder() const;

    int producer(int tensor) const { return producer_[static_cast<size_t>(tensor)]; }
    // A tensor that travels between ops: not a parameter, not a constant.
    bool isActivation(int tensor) const { return g_.tensors[static_cast<size_t>(tensor)].isActivation(); }
    std::string where(size_t op) const
    {
        const ShapedOp& o = g_.ops[op];
        return o.location.empty() ? "ops[" + std::to_string(op) + "]" : o.location;
    }
    [[noreturn]] void fail(size_t op, const std::string& message) const
    {
        throw InputError(g_.source, where(op), message);
    }

private:
    // Data and control predecessors of an op (parameters carry no dependency).
    template <typename F> void forEachPredecessor(size_t op, F&& f) const
    {
        const ShapedOp& o = g_.ops[op];
        for (int t : o.inputs)
            if (t >= 0 && producer_[static_cast<size_t>(t)] >= 0 && !g_.tensors[static_cast<size_t>(t)].isParameter)
                f(static_cast<size_t>(producer_[static_cast<size_t>(t)]));
        for (int c : o.controlInputs)
            f(static_cast<size_t>(c));
    }

    const ShapedGraph& g_;
    std::vector<int> producer_; // per tensor: the op writing it, or -1
};

void ForwardGraph::validate()
{
    const auto tensorCount = static_cast<int>(g_.tensors.size());
    const auto opCount = static_cast<int>(g_.ops.size());
    producer_.assign(g_.tensors.size(), -1);
    std::unordered_map<std::string_view, size_t> names;
    for (size_t i = 0; i < g_.ops.size(); ++i) {
        const ShapedOp& o = g_.ops[i];
        if (o.name.empty())
            fail(i, "an op needs a name");
        if (auto [it, inserted] = names.emplace(o.name, i); !inserted)
            fail(i, "duplicate op name \"" + o.name + "\" (first at " + where(it->second) + ")");
        for (size_t k = 0; k < o.inputs.size(); ++k)
            if (o.inputs[k] < -1 || o.inputs[k] >= tensorCount)
                fail(i,
                     "op \"" + o.name + "\": input " + std::to_string(k) + " refers to tensor #"
                         + std::to_string(o.inputs[k]) + ", but the graph has " + std::to_string(tensorCount)
                         + " tensors");
        for (size_t k = 0; k < o.outputs.size(); ++k) {
            const int t = o.outputs[k];
            if (t < 0 || t >= tensorCount)
                fail(i,
                     "op \"" + o.name + "\": output " + std::to_string(k) + " refers to tensor #" + std::to_string(t)
                         + ", but the graph has " + std::to_string(tensorCount) + " tensors");
            int& p = producer_[static_cast<size_t>(t)];
            if (p >= 0 && p != static_cast<int>(i))
                fail(i,
                     "op \"" + o.name + "\": tensor \"" + g_.tensors[static_cast<size_t>(t)].name
                         + "\" is already written by op \"" + g_.ops[static_cast<size_t>(p)].name + "\"");
            p = static_cast<int>(i);
        }
        for (int c : o.controlInputs)
            if (c < 0 || c >= opCount || c == static_cast<int>(i))
                fail(i, "op \"" + o.name + "\": control input #" + std::to_string(c) + " is not another op");
    }
    for (size_t i = 0; i < g_.ops.size(); ++i)
        if (names.count(g_.ops[i].name + kGradSuffix))
            fail(names[g_.ops[i].name + kGradSuffix],
                 "op name \"" + g_.ops[i].name + kGradSuffix + "\" is taken by the gradient of op \"" + g_.ops[i].name
                     + "\"");
}

std::vector<int> ForwardGraph::topologicalOrder() const
{
    const size_t n = g_.ops.size();
    std::vector<std::vector<int>> successors(n);
    for (size_t op = 0; op < n; ++op)
        forEachPredecessor(op, [&](size_t p) { successors[p].push_back(static_cast<int>(op)); });
    TopologicalSort sorted = topologicalSort(successors);
    if (!sorted.acyclic())
        fail(static_cast<size_t>(sorted.cycle.back()),
             "cycle: "
                 + describeCycle(
                     sorted.cycle, [this](int op) { return g_.ops[static_cast<size_t>(op)].name; }, sorted.cycle.size()));
    return std::move(sorted.order);
}

OpCost scaled(OpCost c, double factor)
{
    c.flops *= factor;
    c.bytesRead *= factor;
    c.bytesWritten *= factor;
    // The gradients of a Winograd convolution are Winograd too: the input gradient is the
    // same 3x3 stride-1 convolution with the filter turned round, the weight gradient the same
    // batched products over transformed inputs and output gradients.
    c.winogradFlops *= factor;
    c.winogradGemmBytes *= factor;
    c.winogradTransformBytes *= factor;
    return c;
}

Op costedOp(std::string name, std::string type, OpCost cost, const CostModelOptions& options)
{
    cost.streaming = isStreamingOpType(type);
    Op op;
    op.name = std::move(name);
    op.type = std::move(type);
    for (int k = 0; k < kDeviceKindCount; ++k)
        op.timeUs[static_cast<size_t>(k)] = rooflineTimeUs(cost, options.reference[static_cast<size_t>(k)]);
    op.flops = cost.flops;
    op.memoryBytes = cost.bytesRead + cost.bytesWritten;
    op.matrixOp = cost.matrix;
    op.convolution = cost.convolution;
    op.narrowConvolution = cost.narrow;
    op.winogradFlops = cost.winogradFlops;
    op.winogradGemmBytes = cost.winogradGemmBytes;
    op.winogradTransformBytes = cost.winogradTransformBytes;
    op.passBytes = cost.passBytes;
    op.precision = precisionOfElementBytes(cost.elementBytes);
    return op;
}

// In-place state updates (batch norm's moving averages): no gradient flows through them.
bool isStateUpdate(std::string_view type) { return type == "AssignSub" || type == "AssignAdd" || type == "Assign"; }

// A TensorFlow feed (the zoo's images and labels): the batch enters the step here, as an ONNX
// graph input does. No gradient goes to it, and with CostModelOptions::inputCopy its GPU time
// is the batch's host-to-device copy.
bool isFeed(const ShapedOp& op)
{
    return (op.type == "Placeholder" || op.type == "PlaceholderWithDefault")
        && std::none_of(op.inputs.begin(), op.inputs.end(), [](int t) { return t >= 0; });
}

// The training step being built: the forward graph, its costs and fusion plan, and which ops
// get a backward op and which tensors a gradient.
class StepBuilder {
public:
    StepBuilder(const ShapedGraph& graph, const CostModelOptions& options, ForwardGraph& forward)
        : g_(graph)
        , options_(options)
        , forward_(forward)
        , order_(forward.topologicalOrder())
        , n_(graph.ops.size())
        , builder_(graph.name)
    {
    }

    Graph build(CostReport& summary);

private:
    void costForwardOps(CostReport& summary, std::map<std::string, int>& unknown);
    void planGradients();
    OpCost backwardCost(size_t op) const;
    void addAccumulations(std::vector<OpCost>& backward) const;
    void addEdges();
    void addOptimizerOps(CostReport& summary);
    void addInputCopies(CostReport& summary);
    // A copy of `bytes` of the batch to a GPU at CostModelOptions::inputCopyGBps, with its launch.
    double inputCopyUs(double bytes) const
    {
        return bytes / (options_.inputCopyGBps * 1e3)
            + options_.reference[static_cast<size_t>(DeviceKind::Gpu)].launchOverheadUs;
    }
    OpId addOp(Op op, const ShapedOp& from)
    {
        // GraphBuilder refuses absurd costs (an op of 1e15 us): name the op's place in the file.
        try {
            return builder_.addOp(std::move(op));
        } catch (const GraphError& e) {
            throw InputError(g_.source, from.location.empty() ? from.name : from.location, e.what());
        }
    }
    const ShapedTensor& tensor(int t) const { return g_.tensors[static_cast<size_t>(t)]; }
    double bytes(int t) const { return OpView::bytes(&tensor(t)); }
    // A tensor written by a fused member stays inside its kernel.
    bool internal(int t) const
    {
        const int p = forward_.producer(t);
        return options_.fuseElementwise && p >= 0 && plan_.fused(p);
    }
    int rootOf(size_t op) const { return options_.fuseElementwise ? plan_.root[op] : static_cast<int>(op); }
    // A gradient w.r.t. this tensor is computed: an activation written by an op with a backward op.
    bool needsGradient(int t) const
    {
        const int p = t >= 0 ? forward_.producer(t) : -1;
        return p >= 0 && forward_.isActivation(t) && hasBackward_[static_cast<size_t>(p)];
    }

    const ShapedGraph& g_;
    const CostModelOptions& options_;
    ForwardGraph& forward_;
    std::vector<int> order_;
    size_t n_;
    GraphBuilder builder_;
    std::vector<double> paramBytes_;
    std::vector<OpCost> costs_;
    std::vector<std::string> groups_;
    FusionPlan plan_;
    std::vector<char> hasBackward_;
    std::vector<std::vector<int>> members_;   // per op: the ops of its fusion group when it is a root (itself first)
    std::vector<std::vector<int>> consumers_; // per tensor: the distinct ops reading it as an activation
    std::vector<OpId> gradOf_;
};

void StepBuilder::costForwardOps(CostReport& summary, std::map<std::string, int>& unknown)
{
    // Parameters belong to their first consumer in topological order: a shared one counts once.
    paramBytes_.assign(n_, 0.0);
    std::vector<char> paramOwned(g_.tensors.size(), 0);
    for (int op : order_)
        for (int t : g_.ops[static_cast<size_t>(op)].inputs)
            if (t >= 0 && tensor(t).isParameter && !paramOwned[static_cast<size_t>(t)]) {
                paramOwned[static_cast<size_t>(t)] = 1;
                paramBytes_[static_cast<size_t>(op)] += bytes(t);
            }
    costs_.resize(n_);
    groups_.resize(n_);
    for (size_t i = 0; i < n_; ++i) {
        const ShapedOp& o = g_.ops[i];
        costs_[i] = estimateOpCost(g_, o);
        if (!std::isfinite(costs_[i].flops + costs_[i].bytesRead + costs_[i].bytesWritten))
            forward_.fail(i, "op \"" + o.name + "\": its shapes give a cost too large to represent");
        if (!costs_[i].known)
            ++unknown[o.type];
        summary.totalForwardFlops += costs_[i].flops;
        summary.parameterBytes += paramBytes_[i];
        groups_[i] = o.colocate.empty() ? o.name : o.colocate;
    }
    // Kernel fusion: a group's root carries the group's kernel, its other members cost
    // nothing and join the root's colocation group; what a member writes never leaves the
    // kernel, so its tensors (edges, saved activations) hold no bytes.
    if (options_.fuseElementwise) {
        plan_ = planFusion(g_, order_);
        costs_ = fusedCosts(g_, plan_, costs_);
        for (size_t i = 0; i < n_; ++i)
            if (plan_.fused(static_cast<int>(i)))
                groups_[i] = groups_[static_cast<size_t>(plan_.root[i])];
        summary.fusionGroups = plan_.groupCount;
        summary.fusedOps = plan_.fusedOpCount;
    }
}

// An op gets a backward op unless no gradient reaches it: it is an in-place state update, or
// everything it writes feeds only ops that get none (batch norm's moving-average arithmetic).
// A sink that is no state update is a loss or an output: gradients start there.
void StepBuilder::planGradients()
{
    std::vector<std::vector<int>>& consumers = consumers_;
    consumers.assign(g_.tensors.size(), {});
    members_.assign(n_, {});
    for (size_t i = 0; i < n_; ++i) {
        members_[static_cast<size_t>(rootOf(i))].push_back(static_cast<int>(i));
        for (int t : g_.ops[i].inputs)
            if (t >= 0 && forward_.isActivation(t)
                && (consumers[static_cast<size_t>(t)].empty()
                    || consumers[static_cast<size_t>(t)].back() != static_cast<int>(i)))
                consumers[static_cast<size_t>(t)].push_back(static_cast<int>(i));
    }
    hasBackward_.assign(n_, 1);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        const auto i = static_cast<size_t>(*it);
        if (isStateUpdate(g_.ops[i].type) || isFeed(g_.ops[i])) {
            hasBackward_[i] = 0;
            continue;
        }
        bool anyConsumer = false, anyGradient = false;
        for (int t : g_.ops[i].outputs)
            for (int c : consumers[static_cast<size_t>(t)]) {
                anyConsumer = true;
                anyGradient = anyGradient || hasBackward_[static_cast<size_t>(c)];
            }
        hasBackward_[i] = !anyConsumer || anyGradient;
    }
}

// The backward cost of one forward op by its class (docs/cost-model.md, "Training step").
OpCost StepBuilder::backwardCost(size_t i) const
{
    const ShapedOp& o = g_.ops[i];
    const OpCost& fwd = costs_[i];
    if (options_.fuseElementwise && plan_.fused(static_cast<int>(i)))
        return scaled(fwd, 0.0); // a member: its gradient is computed in the root's kernel
    // Gradient bytes written: the activations entering the op (or its fusion group) that need one.
    double gradientBytes = 0.0;
    std::unordered_set<int> sent;
    for (int m : members_[i]) {
        for (int t : g_.ops[static_cast<size_t>(m)].inputs)
            if (needsGradient(t) && !internal(t)
                && rootOf(static_cast<size_t>(forward_.producer(t))) != static_cast<int>(i) && sent.insert(t).second)
                gradientBytes += bytes(t);
    }
    const bool group = members_[i].size() > 1;
    if (g_.atenKernels && gradientBytes > 0.0)
        if (auto aten = atenMaxPoolCosts(g_, o))
            return aten->backward;
    BackwardClass cls = backwardClassOf(o.type);
    if (group && (cls == BackwardClass::PassThrough || cls == BackwardClass::Movement))
        cls = BackwardClass::Elementwise;
    switch (cls) {
    case BackwardClass::Matrix:
        // Data gradient and weight gradient; the weight gradient alone where no input needs one
        // (an image network's first layer). A strided convolution's data gradient adds the
        // passes of cuDNN's atomic-add algorithm (docs/cost-model.md, "Backward of strided
        // convolutions").
        if (gradientBytes > 0.0) {
            OpCost c = scaled(fwd, options_.backwardFactor);
            c.passBytes = options_.backwardFactor > 0.0 ? fwd.inputGradPassBytes : 0.0;
            return c;
        }
        return scaled(
            fwd,
            std::any_of(o.inputs.begin(), o.inputs.end(), [&](int t) { return t >= 0 && tensor(t).isParameter; })
                ? options_.backwardFactor / 2.0
                : 0.0);
    case BackwardClass::PassThrough:
    case BackwardClass::Free:
        return scaled(fwd, 0.0);
    case BackwardClass::Movement:
        return scaled(fwd, gradientBytes > 0.0 ? 1.0 : 0.0);
    case BackwardClass::Elementwise: {
        if (gradientBytes <= 0.0)
            return scaled(fwd, 0.0);
        // One pass: the incoming gradient and what the forward read (its saved inputs or
        // output: as large for a unary op), the input gradients written.
        OpCost c = fwd;
        c.bytesRead = fwd.bytesWritten + fwd.bytesRead;
        c.bytesWritten = gradientBytes;
        return c;
    }
    case BackwardClass::Other:
        // No input gradient and no parameters: nothing to compute (a pooling of the image).
        if (gradientBytes <= 0.0 && paramBytes_[i] <= 0.0)
            return scaled(fwd, 0.0);
        break;
    }
    return scaled(fwd, options_.backwardFactor);
}

// Where a tensor feeds several ops that send a gradient back, the gradients are summed: one
// add (read two, write one) per extra consumer. It is charged to a pass-through consumer (the
// residual add, whose backward is otherwise free) or, without one, to the producer's backward.
void StepBuilder::addAccumulations(std::vector<OpCost>& backward) const
{
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
        const int ti = static_cast<int>(t);
        if (!needsGradient(ti) || internal(ti))
            continue;
        std::vector<int> senders; // fusion roots of the consumers that send a gradient back
        int passThrough = -1;
        for (int ci : consumers_[t]) {
            const auto c = static_cast<size_t>(ci);
            if (!hasBackward_[c])
                continue;
            const int root = rootOf(c);
            if (std::find(senders.begin(), senders.end(), root) == senders.end())
                senders.push_back(root);
            if (backwardClassOf(g_.ops[c].type) == BackwardClass::PassThrough && passThrough < 0)
                passThrough = root;
        }
        if (senders.size() < 2)
            continue;
        const double extra = static_cast<double>(senders.size() - 1);
        OpCost& at = backward[static_cast<size_t>(
            passThrough >= 0 ? passThrough : rootOf(static_cast<size_t>(forward_.producer(ti))))];
        at.flops += extra * OpView::elements(&tensor(ti));
        at.bytesRead += extra * 2.0 * bytes(ti);
        at.bytesWritten += extra * bytes(ti);
        if (at.winogradFlops > 0.0) // a Winograd convolution's gradient: its kernels do not do the add
            at.winogradTransformBytes += extra * 3.0 * bytes(ti);
    }
}

void StepBuilder::addEdges()
{
    for (size_t i = 0; i < n_; ++i) {
        const ShapedOp& o = g_.ops[i];
        const auto to = static_cast<OpId>(i);
        std::unordered_set<int> seen;
        for (int t : o.inputs) {
            if (t < 0 || forward_.producer(t) < 0 || tensor(t).isParameter || !seen.insert(t).second)
                continue;
            const auto from = static_cast<OpId>(forward_.producer(t));
            if (tensor(t).isConstant) {
                builder_.addEdge(from, to, 0.0); // a dependency; constants are free to send
                continue;
            }
            const double sent = internal(t) ? 0.0 : bytes(t);
            builder_.addEdge(from, to, sent);
            // The gradient w.r.t. the tensor has its size and flows the other way.
            if (gradOf_[i] != kNoOp && gradOf_[static_cast<size_t>(from)] != kNoOp)
                builder_.addEdge(gradOf_[i], gradOf_[static_cast<size_t>(from)], sent);
        }
        for (int c : o.controlInputs)
            builder_.addEdge(static_cast<OpId>(c), to, 0.0);
        // The backward op needs its forward op's results: colocated, so never sent, but the
        // edge keeps the activations alive until the backward pass, as training does.
        if (gradOf_[i] != kNoOp)
            builder_.addEdge(to, gradOf_[i], builder_.op(to).outputBytes);
    }
}

// One update op per op that owns parameters, fed by its backward op with the weight gradient
// and colocated with it (docs/cost-model.md, "Optimizer"). Costed by parameter bytes P: SGD
// with momentum reads weight, gradient and momentum and writes weight and momentum (5 P, 4
// FLOPs per element); Adam reads weight, gradient and two moments and writes three (7 P, 12
// FLOPs). Both add the gradient's own traffic: zero_grad writes it (P) and AccumulateGrad adds
// the backward's result into it (reads 2 P, writes P; 1 FLOP).
void StepBuilder::addOptimizerOps(CostReport& summary)
{
    if (options_.optimizer == OptimizerKind::None)
        return;
    const bool adam = options_.optimizer == OptimizerKind::Adam;
    const char* type = adam ? "ApplyAdam" : "ApplyMomentum";
    for (size_t i = 0; i < n_; ++i) {
        const double p = paramBytes_[i];
        if (p <= 0.0 || gradOf_[i] == kNoOp)
            continue;
        const double elements = p / static_cast<double>(std::max(1, costs_[i].elementBytes));
        OpCost cost;
        cost.flops = (adam ? 12.0 : 4.0) * elements + elements;
        cost.bytesRead = (adam ? 4.0 : 3.0) * p + 2.0 * p;
        cost.bytesWritten = (adam ? 3.0 : 2.0) * p + 2.0 * p;
        cost.elementBytes = costs_[i].elementBytes;
        Op update = costedOp(g_.ops[i].name + "/" + type, type, cost, options_);
        update.colocate = groups_[i];
        update.cpuOnly = g_.ops[i].cpuOnly;
        const OpId id = addOp(std::move(update), g_.ops[i]);
        builder_.addEdge(gradOf_[i], id, p);
        ++summary.optimizerOps;
    }
}

// The batch comes from the host: one copy op per graph input, before the ops that read it. On
// a GPU it takes the input's bytes over PCIe; on a CPU nothing (the data is there, and the edge
// to a GPU consumer then carries it over the cluster's link).
void StepBuilder::addInputCopies(CostReport& summary)
{
    if (!options_.inputCopy)
        return;
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
        const int ti = static_cast<int>(t);
        if (forward_.producer(ti) >= 0 || !forward_.isActivation(ti) || consumers_[t].empty())
            continue;
        Op copy;
        copy.name = tensor(ti).name + "/MemcpyHtoD";
        copy.type = "MemcpyHtoD";
        copy.timeUs[static_cast<size_t>(DeviceKind::Gpu)] = inputCopyUs(bytes(ti));
        copy.outputBytes = bytes(ti);
        const OpId id = addOp(std::move(copy), g_.ops[static_cast<size_t>(consumers_[t].front())]);
        for (int c : consumers_[t])
            builder_.addEdge(id, static_cast<OpId>(c), bytes(ti));
        ++summary.inputCopies;
    }
}

Graph StepBuilder::build(CostReport& summary)
{
    std::map<std::string, int> unknown;
    builder_.reserve(3 * n_, 0);
    costForwardOps(summary, unknown);
    planGradients();
    // ATen's max pooling writes its argmax indices (atenMaxPoolCosts): on a GPU it always
    // runs max_pool2d_with_indices, whether a gradient follows or not.
    if (g_.atenKernels)
        for (size_t i = 0; i < n_; ++i)
            if (auto aten = atenMaxPoolCosts(g_, g_.ops[i]))
                costs_[i].bytesWritten += aten->indexBytes;
    for (size_t i = 0; i < n_; ++i) {
        const ShapedOp& o = g_.ops[i];
        Op op = costedOp(o.name, o.type, costs_[i], options_);
        for (int t : o.outputs)
            if (forward_.isActivation(t) && !internal(t))
                op.outputBytes += bytes(t);
        if (options_.inputCopy && isFeed(o) && op.outputBytes > 0.0) {
            op.timeUs[static_cast<size_t>(DeviceKind::Gpu)] = inputCopyUs(op.outputBytes);
            ++summary.inputCopies;
        }
        op.paramBytes = paramBytes_[i];
        op.colocate = groups_[i];
        op.cpuOnly = o.cpuOnly; // its backward op shares the group, so it is pinned too
        op.body = o.bodySummary;
        if (options_.fuseElementwise && plan_.fused(static_cast<int>(i)))
            op.fusedInto = g_.ops[static_cast<size_t>(plan_.root[i])].name;
        addOp(std::move(op), o);
    }
    std::vector<OpCost> backward(n_);
    for (size_t i = 0; i < n_; ++i)
        if (hasBackward_[i])
            backward[i] = backwardCost(i);
    addAccumulations(backward);
    // Backward ops in reverse topological order, each with the gradients it sends back.
    gradOf_.assign(n_, kNoOp);
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        const auto i = static_cast<size_t>(*it);
        const ShapedOp& o = g_.ops[i];
        if (!hasBackward_[i]) {
            ++summary.opsWithoutGradient;
            continue;
        }
        Op op = costedOp(o.name + kGradSuffix, o.type + "Grad", backward[i], options_);
        std::unordered_set<int> sent;
        for (int t : o.inputs)
            if (needsGradient(t) && !internal(t) && sent.insert(t).second)
                op.outputBytes += bytes(t);
        op.colocate = groups_[i];
        op.cpuOnly = o.cpuOnly;
        if (!o.bodySummary.empty())
            op.body = "gradient of " + o.bodySummary;
        if (options_.fuseElementwise && plan_.fused(static_cast<int>(i))) // the group's gradient is one kernel too
            op.fusedInto = g_.ops[static_cast<size_t>(plan_.root[i])].name + kGradSuffix;
        gradOf_[i] = addOp(std::move(op), o);
    }
    addOptimizerOps(summary);
    addInputCopies(summary);
    try {
        addEdges();
        summary.forwardOpCount = static_cast<int>(n_);
        summary.opCount = builder_.opCount();
        summary.unknownTypes.assign(unknown.begin(), unknown.end());
        summary.unresolved = g_.unresolved;
        summary.weightInputs = g_.weightInputs;
        for (size_t i = 0; i < g_.tensors.size(); ++i) {
            const ShapedTensor& t = g_.tensors[i];
            if (forward_.isActivation(static_cast<int>(i)) && forward_.producer(static_cast<int>(i)) >= 0
                && std::any_of(t.shape.begin(), t.shape.end(), [](std::int64_t d) { return d < 0; }))
                summary.unshapedTensors.push_back(t.name);
        }
        return std::move(builder_).build();
    } catch (const GraphError& e) {
        throw InputError(g_.source, "ops", e.what()); // checked above: should not happen
    }
}

} // namespace

std::string_view toString(OptimizerKind kind)
{
    switch (kind) {
    case OptimizerKind::None:
        return "none";
    case OptimizerKind::Sgd:
        return "sgd";
    case OptimizerKind::Adam:
        return "adam";
    }
    return "sgd";
}

std::optional<OptimizerKind> parseOptimizerKind(std::string_view text)
{
    if (text == "none")
        return OptimizerKind::None;
    if (text == "sgd")
        return OptimizerKind::Sgd;
    if (text == "adam")
        return OptimizerKind::Adam;
    return std::nullopt;
}

Graph buildTrainingGraph(const ShapedGraph& graph, const CostModelOptions& options, CostReport* report)
{
    if (!std::isfinite(options.backwardFactor) || options.backwardFactor < 0.0)
        throw std::invalid_argument("CostModelOptions::backwardFactor must be a finite number >= 0");
    if (!std::isfinite(options.inputCopyGBps) || !(options.inputCopyGBps > 0.0))
        throw std::invalid_argument("CostModelOptions::inputCopyGBps must be a finite number > 0");
    ForwardGraph forward(graph);
    forward.validate();
    StepBuilder step(graph, options, forward);
    CostReport summary;
    Graph result = step.build(summary);
    if (report)
        *report = std::move(summary);
    return result;
}

} // namespace post
