#include "core/sim/LowerBound.h"

#include "core/sim/ImpliedEdges.h"

#include "core/cluster/Cluster.h"
#include "core/cluster/DeviceSymmetry.h"
#include "core/cost/OpTime.h"
#include "core/graph/CriticalPath.h"
#include "core/graph/Graph.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/sim/CheapestLink.h"
#include "core/sim/CollectiveTime.h"
#include "core/sim/CpuOrder.h"
#include "core/sim/GoldenSection.h"
#include "core/sim/MemorySplitBound.h"
#include "core/util/Beside.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace post {

double LowerBound::valueUs() const
{
    return std::max({criticalPathUs, workUs, forkJoinUs, ancestryUs, windowsUs, memorySplitUs, pathLoadsUs, blocksUs,
                     readyOrderUs});
}

const char* LowerBound::source() const
{
    // Within rounding of the largest: the fork-join and ancestry bounds repeat the path
    // through a chain in another order of additions.
    const double v = valueUs() * (1 - 1e-9);
    if (criticalPathUs >= v)
        return "critical-path";
    if (workUs >= v)
        return "work";
    if (forkJoinUs >= v)
        return "fork-join";
    if (ancestryUs >= v)
        return "ancestry";
    if (windowsUs >= v)
        return "device-windows";
    if (memorySplitUs >= v)
        return "memory-split";
    if (pathLoadsUs >= v)
        return "path-loads";
    if (blocksUs >= v)
        return "blocks";
    return "ready-order";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One neighbour of an op at a join or fork: `remoteUs` is the bound if it sits on another
// device, `releaseUs` / `durationUs` (joins) or `durationUs` / `tailUs` (forks) describe it
// as a job of the op's own device.
struct Neighbour {
    OpId op = kNoOp;
    double bytes = 0.0;
    double remoteUs = 0.0;
    double releaseUs = 0.0;
    double durationUs = 0.0;
    double tailUs = 0.0;
    double routeUs = 0.0; // an ancestor's or descendant's: the longest route between it and the op (Route)
    double pathUs = 0.0;  // an ancestor's or descendant's: the longest path between it and the op, ops alone
};

// The least time one device can finish `jobs` released at release(j) taking duration(j):
// earliest release first, exact for one machine with release dates.
template <class Release, class Duration> double erd(std::vector<Neighbour>& jobs, Release release, Duration duration)
{
    std::sort(jobs.begin(), jobs.end(), [&](const Neighbour& a, const Neighbour& b) { return release(a) < release(b); });
    double t = 0.0;
    for (const Neighbour& j : jobs)
        t = std::max(t, release(j)) + duration(j);
    return t;
}

// The least time one device, starting at 0, can run `jobs` of durationUs each followed by a
// delay tailUs off the machine: largest delay first (Jackson's rule), exact.
double jackson(std::vector<Neighbour>& jobs)
{
    std::sort(jobs.begin(), jobs.end(), [](const Neighbour& a, const Neighbour& b) { return a.tailUs > b.tailUs; });
    double t = 0.0, end = 0.0;
    for (const Neighbour& j : jobs) {
        t += j.durationUs;
        end = std::max(end, t + j.tailUs);
    }
    return end;
}

// The least value of max over jobs of (end + tailUs) one device can reach with the jobs
// ns[i], i < count, each released at releaseUs, taking durationUs, followed by tailUs off the
// machine, where a job may be interrupted: the largest tail first among those released
// (Jackson's preemptive rule, exact with preemption, so a lower bound without). `byRelease`
// lists the indices of `ns` by release.
double preemptiveJackson(const std::vector<Neighbour>& ns, std::span<const uint32_t> byRelease, size_t count,
                         std::vector<std::pair<double, double>>& heap)
{
    heap.clear(); // (tail, time left), largest tail on top
    double t = 0.0, end = 0.0;
    size_t next = 0;
    auto skip = [&] {
        while (next < byRelease.size() && byRelease[next] >= count)
            ++next;
    };
    skip();
    while (next < byRelease.size() || !heap.empty()) {
        if (heap.empty())
            t = std::max(t, ns[byRelease[next]].releaseUs);
        for (; next < byRelease.size() && ns[byRelease[next]].releaseUs <= t; ++next, skip()) {
            const Neighbour& j = ns[byRelease[next]];
            heap.emplace_back(j.tailUs, j.durationUs);
            std::push_heap(heap.begin(), heap.end());
        }
        std::pop_heap(heap.begin(), heap.end());
        auto [tail, left] = heap.back();
        heap.pop_back();
        const double until = next < byRelease.size() ? ns[byRelease[next]].releaseUs : kInf;
        if (t + left <= until) {
            t += left;
            end = std::max(end, t + tail);
        } else {
            heap.emplace_back(tail, left - (until - t));
            std::push_heap(heap.begin(), heap.end());
            t = until;
        }
    }
    return end;
}

// min over k of max(local(k), remote(k)), where local(k) is the single-device bound of the k
// neighbours with the largest remoteUs (nondecreasing in k: more jobs never finish sooner)
// and remote(k) the remoteUs of the (k+1)-th (nonincreasing); so a binary search finds it.
template <class Local> double cheapestSplit(std::vector<Neighbour>& ns, Local local)
{
    auto larger = [](const Neighbour& a, const Neighbour& b) { return a.remoteUs > b.remoteUs; };
    if (!std::is_sorted(ns.begin(), ns.end(), larger))
        std::sort(ns.begin(), ns.end(), larger);
    const size_t k = ns.size();
    auto remote = [&](size_t i) { return i < k ? ns[i].remoteUs : 0.0; };
    size_t lo = 0, hi = k; // smallest i with local(i) >= remote(i) lies in [lo, hi]
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (local(mid) >= remote(mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    double best = std::max(local(lo), remote(lo));
    if (lo > 0)
        best = std::min(best, std::max(local(lo - 1), remote(lo - 1)));
    return best;
}

// Up to this many neighbours, every subset of them is tried as the set on the op's device,
// with the remote ones priced as a group (below); above it, cheapestSplit's prefixes.
constexpr size_t kExactSplit = 6;

// The ancestry bound looks at up to this many nearest ancestors (and descendants) of each
// op (fewer on big graphs, to stay within a fraction of a second at 100,000 ops), and tries
// every subset of them, remote ones priced as groups, when there are at most kExactAncestry.
constexpr size_t kAncestry = 64;
constexpr size_t kAncestryLarge = 16; // on graphs of more than kAncestryLargeGraph ops, or dense ones
constexpr int kAncestryLargeGraph = 20000;
// Dense: more edges per op on average (the Chakra step of ../shared/data has 50: at 64
// relatives its ancestry bound took 1.3 s of its 1.5, for 46 ms under a work bound of 73).
constexpr int kDenseEdgesPerOp = 10;
constexpr size_t kExactAncestry = 8;

// min over every subset S of max(local(S), remote(the others)), masks over `ns`.
template <class Local, class Remote> double exactSplit(size_t k, Local local, Remote remote)
{
    double best = kInf;
    const unsigned all = (1U << k) - 1U;
    for (unsigned mask = 0; mask <= all; ++mask)
        best = std::min(best, std::max(local(mask), remote(all & ~mask)));
    return best;
}

// The bound of the neighbours off the op's device (`mask`), given `group(members)`: the bound
// when the members share one other device. Each one alone costs its remoteUs; with one other
// device they all share it; with D devices, D or more of them put two on one (pigeonhole).
template <class Group> double remoteBound(const std::vector<Neighbour>& ns, unsigned mask, int devices, Group group)
{
    double single = 0.0;
    int count = 0;
    for (size_t i = 0; i < ns.size(); ++i)
        if (mask >> i & 1U) {
            single = std::max(single, ns[i].remoteUs);
            ++count;
        }
    if (count < 2 || count < devices)
        return single;
    if (devices == 2)
        return std::max(single, group(mask));
    double pair = kInf;
    for (size_t i = 0; i < ns.size(); ++i)
        for (size_t j = i + 1; j < ns.size(); ++j)
            if ((mask >> i & 1U) && (mask >> j & 1U))
                pair = std::min(pair, group((1U << i) | (1U << j)));
    return std::max(single, pair);
}

// Distinct neighbours through `edges` (the largest bytes of parallel edges), `end` picking
// the other end of an edge.
template <class End>
void collect(const Graph& graph, std::span<const EdgeId> edges, End end, std::vector<Neighbour>& out)
{
    out.clear();
    for (EdgeId e : edges)
        out.push_back(Neighbour{end(graph.edge(e)), graph.edge(e).bytes});
    std::sort(out.begin(), out.end(), [](const Neighbour& a, const Neighbour& b) { return a.op < b.op; });
    size_t w = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (w > 0 && out[w - 1].op == out[i].op)
            out[w - 1].bytes = std::max(out[w - 1].bytes, out[i].bytes);
        else
            out[w++] = out[i];
    }
    out.resize(w);
}

// The splits of the fork-join bound at one op (docs/simulator.md): its head from its inputs'
// heads, its tail from its consumers' tails.
class DirectSplits {
public:
    DirectSplits(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastest)
        : graph_(graph)
        , link_(cluster)
        , devices_(cluster.deviceCount())
        , fastest_(fastest)
        , home_(deviceHomes(graph, cluster))
    {
    }
    const CheapestLink& link() const { return link_; }

    // Whether every valid placement puts the two ops on one device (placementProblem()): a
    // colocation group, or ops pinned to the cluster's one CPU. Such a neighbour is never remote.
    bool together(OpId a, OpId b) const
    {
        const int h = home_[static_cast<size_t>(a)];
        return h != kAnywhere && h == home_[static_cast<size_t>(b)];
    }

    double head(OpId op, const std::vector<double>& head)
    {
        collect(
            graph_, graph_.inEdges(op), [](const Edge& e) { return e.from; }, ns_);
        for (Neighbour& u : ns_) {
            const auto i = static_cast<size_t>(u.op);
            u.releaseUs = head[i];
            u.durationUs = fastest_[i];
            u.remoteUs = together(op, u.op) ? kInf : head[i] + fastest_[i] + link_.transferUs(u.bytes);
        }
        auto release = [](const Neighbour& n) { return n.releaseUs; };
        auto duration = [](const Neighbour& n) { return n.durationUs; };
        if (ns_.size() <= kExactSplit) {
            // Inputs sharing another device run there one at a time and cross one link one at
            // a time (each input its own transfer): the later of the two one-machine bounds.
            auto group = [&](unsigned mask) {
                pick(mask);
                double cheapest = kInf;
                for (const Neighbour& j : jobs_)
                    cheapest = std::min(cheapest, j.remoteUs - j.releaseUs - j.durationUs);
                const double computed = erd(jobs_, release, duration) + cheapest;
                const double sent = erd(
                    jobs_, [](const Neighbour& n) { return n.releaseUs + n.durationUs; },
                    [](const Neighbour& n) { return n.remoteUs - n.releaseUs - n.durationUs; });
                return std::max(computed, sent);
            };
            return exactSplit(
                ns_.size(),
                [&](unsigned mask) {
                    pick(mask);
                    return erd(jobs_, release, duration);
                },
                [&](unsigned mask) { return remoteBound(ns_, mask, devices_, group); });
        }
        return cheapestSplit(ns_, [&](size_t k) {
            jobs_.assign(ns_.begin(), ns_.begin() + static_cast<std::ptrdiff_t>(k));
            return erd(jobs_, release, duration);
        });
    }

    // The least time from the op's end to the step's end.
    double after(OpId op, const std::vector<double>& tail)
    {
        collect(
            graph_, graph_.outEdges(op), [](const Edge& e) { return e.to; }, ns_);
        for (Neighbour& w : ns_) {
            const auto i = static_cast<size_t>(w.op);
            w.durationUs = fastest_[i];
            w.tailUs = tail[i] - fastest_[i];
            w.remoteUs = together(op, w.op) ? kInf : link_.transferUs(w.bytes) + tail[i];
        }
        if (ns_.size() <= kExactSplit) {
            // Consumers sharing another device get the tensor in one transfer (the largest
            // edge), then run there one at a time, each followed by its tail.
            auto group = [&](unsigned mask) {
                pick(mask);
                double bytes = 0.0;
                for (const Neighbour& j : jobs_)
                    bytes = std::max(bytes, j.bytes);
                return link_.transferUs(bytes) + jackson(jobs_);
            };
            return exactSplit(
                ns_.size(),
                [&](unsigned mask) {
                    pick(mask);
                    return jackson(jobs_);
                },
                [&](unsigned mask) { return remoteBound(ns_, mask, devices_, group); });
        }
        return cheapestSplit(ns_, [&](size_t k) {
            jobs_.assign(ns_.begin(), ns_.begin() + static_cast<std::ptrdiff_t>(k));
            return jackson(jobs_);
        });
    }

private:
    void pick(unsigned mask)
    {
        jobs_.clear();
        for (size_t i = 0; i < ns_.size(); ++i)
            if (mask >> i & 1U)
                jobs_.push_back(ns_[i]);
    }

    const Graph& graph_;
    const CheapestLink link_;
    const int devices_;
    const std::vector<double>& fastest_;
    const std::vector<int> home_;
    std::vector<Neighbour> ns_;
    std::vector<Neighbour> jobs_;
};

// The fork-join bound (docs/simulator.md): earliest starts through joins, least tails
// through forks, and the largest start + tail over ops.
double forkJoinBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastest,
                     std::vector<double>& head, std::vector<double>& tail)
{
    DirectSplits splits(graph, cluster, fastest);
    const auto n = static_cast<size_t>(graph.opCount());
    head.assign(n, 0.0); // no placement starts the op earlier
    tail.assign(n, 0.0); // no placement ends the step sooner after the op starts
    const auto order = graph.topologicalOrder();
    for (OpId op : order)
        head[static_cast<size_t>(op)] = splits.head(op, head);
    double best = 0.0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto i = static_cast<size_t>(*it);
        tail[i] = fastest[i] + splits.after(*it, tail);
        best = std::max(best, head[i] + tail[i]);
    }
    return best;
}

