#include "core/sim/CpuOrder.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"
#include "core/sim/ImpliedEdges.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>

namespace post {

namespace {

constexpr size_t kMaxWords = size_t{4} << 20;   // 32 MB of sets
constexpr size_t kMaxChecks = size_t{64} << 20; // pinned ops x candidates for the ready-first rule

// A simulated run's order of starts (ties: ends, then topological order), which every fact
// "u starts before v in every placement" keeps: the sets below are built in it, so each op's
// inputs and everything known to start before it come first.
std::vector<OpId> referenceOrder(const Graph& graph, const Cluster& cluster, const SimOptions& options, DeviceId cpu)
{
    const auto n = static_cast<size_t>(graph.opCount());
    DeviceId other = cpu;
    for (DeviceId d = 0; d < cluster.deviceCount() && other == cpu; ++d)
        if (cluster.device(d).kind != DeviceKind::Cpu)
            other = d;
    Placement placement(n, other);
    for (OpId op : graph.cpuPinnedOps())
        placement[static_cast<size_t>(op)] = cpu;
    Simulator simulator(graph, cluster, options);
    const SimResult& run = simulator.run(placement, true);
    std::vector<size_t> topological(n);
    const std::span<const OpId> topo = graph.topologicalOrder();
    for (size_t i = 0; i < topo.size(); ++i)
        topological[static_cast<size_t>(topo[i])] = i;
    std::vector<std::tuple<double, double, size_t, OpId>> keyed;
    keyed.reserve(n);
    for (const OpSpan& span : run.timeline.ops)
        keyed.emplace_back(span.startUs, span.endUs, topological[static_cast<size_t>(span.op)], span.op);
    std::sort(keyed.begin(), keyed.end());
    std::vector<OpId> order;
    order.reserve(n);
    for (const auto& k : keyed)
        order.push_back(std::get<3>(k));
    return order;
}

// The CPU times summed over each op's set `before` (of `words` words a set, over the pinned
// ops, `bit` per op), and for each pinned op over the pinned ops whose sets hold it.
CpuOrderWork sums(const Graph& graph, const std::vector<int>& bit, const std::vector<OpId>& pinned,
                  const std::vector<double>& cpuUs, const std::vector<std::uint64_t>& before, size_t words)
{
    const auto n = static_cast<size_t>(graph.opCount());
    CpuOrderWork work;
    work.beforeUs.assign(n, 0.0);
    work.afterUs.assign(n, 0.0);
    for (size_t op = 0; op < n; ++op) {
        const std::uint64_t* set = &before[op * words];
        double sum = 0.0;
        for (size_t w = 0; w < words; ++w)
            for (std::uint64_t bits = set[w]; bits != 0; bits &= bits - 1) {
                const size_t k = w * 64 + static_cast<size_t>(std::countr_zero(bits));
                sum += cpuUs[k];
                if (bit[op] >= 0) // op starts after k ends
                    work.afterUs[static_cast<size_t>(pinned[k])] += cpuUs[static_cast<size_t>(bit[op])];
            }
        work.beforeUs[op] = sum;
    }
    // Unpinned ops: the most of their consumers' (a weaker bound than the union's sum).
    const std::span<const OpId> topo = graph.topologicalOrder();
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
        const auto op = static_cast<size_t>(*it);
        if (bit[op] >= 0)
            continue;
        for (EdgeId e : graph.outEdges(*it)) {
            const auto s = static_cast<size_t>(graph.edge(e).to);
            work.afterUs[op] = std::max(work.afterUs[op],
                                        work.afterUs[s] + (bit[s] >= 0 ? cpuUs[static_cast<size_t>(bit[s])] : 0.0));
        }
    }
    return work;
}

} // namespace

