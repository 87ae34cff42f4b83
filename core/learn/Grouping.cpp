#include "core/learn/Grouping.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/learn/UnionFind.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace post {
namespace {

void mergeColocated(const Graph& graph, UnionFind& sets)
{
    std::vector<OpId> first(static_cast<size_t>(graph.colocationGroupCount()), kNoOp);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const int g = graph.colocationGroup(op);
        if (g < 0)
            continue;
        OpId& f = first[static_cast<size_t>(g)];
        if (f == kNoOp)
            f = op;
        else
            sets.unite(f, op);
    }
}

// Weights that sum to something positive: compute, or one per op for cost-free graphs.
std::vector<double> opWeights(const Graph& graph)
{
    std::vector<double> w(static_cast<size_t>(graph.opCount()));
    double total = 0.0;
    for (OpId op = 0; op < graph.opCount(); ++op)
        total += w[static_cast<size_t>(op)] = groupingWeight(graph, op);
    if (!(total > 0.0))
        std::fill(w.begin(), w.end(), 1.0);
    return w;
}

std::vector<double> rootWeights(UnionFind& sets, const std::vector<double>& opWeight)
{
    std::vector<double> w(opWeight.size(), 0.0);
    for (int op = 0; op < sets.size(); ++op)
        w[static_cast<size_t>(sets.find(op))] += opWeight[static_cast<size_t>(op)];
    return w;
}

void mergeChains(const Graph& graph, UnionFind& sets, double maxShare)
{
    const std::vector<double> opWeight = opWeights(graph);
    std::vector<double> weight = rootWeights(sets, opWeight);
    double total = 0.0;
    for (double w : opWeight)
        total += w;
    const double cap = maxShare * total;
    for (OpId op : graph.topologicalOrder()) {
        const auto out = graph.outEdges(op);
        if (out.empty())
            continue;
        const OpId consumer = graph.edge(out[0]).to;
        const bool single = std::all_of(out.begin(), out.end(), [&](EdgeId e) { return graph.edge(e).to == consumer; });
        if (!single)
            continue;
        const int a = sets.find(op);
        const int b = sets.find(consumer);
        if (a == b)
            continue;
        const double merged = weight[static_cast<size_t>(a)] + weight[static_cast<size_t>(b)];
        if (merged > cap)
            continue;
        weight[static_cast<size_t>(sets.unite(a, b))] = merged;
    }
}

void mergeTopologicalChunks(const Graph& graph, UnionFind& sets, int maxGroups)
{
    const int n = graph.opCount();
    const std::vector<double> weight = rootWeights(sets, opWeights(graph));
    // Each current group in order of its first op in topological order.
    std::vector<int> order;
    std::vector<char> seen(static_cast<size_t>(n), 0);
    for (OpId op : graph.topologicalOrder()) {
        const int root = sets.find(op);
        if (!seen[static_cast<size_t>(root)]) {
            seen[static_cast<size_t>(root)] = 1;
            order.push_back(root);
        }
    }
    if (static_cast<int>(order.size()) <= maxGroups)
        return;
    double total = 0.0;
    for (int root : order)
        total += weight[static_cast<size_t>(root)];
    const double target = total / maxGroups;
    double before = 0.0;
    int chunkRoot = -1;
    int chunk = -1;
    for (int root : order) {
        const double w = weight[static_cast<size_t>(root)];
        // A group joins the chunk its weight's midpoint falls in: chunk sums stay within
        // target + the heaviest group, and the index never decreases along the order.
        const int k = std::min(maxGroups - 1, static_cast<int>((before + 0.5 * w) / target));
        if (k != chunk) {
            chunk = k;
            chunkRoot = root;
        } else {
            chunkRoot = sets.unite(chunkRoot, root);
        }
        before += w;
    }
}

void mergeNameScopes(const Graph& graph, UnionFind& sets, int depth)
{
    std::unordered_map<std::string_view, OpId> firstOfScope;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const std::string_view name = graph.op(op).name;
        size_t end = 0;
        int components = 0;
        while (components < depth) {
            const size_t slash = name.find('/', end);
            if (slash == std::string_view::npos) {
                end = std::string_view::npos;
                break;
            }
            end = slash + 1;
            ++components;
        }
        if (end == std::string_view::npos || components == 0)
            continue; // no scope this deep: the op stays on its own
        const auto [it, inserted] = firstOfScope.emplace(name.substr(0, end - 1), op);
        if (!inserted)
            sets.unite(it->second, op);
    }
}

} // namespace

double groupingWeight(const Graph& graph, OpId op)
{
    const Op& o = graph.op(op);
    const double gpu = o.time(DeviceKind::Gpu);
    return gpu > 0.0 ? gpu : o.time(DeviceKind::Cpu);
}