// The longest route a tensor may take between an op and one of its relatives: ops in
// between (each at its fastest) plus one transfer of the smallest edge on the way, the least
// a path whose two ends sit on different devices can take. Kept per relative as two paths:
// the one of largest such length and the longest one (ties: the larger transfer).
struct Route {
    double opsUs = -kInf; // sum of the ops strictly between the two ends; -inf: no route yet
    double transferUs = 0.0;
    double lengthUs() const { return opsUs + transferUs; }
};

struct Routes {
    Route best, longest;
    void offer(const Route& r)
    {
        if (r.lengthUs() > best.lengthUs())
            best = r;
        if (r.opsUs > longest.opsUs || (r.opsUs == longest.opsUs && r.transferUs > longest.transferUs))
            longest = r;
    }
    double lengthUs() const { return std::max(best.lengthUs(), longest.lengthUs()); }
};

// Where the cluster has one CPU, an op's least end depends on the kind of device it runs on
// (docs/simulator.md, "CPU or GPU"): a batch's host-to-device copy takes no time on the CPU
// but its bytes cross a CPU-to-GPU link to a GPU reading them, and its time on the GPU that
// reads it. So per op: its least start and end on a GPU, its least end on the CPU, and its
// end-based head: the least end over both, less its fastest time. That is no start bound (on
// the CPU an op may start sooner, taking longer), but the last `fastest` of the op's run lies
// after it wherever the op runs, so the splits may take it as the op's release, with its
// fastest time, and head + tail bounds the step.
struct CpuGpuEnds {
    CpuGpuEnds(const Graph& graph, const Cluster& cluster)
    {
        DeviceId cpu = kNoDevice;
        std::vector<DeviceId> gpus;
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
            if (cluster.device(d).kind != DeviceKind::Cpu)
                gpus.push_back(d);
            else if (cpu == kNoDevice)
                cpu = d;
            else
                return; // several CPUs: pinned ops are not on one device
        }
        if (cpu == kNoDevice || gpus.empty())
            return;
        const auto n = static_cast<size_t>(graph.opCount());
        cpuUs.assign(n, kInf);
        gpuUs.assign(n, kInf);
        for (OpId op = 0; op < graph.opCount(); ++op) {
            const Op& o = graph.op(op);
            const auto i = static_cast<size_t>(op);
            cpuUs[i] = o.isCollective() ? 0.0 : opTimeUs(o, cluster.device(cpu));
            if (!graph.isCpuPinned(op))
                for (DeviceId d : gpus)
                    gpuUs[i] = std::min(gpuUs[i], o.isCollective() ? 0.0 : opTimeUs(o, cluster.device(d)));
        }
        const DeviceId one[] = {cpu};
        cpuToGpu = CheapestLink(cluster, one, gpus);
        gpuToGpu = CheapestLink(cluster, gpus, gpus);
        gpuStartUs.assign(n, 0.0);
        gpuEndUs.assign(n, 0.0);
        cpuEndUs.assign(n, 0.0);
    }
    bool active() const { return !cpuUs.empty(); }

    std::vector<double> cpuUs, gpuUs; // per op: its time on the CPU, its least on a GPU (inf: pinned)
    CheapestLink cpuToGpu, gpuToGpu;
    // Per op as the bound reaches it: its start and end bounds on a GPU, its end bound on the
    // CPU, and its end-based head (every op's, also without a CPU).
    std::vector<double> gpuStartUs, gpuEndUs, cpuEndUs, endHeadUs;
};

// The ancestry bound (docs/simulator.md): the fork-join splits over every ancestor of an op
// (up to kAncestry nearest ones), not only its inputs, and likewise over its descendants.
// An ancestor on the op's device runs there before the op; one elsewhere reaches it only
// along a path that crosses devices, paying a transfer on the way.
class AncestryBound {
public:
    AncestryBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastest)
        : graph_(graph)
        , devices_(cluster.deviceCount())
        , fastest_(fastest)
        , direct_(graph, cluster, fastest)
        , limit_(graph.opCount() > kAncestryLargeGraph || graph.edgeCount() > kDenseEdgesPerOp * graph.opCount()
                     ? kAncestryLarge
                     : kAncestry)
        , slots_(static_cast<size_t>(graph.opCount()))
        , classes_(graph, cluster)
    {
        const auto order = graph.topologicalOrder();
        for (size_t i = 0; i < order.size(); ++i)
            slots_[static_cast<size_t>(order[i])].position = static_cast<uint32_t>(i);
        // Both directions of every edge with its least transfer time, contiguous per op.
        for (int dir = 0; dir < 2; ++dir) {
            Adjacency& adj = dir == 0 ? up_ : down_;
            adj.offsets.assign(static_cast<size_t>(graph.opCount()) + 1, 0);
            for (OpId op = 0; op < graph.opCount(); ++op) {
                const auto edges = dir == 0 ? graph.inEdges(op) : graph.outEdges(op);
                adj.offsets[static_cast<size_t>(op) + 1] = adj.offsets[static_cast<size_t>(op)] + edges.size();
                for (EdgeId e : edges) {
                    const Edge& edge = graph.edge(e);
                    adj.arcs.push_back(Arc{dir == 0 ? edge.from : edge.to, direct_.link().transferUs(edge.bytes)});
                }
            }
        }
    }

    // Heads and tails at least the fork-join ones; `arrivalUs[op]` is when the op can start
    // at the earliest if no ancestor shares its device, `departureUs[op]` the least time
    // from its end to the step's end if no descendant does. Returns max over ops of head + tail.
    double run(std::vector<double>& head, std::vector<double>& tail, std::vector<double>& arrivalUs,
               std::vector<double>& departureUs)
    {
        const auto n = static_cast<size_t>(graph_.opCount());
        head.assign(n, 0.0);
        tail.assign(n, 0.0);
        arrivalUs.assign(n, 0.0);
        departureUs.assign(n, 0.0);
        // The splits below take each relative's end from its end-based head (CpuGpuEnds).
        std::vector<double>& ends = classes_.endHeadUs;
        ends.assign(n, 0.0);
        const auto order = graph_.topologicalOrder();
        for (OpId op : order) {
            const auto i = static_cast<size_t>(op);
            gather(op, up_, true);
            for (Neighbour& u : rel_) {
                const auto k = static_cast<size_t>(u.op);
                u.releaseUs = ends[k];
                u.durationUs = fastest_[k];
                u.remoteUs = ends[k] + fastest_[k] + u.routeUs;
                arrivalUs[i] = std::max(arrivalUs[i], u.remoteUs);
                if (direct_.together(op, u.op))
                    u.remoteUs = kInf; // on the op's device in every valid placement
            }
            const double roundTrip = roundTrips(op, ends, true);
            head[i] = std::max({direct_.head(op, ends), roundTrip, ancestorsSplit()});
            ends[i] = head[i];
            if (classes_.active())
                ends[i] = endHead(op, head[i]);
        }
        double best = 0.0;
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const OpId op = *it;
            const auto i = static_cast<size_t>(op);
            gather(op, down_, false);
            for (Neighbour& w : rel_) {
                const auto k = static_cast<size_t>(w.op);
                w.durationUs = fastest_[k];
                w.tailUs = tail[k] - fastest_[k];
                w.remoteUs = w.routeUs + tail[k];
                departureUs[i] = std::max(departureUs[i], w.remoteUs);
                if (direct_.together(op, w.op))
                    w.remoteUs = kInf;
            }
            const double roundTrip = roundTrips(op, tail, false);
            tail[i] = fastest_[i] + std::max({direct_.after(op, tail), roundTrip, descendantsSplit()});
            best = std::max(best, ends[i] + tail[i]);
        }
        return best;
    }

