#include "core/sim/LowerBound.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <vector>

namespace post {

double LowerBound::valueUs() const { return std::max({criticalPathUs, workUs, forkJoinUs, windowsUs}); }

const char* LowerBound::source() const
{
    // Within rounding of the largest: the fork-join bound repeats the path through a chain
    // in another order of additions.
    const double v = valueUs() * (1 - 1e-12);
    if (criticalPathUs >= v)
        return "critical-path";
    if (workUs >= v)
        return "work";
    if (forkJoinUs >= v)
        return "fork-join";
    return "device-windows";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The least time any transfer of `bytes` between two different devices can take: the lower
// envelope of latency + bytes / bandwidth over the links that no other link beats on both.
class CheapestLink {
public:
    explicit CheapestLink(const Cluster& cluster)
    {
        const int n = cluster.deviceCount();
        for (DeviceId a = 0; a < n; ++a)
            for (DeviceId b = 0; b < n; ++b)
                if (a != b)
                    add(cluster.link(a, b));
    }
    double transferUs(double bytes) const
    {
        double best = kInf; // one device: no transfer is possible
        for (const Link& l : links_)
            best = std::min(best, l.transferUs(bytes));
        return best;
    }

private:
    void add(const Link& l)
    {
        for (const Link& k : links_)
            if (k.latencyUs <= l.latencyUs && k.bytesPerUs >= l.bytesPerUs)
                return;
        std::erase_if(links_, [&](const Link& k) { return l.latencyUs <= k.latencyUs && l.bytesPerUs >= k.bytesPerUs; });
        links_.push_back(l);
    }
    std::vector<Link> links_;
};

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
};

// min over k of max(local(k), remote(k)), where local(k) is the single-device bound of the k
// neighbours with the largest remoteUs (nondecreasing in k: more jobs never finish sooner)
// and remote(k) the remoteUs of the (k+1)-th (nonincreasing); so a binary search finds it.
template <class Local> double cheapestSplit(std::vector<Neighbour>& ns, Local local)
{
    std::sort(ns.begin(), ns.end(), [](const Neighbour& a, const Neighbour& b) { return a.remoteUs > b.remoteUs; });
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

// The fork-join bound (docs/simulator.md): earliest starts through joins, least tails
// through forks, and the largest start + tail over ops.
double forkJoinBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastest,
                     std::vector<double>& head, std::vector<double>& tail)
{
    const CheapestLink link(cluster);
    const int devices = cluster.deviceCount();
    const auto n = static_cast<size_t>(graph.opCount());
    head.assign(n, 0.0); // no placement starts the op earlier
    tail.assign(n, 0.0); // no placement ends the step sooner after the op starts
    std::vector<Neighbour> ns;
    std::vector<Neighbour> jobs;
    const auto order = graph.topologicalOrder();
    for (OpId op : order) {
        collect(
            graph, graph.inEdges(op), [](const Edge& e) { return e.from; }, ns);
        for (Neighbour& u : ns) {
            const auto i = static_cast<size_t>(u.op);
            u.releaseUs = head[i];
            u.durationUs = fastest[i];
            u.remoteUs = head[i] + fastest[i] + link.transferUs(u.bytes);
        }
        // Inputs on the op's device run there one at a time: earliest release first is the
        // least makespan of one machine with release dates.
        auto erd = [&jobs](auto&& release, auto&& duration) {
            std::sort(jobs.begin(), jobs.end(),
                      [&](const Neighbour& a, const Neighbour& b) { return release(a) < release(b); });
            double t = 0.0;
            for (const Neighbour& j : jobs)
                t = std::max(t, release(j)) + duration(j);
            return t;
        };
        auto release = [](const Neighbour& n) { return n.releaseUs; };
        auto duration = [](const Neighbour& n) { return n.durationUs; };
        auto pick = [&](unsigned mask) {
            jobs.clear();
            for (size_t i = 0; i < ns.size(); ++i)
                if (mask >> i & 1U)
                    jobs.push_back(ns[i]);
        };
        if (ns.size() <= kExactSplit) {
            // Inputs sharing another device run there one at a time and cross one link one at
            // a time (each input its own transfer): the later of the two one-machine bounds.
            auto group = [&](unsigned mask) {
                pick(mask);
                double cheapest = kInf;
                for (const Neighbour& j : jobs)
                    cheapest = std::min(cheapest, j.remoteUs - j.releaseUs - j.durationUs);
                const double computed = erd(release, duration) + cheapest;
                const double sent = erd([](const Neighbour& n) { return n.releaseUs + n.durationUs; },
                                        [](const Neighbour& n) { return n.remoteUs - n.releaseUs - n.durationUs; });
                return std::max(computed, sent);
            };
            head[static_cast<size_t>(op)] = exactSplit(
                ns.size(),
                [&](unsigned mask) {
                    pick(mask);
                    return erd(release, duration);
                },
                [&](unsigned mask) { return remoteBound(ns, mask, devices, group); });
        } else {
            head[static_cast<size_t>(op)] = cheapestSplit(ns, [&](size_t k) {
                jobs.assign(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(k));
                return erd(release, duration);
            });
        }
    }
    double best = 0.0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const OpId op = *it;
        collect(
            graph, graph.outEdges(op), [](const Edge& e) { return e.to; }, ns);
        for (Neighbour& w : ns) {
            const auto i = static_cast<size_t>(w.op);
            w.durationUs = fastest[i];
            w.tailUs = tail[i] - fastest[i];
            w.remoteUs = link.transferUs(w.bytes) + tail[i];
        }
        // Consumers on the op's device run there one at a time after it ends, each followed by
        // its own tail: largest tail first is the least makespan of one machine with delivery times.
        auto jackson = [&jobs]() {
            std::sort(jobs.begin(), jobs.end(),
                      [](const Neighbour& a, const Neighbour& b) { return a.tailUs > b.tailUs; });
            double t = 0.0, end = 0.0;
            for (const Neighbour& j : jobs) {
                t += j.durationUs;
                end = std::max(end, t + j.tailUs);
            }
            return end;
        };
        auto pick = [&](unsigned mask) {
            jobs.clear();
            for (size_t i = 0; i < ns.size(); ++i)
                if (mask >> i & 1U)
                    jobs.push_back(ns[i]);
        };
        double after = 0.0;
        if (ns.size() <= kExactSplit) {
            // Consumers sharing another device get the tensor in one transfer (the largest
            // edge), then run there one at a time, each followed by its tail.
            auto group = [&](unsigned mask) {
                pick(mask);
                double bytes = 0.0;
                for (const Neighbour& j : jobs)
                    bytes = std::max(bytes, j.bytes);
                return link.transferUs(bytes) + jackson();
            };
            after = exactSplit(
                ns.size(),
                [&](unsigned mask) {
                    pick(mask);
                    return jackson();
                },
                [&](unsigned mask) { return remoteBound(ns, mask, devices, group); });
        } else {
            after = cheapestSplit(ns, [&](size_t k) {
                jobs.assign(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(k));
                return jackson();
            });
        }
        const auto i = static_cast<size_t>(op);
        tail[i] = fastest[i] + after;
        best = std::max(best, head[i] + tail[i]);
    }
    return best;
}

