#include "core/exact/MilpGrouping.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/GraphBuilder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <span>
#include <string>
#include <utility>

namespace post {

namespace {

// Disjoint sets (the lowest member is the root): the parts of a band that its edges join.
struct Sets {
    std::vector<int> parent;
    explicit Sets(int n)
        : parent(static_cast<size_t>(n))
    {
        std::iota(parent.begin(), parent.end(), 0);
    }
    int find(int x)
    {
        while (parent[static_cast<size_t>(x)] != x)
            x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
        return x;
    }
    void unite(int a, int b)
    {
        a = find(a);
        b = find(b);
        if (a != b)
            parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
    }
};

} // namespace

Placement MilpCoarsening::expand(const Placement& coarsePlacement) const
{
    Placement p(chunkOf.size(), 0);
    for (size_t o = 0; o < chunkOf.size(); ++o)
        p[o] = coarsePlacement[static_cast<size_t>(chunkOf[o])];
    return p;
}

namespace {

// Weights: the op's least time over the devices, plus a twentieth of the mean so that runs of
// free ops (inputs, reshapes) are spread too. `total` is their sum.
std::vector<double> opWeights(const Graph& graph, const Cluster& cluster, double& total)
{
    const int n = graph.opCount();
    std::vector<double> weight(static_cast<size_t>(n), 0.0);
    total = 0.0;
    for (OpId o = 0; o < n; ++o) {
        double least = 0.0;
        for (int d = 0; d < cluster.deviceCount(); ++d) {
            const double t = opTimeUs(graph.op(o), cluster.device(d));
            least = d == 0 ? t : std::min(least, t);
        }
        weight[static_cast<size_t>(o)] = least;
        total += least;
    }
    const double pad = n > 0 && total > 0.0 ? 0.05 * total / n : 1.0;
    total = 0.0;
    for (double& w : weight)
        total += w += pad;
    return weight;
}

// Bands along the topological order: an op goes to the band its weight's midpoint falls in
// (a new band also where the order passes between CPU-pinned and free ops). `last` is the
// last band's index.
std::vector<int> bandsOf(const Graph& graph, const std::vector<double>& weight, double total, int bands, int& last)
{
    std::vector<int> bandOf(static_cast<size_t>(graph.opCount()), 0);
    const double target = total / bands;
    double prefix = 0.0;
    int band = -1;
    int lastSlot = -1;
    bool lastPinned = false;
    for (OpId o : graph.topologicalOrder()) {
        const double w = weight[static_cast<size_t>(o)];
        const int slot = std::min(bands - 1, static_cast<int>(std::floor((prefix + w / 2) / target)));
        const bool pinned = graph.isCpuPinned(o);
        if (band < 0 || slot != lastSlot || pinned != lastPinned)
            ++band;
        lastSlot = slot;
        lastPinned = pinned;
        bandOf[static_cast<size_t>(o)] = band;
        prefix += w;
    }
    last = band;
    return bandOf;
}

// The cluster of each op: within a band, the parts no edge inside the band joins are packed
// into at most `width` bins of about equal weight (largest part first, into the lightest bin);
// no edge joins two bins of one band, and edges between bands run forward, so the chunks stay
// acyclic. The cell of an op is its band and bin. A placement unit (a colocation group, or a
// free op) belongs to the cell of its first op in topological order, and every op to its
// unit's: the clusters that the coarse graph places (one device each).
std::vector<int> clustersOf(const Graph& graph, const std::vector<double>& weight, const std::vector<int>& bandOf,
                            int lastBand, int width)
{
    const int n = graph.opCount();
    Sets parts(n);
    for (const Edge& e : graph.edges())
        if (bandOf[static_cast<size_t>(e.from)] == bandOf[static_cast<size_t>(e.to)])
            parts.unite(e.from, e.to);
    std::vector<double> partWeight(static_cast<size_t>(n), 0.0);
    for (OpId o = 0; o < n; ++o)
        partWeight[static_cast<size_t>(parts.find(o))] += weight[static_cast<size_t>(o)];
    std::vector<std::vector<int>> partsOfBand(static_cast<size_t>(lastBand + 1));
    for (OpId o = 0; o < n; ++o)
        if (parts.find(o) == o)
            partsOfBand[static_cast<size_t>(bandOf[static_cast<size_t>(o)])].push_back(o);
    std::vector<int> binOfPart(static_cast<size_t>(n), 0);
    for (auto& list : partsOfBand) {
        std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
            return partWeight[static_cast<size_t>(a)] > partWeight[static_cast<size_t>(b)];
        });
        std::vector<double> load(static_cast<size_t>(width), 0.0);
        for (int part : list) {
            const auto bin = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            binOfPart[static_cast<size_t>(part)] = static_cast<int>(bin);
            load[bin] += partWeight[static_cast<size_t>(part)];
        }
    }
    const auto order = graph.topologicalOrder();
    std::vector<int> cellOf(static_cast<size_t>(n), 0);
    {
        std::map<std::pair<int, int>, int> cells;
        for (OpId o : order) {
            const std::pair<int, int> key{bandOf[static_cast<size_t>(o)], binOfPart[static_cast<size_t>(parts.find(o))]};
            cellOf[static_cast<size_t>(o)] = cells.try_emplace(key, static_cast<int>(cells.size())).first->second;
        }
    }
    std::vector<int> clusterOf(static_cast<size_t>(n), 0);
    std::vector<int> clusterOfGroup(static_cast<size_t>(graph.colocationGroupCount()), -1);
    for (OpId o : order) {
        const int g = graph.colocationGroup(o);
        int cl = cellOf[static_cast<size_t>(o)];
        if (g >= 0) {
            int& first = clusterOfGroup[static_cast<size_t>(g)];
            if (first < 0)
                first = cl;
            cl = first;
        }
        clusterOf[static_cast<size_t>(o)] = cl;
    }
    return clusterOf;
}