private:
    // The end-based head of `op` (CpuGpuEnds), whose start bound is `start`: its least end
    // over the two kinds of device, less its fastest time. On a CPU it ends no sooner than
    // start + its CPU time; on a GPU it starts no sooner than the splits with each relative
    // as it runs on a GPU (its GPU time, no sooner than its GPU start) or elsewhere (an
    // input from the CPU over a CPU-to-GPU link, one from a GPU over a GPU-to-GPU link), and
    // ends its GPU time later. rel_ as gathered for `op`.
    double endHead(OpId op, double start)
    {
        CpuGpuEnds& c = classes_;
        const auto i = static_cast<size_t>(op);
        bool differs = false;
        for (const Neighbour& u : rel_) {
            const auto k = static_cast<size_t>(u.op);
            differs = differs || c.gpuStartUs[k] > c.endHeadUs[k] || c.gpuUs[k] > fastest_[k];
        }
        double gpuStart = std::isfinite(c.gpuUs[i]) ? start : kInf; // pinned: never on a GPU
        if (differs && std::isfinite(gpuStart)) {
            for (EdgeId e : graph_.inEdges(op)) {
                Slot& s = slots_[static_cast<size_t>(graph_.edge(e).from)];
                s.inputBytes = s.inputStamp == stamp_ ? std::max(s.inputBytes, graph_.edge(e).bytes)
                                                      : graph_.edge(e).bytes;
                s.inputStamp = stamp_;
            }
            for (Neighbour& u : rel_) {
                const auto k = static_cast<size_t>(u.op);
                const Slot& s = slots_[k];
                u.releaseUs = c.gpuStartUs[k];
                u.durationUs = c.gpuUs[k];
                if (direct_.together(op, u.op))
                    u.remoteUs = kInf;
                else if (s.inputStamp == stamp_)
                    u.remoteUs = std::min(c.cpuEndUs[k] + c.cpuToGpu.transferUs(s.inputBytes),
                                          c.gpuEndUs[k] + c.gpuToGpu.transferUs(s.inputBytes));
                else
                    u.remoteUs = c.endHeadUs[k] + fastest_[k] + u.routeUs;
            }
            // The prefixes' split (no remote groups: a pinned relative may not be local,
            // which its infinite release says, but it runs on the CPU all the same).
            gpuStart = std::max(start, localFirstBySplit(rel_, 0.0));
        }
        c.gpuStartUs[i] = gpuStart;
        c.gpuEndUs[i] = gpuStart + c.gpuUs[i];
        c.cpuEndUs[i] = start + c.cpuUs[i];
        const double end = std::min(c.cpuEndUs[i], c.gpuEndUs[i]);
        return std::isfinite(end) && !graph_.op(op).isCollective() ? std::max(start, end - fastest_[i]) : start;
    }

    struct Arc {
        OpId op;           // the other end
        double transferUs; // the least time of the edge's transfer between two devices
    };
    struct Adjacency {
        std::vector<size_t> offsets;
        std::vector<Arc> arcs;
        std::span<const Arc> of(OpId op) const
        {
            const auto i = static_cast<size_t>(op);
            return {arcs.data() + offsets[i], offsets[i + 1] - offsets[i]};
        }
    };
    struct Slot {
        uint32_t stamp = 0;      // stamp_ while the op is one of the relatives being gathered
        uint32_t position = 0;   // in topological order
        uint32_t index = 0;      // in rel_, while gathered (roundTrips)
        uint32_t inputStamp = 0; // stamp_ while the op is an input of the op (endHead)
        double inputBytes = 0.0; // then: the largest of its edges to the op
        Routes routes;
    };

    // rel_ := up to limit_ nearest ancestors (`up`, through up_) or descendants (down_) of
    // `op` in breadth-first order, each with the length of its longest route to (from) `op`.
    void gather(OpId op, const Adjacency& adj, bool up)
    {
        rel_.clear();
        order_.clear();
        const uint32_t stamp = ++stamp_;
        slots_[static_cast<size_t>(op)].stamp = stamp;
        order_.emplace_back(0, op);
        for (size_t next = 0; next < order_.size() && order_.size() <= limit_; ++next) {
            for (const Arc& a : adj.of(order_[next].second)) {
                Slot& y = slots_[static_cast<size_t>(a.op)];
                if (y.stamp == stamp)
                    continue;
                y.stamp = stamp;
                y.routes = Routes{};
                // Sorted below from `op` outwards in topological order.
                order_.emplace_back(up ? ~y.position : y.position, a.op);
                if (order_.size() > limit_)
                    break;
            }
        }
        // A relative's routes extend those of the relatives between it and `op`.
        std::sort(order_.begin() + 1, order_.end());
        for (const auto& [key, x] : order_) {
            const auto ix = static_cast<size_t>(x);
            const Routes from = slots_[ix].routes;
            for (const Arc& a : adj.of(x)) {
                Slot& y = slots_[static_cast<size_t>(a.op)];
                if (y.stamp != stamp)
                    continue;
                if (x == op) {
                    y.routes.offer(Route{0.0, a.transferUs});
                } else {
                    for (const Route& r : {from.best, from.longest})
                        if (r.opsUs > -kInf)
                            y.routes.offer(Route{r.opsUs + fastest_[ix], std::min(r.transferUs, a.transferUs)});
                }
            }
        }
        for (size_t k = 1; k < order_.size(); ++k) {
            Neighbour r;
            r.op = order_[k].second;
            const Routes& routes = slots_[static_cast<size_t>(r.op)].routes;
            r.routeUs = routes.lengthUs();
            r.pathUs = std::max(0.0, routes.longest.opsUs);
            rel_.push_back(r);
        }
    }

    // The op `v` and one of its ancestors `u` either share a device, and then each op between
    // them (a descendant of u and an ancestor of v) runs there after u and before v, or
    // elsewhere, reached from u by a route that crosses devices and reaching v by another (a
    // branch taken off the device pays two transfers), or sit on different devices. Then `v`
    // starts no sooner than h(u) + p(u) + r(u, v), as in the split below, and each op between
    // runs on u's device after u, reaching v by a route that crosses, or elsewhere, reached
    // from u by one: a branch whose input is dear to move but whose later edges are cheap
    // crosses late only by loading u's device with its first ops. min over the two cases, max
    // over u.
    // With `up` false, the mirror: `v`'s least time from its end to the step's end, over its
    // descendants `w` (times: the tails). Relatives only (rel_ as gathered, nearest first, each
    // one's remoteUs, durationUs and routeUs set); a path through others is left out, which
    // only weakens the bound. Only forks (joins) are tried as the far end: one branch alone
    // gains nothing over the path (a third of the time on nasnetamobile, the same bounds).
    double roundTrips(OpId op, const std::vector<double>& times, bool up)
    {
        const size_t k = rel_.size();
        if (k < 2)
            return 0.0;
        const uint32_t stamp = stamp_;
        for (size_t j = 0; j < k; ++j)
            slots_[static_cast<size_t>(rel_[j].op)].index = static_cast<uint32_t>(j);
        const Adjacency& away = up ? down_ : up_; // from the far relative towards the op
        double best = 0.0;
        from_.resize(k);
        for (size_t a = k; a-- > 0;) {
            const auto far = static_cast<size_t>(rel_[a].op);
            // Only a fork (a join, for tails) can send a branch off the device and back.
            int branches = 0;
            for (const Arc& arc : away.of(rel_[a].op))
                branches += slots_[static_cast<size_t>(arc.op)].stamp == stamp ? 1 : 0;
            if (branches < 2)
                continue;
            // Heads: u ends at `base` at the earliest. Tails: w's own tail.
            const double base = up ? times[far] + fastest_[far] : times[far];
            // Routes between the far relative and those nearer the op, in rel_'s order
            // downwards from a (away from the far one, towards the op).
            for (size_t j = 0; j < a; ++j)
                from_[j] = Routes{};
            between_.clear();
            apart_.clear();
            double forced = 0.0; // apart: the ops between that share the op's device
            // Each case at most its value with every op between off u's device.
            double sharedAtMost = base, apartAtMost = 0.0;
            for (size_t x = a + 1; x-- > 0;) {
                const OpId xo = rel_[x].op;
                if (x != a) {
                    if (from_[x].lengthUs() == -kInf)
                        continue;
                    between_.push_back(rel_[x]);
                    Neighbour& n = between_.back();
                    const double reach = from_[x].lengthUs(), own = times[static_cast<size_t>(xo)];
                    // On the device: after u and, before v starts, the path from it (heads); the
                    // mirror for tails.
                    if (up) {
                        n.releaseUs = std::max(own, base);
                        n.tailUs = n.pathUs;
                        n.remoteUs = std::max(own, base + reach) + n.durationUs + n.routeUs;
                    } else {
                        n.releaseUs = n.pathUs;
                        n.tailUs = std::max(own - n.durationUs, base);
                        n.remoteUs = n.routeUs + std::max(own, n.durationUs + reach + base);
                    }
                    if (direct_.together(op, xo) || direct_.together(rel_[a].op, xo))
                        n.remoteUs = kInf;
                    // Apart (u and v on different devices): on u's device after u (heads; before
                    // w, tails) and then a route to v that crosses devices, or elsewhere, reached
                    // from u by a route that crosses, then the path alone to v.
                    Neighbour m = n;
                    m.releaseUs = up ? n.releaseUs : n.tailUs;
                    m.tailUs = n.routeUs;
                    m.remoteUs = up ? std::max(own, base + reach) + n.durationUs + n.pathUs
                                    : n.pathUs + std::max(own, n.durationUs + reach + base);
                    if (direct_.together(rel_[a].op, xo))
                        m.remoteUs = kInf;
                    if (direct_.together(op, xo))
                        forced = std::max(forced, m.remoteUs);
                    else
                        apart_.push_back(m);
                    sharedAtMost = std::max(sharedAtMost, n.remoteUs);
                    apartAtMost = std::max(apartAtMost, m.remoteUs);
                }
                for (const Arc& arc : away.of(xo)) {
                    const Slot& y = slots_[static_cast<size_t>(arc.op)];
                    if (y.stamp != stamp || arc.op == op)
                        continue;
                    Routes& to = from_[y.index];
                    if (x == a) {
                        to.offer(Route{0.0, arc.transferUs});
                    } else {
                        for (const Route& r : {from_[x].best, from_[x].longest})
                            if (r.opsUs > -kInf)
                                to.offer(Route{r.opsUs + fastest_[static_cast<size_t>(xo)],
                                               std::min(r.transferUs, arc.transferUs)});
                    }
                }
            }
            if (between_.empty())
                continue;
            if (std::min(std::max(rel_[a].remoteUs, apartAtMost), sharedAtMost) <= best)
                continue;
            // Those on the device run there one at a time (Jackson's preemptive rule), heads: after
            // u, each followed by its path to v; tails: each after its path from v, followed by
            // its tail or w's.
            const double shared = jacksonSplit(between_, base);
            // Apart: those on u's device run there one at a time, each followed by its route
            // to v; the others arrive as priced. It can only matter below `shared`.
            double apart = forced;
            if (!apart_.empty() && shared > best && rel_[a].remoteUs < shared && forced < shared)
                apart = std::max(apart, jacksonSplit(apart_, 0.0));
            best = std::max(best, std::min(std::max(rel_[a].remoteUs, apart), shared));
        }
        return best;
    }

    // cheapestSplit of `ns` with the ones on the device as jobs of preemptiveJackson, the
    // least value `floor`.
    double jacksonSplit(std::vector<Neighbour>& ns, double floor)
    {
        sortByRemote(ns, [](const Neighbour& a, const Neighbour& b) { return a.releaseUs < b.releaseUs; });
        return cheapestSplit(ns,
                             [&](size_t count) { return std::max(floor, preemptiveJackson(ns, byKey_, count, heap_)); });
    }

    // min over S of max(ERD(S), the remote ancestors' bound), S the ancestors on the op's device.
    double ancestorsSplit()
    {
        if (rel_.size() <= kExactAncestry) {
            // In order of release, ERD of a set is that of the set without its last job, then
            // that job. Remote ancestors sharing another device run there one at a time; the
            // last of them still has its route to the op ahead.
            std::sort(rel_.begin(), rel_.end(),
                      [](const Neighbour& a, const Neighbour& b) { return a.releaseUs < b.releaseUs; });
            return exactSplit([](double erdRest, double /*durationsRest*/, const Neighbour& last) {
                return std::max(erdRest, last.releaseUs) + last.durationUs;
            });
        }
        return localFirstBySplit(rel_, 0.0);
    }

    // The mirror: descendants on the op's device run there after it, each followed by its tail.
    double descendantsSplit()
    {
        if (rel_.size() <= kExactAncestry) {
            // In order of tail, largest first, Jackson's schedule of a set is that of the set
            // without its last job, then that job. Remote descendants sharing another device
            // start there no sooner than the shortest of their routes from the op.
            std::sort(rel_.begin(), rel_.end(),
                      [](const Neighbour& a, const Neighbour& b) { return a.tailUs > b.tailUs; });
            return exactSplit([](double endRest, double durationsRest, const Neighbour& last) {
                return std::max(endRest, durationsRest + last.durationUs + last.tailUs);
            });
        }
        return localLastBySplit(rel_, 0.0);
    }

    // cheapestSplit of `ns` with the ones on the op's device as jobs released at releaseUs,
    // after `start`: ERD of the first k by remoteUs, one pass over all of them by release.
    double localFirstBySplit(std::vector<Neighbour>& ns, double start)
    {
        sortByRemote(ns, [](const Neighbour& a, const Neighbour& b) { return a.releaseUs < b.releaseUs; });
        return cheapestSplit(ns, [&](size_t k) {
            double t = start;
            for (const uint32_t i : byKey_)
                if (i < k)
                    t = std::max(t, ns[i].releaseUs) + ns[i].durationUs;
            return t;
        });
    }

    // The mirror: the ones on the op's device run after it, each followed by tailUs, the
    // step lasting at least `floor`: Jackson's rule on the first k by remoteUs, one pass by tail.
    double localLastBySplit(std::vector<Neighbour>& ns, double floor)
    {
        sortByRemote(ns, [](const Neighbour& a, const Neighbour& b) { return a.tailUs > b.tailUs; });
        return cheapestSplit(ns, [&](size_t k) {
            double t = 0.0, end = floor;
            for (const uint32_t i : byKey_)
                if (i < k) {
                    t += ns[i].durationUs;
                    end = std::max(end, t + ns[i].tailUs);
                }
            return end;
        });
    }

    // min over every subset S of rel_ (the relatives on the op's device) of max(local(S),
    // remote(the others)), by tables over the subsets: local(S) = extend(local(S - last),
    // durations of S - last, last) for the last member of S in rel_'s order; the remote
    // relatives are priced alone, and as groups when they must share a device (with one
    // other device all of them, with D devices two of D or more: pigeonhole), a group
    // costing local(group) + its shortest route.
    template <class Extend> double exactSplit(Extend extend)
    {
        const size_t k = rel_.size();
        const size_t masks = size_t{1} << k;
        local_.assign(masks, 0.0);
        durations_.assign(masks, 0.0);
        single_.assign(masks, 0.0);
        shortest_.assign(masks, kInf);
        pair_.assign(masks, kInf);
        for (size_t mask = 1; mask < masks; ++mask) {
            const auto last = static_cast<size_t>(std::bit_width(mask) - 1);
            const size_t rest = mask ^ (size_t{1} << last);
            const Neighbour& r = rel_[last];
            local_[mask] = extend(local_[rest], durations_[rest], r);
            durations_[mask] = durations_[rest] + r.durationUs;
            single_[mask] = std::max(single_[rest], r.remoteUs);
            shortest_[mask] = std::min(shortest_[rest], r.routeUs);
            double pair = pair_[rest];
            for (size_t j = 0; j < last; ++j)
                if (rest >> j & 1U) {
                    const size_t two = (size_t{1} << last) | (size_t{1} << j);
                    pair = std::min(pair, local_[two] + shortest_[two]);
                }
            pair_[mask] = pair;
        }
        double best = kInf;
        const size_t all = masks - 1;
        for (size_t mask = 0; mask < masks; ++mask) {
            const size_t remote = all & ~mask;
            const auto count = std::popcount(remote);
            double bound = single_[remote];
            if (count >= 2 && count >= devices_)
                bound = std::max(bound, devices_ == 2 ? local_[remote] + shortest_[remote] : pair_[remote]);
            best = std::min(best, std::max(local_[mask], bound));
        }
        return best;
    }

    // Sorts `ns` by remoteUs, largest first (as cheapestSplit wants them), and byKey_ to
    // the indices of `ns` in the order `key` gives.
    template <class Key> void sortByRemote(std::vector<Neighbour>& ns, Key key)
    {
        std::sort(ns.begin(), ns.end(), [](const Neighbour& a, const Neighbour& b) { return a.remoteUs > b.remoteUs; });
        byKey_.resize(ns.size());
        for (size_t i = 0; i < ns.size(); ++i)
            byKey_[i] = static_cast<uint32_t>(i);
        std::sort(byKey_.begin(), byKey_.end(), [&](uint32_t a, uint32_t b) { return key(ns[a], ns[b]); });
    }

    const Graph& graph_;
    const int devices_;
    const std::vector<double>& fastest_;
    DirectSplits direct_;
    const size_t limit_; // relatives per op
    std::vector<Slot> slots_;
    uint32_t stamp_ = 0;
    Adjacency up_, down_;
    std::vector<std::pair<uint32_t, OpId>> order_; // (key of topological order, op)
    CpuGpuEnds classes_;
    std::vector<Neighbour> rel_;
    std::vector<Neighbour> between_;              // roundTrips: the relatives between an ancestor and the op
    std::vector<Routes> from_;                    // roundTrips: routes from that ancestor, per relative
    std::vector<Neighbour> apart_;                // roundTrips: the ops between, when the two ends are apart
    std::vector<std::pair<double, double>> heap_; // preemptiveJackson's
    std::vector<uint32_t> byKey_;
    std::vector<double> local_, durations_, single_, shortest_, pair_; // per subset of rel_
};

