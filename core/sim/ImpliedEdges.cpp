#include "core/sim/ImpliedEdges.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <algorithm>
#include <cstdint>

namespace post {

std::vector<int> deviceHomes(const Graph& graph, const Cluster& cluster)
{
    int cpus = 0;
    for (const Device& d : cluster.devices())
        cpus += d.kind == DeviceKind::Cpu ? 1 : 0;
    std::vector<int> home(static_cast<size_t>(graph.opCount()), kAnywhere);
    for (OpId op = 0; op < graph.opCount(); ++op)
        home[static_cast<size_t>(op)] = cpus == 1 && graph.isCpuPinned(op)
            ? kOnlyCpu
            : std::max(kAnywhere, graph.colocationGroup(op));
    return home;
}

std::vector<char> impliedLocalEdges(const Graph& graph, const Cluster& cluster)
{
    const auto n = static_cast<size_t>(graph.opCount());
    const std::vector<int> home = deviceHomes(graph, cluster);
    if (std::all_of(home.begin(), home.end(), [](int h) { return h == kAnywhere; }))
        return {};
    auto together = [&](OpId u, OpId v) {
        const int h = home[static_cast<size_t>(u)];
        return h != kAnywhere && h == home[static_cast<size_t>(v)];
    };
    std::vector<char> holds(n, 0); // the op's output takes memory
    for (size_t op = 0; op < n; ++op)
        holds[op] = graph.op(static_cast<OpId>(op)).outputBytes != 0.0 ? 1 : 0;
    for (const Edge& e : graph.edges())
        if (e.bytes != 0.0)
            holds[static_cast<size_t>(e.from)] = 1;

    // Candidates: edges that carry nothing between ops that always share a device. Their
    // sources get bit indices; per op, the candidate sources among its ancestors.
    std::vector<int> bit(n, -1);
    std::vector<char> target(n, 0);
    size_t sources = 0;
    bool any = false;
    for (const Edge& e : graph.edges()) {
        if (e.bytes != 0.0 || holds[static_cast<size_t>(e.from)] || !together(e.from, e.to))
            continue;
        if (bit[static_cast<size_t>(e.from)] < 0)
            bit[static_cast<size_t>(e.from)] = static_cast<int>(sources++);
        target[static_cast<size_t>(e.to)] = 1;
        any = true;
    }
    constexpr size_t kMaxWords = size_t{2} << 20; // 16 MB of ancestor bits
    const size_t words = (sources + 63) / 64;
    if (!any || words > kMaxWords / n)
        return {};
    std::vector<std::uint64_t> ancestors(n * words, 0); // strict ancestors, candidate sources only
    std::vector<std::uint64_t> viaOthers(words);
    std::vector<char> implied(static_cast<size_t>(graph.edgeCount()), 0);
    bool found = false;
    for (OpId v : graph.topologicalOrder()) {
        std::uint64_t* mine = &ancestors[static_cast<size_t>(v) * words];
        // The candidate sources that reach v through one of its producers p other than
        // themselves: p's strict ancestors. A candidate u -> v is implied when u is one.
        if (target[static_cast<size_t>(v)])
            std::fill(viaOthers.begin(), viaOthers.end(), 0);
        for (EdgeId e : graph.inEdges(v)) {
            const auto p = static_cast<size_t>(graph.edge(e).from);
            const std::uint64_t* theirs = &ancestors[p * words];
            for (size_t w = 0; w < words; ++w)
                mine[w] |= theirs[w];
            if (target[static_cast<size_t>(v)])
                for (size_t w = 0; w < words; ++w)
                    viaOthers[w] |= theirs[w];
            if (const int b = bit[p]; b >= 0)
                mine[static_cast<size_t>(b) / 64] |= std::uint64_t{1} << (b % 64);
        }
        if (!target[static_cast<size_t>(v)])
            continue;
        for (EdgeId e : graph.inEdges(v)) {
            const Edge& edge = graph.edge(e);
            const int b = bit[static_cast<size_t>(edge.from)];
            if (b < 0 || edge.bytes != 0.0 || !together(edge.from, v))
                continue;
            if ((viaOthers[static_cast<size_t>(b) / 64] >> (b % 64)) & 1U) {
                implied[static_cast<size_t>(e)] = 1;
                found = true;
            }
        }
    }
    if (!found)
        return {};
    return implied;
}

} // namespace post
