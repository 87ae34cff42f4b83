#include "core/sim/MemorySplitBound.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"
#include "core/sim/CheapestLink.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace post {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Segment scans over all paths (a scan step adds one op to a segment): beyond this the
// component gives up (0), which only weakens the bound.
constexpr std::int64_t kScanLimit = 40'000'000;

// Devices that time every op alike and hold as much: a segment only needs its class.
struct DeviceClass {
    double capacity = 0.0;
    std::vector<double> durationUs; // per op; infinity where the op may not run (CPU pins)
};

std::vector<DeviceClass> deviceClasses(const Graph& graph, const Cluster& cluster)
{
    std::vector<DeviceClass> classes;
    for (const Device& device : cluster.devices()) {
        DeviceClass c;
        c.capacity = device.memoryBytes;
        for (OpId op = 0; op < graph.opCount(); ++op)
            c.durationUs.push_back(graph.isCpuPinned(op) && device.kind != DeviceKind::Cpu ? kInf
                                       : graph.op(op).isCollective() ? 0.0 // its time: lowerBound()
                                                                     : opTimeUs(graph.op(op), device));
        const bool known = std::any_of(classes.begin(), classes.end(), [&](const DeviceClass& k) {
            return k.capacity == c.capacity && k.durationUs == c.durationUs;
        });
        if (!known)
            classes.push_back(std::move(c));
    }
    return classes;
}

// What a device hosting an op holds all step: the op's colocation group (each op of it pays
// parameters x the optimizer factor + resident bytes, as in the simulator's peak); an op
// without a group is a unit of its own.
struct Units {
    std::vector<int> of; // per op
    std::vector<double> bytes;
    double total = 0.0;
};

Units memoryUnits(const Graph& graph, double optimizerStateFactor)
{
    Units u;
    const int groups = graph.colocationGroupCount();
    u.bytes.assign(static_cast<size_t>(groups), 0.0);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const int g = graph.colocationGroup(op);
        u.of.push_back(g >= 0 ? g : static_cast<int>(u.bytes.size()));
        if (g < 0)
            u.bytes.push_back(0.0);
        const Op& o = graph.op(op);
        const double bytes = o.paramBytes * optimizerStateFactor + o.residentBytes;
        u.bytes[static_cast<size_t>(u.of.back())] += bytes;
        u.total += bytes;
    }
    return u;
}

// The path of largest total weight, from a source to a sink, in order.
std::vector<OpId> heaviestPath(const Graph& graph, const std::vector<double>& weight)
{
    const auto n = static_cast<size_t>(graph.opCount());
    std::vector<double> total(n, 0.0);
    std::vector<OpId> previous(n, kNoOp);
    OpId last = kNoOp;
    for (OpId op : graph.topologicalOrder()) {
        const auto i = static_cast<size_t>(op);
        double before = 0.0;
        for (EdgeId e : graph.inEdges(op)) {
            const OpId from = graph.edge(e).from;
            if (previous[i] == kNoOp || total[static_cast<size_t>(from)] > before) {
                before = total[static_cast<size_t>(from)];
                previous[i] = from;
            }
        }
        total[i] = before + weight[i];
        if (last == kNoOp || total[i] > total[static_cast<size_t>(last)])
            last = op;
    }
    std::vector<OpId> path;
    for (OpId op = last; op != kNoOp; op = previous[static_cast<size_t>(op)])
        path.push_back(op);
    std::reverse(path.begin(), path.end());
    return path;
}

// The least length of `path` over its segmentations: segment ops[i..j) on one device of some
// class, whose capacity holds the segment's units and the largest output among them (live
// while its producer runs); between segments the cheapest transfer of the edge's bytes.
class PathSplit {
public:
    PathSplit(const Graph& graph, const std::vector<DeviceClass>& classes, const Units& units, const CheapestLink& link)
        : graph_(graph)
        , classes_(classes)
        , units_(units)
        , link_(link)
        , seen_(units.bytes.size(), 0)
    {
    }