// The graph of `ops` (some of `graph`'s, in topological order) and the edges among them, in
// `graph`'s edge order; `timeless`, where it is one of them, takes no time there (its times,
// work and collective cleared). `index`: scratch of graph.opCount() entries, all -1, left so.
Graph subgraphOf(const Graph& graph, std::span<const OpId> ops, OpId timeless, std::vector<int>& index)
{
    GraphBuilder builder;
    for (OpId id : ops) {
        Op op = graph.op(id);
        if (id == timeless) {
            op.timeUs = {};
            op.typedTimes.clear();
            op.flops = 0.0;
            op.memoryBytes = 0.0;
            op.collective = CollectiveKind::None;
            op.collectiveBytes = 0.0;
        }
        index[static_cast<size_t>(id)] = builder.addOp(std::move(op));
    }
    for (const Edge& edge : graph.edges()) {
        const int from = index[static_cast<size_t>(edge.from)], to = index[static_cast<size_t>(edge.to)];
        if (from >= 0 && to >= 0)
            builder.addEdge(from, to, edge.bytes);
    }
    for (OpId id : ops)
        index[static_cast<size_t>(id)] = -1;
    return std::move(builder).build();
}

// The ancestry bound cut at an op c (docs/simulator.md): no step ends before c does, which the
// bound of c's ancestors (c their one sink) says, and none ends sooner than the bound of c's
// descendants (c their one source, taking no time) after that. Each half's bound combines heads
// and tails at one op of its own, so the sum sees what a placement pays at the forks and joins
// on both sides of c, where the whole graph's bound combines them at one op only. Valid as each
// half is a relaxation: its ops in any schedule of the whole, the rest left out.
class CutBound {
public:
    CutBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastest)
        : graph_(graph)
        , cluster_(cluster)
        , fastest_(fastest)
    {
    }

    // The two halves on two threads: each is a whole ancestry bound of its own graph (0.1-0.25
    // s on nasnetamobile and Swin-T), and the bound comes before a search's budget.
    double at(OpId cut) const
    {
        auto before = beside([&] { return half(cut, true); });
        const double after = half(cut, false);
        return before.get() + after;
    }

private:
    // The ancestry bound of the ops above `cut` (`up`) or below it, `cut` included.
    double half(OpId cut, bool up) const
    {
        std::vector<char> mark(static_cast<size_t>(graph_.opCount()), 0);
        mark[static_cast<size_t>(cut)] = 1;
        std::vector<OpId> stack(1, cut);
        while (!stack.empty()) {
            const OpId op = stack.back();
            stack.pop_back();
            for (EdgeId e : up ? graph_.inEdges(op) : graph_.outEdges(op)) {
                const OpId next = up ? graph_.edge(e).from : graph_.edge(e).to;
                if (mark[static_cast<size_t>(next)] == 0) {
                    mark[static_cast<size_t>(next)] = 1;
                    stack.push_back(next);
                }
            }
        }
        std::vector<double> fastest;
        std::vector<OpId> ops;
        for (OpId op : graph_.topologicalOrder()) {
            if (mark[static_cast<size_t>(op)] == 0)
                continue;
            ops.push_back(op);
            fastest.push_back(op == cut && !up ? 0.0 : fastest_[static_cast<size_t>(op)]);
        }
        std::vector<int> index(static_cast<size_t>(graph_.opCount()), -1); // subgraphOf's scratch
        const Graph sub = subgraphOf(graph_, ops, up ? kNoOp : cut, index);
        std::vector<double> head, tail, arrival, departure;
        return AncestryBound(sub, cluster_, fastest).run(head, tail, arrival, departure);
    }

    const Graph& graph_;
    const Cluster& cluster_;
    const std::vector<double>& fastest_;
};

// The cut ancestry bound at ops of a longest path (by each op's fastest time): the one starting
// nearest the middle of its length, then a climb in steps of a twentieth of the length towards
// the better neighbour while the bound grows (nasnetamobile peaks at 0.55: its backward pass
// begins there), at most kCutClimb cuts, on graphs of up to kCutsSize ops and edges; the middle
// one alone up to kCutSize, none on larger ones (each cut costs about one ancestry bound, which
// grows with the edges too: 2 s for a 3,664-op Chakra step of 181,878 edges on a loaded machine).
constexpr size_t kCutsSize = 10000;
constexpr size_t kCutSize = 40000;
constexpr int kCutClimb = 6;

double cutAncestryBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastest)
{
    const int n = graph.opCount();
    const size_t size = static_cast<size_t>(n) + static_cast<size_t>(graph.edgeCount());
    if (n < 3 || size > kCutSize)
        return 0.0;
    std::vector<double> start(static_cast<size_t>(n), 0.0);
    std::vector<OpId> previous(static_cast<size_t>(n), -1);
    OpId last = -1;
    double length = 0.0;
    for (OpId op : graph.topologicalOrder()) {
        const auto i = static_cast<size_t>(op);
        for (EdgeId e : graph.inEdges(op)) {
            const auto from = static_cast<size_t>(graph.edge(e).from);
            if (previous[i] < 0 || start[from] + fastest[from] > start[i]) {
                start[i] = start[from] + fastest[from];
                previous[i] = graph.edge(e).from;
            }
        }
        if (last < 0 || start[i] + fastest[i] > length) {
            length = start[i] + fastest[i];
            last = op;
        }
    }
    std::vector<OpId> path;
    for (OpId op = last; op >= 0; op = previous[static_cast<size_t>(op)])
        path.push_back(op);
    CutBound bound(graph, cluster, fastest);
    std::vector<std::pair<OpId, double>> tried; // (cut, bound)
    auto at = [&](int twentieths) {
        const double target = twentieths / 20.0 * length;
        const OpId cut = *std::min_element(path.begin(), path.end(), [&](OpId a, OpId b) {
            return std::abs(start[static_cast<size_t>(a)] - target) < std::abs(start[static_cast<size_t>(b)] - target);
        });
        for (const auto& [op, value] : tried)
            if (op == cut)
                return value;
        tried.emplace_back(cut, bound.at(cut));
        return tried.back().second;
    };
    double best = at(10);
    if (size > kCutsSize)
        return best;
    const double below = at(9), above = at(11);
    if (std::max(below, above) <= best)
        return best;
    const int step = above >= below ? 1 : -1;
    best = std::max(below, above);
    for (int share = 10 + 2 * step; share > 0 && share < 20 && static_cast<int>(tried.size()) < kCutClimb; share += step) {
        const double value = at(share);
        if (value <= best)
            break;
        best = value;
    }
    return best;
}