// Per op, its fastest duration on the cluster and its least work in speed-1 microseconds.
struct OpFloors {
    std::vector<double> fastestUs;
    std::vector<double> workUs;
};

OpFloors opFloors(const Graph& graph, const Cluster& cluster)
{
    // Highest speed per kind (0 when the cluster has no device of that kind): without
    // roofline figures an op's fastest time is min over kinds present of time[kind] / that speed.
    std::array<double, kDeviceKindCount> bestSpeed{};
    bool roofline = false;
    for (const Device& d : cluster.devices()) {
        double& s = bestSpeed[static_cast<size_t>(d.kind)];
        s = std::max(s, d.speed);
        roofline = roofline || (d.peakFlops > 0.0 && d.memoryBandwidth > 0.0);
    }
    OpFloors floors;
    floors.fastestUs.assign(static_cast<size_t>(graph.opCount()), 0.0);
    floors.workUs.assign(static_cast<size_t>(graph.opCount()), 0.0);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const Op& o = graph.op(op);
        double fastest = kInf;
        // Work in "speed-1 microseconds": device d busy for t_d does t_d x speed_d of it, so
        // a step of T on devices of total speed S does at most T x S, whatever the placement.
        double work = kInf;
        if (roofline && (o.flops > 0.0 || o.memoryBytes > 0.0)) {
            for (const Device& d : cluster.devices()) {
                const double t = opTimeUs(o, d);
                fastest = std::min(fastest, t);
                work = std::min(work, usesRoofline(o, d) ? t * d.speed : o.time(d.kind));
            }
        } else {
            for (int k = 0; k < kDeviceKindCount; ++k) {
                const double speed = bestSpeed[static_cast<size_t>(k)];
                if (speed <= 0.0)
                    continue;
                const double t = o.timeUs[static_cast<size_t>(k)];
                fastest = std::min(fastest, t / speed);
                work = std::min(work, t);
            }
        }
        floors.fastestUs[static_cast<size_t>(op)] = fastest;
        floors.workUs[static_cast<size_t>(op)] = work;
    }
    return floors;
}

