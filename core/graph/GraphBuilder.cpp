#include "core/graph/GraphBuilder.h"

#include "core/graph/GraphError.h"
#include "core/graph/TopologicalSort.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace post {
namespace {

void requireCost(double value, double limit, const std::string& opName, const char* field)
{
    if (!std::isfinite(value) || value < 0.0)
        throw GraphError("op '" + opName + "': " + field + " must be a finite number >= 0, got " + std::to_string(value));
    if (value > limit) {
        char text[64];
        std::snprintf(text, sizeof text, "%g, got %g", limit, value);
        throw GraphError("op '" + opName + "': " + field + " must be at most " + text);
    }
}

} // namespace

GraphBuilder::GraphBuilder(std::string name) { graph_.name_ = std::move(name); }

void GraphBuilder::reserve(size_t ops, size_t edges)
{
    graph_.ops_.reserve(ops);
    graph_.edges_.reserve(edges);
    graph_.index_.reserve(ops);
}

OpId GraphBuilder::addOp(Op op)
{
    if (op.name.empty())
        throw GraphError("op #" + std::to_string(graph_.ops_.size()) + " has an empty name");
    // Names end up in JSON and Qt strings, which need UTF-8: refused here, where the reader
    // still knows the line, rather than when the result is written at the end of a run.
    for (const auto& [text, what] : {std::pair<const std::string&, const char*>{op.name, "op name"},
                                     {op.type, "op type"},
                                     {op.colocate, "colocation group"}})
        if (std::string problem = utf8Problem(text, what); !problem.empty())
            throw GraphError(problem);
    for (int k = 0; k < kDeviceKindCount; ++k) {
        const std::string field = "time_us." + std::string(toString(static_cast<DeviceKind>(k)));
        requireCost(op.timeUs[static_cast<size_t>(k)], kMaxTimeUs, op.name, field.c_str());
    }
    std::sort(op.typedTimes.begin(), op.typedTimes.end(),
              [](const TypedTime& a, const TypedTime& b) { return a.type < b.type; });
    for (size_t i = 0; i < op.typedTimes.size(); ++i) {
        const TypedTime& t = op.typedTimes[i];
        if (std::string problem = deviceTypeProblem(t.type); !problem.empty())
            throw GraphError("op '" + op.name + "': " + problem);
        if (i > 0 && op.typedTimes[i - 1].type == t.type)
            throw GraphError("op '" + op.name + "': two times for device type \"" + t.type + "\"");
        requireCost(t.us, kMaxTimeUs, op.name, ("time_us." + t.type).c_str());
    }
    requireCost(op.outputBytes, kMaxBytes, op.name, "output_bytes");
    requireCost(op.paramBytes, kMaxBytes, op.name, "param_bytes");
    requireCost(op.residentBytes, kMaxBytes, op.name, "resident_bytes");
    // FLOPs share the bytes bound: both only need to stay finite in sums over a graph.
    requireCost(op.flops, kMaxBytes, op.name, "flops");
    requireCost(op.memoryBytes, kMaxBytes, op.name, "memory_bytes");
    requireCost(op.collectiveBytes, kMaxBytes, op.name, "collective.bytes");
    if (op.collectiveRanks < 0 || op.collectiveRanks > kMaxCollectiveRanks)
        throw GraphError("op '" + op.name + "': collective.ranks must be 0 to " + std::to_string(kMaxCollectiveRanks)
                         + ", got " + std::to_string(op.collectiveRanks));
    const auto id = static_cast<OpId>(graph_.ops_.size());
    auto [it, inserted] = graph_.index_.emplace(op.name, id);
    if (!inserted)
        throw GraphError("duplicate op name '" + op.name + "'");
    graph_.ops_.push_back(std::move(op));
    return id;
}

std::optional<OpId> GraphBuilder::find(std::string_view opName) const { return graph_.find(opName); }

void GraphBuilder::addEdge(OpId from, OpId to, double bytes)
{
    const auto n = static_cast<OpId>(graph_.ops_.size());
    if (from < 0 || from >= n || to < 0 || to >= n)
        throw GraphError("edge endpoint out of range");
    if (from == to)
        throw GraphError("cycle: op '" + graph_.ops_[static_cast<size_t>(from)].name + "' feeds itself");
    if (bytes < 0.0)
        bytes = graph_.ops_[static_cast<size_t>(from)].outputBytes;
    if (!std::isfinite(bytes) || bytes > kMaxBytes)
        throw GraphError("edge '" + graph_.ops_[static_cast<size_t>(from)].name + "' -> '"
                         + graph_.ops_[static_cast<size_t>(to)].name + "': bytes must be finite and at most 1e+24");
    graph_.edges_.push_back(Edge{from, to, bytes});
}

void GraphBuilder::addEdge(std::string_view from, std::string_view to, double bytes)
{
    auto f = find(from);
    if (!f)
        throw GraphError("edge names unknown op '" + std::string(from) + "'");
    auto t = find(to);
    if (!t)
        throw GraphError("edge names unknown op '" + std::string(to) + "'");
    addEdge(*f, *t, bytes);
}