// One weighting of the devices for the work and device-windows bounds: device d busy for t_d
// does w_d x t_d of "work", so a step of T does at most T x (sum of w_d), whatever the
// placement, and each op does at least min over d of w_d x (its time on d). Any positive
// weights give a valid bound; the speeds suit clusters timed per kind (an op's time is
// time_us[kind] / speed), the throughputs (below) clusters whose devices differ per op.
struct Weighting {
    std::vector<double> perDevice;
    std::vector<double> opWorkUs; // per op: its least weighted work
    double totalWork = 0.0;       // summed in topological order
    double weightSum = 0.0;
    double workBoundUs() const { return weightSum > 0.0 ? totalWork / weightSum : 0.0; }
};

// Per op, its fastest duration on the cluster; and the weightings of the devices. A collective
// counts 0 here: it runs on its device's channel, beside compute (docs/simulator.md,
// "Collectives"), so the bounds that share out a device's time hold as they would if it took no
// time; only the critical path counts it (lowerBound()).
struct OpFloors {
    std::vector<double> fastestUs;
    std::vector<double> timesUs;       // op x device: each op's time on each device (0 for a collective)
    std::vector<Weighting> weightings; // [0]: by speed; [1] where device types apply: by throughput
};

Weighting weighted(const Graph& graph, std::vector<double> weights, const std::vector<double>& times,
                   const std::function<double(OpId, DeviceId)>& work)
{
    const auto devices = weights.size();
    Weighting w;
    w.opWorkUs.assign(static_cast<size_t>(graph.opCount()), 0.0);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        double least = kInf;
        for (size_t d = 0; d < devices; ++d)
            least = std::min(least,
                             work ? work(op, static_cast<DeviceId>(d))
                                  : times[static_cast<size_t>(op) * devices + d] * weights[d]);
        w.opWorkUs[static_cast<size_t>(op)] = least;
    }
    for (OpId op : graph.topologicalOrder())
        w.totalWork += w.opWorkUs[static_cast<size_t>(op)];
    for (double x : weights)
        w.weightSum += x;
    w.perDevice = std::move(weights);
    return w;
}

// The work bound at its best weighting (docs/simulator.md, "work"). Devices whose times are
// proportional over every op (the GPUs of a preset, or GPUs of one kind at different speeds)
// form a class: within it the speeds are the best weights, so the class shares one weight,
// scaled by each device's ratio. An op pinned to a CPU counts on the CPU classes only, where
// the cluster has a CPU (every valid placement keeps it there: placementProblem()). Any
// positive weights give a valid bound; the best is the fractional assignment's (linear
// programming duality: every device takes a share of every op, none busier than T), found by
// golden-section search on each class's weight in turn: exact with two classes (the bound is
// quasi-concave in one weight, a concave sum over a positive linear one), a climb with more.
// Empty where there is one class.
std::optional<Weighting> bestWeighting(const Graph& graph, const Cluster& cluster, const std::vector<double>& times)
{
    const auto n = static_cast<size_t>(graph.opCount());
    const auto devices = static_cast<size_t>(cluster.deviceCount());
    // Per device: its class and its times over the class's first device's (scale).
    std::vector<size_t> classOf(devices), first;
    std::vector<double> scale(devices, 1.0);
    for (size_t d = 0; d < devices; ++d) {
        size_t k = 0;
        for (; k < first.size(); ++k) {
            const size_t e = first[k];
            if (cluster.device(static_cast<DeviceId>(d)).kind != cluster.device(static_cast<DeviceId>(e)).kind)
                continue;
            double ratio = 0.0; // t_d / t_e, the same for every op
            bool same = true;
            for (size_t op = 0; same && op < n; ++op) {
                const double td = times[op * devices + d], te = times[op * devices + e];
                if (te == 0.0 || td == 0.0)
                    same = te == td;
                else if (ratio == 0.0)
                    ratio = td / te;
                else
                    same = std::abs(td / te - ratio) <= 1e-9 * ratio;
            }
            if (same) {
                scale[d] = ratio == 0.0 ? 1.0 : ratio;
                break;
            }
        }
        if (k == first.size())
            first.push_back(d);
        classOf[d] = k;
    }
    const size_t classes = first.size();
    if (classes < 2)
        return std::nullopt;
    // A class's capacity in its first device's time: each member does 1 / scale of it.
    std::vector<double> capacity(classes, 0.0);
    for (size_t d = 0; d < devices; ++d)
        capacity[classOf[d]] += 1.0 / scale[d];
    const bool pinning = cpuPinDevice(cluster) != kNoDevice;
    std::vector<char> cpuClass(classes);
    for (size_t k = 0; k < classes; ++k)
        cpuClass[k] = cluster.device(static_cast<DeviceId>(first[k])).kind == DeviceKind::Cpu;
    auto work = [&](const std::vector<double>& w, size_t op) {
        const bool pinned = pinning && graph.isCpuPinned(static_cast<OpId>(op));
        double least = kInf;
        for (size_t k = 0; k < classes; ++k)
            if (cpuClass[k] || !pinned)
                least = std::min(least, w[k] * times[op * devices + first[k]]);
        return least;
    };
    auto bound = [&](const std::vector<double>& w) {
        double total = 0.0, weight = 0.0;
        for (size_t op = 0; op < n; ++op)
            total += work(w, op);
        for (size_t k = 0; k < classes; ++k)
            weight += w[k] * capacity[k];
        return total / weight;
    };
    // Weights e^x, the largest class's fixed at 1 (the bound does not change with their scale).
    const size_t fixed = static_cast<size_t>(std::max_element(capacity.begin(), capacity.end()) - capacity.begin());
    std::vector<double> w(classes, 1.0);
    for (int sweep = 0; sweep < (classes == 2 ? 1 : 6); ++sweep)
        for (size_t k = 0; k < classes; ++k) {
            if (k == fixed)
                continue;
            const double keep = w[k], before = bound(w);
            auto at = [&](double x) {
                w[k] = std::exp(x);
                return bound(w);
            };
            w[k] = std::exp(goldenSectionMax(at, -25.0, 25.0, 60, [] { return true; }).x);
            if (bound(w) < before)
                w[k] = keep;
        }
    Weighting best;
    best.opWorkUs.resize(n);
    for (size_t op = 0; op < n; ++op)
        best.opWorkUs[op] = work(w, op);
    for (OpId op : graph.topologicalOrder())
        best.totalWork += best.opWorkUs[static_cast<size_t>(op)];
    for (size_t d = 0; d < devices; ++d)
        best.perDevice.push_back(w[classOf[d]] / scale[d]);
    for (double x : best.perDevice)
        best.weightSum += x;
    return best;
}

OpFloors opFloors(const Graph& graph, const Cluster& cluster)
{
    const auto n = static_cast<size_t>(graph.opCount());
    const auto devices = static_cast<size_t>(cluster.deviceCount());
    // Every op's time on every device (cost/OpTime.h: its type's time, measured, roofline or
    // time_us[kind] / speed); the fastest of them is the op's floor.
    // An op pinned to a CPU runs on one in every valid placement (placementProblem()), where
    // the cluster has one: its floor is its least time on a CPU.
    std::vector<double> times(n * devices);
    OpFloors floors;
    floors.fastestUs.assign(n, kInf);
    const bool pinning = cpuPinDevice(cluster) != kNoDevice;
    for (size_t op = 0; op < n; ++op)
        for (size_t d = 0; d < devices; ++d) {
            const Op& o = graph.op(static_cast<OpId>(op));
            const Device& device = cluster.device(static_cast<DeviceId>(d));
            const double t = o.isCollective() ? 0.0 : opTimeUs(o, device);
            times[op * devices + d] = t;
            if (!pinning || device.kind == DeviceKind::Cpu || !graph.isCpuPinned(static_cast<OpId>(op)))
                floors.fastestUs[op] = std::min(floors.fastestUs[op], t);
        }
    // By speed: an op timed per kind does time_us[kind] of work on any device of that kind.
    std::vector<double> speeds;
    for (const Device& d : cluster.devices())
        speeds.push_back(d.speed);
    floors.weightings.push_back(weighted(graph, speeds, times, [&](OpId op, DeviceId d) {
        const Op& o = graph.op(op);
        const Device& dev = cluster.device(d);
        if (o.isCollective())
            return 0.0;
        return usesKindTime(o, dev) ? o.time(dev.kind)
                                    : times[static_cast<size_t>(op) * devices + static_cast<size_t>(d)] * dev.speed;
    }));
    // By throughput, where some device's type has op times (the speeds then say nothing about
    // those ops): w_d = the fastest device's total time over d's, so each device's weighted
    // total is the same.
    bool typed = false;
    for (const Device& d : cluster.devices())
        typed = typed || std::binary_search(graph.deviceTypes().begin(), graph.deviceTypes().end(), d.type);
    if (typed) {
        std::vector<double> totals(devices, 0.0);
        for (size_t op = 0; op < n; ++op)
            for (size_t d = 0; d < devices; ++d)
                totals[d] += times[op * devices + d];
        const double least = *std::min_element(totals.begin(), totals.end());
        if (least > 0.0) {
            std::vector<double> throughput;
            for (double total : totals)
                throughput.push_back(least / total);
            floors.weightings.push_back(weighted(graph, std::move(throughput), times, nullptr));
        }
    }
    if (std::optional<Weighting> best = bestWeighting(graph, cluster, times))
        floors.weightings.push_back(std::move(*best));
    floors.timesUs = std::move(times);
    return floors;
}

// Where a device's first op can start and how long before the step's end its last one ends,
// for the device-windows bounds (docs/simulator.md): the earliest start of an op that is first
// on its device and not a source (every input arrives by a transfer), and the least time after
// the end of an op that is last on its device and not a sink (every consumer elsewhere). Where
// the cluster has a CPU, every pinned op runs on a CPU (placementProblem()), so a GPU's first
// and last ops are unpinned ones: [0] lists every op, [1] the unpinned ones.
struct DeviceEnds {
    size_t sources = 0, sinks = 0;
    std::vector<double> releases, afters; // sorted
};

