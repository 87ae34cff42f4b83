#include "core/cost/Fusion.h"

#include "core/cost/OpView.h"

#include <algorithm>

namespace post {
namespace {

bool validTensor(const ShapedGraph& g, int t) { return t >= 0 && static_cast<size_t>(t) < g.tensors.size(); }

// Fusion never crosses a colocation group of the file or what pins an op to the CPU.
bool compatible(const ShapedOp& a, const ShapedOp& b) { return a.colocate == b.colocate && a.cpuOnly == b.cpuOnly; }

std::vector<int> producers(const ShapedGraph& g)
{
    std::vector<int> producer(g.tensors.size(), -1);
    for (size_t i = 0; i < g.ops.size(); ++i)
        for (int t : g.ops[i].outputs)
            if (validTensor(g, t) && producer[static_cast<size_t>(t)] < 0)
                producer[static_cast<size_t>(t)] = static_cast<int>(i);
    return producer;
}

} // namespace

FusionPlan planFusion(const ShapedGraph& graph, std::span<const int> order)
{
    const size_t n = graph.ops.size();
    FusionPlan plan;
    plan.root.resize(n);
    for (size_t i = 0; i < n; ++i)
        plan.root[i] = static_cast<int>(i);
    // A graph that gives its ops' devices (a TensorFlow GraphDef with device fields) is
    // costed op for op, as TensorFlow runs it: its placement is the file's, and a fusion
    // that depended on those devices would change the costs whenever a placement is
    // written back into the file.
    if (std::any_of(graph.ops.begin(), graph.ops.end(), [](const ShapedOp& o) { return !o.device.empty(); }))
        return plan;

    // Consumers per tensor (each op once) and the ops some op waits for by a control input.
    std::vector<std::vector<int>> consumers(graph.tensors.size());
    std::vector<char> controlled(n, 0);
    std::vector<char> fusible(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const ShapedOp& o = graph.ops[i];
        fusible[i] = (!o.bodyCost && isFusibleOpType(o.type)) ? 1 : 0;
        for (int t : o.inputs)
            if (validTensor(graph, t)) {
                std::vector<int>& c = consumers[static_cast<size_t>(t)];
                if (c.empty() || c.back() != static_cast<int>(i))
                    c.push_back(static_cast<int>(i));
            }
        for (int c : o.controlInputs)
            if (c >= 0 && static_cast<size_t>(c) < n)
                controlled[static_cast<size_t>(c)] = 1;
    }

    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int v = *it;
        if (v < 0 || static_cast<size_t>(v) >= n || !fusible[static_cast<size_t>(v)]
            || controlled[static_cast<size_t>(v)])
            continue;
        const ShapedOp& o = graph.ops[static_cast<size_t>(v)];
        int group = -1;
        bool ok = !o.outputs.empty();
        for (int t : o.outputs) {
            if (!ok)
                break;
            if (!validTensor(graph, t) || !graph.tensors[static_cast<size_t>(t)].isActivation()
                || consumers[static_cast<size_t>(t)].empty()) {
                ok = false;
                break;
            }
            for (int c : consumers[static_cast<size_t>(t)]) {
                const int r = plan.root[static_cast<size_t>(c)];
                if (c == v || (group >= 0 && r != group)) {
                    ok = false;
                    break;
                }
                group = r;
            }
        }
        if (ok && group >= 0 && fusible[static_cast<size_t>(group)]
            && compatible(o, graph.ops[static_cast<size_t>(group)]))
            plan.root[static_cast<size_t>(v)] = group;
    }

    std::vector<int> size(n, 0);
    for (size_t i = 0; i < n; ++i)
        ++size[static_cast<size_t>(plan.root[i])];
    for (size_t i = 0; i < n; ++i)
        if (size[i] > 1) {
            ++plan.groupCount;
            plan.fusedOpCount += size[i];
        }
    return plan;
}

std::vector<OpCost> fusedCosts(const ShapedGraph& graph, const FusionPlan& plan, std::span<const OpCost> costs)
{
    const size_t n = graph.ops.size();
    std::vector<OpCost> result(costs.begin(), costs.end());
    const std::vector<int> producer = producers(graph);
    // Members of each group, in op order (a counting sort by root).
    std::vector<int> start(n + 1, 0);
    for (size_t i = 0; i < n; ++i)
        ++start[static_cast<size_t>(plan.root[i]) + 1];
    for (size_t i = 0; i < n; ++i)
        start[i + 1] += start[i];
    std::vector<int> members(n);
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (size_t i = 0; i < n; ++i)
        members[static_cast<size_t>(fill[static_cast<size_t>(plan.root[i])]++)] = static_cast<int>(i);

    std::vector<int> readBy(graph.tensors.size(), -1); // the group that last counted the tensor
    for (size_t r = 0; r < n; ++r) {
        const int begin = start[r], end = start[r + 1];
        if (end - begin < 2)
            continue;
        OpCost group;
        group.elementBytes = costs[r].elementBytes;
        for (int k = begin; k < end; ++k) {
            const auto m = static_cast<size_t>(members[static_cast<size_t>(k)]);
            group.flops += costs[m].flops;
            group.known = group.known && costs[m].known;
            for (int t : graph.ops[m].inputs) {
                if (!validTensor(graph, t) || readBy[static_cast<size_t>(t)] == static_cast<int>(r))
                    continue;
                const int p = producer[static_cast<size_t>(t)];
                if (p >= 0 && plan.root[static_cast<size_t>(p)] == static_cast<int>(r))
                    continue; // written inside the group: never leaves the kernel
                readBy[static_cast<size_t>(t)] = static_cast<int>(r);
                group.bytesRead += OpView::bytes(&graph.tensors[static_cast<size_t>(t)]);
            }
            if (m != r)
                result[m] = OpCost{0.0, 0.0, 0.0, costs[m].known, false, costs[m].elementBytes};
        }
        for (int t : graph.ops[r].outputs)
            if (validTensor(graph, t))
                group.bytesWritten += OpView::bytes(&graph.tensors[static_cast<size_t>(t)]);
        result[r] = group;
    }
    return result;
}

} // namespace post