    // Infinity when no segmentation fits (no placement of the graph fits in memory).
    double run(const std::vector<OpId>& path, std::int64_t& scans)
    {
        const size_t m = path.size();
        std::vector<double> cut(m, 0.0); // cut[i]: entering path[i] from another device
        for (size_t i = 1; i < m; ++i) {
            double bytes = 0.0;
            for (EdgeId e : graph_.outEdges(path[i - 1]))
                if (graph_.edge(e).to == path[i])
                    bytes = std::max(bytes, graph_.edge(e).bytes);
            cut[i] = link_.transferUs(bytes);
        }
        // best[j]: the least length of path[0..j) ending a segment at path[j - 1].
        std::vector<double> best(m + 1, kInf);
        best[0] = 0.0;
        // Classes that hold the whole graph take any segment: a running minimum over starts.
        std::vector<double> prefix(classes_.size(), 0.0), entry(classes_.size(), kInf);
        const double whole = units_.total + largestOutput(path);
        for (size_t j = 1; j <= m; ++j) {
            const OpId op = path[j - 1];
            for (size_t k = 0; k < classes_.size(); ++k) {
                const DeviceClass& c = classes_[k];
                if (c.capacity < whole)
                    continue;
                entry[k] = std::min(entry[k], best[j - 1] + (j > 1 ? cut[j - 1] : 0.0) - prefix[k]);
                const double d = c.durationUs[static_cast<size_t>(op)];
                if (d == kInf) { // no segment of this class holds the op: start afresh after it
                    entry[k] = kInf;
                    prefix[k] = 0.0;
                    continue;
                }
                prefix[k] += d;
                best[j] = std::min(best[j], entry[k] + prefix[k]);
            }
            for (const DeviceClass& c : classes_)
                if (c.capacity < whole)
                    best[j] = std::min(best[j], bounded(path, cut, best, j, c, scans));
            if (scans > kScanLimit)
                return 0.0;
        }
        return best[m];
    }

private:
    double largestOutput(const std::vector<OpId>& path) const
    {
        double most = 0.0;
        for (OpId op : path)
            most = std::max(most, graph_.op(op).outputBytes);
        return most;
    }

    // The best segment ending at path[j - 1] on a device of class `c`, scanning its start
    // backwards while the segment's units and largest output fit.
    double bounded(const std::vector<OpId>& path, const std::vector<double>& cut, const std::vector<double>& best,
                   size_t j, const DeviceClass& c, std::int64_t& scans)
    {
        ++stamp_;
        double held = 0.0, output = 0.0, duration = 0.0, least = kInf;
        for (size_t i = j; i-- > 0;) {
            const OpId op = path[i];
            const auto unit = static_cast<size_t>(units_.of[static_cast<size_t>(op)]);
            if (seen_[unit] != stamp_) {
                seen_[unit] = stamp_;
                held += units_.bytes[unit];
            }
            output = std::max(output, graph_.op(op).outputBytes);
            duration += c.durationUs[static_cast<size_t>(op)];
            ++scans;
            if (held + output > c.capacity || duration == kInf)
                break;
            least = std::min(least, best[i] + (i > 0 ? cut[i] : 0.0) + duration);
        }
        return least;
    }

    const Graph& graph_;
    const std::vector<DeviceClass>& classes_;
    const Units& units_;
    const CheapestLink& link_;
    std::vector<std::uint32_t> seen_;
    std::uint32_t stamp_ = 0;
};

} // namespace

double memorySplitBoundUs(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastestUs,
                          double optimizerStateFactor)
{
    if (graph.opCount() == 0 || cluster.deviceCount() == 0)
        return 0.0;
    const Units units = memoryUnits(graph, optimizerStateFactor);
    double largestOutput = 0.0;
    for (const Op& o : graph.ops())
        largestOutput = std::max(largestOutput, o.outputBytes);
    const std::vector<DeviceClass> classes = deviceClasses(graph, cluster);
    // Nothing is forced while some class holds the whole graph and is the fastest for every op.
    for (const DeviceClass& c : classes)
        if (c.capacity >= units.total + largestOutput && c.durationUs == fastestUs)
            return 0.0;
    const auto n = static_cast<size_t>(graph.opCount());
    double sumTime = 0.0;
    for (double t : fastestUs)
        sumTime += t;
    std::vector<double> byTime = fastestUs, byMemory(n), byBoth(n);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const auto i = static_cast<size_t>(op);
        const Op& o = graph.op(op);
        byMemory[i] = o.paramBytes * optimizerStateFactor + o.residentBytes;
        byBoth[i] = (sumTime > 0.0 ? fastestUs[i] / sumTime : 0.0)
            + (units.total > 0.0 ? byMemory[i] / units.total : 0.0);
    }
    const CheapestLink link(cluster);
    PathSplit split(graph, classes, units, link);
    std::int64_t scans = 0;
    double bound = 0.0;
    for (const std::vector<double>* weight : {&byTime, &byMemory, &byBoth}) {
        const double length = split.run(heaviestPath(graph, *weight), scans);
        if (length == kInf)
            return 0.0; // no placement fits: nothing to bound
        bound = std::max(bound, length);
    }
    return bound;
}

} // namespace post