Graph withOps(const Graph& graph, std::vector<Op> ops)
{
    if (static_cast<int>(ops.size()) != graph.opCount())
        throw std::invalid_argument("withOps: " + std::to_string(ops.size()) + " ops for a graph of "
                                    + std::to_string(graph.opCount()));
    GraphBuilder builder(graph.name());
    builder.reserve(ops.size(), static_cast<size_t>(graph.edgeCount()));
    for (Op& op : ops)
        builder.addOp(std::move(op));
    for (const Edge& e : graph.edges())
        builder.addEdge(e.from, e.to, e.bytes);
    return std::move(builder).build();
}

Graph GraphBuilder::build() &&
{
    if (std::string problem = utf8Problem(graph_.name_, "graph name"); !problem.empty())
        throw GraphError(problem);
    buildAdjacency();
    buildTopologicalOrder();
    buildColocationGroups();
    buildDeviceTypes();
    return std::move(graph_);
}

void GraphBuilder::buildDeviceTypes()
{
    std::vector<std::string>& types = graph_.deviceTypes_;
    types.clear();
    for (const Op& op : graph_.ops_)
        for (const TypedTime& t : op.typedTimes)
            types.push_back(t.type);
    std::sort(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
}

void GraphBuilder::buildAdjacency()
{
    Graph& g = graph_;
    const size_t n = g.ops_.size();
    g.inOffsets_.assign(n + 1, 0);
    g.outOffsets_.assign(n + 1, 0);
    for (const Edge& e : g.edges_) {
        ++g.inOffsets_[static_cast<size_t>(e.to) + 1];
        ++g.outOffsets_[static_cast<size_t>(e.from) + 1];
    }
    for (size_t i = 0; i < n; ++i) {
        g.inOffsets_[i + 1] += g.inOffsets_[i];
        g.outOffsets_[i + 1] += g.outOffsets_[i];
    }
    g.inList_.resize(g.edges_.size());
    g.outList_.resize(g.edges_.size());
    std::vector<EdgeId> inFill(g.inOffsets_.begin(), g.inOffsets_.end() - 1);
    std::vector<EdgeId> outFill(g.outOffsets_.begin(), g.outOffsets_.end() - 1);
    for (size_t i = 0; i < g.edges_.size(); ++i) {
        const Edge& e = g.edges_[i];
        g.inList_[static_cast<size_t>(inFill[static_cast<size_t>(e.to)]++)] = static_cast<EdgeId>(i);
        g.outList_[static_cast<size_t>(outFill[static_cast<size_t>(e.from)]++)] = static_cast<EdgeId>(i);
    }
}

void GraphBuilder::buildTopologicalOrder()
{
    Graph& g = graph_;
    const size_t n = g.ops_.size();
    std::vector<std::vector<int>> successors(n);
    for (size_t u = 0; u < n; ++u)
        for (EdgeId e : g.outEdges(static_cast<OpId>(u)))
            successors[u].push_back(static_cast<int>(g.edges_[static_cast<size_t>(e)].to));
    TopologicalSort sorted = topologicalSort(successors);
    if (!sorted.acyclic())
        throw GraphError("cycle: "
                         + describeCycle(sorted.cycle, [&g](int op) { return g.ops_[static_cast<size_t>(op)].name; }));
    g.topo_.assign(sorted.order.begin(), sorted.order.end());
}

void GraphBuilder::buildColocationGroups()
{
    Graph& g = graph_;
    std::unordered_map<std::string, int> byName;
    g.groupOf_.assign(g.ops_.size(), -1);
    g.groupNames_.clear();
    for (size_t i = 0; i < g.ops_.size(); ++i) {
        const std::string& name = g.ops_[i].colocate;
        if (name.empty())
            continue;
        auto [it, inserted] = byName.emplace(name, static_cast<int>(g.groupNames_.size()));
        if (inserted)
            g.groupNames_.push_back(name);
        g.groupOf_[i] = it->second;
    }
    // CPU pinning spreads over colocation groups.
    std::vector<char> groupPinned(g.groupNames_.size(), 0);
    for (size_t i = 0; i < g.ops_.size(); ++i)
        if (g.ops_[i].cpuOnly && g.groupOf_[i] >= 0)
            groupPinned[static_cast<size_t>(g.groupOf_[i])] = 1;
    g.pinnedFlag_.assign(g.ops_.size(), 0);
    g.pinned_.clear();
    for (size_t i = 0; i < g.ops_.size(); ++i)
        if (g.ops_[i].cpuOnly || (g.groupOf_[i] >= 0 && groupPinned[static_cast<size_t>(g.groupOf_[i])])) {
            g.pinnedFlag_[i] = 1;
            g.pinned_.push_back(static_cast<OpId>(i));
        }
}

} // namespace post