std::array<DeviceEnds, 2> deviceEnds(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastestUs,
                                     const std::vector<double>& head, const std::vector<double>& tail,
                                     const std::vector<double>& arrivalUs, const std::vector<double>& departureUs)
{
    const CheapestLink link(cluster);
    const bool pinning = cpuPinDevice(cluster) != kNoDevice;
    std::array<DeviceEnds, 2> ends;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const bool unpinned = pinning && !graph.isCpuPinned(op);
        const bool source = graph.inEdges(op).empty(), sink = graph.outEdges(op).empty();
        double r = 0.0, t = 0.0;
        if (!source) {
            r = arrivalUs[static_cast<size_t>(op)];
            for (EdgeId e : graph.inEdges(op)) {
                const Edge& edge = graph.edge(e);
                const auto u = static_cast<size_t>(edge.from);
                r = std::max(r, head[u] + fastestUs[u] + link.transferUs(edge.bytes));
            }
        }
        if (!sink) {
            t = departureUs[static_cast<size_t>(op)];
            for (EdgeId e : graph.outEdges(op)) {
                const Edge& edge = graph.edge(e);
                t = std::max(t, link.transferUs(edge.bytes) + tail[static_cast<size_t>(edge.to)]);
            }
        }
        for (DeviceEnds* x : {&ends[0], unpinned ? &ends[1] : nullptr}) {
            if (x == nullptr)
                continue;
            if (source)
                ++x->sources;
            else
                x->releases.push_back(r);
            if (sink)
                ++x->sinks;
            else
                x->afters.push_back(t);
        }
    }
    for (DeviceEnds& x : ends) {
        std::sort(x.releases.begin(), x.releases.end());
        std::sort(x.afters.begin(), x.afters.end());
    }
    return ends;
}

// The device-windows bound (docs/simulator.md): every device a placement uses is busy, within
// [its first op's start, the step's end - its last op's remaining tail], for its weighted work /
// its weight.
double windowsBound(const Cluster& cluster, const Weighting& weighting, const std::array<DeviceEnds, 2>& ends)
{
    const int devices = cluster.deviceCount();
    if (devices > 12)
        return 0.0; // subsets of devices below; the other components still hold
    const bool pinning = cpuPinDevice(cluster) != kNoDevice;
    // Over every set of used devices: the fastest min(sources, k) of them may start at 0 and
    // the fastest min(sinks, k) end with the step; each other one waits for its own first op
    // (a different op on each device, so the smallest releases, the smallest to the fastest
    // device) and stops before its own last op's remaining tail. Sum over used d of
    // w_d (C - delays_d) >= total weighted work gives C (weights w_d: speeds or throughputs).
    // With pinning, the GPUs' first and last ops are unpinned ones (ends[1]), the CPUs' any op:
    // their delays counted apart are a lower bound (a CPU's first op may be a GPU's too), and
    // so are those of every device over every op; the larger of the two is taken.
    auto nth = [](const std::vector<double>& v, size_t k) { return k < v.size() ? v[k] : 0.0; };
    auto delays = [&](std::vector<double>& speeds, const DeviceEnds& x) {
        std::sort(speeds.begin(), speeds.end(), std::greater<>());
        double delayed = 0.0;
        for (size_t k = 0; k < speeds.size(); ++k)
            delayed += speeds[k]
                * ((k < x.sources ? 0.0 : nth(x.releases, k - x.sources))
                   + (k < x.sinks ? 0.0 : nth(x.afters, k - x.sinks)));
        return delayed;
    };
    double best = kInf;
    std::vector<double> all;
    std::array<std::vector<double>, 2> apart;
    for (unsigned mask = 1; mask < (1U << devices); ++mask) {
        all.clear();
        apart[0].clear();
        apart[1].clear();
        double speedSum = 0.0;
        for (int d = 0; d < devices; ++d)
            if (mask >> d & 1U) {
                const double w = weighting.perDevice[static_cast<size_t>(d)];
                all.push_back(w);
                apart[cluster.device(d).kind != DeviceKind::Cpu ? 1 : 0].push_back(w);
                speedSum += w;
            }
        double delayed = delays(all, ends[0]);
        if (pinning)
            delayed = std::max(delayed, delays(apart[0], ends[0]) + delays(apart[1], ends[1]));
        if (speedSum > 0.0)
            best = std::min(best, (weighting.totalWork + delayed) / speedSum);
    }
    return std::isfinite(best) ? best : 0.0;
}

// Each device's least delay of its first op after 0 and of the step's end after its last op,
// as the device-windows bound assigns them: the smallest to the heaviest weight, within each
// group (CPUs and the others where ops are pinned, else all devices); kInf where no op is left
// to be first or last, so the device is unused. The capacity of windows both delays narrow,
// summed over devices, is largest when the delays are paired so (the sum of a convex function
// of the pairs' sums) only where a group's weights are equal: `paired` says so.
struct WindowDelays {
    std::vector<double> start, end;
    bool paired = true;

    WindowDelays(const Cluster& cluster, const Weighting& weighting, const std::array<DeviceEnds, 2>& ends)
    {
        const auto devices = static_cast<size_t>(cluster.deviceCount());
        const bool pinning = cpuPinDevice(cluster) != kNoDevice;
        start.assign(devices, kInf);
        end.assign(devices, kInf);
        auto nth = [](size_t k, size_t zeros, const std::vector<double>& v) {
            return k < zeros ? 0.0 : k - zeros < v.size() ? v[k - zeros] : kInf;
        };
        for (size_t group = 0; group < (pinning ? 2U : 1U); ++group) {
            std::vector<size_t> members;
            for (size_t d = 0; d < devices; ++d)
                if (!pinning || (cluster.device(static_cast<DeviceId>(d)).kind != DeviceKind::Cpu) == (group == 1))
                    members.push_back(d);
            std::stable_sort(members.begin(), members.end(),
                             [&](size_t a, size_t b) { return weighting.perDevice[a] > weighting.perDevice[b]; });
            for (size_t k = 0; k < members.size(); ++k) {
                start[members[k]] = nth(k, ends[group].sources, ends[group].releases);
                end[members[k]] = nth(k, ends[group].sinks, ends[group].afters);
                paired = paired && weighting.perDevice[members[k]] == weighting.perDevice[members.front()];
            }
        }
    }

    // The least step C whose windows after t, [max(t, before_d), C - after_d] on device d (before
    // and after: start and end, or mirrored end and start), hold `energy` of weighted work.
    double leastStep(const Weighting& weighting, double t, double energy, bool mirrored) const
    {
        const std::vector<double>& before = mirrored ? end : start;
        const std::vector<double>& after = mirrored ? start : end;
        double step = 0.0;
        std::vector<std::pair<double, double>> froms; // (where d's window begins to count, w_d)
        // Paired: both delays of each device; apart: the larger of the two bounds of one each.
        for (int way = paired ? 0 : 1; way < (paired ? 1 : 3); ++way) {
            froms.clear();
            for (size_t d = 0; d < before.size(); ++d)
                if (weighting.perDevice[d] > 0.0)
                    froms.emplace_back((way == 2 ? t : std::max(t, before[d])) + (way == 1 ? 0.0 : after[d]),
                                       weighting.perDevice[d]);
            // sum over d of w_d (C - from_d)^+ >= energy, devices joining in order of from_d.
            std::sort(froms.begin(), froms.end());
            double weights = 0.0, weighted = 0.0;
            for (size_t k = 0; k < froms.size() && std::isfinite(froms[k].first); ++k) {
                weights += froms[k].second;
                weighted += froms[k].second * froms[k].first;
                const double c = (energy + weighted) / weights;
                if (k + 1 == froms.size() || c <= froms[k + 1].first) {
                    step = std::max(step, c);
                    break;
                }
            }
        }
        return step;
    }
};

// The device windows after a time (docs/simulator.md, "device-windows"): whatever of an op's
// work cannot be done before t, the least over the devices it may use of w_d x its time left
// after t when started at its head, must be done in [t, C], where device d works within
// [max(t, its first op's start), C - its last op's remaining tail]. So C is at least the least
// step whose windows after t hold that work, for every t; mirrored, with the time each op
// leaves after its end, for the work that cannot be done after C - u. At t = 0 this is the
// device-windows bound for the set of every device. `firsts`: per op, its head (or, mirrored,
// its tail beyond its own time).
double windowsAfterBound(const Graph& graph, const Cluster& cluster, const OpFloors& floors, const Weighting& weighting,
                         const std::vector<double>& firsts, const WindowDelays& delays, bool mirrored)
{
    const auto n = static_cast<size_t>(graph.opCount());
    const auto devices = static_cast<size_t>(cluster.deviceCount());
    const bool pinning = cpuPinDevice(cluster) != kNoDevice;
    auto allowed = [&](size_t op, size_t d) {
        return !pinning || !graph.isCpuPinned(static_cast<OpId>(op))
            || cluster.device(static_cast<DeviceId>(d)).kind == DeviceKind::Cpu;
    };
    struct Job {
        double first, lastEnd, full; // its earliest start, that + its longest time, its least work
        size_t op;
    };
    std::vector<Job> jobs;
    double total = 0.0;
    std::vector<double> times; // the t tried: the ops' earliest starts and ends at their fastest
    for (size_t op = 0; op < n; ++op) {
        Job job{firsts[op], firsts[op], kInf, op};
        for (size_t d = 0; d < devices; ++d)
            if (allowed(op, d)) {
                const double p = floors.timesUs[op * devices + d];
                job.lastEnd = std::max(job.lastEnd, job.first + p);
                job.full = std::min(job.full, weighting.perDevice[d] * p);
            }
        if (!(job.full > 0.0) || !std::isfinite(job.full))
            continue;
        jobs.push_back(job);
        total += job.full;
        times.push_back(job.first);
        times.push_back(job.first + floors.fastestUs[op]);
    }
    std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.first < b.first; });
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    // Any t gives a valid bound: on big graphs every stride-th (each costs a pass over the ops
    // that may be running at t).
    const size_t stride = times.size() / std::clamp<size_t>(20'000'000 / std::max<size_t>(n * devices, 1), 64, 8192) + 1;
    double best = 0.0;
    std::vector<size_t> running; // jobs started at their earliest before t and not surely done
    size_t next = 0;
    double started = 0.0; // the least work of the jobs that may start before t
    for (size_t i = 0; i < times.size(); i += stride) {
        const double t = times[i];
        for (; next < jobs.size() && jobs[next].first < t; ++next) {
            running.push_back(next);
            started += jobs[next].full;
        }
        double energy = total - started;
        for (size_t k = 0; k < running.size();) {
            const Job& job = jobs[running[k]];
            if (job.lastEnd <= t) {
                running[k] = running.back();
                running.pop_back();
                continue;
            }
            double least = kInf;
            for (size_t d = 0; d < devices; ++d)
                if (allowed(job.op, d)) {
                    const double p = floors.timesUs[job.op * devices + d];
                    least = std::min(least, weighting.perDevice[d] * std::clamp(job.first + p - t, 0.0, p));
                }
            energy += least;
            ++k;
        }
        if (energy > 0.0)
            best = std::max(best, delays.leastStep(weighting, t, energy, mirrored));
    }
    return best;
}

} // namespace

