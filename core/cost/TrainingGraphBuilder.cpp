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
    return c;
}

Op costedOp(std::string name, std::string type, const OpCost& cost, const CostModelOptions& options)
{
    Op op;
    op.name = std::move(name);
    op.type = std::move(type);
    for (int k = 0; k < kDeviceKindCount; ++k)
        op.timeUs[static_cast<size_t>(k)] = rooflineTimeUs(cost, options.reference[static_cast<size_t>(k)]);
    op.flops = cost.flops;
    op.memoryBytes = cost.bytesRead + cost.bytesWritten;
    op.matrixOp = cost.matrix;
    op.precision = precisionOfElementBytes(cost.elementBytes);
    return op;
}

} // namespace

Graph buildTrainingGraph(const ShapedGraph& graph, const CostModelOptions& options, CostReport* report)
{
    if (!std::isfinite(options.backwardFactor) || options.backwardFactor < 0.0)
        throw std::invalid_argument("CostModelOptions::backwardFactor must be a finite number >= 0");
    ForwardGraph forward(graph);
    forward.validate();
    const std::vector<int> order = forward.topologicalOrder();
    const size_t n = graph.ops.size();

    // Parameters belong to their first consumer in topological order: a shared one counts once.
    std::vector<double> paramBytes(n, 0.0);
    std::vector<char> paramOwned(graph.tensors.size(), 0);
    for (int op : order)
        for (int t : graph.ops[static_cast<size_t>(op)].inputs)
            if (t >= 0 && graph.tensors[static_cast<size_t>(t)].isParameter && !paramOwned[static_cast<size_t>(t)]) {
                paramOwned[static_cast<size_t>(t)] = 1;
                paramBytes[static_cast<size_t>(op)] += OpView::bytes(&graph.tensors[static_cast<size_t>(t)]);
            }

    CostReport summary;
    std::map<std::string, int> unknown;
    GraphBuilder builder(graph.name);
    builder.reserve(2 * n, 0);
    std::vector<OpCost> costs(n);
    std::vector<std::string> groups(n);
    // GraphBuilder refuses absurd costs (an op of 1e15 us): name the op's place in the file.
    auto addOp = [&](Op op, const ShapedOp& from) {
        try {
            return builder.addOp(std::move(op));
        } catch (const GraphError& e) {
            throw InputError(graph.source, from.location.empty() ? from.name : from.location, e.what());
        }
    };
    for (size_t i = 0; i < n; ++i) {
        const ShapedOp& o = graph.ops[i];
        costs[i] = estimateOpCost(graph, o);
        if (!std::isfinite(costs[i].flops + costs[i].bytesRead + costs[i].bytesWritten))
            forward.fail(i, "op \"" + o.name + "\": its shapes give a cost too large to represent");
        if (!costs[i].known)
            ++unknown[o.type];
        summary.totalForwardFlops += costs[i].flops;
        summary.parameterBytes += paramBytes[i];
        groups[i] = o.colocate.empty() ? o.name : o.colocate;
    }
    // Kernel fusion: a group's root carries the group's kernel, its other members cost
    // nothing and join the root's colocation group; what a member writes never leaves the
    // kernel, so its tensors (edges, saved activations) hold no bytes.
    FusionPlan plan;
    if (options.fuseElementwise) {
        plan = planFusion(graph, order);
        costs = fusedCosts(graph, plan, costs);
        for (size_t i = 0; i < n; ++i)
            if (plan.fused(static_cast<int>(i)))
                groups[i] = groups[static_cast<size_t>(plan.root[i])];
        summary.fusionGroups = plan.groupCount;
        summary.fusedOps = plan.fusedOpCount;
    }
    // A tensor written by a fused member stays inside its kernel.
    auto internal = [&](int tensor) {
        const int p = forward.producer(tensor);
        return options.fuseElementwise && p >= 0 && plan.fused(p);
    };
    for (size_t i = 0; i < n; ++i) {
        const ShapedOp& o = graph.ops[i];
        Op op = costedOp(o.name, o.type, costs[i], options);
        for (int t : o.outputs)
            if (forward.isActivation(t) && !internal(t))
                op.outputBytes += OpView::bytes(&graph.tensors[static_cast<size_t>(t)]);
        op.paramBytes = paramBytes[i];
        op.colocate = groups[i];
        op.cpuOnly = o.cpuOnly; // its backward op shares the group, so it is pinned too
        op.body = o.bodySummary;
        if (options.fuseElementwise && plan.fused(static_cast<int>(i)))
            op.fusedInto = graph.ops[static_cast<size_t>(plan.root[i])].name;
        addOp(std::move(op), o);
    }
    // Backward ops in reverse topological order, each with the gradients it sends back.
    std::vector<OpId> gradOf(n, kNoOp);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto i = static_cast<size_t>(*it);
        const ShapedOp& o = graph.ops[i];
        Op op = costedOp(o.name + kGradSuffix, o.type + "Grad", scaled(costs[i], options.backwardFactor), options);
        std::unordered_set<int> sent;
        for (int t : o.inputs)
            if (t >= 0 && forward.isActivation(t) && forward.producer(t) >= 0 && !internal(t) && sent.insert(t).second)
                op.outputBytes += OpView::bytes(&graph.tensors[static_cast<size_t>(t)]);
        op.colocate = groups[i];
        if (!o.bodySummary.empty())
            op.body = "gradient of " + o.bodySummary;
        if (options.fuseElementwise && plan.fused(static_cast<int>(i))) // the group's gradient is one kernel too
            op.fusedInto = graph.ops[static_cast<size_t>(plan.root[i])].name + kGradSuffix;
        gradOf[i] = addOp(std::move(op), o);
    }

    try {
        for (size_t i = 0; i < n; ++i) {
            const ShapedOp& o = graph.ops[i];
            const auto to = static_cast<OpId>(i);
            std::unordered_set<int> seen;
            for (int t : o.inputs) {
                if (t < 0 || forward.producer(t) < 0 || graph.tensors[static_cast<size_t>(t)].isParameter
                    || !seen.insert(t).second)
                    continue;
                const auto from = static_cast<OpId>(forward.producer(t));
                if (graph.tensors[static_cast<size_t>(t)].isConstant) {
                    builder.addEdge(from, to, 0.0); // a dependency; constants are free to send
                    continue;
                }
                const double bytes = internal(t) ? 0.0 : OpView::bytes(&graph.tensors[static_cast<size_t>(t)]);
                builder.addEdge(from, to, bytes);
                // The gradient w.r.t. the tensor has its size and flows the other way.
                builder.addEdge(gradOf[i], gradOf[static_cast<size_t>(from)], bytes);
            }
            for (int c : o.controlInputs)
                builder.addEdge(static_cast<OpId>(c), to, 0.0);
            // The backward op needs its forward op's results: colocated, so never sent, but the
            // edge keeps the activations alive until the backward pass, as training does.
            builder.addEdge(to, gradOf[i], builder.op(to).outputBytes);
        }
        summary.forwardOpCount = static_cast<int>(n);
        summary.opCount = builder.opCount();
        summary.unknownTypes.assign(unknown.begin(), unknown.end());
        summary.unresolved = graph.unresolved;
        summary.weightInputs = graph.weightInputs;
        for (size_t i = 0; i < graph.tensors.size(); ++i) {
            const ShapedTensor& t = graph.tensors[i];
            if (forward.isActivation(static_cast<int>(i)) && forward.producer(static_cast<int>(i)) >= 0
                && std::any_of(t.shape.begin(), t.shape.end(), [](std::int64_t d) { return d < 0; }))
                summary.unshapedTensors.push_back(t.name);
        }
        Graph result = std::move(builder).build();
        if (report)
            *report = std::move(summary);
        return result;
    } catch (const GraphError& e) {
        throw InputError(graph.source, "ops", e.what()); // checked above: should not happen
    }
}

} // namespace post