// Whether the chunks of the ops at positions [lo, hi) of `order` (numbered by `localOf`, `k`
// of them) are acyclic under the edges inside the range (Kahn).
bool rangeChunksAcyclic(const Graph& graph, std::span<const OpId> order, const std::vector<int>& position, int lo,
                        int hi, const std::vector<int>& localOf, int k)
{
    std::vector<std::vector<int>> next(static_cast<size_t>(k));
    std::vector<int> indegree(static_cast<size_t>(k), 0);
    for (int i = lo; i < hi; ++i)
        for (EdgeId e : graph.outEdges(order[static_cast<size_t>(i)])) {
            const int to = position[static_cast<size_t>(graph.edge(e).to)];
            if (to >= hi)
                continue;
            const int a = localOf[static_cast<size_t>(i - lo)];
            const int b = localOf[static_cast<size_t>(to - lo)];
            if (a != b) {
                next[static_cast<size_t>(a)].push_back(b);
                ++indegree[static_cast<size_t>(b)];
            }
        }
    std::vector<int> ready;
    for (int a = 0; a < k; ++a)
        if (indegree[static_cast<size_t>(a)] == 0)
            ready.push_back(a);
    int seen = 0;
    while (!ready.empty()) {
        const int a = ready.back();
        ready.pop_back();
        ++seen;
        for (int b : next[static_cast<size_t>(a)])
            if (--indegree[static_cast<size_t>(b)] == 0)
                ready.push_back(b);
    }
    return seen >= k;
}

// Chunks: the ops of one cluster within one band. Edges between bands run forward, so the
// chunks are acyclic when each band's are; a band whose chunks form a cycle (a colocated op
// whose cluster began earlier, between two ops of another cluster) is halved until none do.
// Fills `chunkOf` and returns the number of chunks.
int assignChunks(const Graph& graph, const std::vector<int>& bandOf, const std::vector<int>& clusterOf,
                 std::vector<int>& chunkOf)
{
    const int n = graph.opCount();
    const auto order = graph.topologicalOrder();
    std::vector<int> position(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i)
        position[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
    chunkOf.assign(static_cast<size_t>(n), 0);
    int count = 0;
    std::vector<std::pair<int, int>> ranges; // [first, last) positions of each band, in order
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n
               && bandOf[static_cast<size_t>(order[static_cast<size_t>(j)])]
                   == bandOf[static_cast<size_t>(order[static_cast<size_t>(i)])])
            ++j;
        ranges.emplace_back(i, j);
        i = j;
    }
    // Depth first over the ranges, so that chunks stay numbered in topological order.
    std::vector<std::pair<int, int>> stack(ranges.rbegin(), ranges.rend());
    while (!stack.empty()) {
        const auto [lo, hi] = stack.back();
        stack.pop_back();
        std::map<int, int> local; // cluster -> chunk index within the range
        std::vector<int> localOf(static_cast<size_t>(hi - lo));
        for (int i = lo; i < hi; ++i) {
            const int cl = clusterOf[static_cast<size_t>(order[static_cast<size_t>(i)])];
            localOf[static_cast<size_t>(i - lo)] = local.try_emplace(cl, static_cast<int>(local.size())).first->second;
        }
        const int k = static_cast<int>(local.size());
        if (!rangeChunksAcyclic(graph, order, position, lo, hi, localOf, k) && hi - lo > 1) {
            const int mid = lo + (hi - lo) / 2;
            stack.emplace_back(mid, hi);
            stack.emplace_back(lo, mid);
            continue;
        }
        for (int i = lo; i < hi; ++i)
            chunkOf[static_cast<size_t>(order[static_cast<size_t>(i)])] = count + localOf[static_cast<size_t>(i - lo)];
        count += k;
    }
    return count;
}