namespace {

// Graphs larger than this (ops and edges) get no blocks bound: each block is bounded again.
constexpr size_t kBlocksSize = 40000;
// At most about this many blocks (below).
constexpr size_t kBlocks = 256;
// Nor do graphs whose largest block holds more than this share of the ops (below).
constexpr double kBlocksLargest = 0.9;

// The ops every other op precedes or follows (an ancestor or a descendant of each), in
// topological order. With positive durations such an op lies on every longest path (a path
// that missed it would go from one of its ancestors straight to one of its descendants, and
// the way through it is longer), so only a longest path's ops are tried. Along the path each
// op's ancestors include the previous one's, and its descendants are included in them, so
// one search upwards from the path's start and one downwards from its end count them all.
std::vector<OpId> articulationOps(const Graph& graph, const std::vector<double>& fastestUs)
{
    const auto n = static_cast<size_t>(graph.opCount());
    const std::vector<OpId> path = criticalPath(graph, fastestUs).ops;
    // relatives[k]: how many ancestors (then descendants too) path[k] has.
    std::vector<size_t> relatives(path.size(), 0);
    std::vector<OpId> stack;
    for (const bool up : {true, false}) {
        std::vector<char> seen(n, 0);
        size_t count = 0; // ops seen, the path's ops so far included
        for (size_t j = 0; j < path.size(); ++j) {
            const size_t k = up ? j : path.size() - 1 - j;
            stack.assign(1, path[k]);
            if (!seen[static_cast<size_t>(path[k])]) {
                seen[static_cast<size_t>(path[k])] = 1;
                ++count;
            }
            while (!stack.empty()) {
                const OpId op = stack.back();
                stack.pop_back();
                for (EdgeId e : up ? graph.inEdges(op) : graph.outEdges(op)) {
                    const OpId next = up ? graph.edge(e).from : graph.edge(e).to;
                    if (!seen[static_cast<size_t>(next)]) {
                        seen[static_cast<size_t>(next)] = 1;
                        ++count;
                        stack.push_back(next);
                    }
                }
            }
            relatives[k] += count - 1;
        }
    }
    std::vector<OpId> ops;
    for (size_t k = 0; k < path.size(); ++k)
        if (relatives[k] + 1 == n)
            ops.push_back(path[k]);
    return ops;
}

LowerBound lowerBoundOf(const Graph& graph, const Cluster& cluster, const SimOptions& options, bool blocks);

// Graphs (and blocks) of at most this many ops are also bounded over their placements (below).
constexpr int kPlacementsOps = 16;
// The search over placements stops after this many nodes; it then claims nothing.
constexpr std::int64_t kPlacementsNodes = 5'000;

// The placements bound (docs/simulator.md, "blocks"): the least, over every placement of a small
// graph, of a bound of that placement's every schedule. A placement fixes which edges cross
// devices, and each such edge's transfer takes at least latency + bytes / bandwidth of its
// link (rule 5: the largest edge to that device is sent, and a busy link only delays it), so
// each op starts no sooner than its head, the longest path to it with those transfers, and
// the step lasts at least its tail after it ends; on one device, any set of its ops starts no
// sooner than their least head, runs one at a time, and leaves at least their least tail. The
// placements are searched op by op in topological order, colocation groups and CPU pins kept,
// interchangeable devices (DeviceSymmetry) taken in order of first use, a partial placement
// dropped once the longest path through its ops (transfers where they cross, the rest at their
// fastest) reaches the least bound found. 0 with a collective (it runs on a channel, not a device's queue),
// beyond kPlacementsNodes nodes, or as soon as some placement's bound is at most `floorUs` (the
// other components' bound: the search cannot raise it then).
class PlacementsBound {
public:
    PlacementsBound(const Graph& graph, const Cluster& cluster)
        : graph_(graph)
        , cluster_(cluster)
        , n_(static_cast<size_t>(graph.opCount()))
        , devices_(static_cast<size_t>(cluster.deviceCount()))
    {
    }

    double run(double floorUs)
    {
        if (n_ == 0 || devices_ == 0)
            return 0.0;
        floorUs_ = floorUs;
        for (const Op& o : graph_.ops())
            if (o.isCollective())
                return 0.0;
        order_.assign(graph_.topologicalOrder().begin(), graph_.topologicalOrder().end());
        durationUs_.assign(n_ * devices_, kInf);
        fastestUs_.assign(n_, kInf);
        for (OpId op = 0; op < graph_.opCount(); ++op)
            for (DeviceId d = 0; d < cluster_.deviceCount(); ++d) {
                if (graph_.isCpuPinned(op) && cluster_.device(d).kind != DeviceKind::Cpu
                    && cluster_.hasKind(DeviceKind::Cpu))
                    continue;
                const double t = opTimeUs(graph_.op(op), cluster_.device(d));
                durationUs_[static_cast<size_t>(op) * devices_ + static_cast<size_t>(d)] = t;
                fastestUs_[static_cast<size_t>(op)] = std::min(fastestUs_[static_cast<size_t>(op)], t);
            }
        fastTailUs_.assign(n_, 0.0); // after the op's end, at the fastest, no transfers
        for (auto it = order_.rbegin(); it != order_.rend(); ++it)
            for (EdgeId e : graph_.outEdges(*it)) {
                const auto to = static_cast<size_t>(graph_.edge(e).to);
                fastTailUs_[static_cast<size_t>(*it)] = std::max(fastTailUs_[static_cast<size_t>(*it)],
                                                                 fastestUs_[to] + fastTailUs_[to]);
            }
        totalUs_.assign(devices_, 0.0);
        for (size_t op = 0; op < n_; ++op)
            for (size_t d = 0; d < devices_; ++d)
                totalUs_[d] += std::min(durationUs_[op * devices_ + d], 1e30);
        interchangeable();
        device_.assign(n_, kNoDevice);
        headUs_.assign(n_, 0.0);
        groupDevice_.assign(static_cast<size_t>(graph_.colocationGroupCount()), kNoDevice);
        used_.assign(devices_, 0);
        candidates_.assign(n_, {});
        best_ = kInf;
        nodes_ = 0;
        search(0, 0.0);
        return stopped() || best_ == kInf ? 0.0 : best_;
    }

private:
    // previous_[d]: the device of d's class of interchangeable devices (DeviceSymmetry: they
    // time every op alike and the links map onto themselves) just before it (kNoDevice: first).
    void interchangeable()
    {
        previous_.assign(devices_, kNoDevice);
        const DeviceSymmetry symmetry(cluster_);
        for (int k = 0; k < symmetry.classCount(); ++k) {
            const std::span<const DeviceId> members = symmetry.members(k);
            for (size_t m = 1; m < members.size(); ++m)
                previous_[static_cast<size_t>(members[m])] = members[m - 1];
        }
    }

    double transferUs(DeviceId from, DeviceId to, double bytes) const
    {
        return from == to ? 0.0 : cluster_.link(from, to).transferUs(bytes);
    }

    bool stopped() const { return nodes_ > kPlacementsNodes || best_ <= floorUs_; }

    void search(size_t k, double partialUs)
    {
        if (++nodes_ > kPlacementsNodes || best_ <= floorUs_)
            return;
        if (k == n_) {
            best_ = std::min(best_, placementUs());
            return;
        }
        const OpId op = order_[k];
        const auto i = static_cast<size_t>(op);
        const int group = graph_.colocationGroup(op);
        // Its largest input's device first, then the others fastest first: a low bound found
        // early drops more.
        DeviceId near = kNoDevice;
        double nearBytes = -1.0;
        for (EdgeId e : graph_.inEdges(op))
            if (graph_.edge(e).bytes > nearBytes) {
                nearBytes = graph_.edge(e).bytes;
                near = device_[static_cast<size_t>(graph_.edge(e).from)];
            }
        std::vector<size_t>& candidates = candidates_[k];
        candidates.clear();
        for (size_t d = 0; d < devices_; ++d)
            candidates.push_back(d);
        std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
            const bool an = static_cast<DeviceId>(a) == near, bn = static_cast<DeviceId>(b) == near;
            if (an != bn)
                return an;
            const double da = durationUs_[i * devices_ + a], db = durationUs_[i * devices_ + b];
            return da != db ? da < db : totalUs_[a] < totalUs_[b]; // ties (a timeless op): the faster device
        });
        for (size_t d : candidates) {
            if (stopped())
                break;
            const double duration = durationUs_[i * devices_ + d];
            if (duration == kInf)
                continue;
            const auto dev = static_cast<DeviceId>(d);
            if (group >= 0 && groupDevice_[static_cast<size_t>(group)] != kNoDevice
                && groupDevice_[static_cast<size_t>(group)] != dev)
                continue;
            if (!used_[d] && previous_[d] != kNoDevice && !used_[static_cast<size_t>(previous_[d])])
                continue; // an interchangeable device before it is still free: the same placements
            double head = 0.0;
            for (EdgeId e : graph_.inEdges(op)) {
                const Edge& edge = graph_.edge(e);
                const auto from = static_cast<size_t>(edge.from);
                head = std::max(head,
                                headUs_[from] + durationUs_[from * devices_ + static_cast<size_t>(device_[from])]
                                    + transferUs(device_[from], dev, edge.bytes));
            }
            const double partial = std::max(partialUs, head + duration + fastTailUs_[i]);
            if (partial >= best_)
                continue;
            device_[i] = dev;
            headUs_[i] = head;
            const bool first = !used_[d];
            used_[d] = 1;
            const bool claims = group >= 0 && groupDevice_[static_cast<size_t>(group)] == kNoDevice;
            if (claims)
                groupDevice_[static_cast<size_t>(group)] = dev;
            search(k + 1, partial);
            if (claims)
                groupDevice_[static_cast<size_t>(group)] = kNoDevice;
            if (first)
                used_[d] = 0;
            device_[i] = kNoDevice;
        }
    }

    // The bound of the placement in device_: the longest path with its transfers, and on each
    // device the least head + durations + least tail of any set of its ops (those with head and
    // tail at least a given pair of theirs).
    double placementUs()
    {
        tailUs_.assign(n_, 0.0);
        double bound = 0.0;
        for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
            const auto i = static_cast<size_t>(*it);
            for (EdgeId e : graph_.outEdges(*it)) {
                const Edge& edge = graph_.edge(e);
                const auto to = static_cast<size_t>(edge.to);
                tailUs_[i] = std::max(tailUs_[i],
                                      transferUs(device_[i], device_[to], edge.bytes)
                                          + durationUs_[to * devices_ + static_cast<size_t>(device_[to])] + tailUs_[to]);
            }
            bound = std::max(bound,
                             headUs_[i] + durationUs_[i * devices_ + static_cast<size_t>(device_[i])] + tailUs_[i]);
        }
        if (bound >= best_)
            return bound; // lowers nothing
        for (size_t d = 0; d < devices_; ++d) {
            if (!used_[d])
                continue;
            for (size_t a = 0; a < n_; ++a) {
                if (static_cast<size_t>(device_[a]) != d)
                    continue;
                for (size_t b = 0; b < n_; ++b) {
                    if (static_cast<size_t>(device_[b]) != d)
                        continue;
                    const double release = headUs_[a], after = tailUs_[b];
                    double busy = 0.0;
                    bool any = false; // an empty set bounds nothing
                    for (size_t j = 0; j < n_; ++j)
                        if (static_cast<size_t>(device_[j]) == d && headUs_[j] >= release && tailUs_[j] >= after) {
                            busy += durationUs_[j * devices_ + d];
                            any = true;
                        }
                    if (any)
                        bound = std::max(bound, release + busy + after);
                }
            }
        }
        return bound;
    }

    const Graph& graph_;
    const Cluster& cluster_;
    size_t n_ = 0, devices_ = 0;
    std::vector<OpId> order_;
    std::vector<double> durationUs_; // op x device; infinity where the op may not run
    std::vector<double> fastestUs_, fastTailUs_;
    std::vector<double> totalUs_; // per device: every op's duration there
    std::vector<DeviceId> previous_;
    std::vector<DeviceId> device_;
    std::vector<double> headUs_, tailUs_;
    std::vector<DeviceId> groupDevice_;
    std::vector<char> used_;
    std::vector<std::vector<size_t>> candidates_; // per depth: the devices in the order tried
    double best_ = kInf;
    double floorUs_ = 0.0;
    std::int64_t nodes_ = 0;
};