// The device-windows bound (docs/simulator.md): every device a placement uses is busy, within
// [its first op's start, the step's end - its last op's remaining tail], for its work / speed.
double windowsBound(const Graph& graph, const Cluster& cluster, const OpFloors& floors, double totalWork,
                    const std::vector<double>& head, const std::vector<double>& tail)
{
    const int devices = cluster.deviceCount();
    if (devices > 12)
        return 0.0; // subsets of devices below; the other components still hold
    const CheapestLink link(cluster);
    // The earliest start of an op that is first on its device and not a source (every input
    // arrives by a transfer), and the least time after the end of an op that is last on its
    // device and not a sink (every consumer elsewhere).
    int sources = 0, sinks = 0;
    std::vector<double> releases, afters;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        if (graph.inEdges(op).empty()) {
            ++sources;
        } else {
            double r = 0.0;
            for (EdgeId e : graph.inEdges(op)) {
                const Edge& edge = graph.edge(e);
                const auto u = static_cast<size_t>(edge.from);
                r = std::max(r, head[u] + floors.fastestUs[u] + link.transferUs(edge.bytes));
            }
            releases.push_back(r);
        }
        if (graph.outEdges(op).empty()) {
            ++sinks;
        } else {
            double t = 0.0;
            for (EdgeId e : graph.outEdges(op)) {
                const Edge& edge = graph.edge(e);
                t = std::max(t, link.transferUs(edge.bytes) + tail[static_cast<size_t>(edge.to)]);
            }
            afters.push_back(t);
        }
    }
    std::sort(releases.begin(), releases.end());
    std::sort(afters.begin(), afters.end());
    // Over every set of used devices: the fastest min(sources, k) of them may start at 0 and
    // the fastest min(sinks, k) end with the step; each other one waits for its own first op
    // (a different op on each device, so the smallest releases, the smallest to the fastest
    // device) and stops before its own last op's remaining tail. Sum over used d of
    // speed_d (C - delays_d) >= total work gives C.
    auto nth = [](const std::vector<double>& v, size_t k) { return k < v.size() ? v[k] : 0.0; };
    double best = kInf;
    std::vector<double> speeds;
    for (unsigned mask = 1; mask < (1U << devices); ++mask) {
        speeds.clear();
        for (int d = 0; d < devices; ++d)
            if (mask >> d & 1U)
                speeds.push_back(cluster.device(d).speed);
        std::sort(speeds.begin(), speeds.end(), std::greater<>());
        double speedSum = 0.0, delayed = 0.0;
        for (size_t k = 0; k < speeds.size(); ++k) {
            speedSum += speeds[k];
            const auto s = static_cast<size_t>(sources), z = static_cast<size_t>(sinks);
            delayed += speeds[k] * ((k < s ? 0.0 : nth(releases, k - s)) + (k < z ? 0.0 : nth(afters, k - z)));
        }
        if (speedSum > 0.0)
            best = std::min(best, (totalWork + delayed) / speedSum);
    }
    return std::isfinite(best) ? best : 0.0;
}

} // namespace

LowerBound lowerBound(const Graph& graph, const Cluster& cluster)
{
    LowerBound bound;
    if (graph.opCount() == 0)
        return bound;
    if (cluster.deviceCount() == 0) // nowhere to run: no finite step time exists
        return LowerBound{kInf, kInf, kInf, kInf};

    const OpFloors floors = opFloors(graph, cluster);
    std::vector<double> finish(static_cast<size_t>(graph.opCount()), 0.0);
    double totalWork = 0.0;
    for (OpId op : graph.topologicalOrder()) {
        const double fastest = floors.fastestUs[static_cast<size_t>(op)];
        double start = 0.0;
        for (EdgeId e : graph.inEdges(op))
            start = std::max(start, finish[static_cast<size_t>(graph.edge(e).from)]);
        finish[static_cast<size_t>(op)] = start + fastest;
        bound.criticalPathUs = std::max(bound.criticalPathUs, start + fastest);
        totalWork += floors.workUs[static_cast<size_t>(op)];
    }
    bound.workUs = totalWork / cluster.totalSpeed();
    std::vector<double> head, tail;
    bound.forkJoinUs = forkJoinBound(graph, cluster, floors.fastestUs, head, tail);
    bound.windowsUs = windowsBound(graph, cluster, floors, totalWork, head, tail);
    return bound;
}

ReportedBound largestBound(const LowerBound& bound, double provenUs, bool provenOpLevel, const char* provenSource)
{
    if (provenOpLevel && provenUs > bound.valueUs() * (1 + 1e-9)) // not a rounding of the same bound
        return {provenUs, provenSource};
    return {bound.valueUs(), bound.source()};
}

OpWindows forkJoinWindows(const Graph& graph, const Cluster& cluster)
{
    OpWindows windows;
    if (graph.opCount() == 0 || cluster.deviceCount() == 0)
        return windows;
    const OpFloors floors = opFloors(graph, cluster);
    forkJoinBound(graph, cluster, floors.fastestUs, windows.headUs, windows.tailUs);
    return windows;
}

} // namespace post