// The coarse ops: one per chunk, its time the sum of its ops' on each kind of device and each
// device type, its parameters and resident bytes their sum, its output the tensors that leave
// it; chunks of one cluster are colocated.
std::vector<Op> coarseOps(const Graph& graph, const Cluster& cluster, const std::vector<int>& chunkOf,
                          const std::vector<int>& clusterOf, int count)
{
    const int n = graph.opCount();
    // Chunks of one cluster are one colocation group of the coarse graph.
    std::vector<int> clusterOfChunk(static_cast<size_t>(count), -1);
    std::map<int, int> chunksOfCluster;
    for (OpId o = 0; o < n; ++o) {
        int& cl = clusterOfChunk[static_cast<size_t>(chunkOf[static_cast<size_t>(o)])];
        if (cl < 0) {
            cl = clusterOf[static_cast<size_t>(o)];
            ++chunksOfCluster[cl];
        }
    }

    // Each kind's first device: its times, as measured ones, give the coarse op's time there.
    std::vector<int> firstOfKind(kDeviceKindCount, -1);
    for (int d = cluster.deviceCount() - 1; d >= 0; --d)
        firstOfKind[static_cast<size_t>(cluster.device(d).kind)] = d;

    std::vector<Op> ops(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) {
        Op& op = ops[static_cast<size_t>(k)];
        op.name = "chunk " + std::to_string(k);
        op.type = "milp-chunk";
        op.measuredKinds = (1U << kDeviceKindCount) - 1U;
        const int cl = clusterOfChunk[static_cast<size_t>(k)];
        if (chunksOfCluster[cl] > 1)
            op.colocate = "cluster " + std::to_string(cl);
    }
    // Each device type the graph has times for: its first device's times, as the coarse op's
    // time for that type (a mixed cluster, docs/clusters.md "Device types").
    std::vector<int> firstOfType;
    for (int d = 0; d < cluster.deviceCount(); ++d) {
        const std::string& type = cluster.device(d).type;
        bool seen = !std::binary_search(graph.deviceTypes().begin(), graph.deviceTypes().end(), type);
        for (int f : firstOfType)
            seen = seen || cluster.device(f).type == type;
        if (!seen)
            firstOfType.push_back(d);
    }
    for (OpId o = 0; o < n; ++o) {
        const Op& src = graph.op(o);
        Op& op = ops[static_cast<size_t>(chunkOf[static_cast<size_t>(o)])];
        for (int kind = 0; kind < kDeviceKindCount; ++kind) {
            const int d = firstOfKind[static_cast<size_t>(kind)];
            op.timeUs[static_cast<size_t>(kind)] += d < 0 ? src.timeUs[static_cast<size_t>(kind)]
                                                          : opTimeUs(src, cluster.device(d)) * cluster.device(d).speed;
        }
        for (int d : firstOfType) {
            const std::string& type = cluster.device(d).type;
            const TypedTime* sum = op.typedTime(type);
            op.setTypedTime(type, (sum ? sum->us : 0.0) + opTimeUs(src, cluster.device(d)), true);
        }
        // Only tensors that leave the chunk (or end the step) outlive it; the ones its own ops
        // consume are left out, since a coarse op's output lives for its whole run.
        bool leaves = graph.outEdges(o).empty();
        for (EdgeId e : graph.outEdges(o))
            leaves = leaves || chunkOf[static_cast<size_t>(graph.edge(e).to)] != chunkOf[static_cast<size_t>(o)];
        if (leaves)
            op.outputBytes += src.outputBytes;
        op.paramBytes += src.paramBytes;
        op.residentBytes += src.residentBytes;
        op.cpuOnly = op.cpuOnly || graph.isCpuPinned(o);
    }
    return ops;
}

} // namespace

MilpCoarsening coarsenForMilp(const Graph& graph, const Cluster& cluster, int bands, int width)
{
    const int n = graph.opCount();
    bands = std::max(1, std::min(bands, std::max(1, n)));
    width = std::max(1, width);
    double total = 0.0;
    const std::vector<double> weight = opWeights(graph, cluster, total);
    int lastBand = -1;
    const std::vector<int> bandOf = bandsOf(graph, weight, total, bands, lastBand);
    const std::vector<int> clusterOf = clustersOf(graph, weight, bandOf, lastBand, width);
    MilpCoarsening c;
    const int count = assignChunks(graph, bandOf, clusterOf, c.chunkOf);
    std::vector<Op> ops = coarseOps(graph, cluster, c.chunkOf, clusterOf, count);

    // Between chunks, per producer, the largest tensor it sends into the other chunk.
    std::map<std::pair<int, int>, double> bytes;
    for (OpId u = 0; u < n; ++u) {
        const int cu = c.chunkOf[static_cast<size_t>(u)];
        std::map<int, double> largest;
        for (EdgeId e : graph.outEdges(u)) {
            const int cv = c.chunkOf[static_cast<size_t>(graph.edge(e).to)];
            if (cv != cu)
                largest[cv] = std::max(largest[cv], graph.edge(e).bytes);
        }
        for (const auto& [cv, b] : largest)
            bytes[{cu, cv}] += b;
    }

    GraphBuilder builder(graph.name() + " (" + std::to_string(count) + " chunks)");
    builder.reserve(ops.size(), bytes.size());
    for (Op& op : ops)
        builder.addOp(std::move(op));
    for (const auto& [edge, b] : bytes)
        builder.addEdge(edge.first, edge.second, b);
    c.coarse = std::move(builder).build();
    return c;
}

} // namespace post