// 0 unless above `floorUs` (the other components' bound).
double placementsBound(const Graph& graph, const Cluster& cluster, double floorUs)
{
    return graph.opCount() <= kPlacementsOps ? PlacementsBound(graph, cluster).run(floorUs) : 0.0;
}

// The blocks bound (docs/simulator.md, "blocks"): where every other op is an ancestor or a
// descendant of an op a, every other op ends before a starts or starts after a ends, so from
// one such op's end to the next one's end the devices run the ops between them alone, a
// schedule of those ops with the first taking no time (the edges from earlier ops to later
// ones left out, which only weakens it), and the step is the sum of those stretches. Each is
// bounded by the components that hold under any order (not ready order's, which depends on
// what else is queued). 0 without such an op inside the graph, on graphs over kBlocksSize, or
// where one block holds nearly all the ops.
double blocksBound(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                   const std::vector<double>& fastestUs)
{
    if (static_cast<size_t>(graph.opCount()) + static_cast<size_t>(graph.edgeCount()) > kBlocksSize)
        return 0.0;
    const std::vector<OpId> cuts = articulationOps(graph, fastestUs);
    const std::span<const OpId> order = graph.topologicalOrder();
    // The cuts' positions, the last op's if it is not one: at most about kBlocks blocks, those
    // between consecutive cuts merged below a kBlocks-th of the ops (a chain's every op is one).
    const size_t least = std::max<size_t>(1, order.size() / kBlocks);
    std::vector<size_t> at;
    {
        std::vector<size_t> position(order.size());
        for (size_t i = 0; i < order.size(); ++i)
            position[static_cast<size_t>(order[i])] = i;
        size_t begin = 0;
        for (OpId op : cuts) {
            const size_t p = position[static_cast<size_t>(op)];
            if (p > 0 && p + 1 < order.size() && p + 1 - begin >= least && order.size() - p >= least) {
                at.push_back(p);
                begin = p;
            }
        }
    }
    if (at.empty())
        return 0.0;
    // One block of nearly every op adds next to nothing to the whole graph's bound (only the
    // few ops outside it), at the cost of another bound of it: nasnetamobile's such ops are
    // at its ends, where its 2 s search misses the time.
    size_t largest = at.front() + 1, previous = at.front();
    for (size_t p : at) {
        largest = std::max(largest, p - previous + 1);
        previous = p;
    }
    largest = std::max(largest, order.size() - previous);
    if (static_cast<double>(largest) > kBlocksLargest * static_cast<double>(order.size()))
        return 0.0;
    SimOptions within = options;
    within.dispatch = Dispatch::CriticalPath; // no ready-order component: it depends on the rest
    within.optimizerStateFactor = optimizerStateFactor(graph, options);
    double total = 0.0;
    size_t begin = 0; // the block: order[begin .. end], order[begin] taking no time unless first
    at.push_back(order.size() - 1);
    std::vector<int> index(order.size(), -1);
    for (size_t end : at) {
        // The block's first op's end is its start: it takes no time there, unless it is the step's first.
        const Graph block = subgraphOf(graph, order.subspan(begin, end - begin + 1), begin > 0 ? order[begin] : kNoOp,
                                       index);
        const double others = lowerBoundOf(block, cluster, within, false).valueUs();
        total += std::max(others, placementsBound(block, cluster, others));
        begin = end;
    }
    return total;
}

} // namespace

LowerBound lowerBound(const Graph& graph, const Cluster& cluster, const SimOptions& options)
{
    return lowerBoundOf(graph, cluster, options, true);
}

namespace {

// Colocation groups (docs/simulator.md, "device-windows"): a group's ops share one device,
// which runs them one at a time, each no sooner than its head and ending no later than the
// step's end less what must follow it (`leaves`). So for any set S of a group's ops the step
// lasts at least the least head over S + their times + the least leave over S; the sets tried
// are those of the ops whose head, or whose leave, is at least a threshold. A collective runs
// on its device's channel, beside the compute, and is left out.
double groupLoadsBound(const Graph& graph, const std::vector<double>& fastestUs, const std::vector<double>& heads,
                       const std::vector<double>& leaves)
{
    std::vector<std::vector<size_t>> members(static_cast<size_t>(graph.colocationGroupCount()));
    for (OpId op = 0; op < graph.opCount(); ++op)
        if (const int g = graph.colocationGroup(op); g >= 0 && !graph.op(op).isCollective())
            members[static_cast<size_t>(g)].push_back(static_cast<size_t>(op));
    double best = 0.0;
    for (std::vector<size_t>& ops : members) {
        if (ops.size() < 2)
            continue; // one op: its head + time + leave, which the ancestry bound has
        for (const bool byHead : {true, false}) {
            const std::vector<double>& key = byHead ? heads : leaves;
            const std::vector<double>& other = byHead ? leaves : heads;
            std::sort(ops.begin(), ops.end(), [&](size_t a, size_t b) { return key[a] > key[b]; });
            double work = 0.0;
            double least = kInf;
            for (size_t op : ops) {
                work += fastestUs[op];
                least = std::min(least, other[op]);
                best = std::max(best, key[op] + work + least);
            }
        }
    }
    return best;
}

LowerBound lowerBoundOf(const Graph& graph, const Cluster& cluster, const SimOptions& options, bool blocks)
{
    LowerBound bound;
    if (graph.opCount() == 0)
        return bound;
    if (cluster.deviceCount() == 0) // nowhere to run: no finite step time exists
        return LowerBound{kInf, kInf, kInf, kInf, kInf, kInf, kInf, kInf, kInf};

    const OpFloors floors = opFloors(graph, cluster);
    const CollectiveLinks collectiveLinks(cluster);
    std::vector<double> finish(static_cast<size_t>(graph.opCount()), 0.0);
    for (OpId op : graph.topologicalOrder()) {
        double fastest = floors.fastestUs[static_cast<size_t>(op)];
        if (graph.op(op).isCollective()) { // on a path it takes its time, on whichever device
            fastest = kInf;
            for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
                fastest = std::min(fastest, collectiveLinks.opTimeUs(graph.op(op), d));
        }
        double start = 0.0;
        for (EdgeId e : graph.inEdges(op))
            start = std::max(start, finish[static_cast<size_t>(graph.edge(e).from)]);
        finish[static_cast<size_t>(op)] = start + fastest;
        bound.criticalPathUs = std::max(bound.criticalPathUs, start + fastest);
    }
    for (const Weighting& w : floors.weightings)
        bound.workUs = std::max(bound.workUs, w.workBoundUs());
    std::vector<double> head, tail, arrival, departure;
    bound.forkJoinUs = forkJoinBound(graph, cluster, floors.fastestUs, head, tail);
    // The cut beside the whole graph's ancestry bound, on threads of its own (CutBound::at). A
    // block's own cut is not worth another ancestry bound per cut (docs/simulator.md, "blocks").
    std::future<double> cut;
    if (blocks)
        cut = beside([&] { return cutAncestryBound(graph, cluster, floors.fastestUs); });
    bound.ancestryUs = AncestryBound(graph, cluster, floors.fastestUs).run(head, tail, arrival, departure);
    if (blocks)
        bound.ancestryUs = std::max(bound.ancestryUs, cut.get());
    auto windows = [&](const std::vector<double>& heads, const std::vector<double>& tails) {
        const std::array<DeviceEnds, 2> ends = deviceEnds(graph, cluster, floors.fastestUs, heads, tails, arrival,
                                                          departure);
        std::vector<double> leaves(heads.size()); // per op, the least time the step runs on after it ends
        for (size_t op = 0; op < leaves.size(); ++op)
            leaves[op] = tails[op] - floors.fastestUs[op];
        double best = groupLoadsBound(graph, floors.fastestUs, heads, leaves);
        for (const Weighting& w : floors.weightings) {
            const WindowDelays delays(cluster, w, ends);
            best = std::max({best, windowsBound(cluster, w, ends),
                             windowsAfterBound(graph, cluster, floors, w, heads, delays, false),
                             windowsAfterBound(graph, cluster, floors, w, leaves, delays, true)});
        }
        return best;
    };
    bound.windowsUs = windows(head, tail);
    const PathSplitBounds split = pathSplitBounds(graph, cluster, floors.fastestUs, head, tail,
                                                  optimizerStateFactor(graph, options), bound.valueUs());
    bound.memorySplitUs = split.memorySplitUs;
    bound.pathLoadsUs = split.pathLoadsUs;
    if (blocks) // a small graph is also one block, bounded over its placements
        bound.blocksUs = std::max(blocksBound(graph, cluster, options, floors.fastestUs),
                                  placementsBound(graph, cluster, bound.valueUs()));
    if (const CpuOrderWork cpuOrder = cpuOrderWork(graph, cluster, options, floors.fastestUs);
        !cpuOrder.beforeUs.empty()) {
        // Every op starts after the CPU work ready order puts before it, and the step runs on
        // for the work it puts after it; both reach the op's descendants and ancestors.
        const std::span<const OpId> order = graph.topologicalOrder();
        for (OpId op : order) {
            const auto v = static_cast<size_t>(op);
            head[v] = std::max(head[v], cpuOrder.beforeUs[v]);
            for (EdgeId e : graph.inEdges(op)) {
                const auto p = static_cast<size_t>(graph.edge(e).from);
                head[v] = std::max(head[v], head[p] + floors.fastestUs[p]);
            }
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const auto v = static_cast<size_t>(*it);
            tail[v] = std::max(tail[v], floors.fastestUs[v] + cpuOrder.afterUs[v]);
            for (EdgeId e : graph.outEdges(*it))
                tail[v] = std::max(tail[v], floors.fastestUs[v] + tail[static_cast<size_t>(graph.edge(e).to)]);
        }
        for (size_t v = 0; v < head.size(); ++v)
            bound.readyOrderUs = std::max(bound.readyOrderUs, head[v] + tail[v]);
        bound.readyOrderUs = std::max(bound.readyOrderUs, windows(head, tail));
    }
    return bound;
}

} // namespace

ReportedBound largestBound(const LowerBound& bound, double provenUs, bool provenOpLevel, const char* provenSource)
{
    if (provenOpLevel && provenUs > bound.valueUs() * (1 + 1e-9)) // not a rounding of the same bound
        return {provenUs, provenSource};
    return {bound.valueUs(), bound.source()};
}

double certifiedGap(double stepUs, double boundUs)
{
    if (!(boundUs > 0.0) || !std::isfinite(boundUs) || !(stepUs > 0.0) || !std::isfinite(stepUs))
        return std::numeric_limits<double>::quiet_NaN();
    const double gap = stepUs / boundUs - 1.0;
    return gap < 0.0 && gap > -1e-9 ? 0.0 : gap;
}

double boundBelowStep(double boundUs, double stepUs)
{
    return boundUs > stepUs && certifiedGap(stepUs, boundUs) == 0.0 ? stepUs : boundUs;
}

OpWindows opWindows(const Graph& graph, const Cluster& cluster)
{
    OpWindows windows;
    if (graph.opCount() == 0 || cluster.deviceCount() == 0)
        return windows;
    const OpFloors floors = opFloors(graph, cluster);
    std::vector<double> arrival, departure;
    AncestryBound(graph, cluster, floors.fastestUs).run(windows.headUs, windows.tailUs, arrival, departure);
    return windows;
}

} // namespace post