Grouping::Grouping(const Graph& graph, std::span<const int> labels)
{
    const int n = graph.opCount();
    if (static_cast<int>(labels.size()) != n)
        throw std::invalid_argument("Grouping: one label per op needed");
    groupOf_.assign(static_cast<size_t>(n), -1);
    std::unordered_map<int, int> dense;
    for (OpId op : graph.topologicalOrder()) {
        const auto [it, inserted] = dense.emplace(labels[static_cast<size_t>(op)], static_cast<int>(members_.size()));
        if (inserted)
            members_.emplace_back();
        groupOf_[static_cast<size_t>(op)] = it->second;
    }
    for (OpId op = 0; op < n; ++op)
        members_[static_cast<size_t>(groupOf_[static_cast<size_t>(op)])].push_back(op);
}

void Grouping::expand(std::span<const DeviceId> groupDevices, Placement& placement) const
{
    placement.resize(groupOf_.size());
    for (size_t op = 0; op < groupOf_.size(); ++op)
        placement[op] = groupDevices[static_cast<size_t>(groupOf_[op])];
}

Placement Grouping::expand(std::span<const DeviceId> groupDevices) const
{
    Placement placement;
    expand(groupDevices, placement);
    return placement;
}

std::vector<DeviceId> Grouping::collapse(const Placement& placement, int devices) const
{
    std::vector<DeviceId> result(members_.size(), 0);
    std::vector<int> votes(static_cast<size_t>(devices));
    for (size_t g = 0; g < members_.size(); ++g) {
        std::fill(votes.begin(), votes.end(), 0);
        for (OpId op : members_[g]) {
            const DeviceId d = placement[static_cast<size_t>(op)];
            if (d >= 0 && d < devices)
                ++votes[static_cast<size_t>(d)];
        }
        result[g] = static_cast<DeviceId>(std::max_element(votes.begin(), votes.end()) - votes.begin());
    }
    return result;
}

Grouping Grouping::refinedBy(const Graph& graph, const Placement& placement, int devices) const
{
    std::vector<int> labels(groupOf_.size());
    for (size_t op = 0; op < groupOf_.size(); ++op)
        labels[op] = groupOf_[op] * devices + placement[op];
    return Grouping(graph, labels);
}

Grouping groupOps(const Graph& graph, const GroupingOptions& options)
{
    const int n = graph.opCount();
    UnionFind sets(n);
    mergeColocated(graph, sets);
    switch (options.strategy) {
    case GroupingStrategy::None:
        break;
    case GroupingStrategy::Chains:
        mergeChains(graph, sets, options.chainMaxComputeShare);
        break;
    case GroupingStrategy::Chunks:
        mergeTopologicalChunks(graph, sets, std::max(1, options.maxGroups));
        break;
    case GroupingStrategy::NameScopes:
        mergeNameScopes(graph, sets, std::max(1, options.scopeDepth));
        break;
    case GroupingStrategy::Auto:
        mergeChains(graph, sets, options.chainMaxComputeShare);
        if (n > options.autoChainOpLimit)
            mergeTopologicalChunks(graph, sets, std::max(1, options.maxGroups));
        break;
    }
    std::vector<int> labels(static_cast<size_t>(n));
    for (OpId op = 0; op < n; ++op)
        labels[static_cast<size_t>(op)] = sets.find(op);
    return Grouping(graph, labels);
}

std::vector<std::vector<int>> adjacentGroups(const Grouping& grouping, const Graph& graph)
{
    std::vector<std::vector<int>> adjacent(static_cast<size_t>(grouping.groupCount()));
    for (const Edge& e : graph.edges()) {
        const int a = grouping.groupOf(e.from);
        const int b = grouping.groupOf(e.to);
        if (a != b) {
            adjacent[static_cast<size_t>(a)].push_back(b);
            adjacent[static_cast<size_t>(b)].push_back(a);
        }
    }
    for (auto& list : adjacent) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    return adjacent;
}

std::vector<char> pinnedGroups(const Grouping& grouping, const Graph& graph, const Cluster& cluster)
{
    if (graph.cpuPinnedOps().empty() || cpuPinDevice(cluster) == kNoDevice)
        return {};
    std::vector<char> pinned(static_cast<size_t>(grouping.groupCount()), 0);
    bool any = false;
    for (int g = 0; g < grouping.groupCount(); ++g) {
        const auto members = grouping.members(g);
        pinned[static_cast<size_t>(g)] = !members.empty()
            && std::all_of(members.begin(), members.end(), [&](OpId op) { return graph.isCpuPinned(op); });
        any = any || pinned[static_cast<size_t>(g)];
    }
    if (!any)
        return {};
    return pinned;
}

bool pinChoice(std::span<const char> pinned, const Cluster& cluster, std::span<DeviceId> choice)
{
    bool changed = false;
    for (size_t g = 0; g < pinned.size() && g < choice.size(); ++g)
        if (pinned[g] && cluster.device(choice[g]).kind != DeviceKind::Cpu) {
            choice[g] = cpuPinDevice(cluster);
            changed = true;
        }
    return changed;
}

} // namespace post