CpuOrderWork cpuOrderWork(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                          const std::vector<double>& fastestUs)
{
    CpuOrderWork work;
    if (options.dispatch != Dispatch::ReadyOrder || graph.cpuPinnedOps().empty())
        return work;
    DeviceId cpu = kNoDevice;
    int cpus = 0;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        if (cluster.device(d).kind == DeviceKind::Cpu) {
            cpu = d;
            ++cpus;
        }
    if (cpus != 1)
        return work;

    // The pinned ops get bits; a collective would run on the CPU's channel, not its queue.
    const auto n = static_cast<size_t>(graph.opCount());
    std::vector<int> bit(n, -1);
    std::vector<OpId> pinned;
    std::vector<double> cpuUs;
    for (OpId op : graph.cpuPinnedOps())
        if (!graph.op(op).isCollective()) {
            bit[static_cast<size_t>(op)] = static_cast<int>(pinned.size());
            pinned.push_back(op);
            cpuUs.push_back(opTimeUs(graph.op(op), cluster.device(cpu)));
        }
    const size_t m = pinned.size(), words = (m + 63) / 64;
    if (m == 0 || words > kMaxWords / (n + m))
        return work;
    auto has = [](const std::uint64_t* set, size_t b) { return (set[b / 64] >> (b % 64) & 1U) != 0; };
    auto add = [](std::uint64_t* set, size_t b) { set[b / 64] |= std::uint64_t{1} << (b % 64); };
    auto merge = [words](std::uint64_t* into, const std::uint64_t* from) {
        for (size_t w = 0; w < words; ++w)
            into[w] |= from[w];
    };

    // Each op's earliest start at the fastest times, transfers free: past 0, it is never
    // ready at time 0, so every pinned source is ready before it.
    std::vector<double> earliest(n, 0.0);
    for (OpId op : graph.topologicalOrder())
        for (EdgeId e : graph.inEdges(op)) {
            const auto p = static_cast<size_t>(graph.edge(e).from);
            earliest[static_cast<size_t>(op)] = std::max(earliest[static_cast<size_t>(op)], earliest[p] + fastestUs[p]);
        }
    // An edge no run depends on (core/sim/ImpliedEdges.h) changes no set: its producer is an
    // ancestor of another input of its consumer, whose set holds the producer and its set. The
    // Chakra step's ordering edges between CPU operators are 124,056 of its 181,878.
    const std::vector<char> implied = impliedLocalEdges(graph, cluster);
    auto kept = [&](EdgeId e) { return implied.empty() || !implied[static_cast<size_t>(e)]; };
    std::vector<std::uint64_t> sources(words, 0);
    // Candidates: pinned ops whose inputs all come from pinned ops (ready when the last ends),
    // with those inputs' bits along kept edges.
    std::vector<int> candidates;
    std::vector<size_t> inputsFrom{0};
    std::vector<int> inputs;
    for (size_t k = 0; k < m; ++k) {
        const auto in = graph.inEdges(pinned[k]);
        if (in.empty()) {
            add(sources.data(), k);
        } else if (std::all_of(in.begin(), in.end(),
                               [&](EdgeId e) { return bit[static_cast<size_t>(graph.edge(e).from)] >= 0; })) {
            candidates.push_back(static_cast<int>(k));
            for (EdgeId e : in)
                if (kept(e))
                    inputs.push_back(bit[static_cast<size_t>(graph.edge(e).from)]);
            inputsFrom.push_back(inputs.size());
        }
    }
    if (m * candidates.size() > kMaxChecks)
        candidates.clear(); // the other two rules still hold

    // before: per op, the pinned ops that end before it starts. readyFirst: per pinned op p,
    // the candidates whose inputs all end before p starts: they are ready before p ends.
    std::vector<std::uint64_t> before(n * words, 0), readyFirst(m * words, 0);
    for (OpId v : referenceOrder(graph, cluster, options, cpu)) {
        std::uint64_t* mine = &before[static_cast<size_t>(v) * words];
        const auto in = graph.inEdges(v);
        for (EdgeId e : in) {
            const auto p = static_cast<size_t>(graph.edge(e).from);
            if (!kept(e))
                continue;
            merge(mine, &before[p * words]);
            if (bit[p] >= 0)
                add(mine, static_cast<size_t>(bit[p]));
        }
        const int b = bit[static_cast<size_t>(v)];
        if (b < 0)
            continue;
        if (in.empty()) { // sources are ready together, in OpId order
            for (size_t k = 0; k < static_cast<size_t>(b); ++k)
                if (has(sources.data(), k))
                    add(mine, k);
        } else if (earliest[static_cast<size_t>(v)] > 0.0) {
            merge(mine, sources.data());
        }
        for (EdgeId e : in) { // v is ready no sooner than p ends, later than the readyFirst of p
            const auto p = static_cast<size_t>(graph.edge(e).from);
            if (bit[p] >= 0 && cpuUs[static_cast<size_t>(bit[p])] > 0.0)
                merge(mine, &readyFirst[static_cast<size_t>(bit[p]) * words]);
        }
        std::uint64_t* first = &readyFirst[static_cast<size_t>(b) * words];
        for (size_t c = 0; c < candidates.size(); ++c)
            if (std::all_of(inputs.begin() + static_cast<std::ptrdiff_t>(inputsFrom[c]),
                            inputs.begin() + static_cast<std::ptrdiff_t>(inputsFrom[c + 1]),
                            [&](int q) { return has(mine, static_cast<size_t>(q)); }))
                add(first, static_cast<size_t>(candidates[c]));
    }

    return sums(graph, bit, pinned, cpuUs, before, words);
}

} // namespace post
