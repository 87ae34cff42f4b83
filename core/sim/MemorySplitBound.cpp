#include "core/sim/MemorySplitBound.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/CriticalPath.h"
#include "core/graph/Graph.h"
#include "core/sim/CheapestLink.h"
#include "core/sim/GoldenSection.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace post {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Segment scans over all paths (a scan step adds one op to a segment): beyond this the
// component gives up (0), which only weakens the bound.
constexpr std::int64_t kScanLimit = 40'000'000;
// The same for the path loads' bisection, all of its steps together.
constexpr std::int64_t kLoadsScanLimit = 8'000'000;

// Devices that time every op alike and hold as much: a segment only needs its class.
struct DeviceClass {
    double devices = 0.0;           // how many of the cluster's devices are of the class
    double capacity = 0.0;          // per device
    std::vector<double> durationUs; // per op; infinity where the op may not run (CPU pins)
    std::vector<DeviceId> members;
};

std::vector<DeviceClass> deviceClasses(const Graph& graph, const Cluster& cluster)
{
    std::vector<DeviceClass> classes;
    for (DeviceId id = 0; id < cluster.deviceCount(); ++id) {
        const Device& device = cluster.device(id);
        DeviceClass c;
        c.capacity = device.memoryBytes;
        for (OpId op = 0; op < graph.opCount(); ++op)
            c.durationUs.push_back(graph.isCpuPinned(op) && device.kind != DeviceKind::Cpu ? kInf
                                       : graph.op(op).isCollective() ? 0.0 // its time: lowerBound()
                                                                     : opTimeUs(graph.op(op), device));
        const auto known = std::find_if(classes.begin(), classes.end(), [&](const DeviceClass& k) {
            return k.capacity == c.capacity && k.durationUs == c.durationUs;
        });
        if (known != classes.end()) {
            known->devices += 1.0;
            known->members.push_back(id);
        } else {
            c.devices = 1.0;
            c.members.push_back(id);
            classes.push_back(std::move(c));
        }
    }
    return classes;
}

// The cheapest transfer from a device of class `from` to another one of class `to`, per pair
// (from x classes + to): a cut between two segments crosses such a link. Infinity from a
// class of one device to itself, as two segments on one device are one.
std::vector<CheapestLink> classLinks(const Cluster& cluster, const std::vector<DeviceClass>& classes)
{
    std::vector<CheapestLink> links;
    for (const DeviceClass& from : classes)
        for (const DeviceClass& to : classes)
            links.emplace_back(cluster, from.members, to.members);
    return links;
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

// Per unit (memoryUnits) and device class, two sets of the unit's ops: all of them, and those
// after whose end the step runs on for some time (a training step's weight updates, its
// sinks, are left out): each set's least start on a device of that class, its time there and
// the least time the step runs on after any of its ops ends there (unitLoads; infinity for
// an empty set). A unit sits on one device, so its ops run there one at a time.
struct UnitLoads {
    static constexpr size_t kSets = 2;
    std::array<std::vector<double>, kSets> releaseUs; // unit x class
    std::array<std::vector<double>, kSets> workUs;
    std::array<std::vector<double>, kSets> leaveUs;
    // Per op and class: its least start and least time after (as above), and its time.
    std::vector<double> opStartUs, opLeaveUs, opUs;
    // The units' ops, contiguous per unit.
    std::vector<size_t> unitOffsets;
    std::vector<OpId> unitOps;
};

// Where the path passes an op (pathPlaces, the holes): for each op, the first path
// position it precedes (it or an ancestor of that path op; SIZE_MAX: none) and the last it
// follows (-1 as SIZE_MAX: none), and per unit the path positions of its ops, in order.
struct PathPlaces {
    std::vector<size_t> firstBefore, lastAfter; // per op
    std::vector<std::vector<size_t>> unitPositions;
};

// The path of largest total weight, from a source to a sink, in order.
std::vector<OpId> heaviestPath(const Graph& graph, const std::vector<double>& weight)
{
    return criticalPath(graph, weight).ops;
}

// The least length of `path` over its segmentations: segment ops[i..j) on one device of some
// class, whose capacity holds the segment's units and the largest output among them (live
// while its producer runs); between segments the cheapest transfer of the edge's bytes from a
// device of the one segment's class to another device of the next one's (a CPU's PCIe link,
// not the NVLink between two GPUs).
//
// Where the devices of some classes cannot hold the graph together ("limited" classes), the
// segments on them share those classes' memory (the budget): each path op charges its unit's
// bytes over the unit's ops on the path, so a unit on such a device charges its bytes once in
// all, its ops all being there. The units off the path take the rest of the budget, or run on
// the other classes: with n devices there, the step is also at least their load / n. So for
// theta in [0, 1) the step is at least (1 - theta) x the path's length + theta x that load, a
// path op on those classes adding its unit's ops off the path (over its ops on it), and the
// units off the path the least load that leaves their bytes within the budget (fractional).
class PathSplit {
public:
    PathSplit(const Graph& graph, const std::vector<DeviceClass>& classes, const Units& units,
              const std::vector<CheapestLink>& links)
        : graph_(graph)
        , classes_(classes)
        , units_(units)
        , links_(links)
        , seen_(units.bytes.size(), 0)
    {
    }

    // The path-loads bound of `path` (the larger of it and of its fold), 0 where it proves
    // nothing above `floor`: `unitLoads` holds, per unit and class, the least start, the time
    // and the least time left after the end of the unit's ops on a device of that class.
    // Unfolded, `places` also prices each segment's hole (lengthUnder).
    double loads(const std::vector<OpId>& path, const UnitLoads& unitLoads, const PathPlaces& places, double floor,
                 std::int64_t& scans)
    {
        unitLoads_ = &unitLoads;
        places_ = &places;
        prepare(path);
        priceCuts();
        // Per position: the path's least duration before it (over classes).
        fastestPrefix_.assign(unit_.size() + 1, 0.0);
        const size_t classes = classes_.size();
        for (size_t i = 0; i < unit_.size(); ++i) {
            double least = kInf;
            for (size_t k = 0; k < classes; ++k)
                least = std::min(least, duration_[i * classes + k]);
            fastestPrefix_[i + 1] = fastestPrefix_[i] + (least == kInf ? 0.0 : least);
        }
        double best = leastLoadedLength(floor, scans);
        places_ = nullptr;
        if (fold()) {
            priceCuts();
            best = std::max(best, leastLoadedLength(floor, scans));
        }
        unitLoads_ = nullptr;
        return best;
    }

    // Infinity when no segmentation fits (no placement of the graph fits in memory).
    double run(const std::vector<OpId>& path, std::int64_t& scans)
    {
        prepare(path);
        priceCuts();
        double best = search(scans);
        // Folded (below), the path prices more but leaves out the cut where the halves meet,
        // so both count.
        if (best > 0.0 && best < kInf && fold()) {
            priceCuts();
            best = std::max(best, search(scans));
        }
        return best;
    }

private:
    static constexpr size_t kBudgetSteps = 256;

    // The least length of the path as prepared, at the best theta found.
    double search(std::int64_t& scans)
    {
        const double best = solve(0.0, scans);
        if (scans > kScanLimit)
            return 0.0;
        if (steps_ == 0 || best == kInf || offDevices_ == 0.0)
            return best;
        std::int64_t thetaScans = 0; // the search over theta has its own allowance
        auto at = [&](double theta) {
            const double v = thetaScans > kScanLimit ? 0.0 : solve(theta, thetaScans);
            return thetaScans > kScanLimit ? 0.0 : v;
        };
        // The bound is the least of functions linear in theta, so concave: golden-section search.
        const GoldenMax top = goldenSectionMax(at, 0.0, 1.0, 10, [&] { return thetaScans <= kScanLimit; });
        return std::max(best, top.value);
    }

    void prepare(const std::vector<OpId>& path)
    {
        const size_t m = path.size(), classes = classes_.size();
        duration_.assign(m * classes, 0.0);
        unit_.assign(m, 0);
        output_.assign(m, 0.0);
        for (size_t i = 0; i < m; ++i) {
            const auto op = static_cast<size_t>(path[i]);
            for (size_t k = 0; k < classes; ++k)
                duration_[i * classes + k] = classes_[k].durationUs[op];
            unit_[i] = static_cast<size_t>(units_.of[op]);
            output_[i] = graph_.op(path[i]).outputBytes;
        }
        cutBytes_.assign(m, 0.0); // entering path[i] from another device: the edge's largest bytes
        for (size_t i = 1; i < m; ++i)
            for (EdgeId e : graph_.outEdges(path[i - 1]))
                if (graph_.edge(e).to == path[i])
                    cutBytes_[i] = std::max(cutBytes_[i], graph_.edge(e).bytes);
        partnerBytes_.clear();
        mirror_ = false;
        whole_ = units_.total + (m > 0 ? *std::max_element(output_.begin(), output_.end()) : 0.0);
        limited_.assign(classes, 0);
        double budget = 0.0;
        offDevices_ = 0.0;
        for (size_t k = 0; k < classes; ++k) {
            const DeviceClass& c = classes_[k];
            if (c.capacity < whole_ && c.devices * c.capacity < units_.total) {
                limited_[k] = 1;
                budget += c.devices * c.capacity;
            } else {
                offDevices_ += c.devices;
            }
        }
        steps_ = budget > 0.0 ? kBudgetSteps : 0;
        step_ = budget > 0.0 ? budget / static_cast<double>(kBudgetSteps) : 1.0;
        charge_.assign(m, 0.0);
        extra_.assign(m * classes, 0.0);
        offPath_.clear();
        forcedBytes_ = 0.0;
        offPathForcedUs_ = 0.0;
        if (steps_ == 0)
            return;
        // Per unit: its ops on the path, and its ops' time off the path on each class.
        const size_t units = units_.bytes.size();
        std::vector<double> onPath(units, 0.0), offTime(units * classes, 0.0);
        for (OpId op : path)
            onPath[static_cast<size_t>(units_.of[static_cast<size_t>(op)])] += 1.0;
        std::vector<char> mark(static_cast<size_t>(graph_.opCount()), 0);
        for (OpId op : path)
            mark[static_cast<size_t>(op)] = 1;
        for (OpId op = 0; op < graph_.opCount(); ++op)
            if (!mark[static_cast<size_t>(op)])
                for (size_t k = 0; k < classes; ++k)
                    offTime[static_cast<size_t>(units_.of[static_cast<size_t>(op)]) * classes + k] +=
                        classes_[k].durationUs[static_cast<size_t>(op)];
        for (size_t i = 0; i < m; ++i) {
            const auto unit = static_cast<size_t>(units_.of[static_cast<size_t>(path[i])]);
            charge_[i] = units_.bytes[unit] / onPath[unit];
            for (size_t k = 0; k < classes; ++k)
                extra_[i * classes + k] = offTime[unit * classes + k] / onPath[unit];
        }
        // The units off the path: their bytes, and their least time on the other classes
        // (infinity: only a limited class runs them; bytes above every limited device: never).
        for (size_t u = 0; u < units; ++u) {
            if (onPath[u] > 0.0)
                continue;
            double away = kInf;
            bool inside = false; // some device of a limited class holds and runs it
            for (size_t k = 0; k < classes; ++k) {
                if (limited_[k])
                    inside = inside || (units_.bytes[u] <= classes_[k].capacity && offTime[u * classes + k] < kInf);
                else
                    away = std::min(away, offTime[u * classes + k]);
            }
            if (!inside)
                offPathForcedUs_ += away; // infinity: it fits nowhere, and no placement does
            else if (away == kInf)
                forcedBytes_ += units_.bytes[u];
            else if (units_.bytes[u] > 0.0)
                offPath_.emplace_back(away, units_.bytes[u]);
        }
        // Most time per byte first: the budget goes to those, the rest to the other classes.
        std::sort(offPath_.begin(), offPath_.end(),
                  [](const auto& a, const auto& b) { return a.first * b.second > b.first * a.second; });
    }

    // A training graph's path often runs its forward layers and then their backward ones, the
    // same colocation groups in the same order or in reverse: then position i and its partner
    // (half + i, or m - 1 - i) sit on one device in every placement, and a device change
    // between i - 1 and i is one between their partners too. The path folds onto its first
    // half, each position taking both ops' durations, charges and load, and each cut the
    // partners' one as well. The turn between the halves is left out (in reverse order the two
    // ops there are partners, and no cut is lost). Whether it folded.
    bool fold()
    {
        const size_t m = unit_.size(), half = m / 2, classes = classes_.size();
        if (m < 4 || m % 2 != 0)
            return false;
        bool repeat = true, mirror = true;
        for (size_t i = 0; i < half; ++i) {
            repeat = repeat && unit_[i] == unit_[half + i];
            mirror = mirror && unit_[i] == unit_[m - 1 - i];
        }
        if (!repeat && !mirror)
            return false;
        auto partner = [&](size_t i) { return repeat ? half + i : m - 1 - i; };
        for (size_t i = 0; i < half; ++i) {
            const size_t j = partner(i);
            for (size_t k = 0; k < classes; ++k) {
                duration_[i * classes + k] += duration_[j * classes + k];
                extra_[i * classes + k] += extra_[j * classes + k];
            }
            output_[i] = std::max(output_[i], output_[j]);
            charge_[i] += charge_[j];
        }
        // The partners' cut: from half + i - 1 to half + i, or (a mirror) from m - 1 - i to m - i,
        // the same two devices the other way round.
        partnerBytes_.assign(half, 0.0);
        for (size_t i = 1; i < half; ++i)
            partnerBytes_[i] = cutBytes_[repeat ? half + i : m - i];
        mirror_ = !repeat;
        duration_.resize(half * classes);
        extra_.resize(half * classes);
        unit_.resize(half);
        output_.resize(half);
        charge_.resize(half);
        cutBytes_.resize(half);
        return true;
    }

    // cut_[(i x classes + from) x classes + to]: entering path[i] on a device of class `to`
    // from one of class `from` (and, folded, the partners' cut between the same two devices).
    void priceCuts()
    {
        const size_t m = cutBytes_.size(), classes = classes_.size();
        cut_.assign(m * classes * classes, 0.0);
        for (size_t i = 1; i < m; ++i)
            for (size_t from = 0; from < classes; ++from)
                for (size_t to = 0; to < classes; ++to) {
                    double us = links_[from * classes + to].transferUs(cutBytes_[i]);
                    if (!partnerBytes_.empty())
                        us += links_[mirror_ ? to * classes + from : from * classes + to].transferUs(partnerBytes_[i]);
                    cut_[(i * classes + from) * classes + to] = us;
                }
    }

    // The least T for which some segmentation of the path (as prepared) is no longer than T
    // and each segment's device can run the units of the segment's ops within T (on or off
    // the path, they all sit there): the least start of their ops + their time + the least
    // time left after them. A bisection over T from `floor` (a bound known already): the
    // largest T shown too short, or 0 where `floor` is not (nothing above it is proved).
    double leastLoadedLength(double floor, std::int64_t& scans)
    {
        auto tooShort = [&](double t) { return lengthUnder(t, scans) > t; };
        if (floor <= 0.0 || !tooShort(floor))
            return 0.0;
        double lo = floor, hi = kInf;
        for (const double factor : {1.02, 1.05, 1.1, 1.25, 1.5, 2.0}) {
            if (!tooShort(floor * factor)) {
                hi = floor * factor;
                break;
            }
            lo = floor * factor;
        }
        for (int step = 0; step < 20 && hi < kInf && hi - lo > 1e-6 * hi; ++step) {
            const double mid = (lo + hi) / 2;
            (tooShort(mid) ? lo : hi) = mid;
        }
        return lo;
    }

    // The least length (durations and cuts) of the path's segmentations whose segments each
    // fit their device and load it for at most `limit`: for each set of UnitLoads, the least
    // start of the segment's units' ops in it + their time + the least time after them. 0
    // past the work limit.
    double lengthUnder(double limit, std::int64_t& scans)
    {
        const size_t m = unit_.size(), classes = classes_.size();
        if (m == 0)
            return 0.0;
        constexpr size_t kSets = UnitLoads::kSets;
        into_.assign((m + 1) * classes, kInf);
        for (size_t k = 0; k < classes; ++k)
            into_[k] = 0.0;
        row_.assign(classes, kInf);
        for (size_t j = 1; j <= m; ++j) {
            if (scans > kLoadsScanLimit)
                return 0.0; // nothing proved: as if some segmentation fitted
            std::fill(row_.begin(), row_.end(), kInf);
            for (size_t k = 0; k < classes; ++k) {
                const DeviceClass& c = classes_[k];
                ++stamp_;
                double held = 0.0, output = 0.0, length = 0.0;
                std::array<double, kSets> start, work, left;
                start.fill(kInf);
                work.fill(0.0);
                left.fill(kInf);
                // The hole: the segment ends at path[j - 1]; `next` is the first later path
                // position of one of its units (its device runs that op too), and the ops of
                // its units that precede path[j - 1] or follow path[next] all run outside the
                // path's stretch between the two (at least its ops' durations long).
                const size_t last = j - 1;
                size_t next = SIZE_MAX;
                Hole hole;
                for (size_t i = j; i-- > 0;) {
                    const size_t unit = unit_[i];
                    if (seen_[unit] != stamp_) {
                        seen_[unit] = stamp_;
                        held += units_.bytes[unit];
                        for (size_t set = 0; set < kSets; ++set) {
                            start[set] = std::min(start[set], unitLoads_->releaseUs[set][unit * classes + k]);
                            work[set] += unitLoads_->workUs[set][unit * classes + k];
                            left[set] = std::min(left[set], unitLoads_->leaveUs[set][unit * classes + k]);
                        }
                        if (places_ != nullptr)
                            scans += addToHole(unit, k, last, next, hole);
                    }
                    output = std::max(output, output_[i]);
                    length += duration_[i * classes + k];
                    // The work only grows with the segment: past the limit, so do its loads.
                    if (held + output > c.capacity || length == kInf || work[0] > limit)
                        break;
                    ++scans;
                    bool fits = true;
                    for (size_t set = 0; set < kSets && fits; ++set)
                        fits = start[set] == kInf || start[set] + work[set] + left[set] <= limit;
                    if (next != SIZE_MAX) {
                        const double gap = fastestPrefix_[next] - fastestPrefix_[last + 1];
                        for (size_t set = 0; set < kSets && fits; ++set)
                            fits = !hole.before[set] || !hole.later[set]
                                || hole.start[set] + hole.work[set] + gap + hole.left[set] <= limit;
                    }
                    if (fits)
                        row_[k] = std::min(row_[k], into_[i * classes + k] + length);
                }
            }
            if (j == m)
                break;
            for (size_t to = 0; to < classes; ++to)
                for (size_t from = 0; from < classes; ++from)
                    into_[j * classes + to] = std::min(into_[j * classes + to],
                                                       row_[from] + cut_[(j * classes + from) * classes + to]);
        }
        return *std::min_element(row_.begin(), row_.end());
    }

    // The ops of a segment's units that run outside its hole (lengthUnder), per set of
    // UnitLoads: their least start, time and least time after.
    struct Hole {
        std::array<double, UnitLoads::kSets> start{kInf, kInf}, work{0.0, 0.0}, left{kInf, kInf};
        // Whether the set has ops on both sides: only then does the hole lie inside its span.
        std::array<bool, UnitLoads::kSets> before{false, false}, later{false, false};
    };

    // A unit joins a segment ending at path position `last` on class k: `next` becomes the
    // first path position after `last` of any of the segment's units, and the unit's ops that
    // precede path[last] or follow path[next] join the hole's set. (An op counted before
    // `next` fell stays counted: following a later path op, it follows the earlier one too;
    // one left out then is left out for good, which only weakens the bound.)
    // Returns how many ops it looked at (they count as scan steps).
    std::int64_t addToHole(size_t unit, size_t k, size_t last, size_t& next, Hole& hole) const
    {
        const std::vector<size_t>& positions = places_->unitPositions[unit];
        const auto after = std::upper_bound(positions.begin(), positions.end(), last);
        if (after != positions.end())
            next = std::min(next, *after);
        const size_t classes = classes_.size();
        const UnitLoads& u = *unitLoads_;
        for (size_t x = u.unitOffsets[unit]; x < u.unitOffsets[unit + 1]; ++x) {
            const auto op = static_cast<size_t>(u.unitOps[x]);
            const bool before = places_->firstBefore[op] <= last;
            const bool later = next != SIZE_MAX && places_->lastAfter[op] != SIZE_MAX && places_->lastAfter[op] >= next;
            if (!before && !later)
                continue;
            // As in UnitLoads: all of them, and those the step runs on after.
            for (size_t set = 0; set < UnitLoads::kSets; ++set) {
                if (set == 1 && !(u.opLeaveUs[op * classes + k] > 0.0))
                    continue;
                hole.start[set] = std::min(hole.start[set], u.opStartUs[op * classes + k]);
                hole.work[set] += u.opUs[op * classes + k];
                hole.left[set] = std::min(hole.left[set], u.opLeaveUs[op * classes + k]);
                hole.before[set] = hole.before[set] || before;
                hole.later[set] = hole.later[set] || later;
            }
        }
        return static_cast<std::int64_t>(u.unitOffsets[unit + 1] - u.unitOffsets[unit]);
    }

    // The least load the units off the path put on the classes outside the budget when `room`
    // bytes of it are theirs (fractional: the units of most time per byte take the room).
    double offPathLoad(double room) const
    {
        room -= forcedBytes_;
        if (room < 0.0)
            return kInf;
        double load = offPathForcedUs_;
        for (const auto& [us, bytes] : offPath_) {
            const double inside = std::min(bytes, room);
            room -= inside;
            load += us * (bytes - inside) / bytes;
        }
        return load;
    }

    double solve(double theta, std::int64_t& scans)
    {
        const size_t m = unit_.size(), classes = classes_.size(), width = steps_ + 1;
        if (m == 0)
            return 0.0;
        const double share = offDevices_ > 0.0 ? theta / offDevices_ : 0.0;
        // An op's cost on class k: its part of the path and, outside the budget, of the load.
        auto cost = [&](size_t i, size_t k) {
            const double d = duration_[i * classes + k];
            return limited_[k] ? (1 - theta) * d : (1 - theta + share) * d + share * extra_[i * classes + k];
        };
        // into_[(i * classes + k) * width + b]: the least cost of path[0..i) ending a segment at
        // path[i - 1], b steps of the budget charged, and of the cut into path[i] on a device of
        // class k (none at i = 0). row_[k * width + b]: the least cost of path[0..j) ending a
        // segment at path[j - 1] on class k.
        into_.assign((m + 1) * classes * width, kInf);
        for (size_t k = 0; k < classes; ++k)
            into_[k * width] = 0.0;
        // Classes that hold the whole graph take any segment: a running minimum over starts.
        std::vector<double> prefix(classes, 0.0), entry(classes * width, kInf);
        for (size_t j = 1; j <= m; ++j) {
            row_.assign(classes * width, kInf);
            for (size_t k = 0; k < classes; ++k) {
                if (classes_[k].capacity < whole_)
                    continue;
                double* e = &entry[k * width];
                const double* from = &into_[((j - 1) * classes + k) * width];
                for (size_t b = 0; b < width; ++b)
                    e[b] = std::min(e[b], from[b] - prefix[k]);
                const double d = cost(j - 1, k);
                if (d == kInf) { // no segment of this class holds the op: start afresh after it
                    std::fill(e, e + width, kInf);
                    prefix[k] = 0.0;
                    continue;
                }
                prefix[k] += d;
                double* row = &row_[k * width];
                for (size_t b = 0; b < width; ++b)
                    row[b] = std::min(row[b], e[b] + prefix[k]);
            }
            for (size_t k = 0; k < classes; ++k)
                if (classes_[k].capacity < whole_)
                    bounded(j, k, cost, scans);
            if (scans > kScanLimit)
                return 0.0;
            if (j == m)
                break;
            for (size_t to = 0; to < classes; ++to) {
                double* into = &into_[(j * classes + to) * width];
                for (size_t from = 0; from < classes; ++from) {
                    const double cut = (1 - theta) * cut_[(j * classes + from) * classes + to];
                    const double* row = &row_[from * width];
                    for (size_t b = 0; b < width; ++b)
                        into[b] = std::min(into[b], row[b] + cut);
                }
            }
        }
        double least = kInf;
        for (size_t k = 0; k < classes; ++k)
            for (size_t b = 0; b < width; ++b)
                if (row_[k * width + b] < kInf)
                    least = std::min(
                        least,
                        row_[k * width + b]
                            + (steps_ == 0 ? 0.0 : share * offPathLoad(step_ * static_cast<double>(steps_ - b))));
        return least;
    }

    // The best segments ending at path[j - 1] on a device of class `k`, scanning their start
    // backwards while the segment's units and largest output fit (and, on a limited class,
    // while its charge does).
    template <class Cost> void bounded(size_t j, size_t k, Cost cost, std::int64_t& scans)
    {
        const DeviceClass& c = classes_[k];
        const size_t classes = classes_.size(), width = steps_ + 1;
        double* row = &row_[k * width];
        ++stamp_;
        double held = 0.0, output = 0.0, length = 0.0, charged = 0.0;
        for (size_t i = j; i-- > 0;) {
            const size_t unit = unit_[i];
            if (seen_[unit] != stamp_) {
                seen_[unit] = stamp_;
                held += units_.bytes[unit];
            }
            output = std::max(output, output_[i]);
            length += cost(i, k);
            if (held + output > c.capacity || length == kInf)
                break;
            size_t steps = 0;
            if (limited_[k]) {
                charged += charge_[i];
                const double whole = std::floor(charged / step_ * (1 - 1e-9)); // never above, by rounding
                if (whole > static_cast<double>(steps_))
                    break;
                steps = static_cast<size_t>(whole);
            }
            scans += static_cast<std::int64_t>(width - steps);
            const double* from = &into_[(i * classes + k) * width];
            for (size_t b = steps; b < width; ++b)
                row[b] = std::min(row[b], from[b - steps] + length);
        }
    }

    const Graph& graph_;
    const std::vector<DeviceClass>& classes_;
    const Units& units_;
    const std::vector<CheapestLink>& links_; // per pair of classes (classLinks)
    std::vector<std::uint32_t> seen_;
    std::uint32_t stamp_ = 0;
    std::vector<double> duration_;     // path position x class
    std::vector<size_t> unit_;         // per path position
    std::vector<double> output_;       // per path position: the largest output there
    std::vector<double> cutBytes_;     // per path position: the edge into it
    std::vector<double> partnerBytes_; // folded: the partners' edge (empty: not folded)
    bool mirror_ = false;              // folded in reverse order
    std::vector<double> cut_;          // per path position and pair of classes (priceCuts)
    double whole_ = 0.0;               // the units' bytes and the path's largest output
    std::vector<char> limited_;        // per class: its segments share the budget
    double offDevices_ = 0.0;          // the devices of the other classes
    size_t steps_ = 0;                 // the budget in steps (0: no budget)
    double step_ = 1.0;                // bytes
    std::vector<double> charge_;       // per path op: its unit's bytes over the unit's ops on the path
    std::vector<double> extra_;        // path op x class: its unit's time off the path, over its ops on it
    std::vector<std::pair<double, double>> offPath_; // units off the path: (least time away, bytes)
    double forcedBytes_ = 0.0;                       // units off the path only limited classes run
    double offPathForcedUs_ = 0.0;                   // units off the path no limited device holds: their time away
    std::vector<double> into_;
    std::vector<double> row_;
    const UnitLoads* unitLoads_ = nullptr; // while loads() runs
    const PathPlaces* places_ = nullptr;   // while loads() runs unfolded
    std::vector<double> fastestPrefix_;    // loads(): per path position
};

// Per op and class, the least start of the op on a device of that class (at least `headUs`)
// and the least time the step runs on after it ends there (at least its tail), along the
// edges: an input either shares the op's device or crosses the link between the two classes,
// and the same for consumers; colocated ops share one device. Per unit, the least over its ops.
UnitLoads unitLoads(const Graph& graph, const std::vector<DeviceClass>& classes, const std::vector<CheapestLink>& links,
                    const Units& units, const std::vector<double>& fastestUs, const std::vector<double>& headUs,
                    const std::vector<double>& tailUs)
{
    const size_t n = static_cast<size_t>(graph.opCount()), count = classes.size();
    std::vector<double> start(n * count, kInf), after(n * count, kInf);
    auto together = [&](OpId a, OpId b) {
        const int g = graph.colocationGroup(a);
        return g >= 0 && g == graph.colocationGroup(b);
    };
    auto duration = [&](OpId op, size_t k) { return classes[k].durationUs[static_cast<size_t>(op)]; };
    const std::span<const OpId> order = graph.topologicalOrder();
    for (OpId v : order)
        for (size_t k = 0; k < count; ++k) {
            double h = headUs[static_cast<size_t>(v)];
            for (EdgeId e : graph.inEdges(v)) {
                const Edge& edge = graph.edge(e);
                const auto u = static_cast<size_t>(edge.from);
                double best = start[u * count + k] + duration(edge.from, k);
                if (!together(edge.from, v))
                    for (size_t c = 0; c < count; ++c)
                        best = std::min(best,
                                        start[u * count + c] + duration(edge.from, c)
                                            + links[c * count + k].transferUs(edge.bytes));
                h = std::max(h, best);
            }
            start[static_cast<size_t>(v) * count + k] = h;
        }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const OpId v = *it;
        for (size_t k = 0; k < count; ++k) {
            double a = tailUs[static_cast<size_t>(v)] - fastestUs[static_cast<size_t>(v)];
            for (EdgeId e : graph.outEdges(v)) {
                const Edge& edge = graph.edge(e);
                const auto w = static_cast<size_t>(edge.to);
                double best = duration(edge.to, k) + after[w * count + k];
                if (!together(v, edge.to))
                    for (size_t c = 0; c < count; ++c)
                        best = std::min(best,
                                        links[k * count + c].transferUs(edge.bytes) + duration(edge.to, c)
                                            + after[w * count + c]);
                a = std::max(a, best);
            }
            after[static_cast<size_t>(v) * count + k] = a;
        }
    }
    UnitLoads loads;
    loads.opUs.resize(n * count);
    for (size_t op = 0; op < n; ++op)
        for (size_t k = 0; k < count; ++k)
            loads.opUs[op * count + k] = classes[k].durationUs[op];
    loads.unitOffsets.assign(units.bytes.size() + 1, 0);
    for (size_t op = 0; op < n; ++op)
        ++loads.unitOffsets[static_cast<size_t>(units.of[op]) + 1];
    for (size_t u = 0; u < units.bytes.size(); ++u)
        loads.unitOffsets[u + 1] += loads.unitOffsets[u];
    loads.unitOps.resize(n);
    {
        std::vector<size_t> fill(loads.unitOffsets.begin(), loads.unitOffsets.end() - 1);
        for (size_t op = 0; op < n; ++op)
            loads.unitOps[fill[static_cast<size_t>(units.of[op])]++] = static_cast<OpId>(op);
    }
    for (size_t set = 0; set < UnitLoads::kSets; ++set) {
        loads.releaseUs[set].assign(units.bytes.size() * count, kInf);
        loads.workUs[set].assign(units.bytes.size() * count, 0.0);
        loads.leaveUs[set].assign(units.bytes.size() * count, kInf);
    }
    for (size_t op = 0; op < n; ++op) {
        const auto unit = static_cast<size_t>(units.of[op]);
        for (size_t k = 0; k < count; ++k) {
            const size_t at = unit * count + k;
            for (size_t set = 0; set < UnitLoads::kSets; ++set) {
                if (set == 1 && !(after[op * count + k] > 0.0))
                    continue; // the second set: only ops the step runs on after
                loads.releaseUs[set][at] = std::min(loads.releaseUs[set][at], start[op * count + k]);
                loads.workUs[set][at] += classes[k].durationUs[op];
                loads.leaveUs[set][at] = std::min(loads.leaveUs[set][at], after[op * count + k]);
            }
        }
    }
    loads.opStartUs = std::move(start);
    loads.opLeaveUs = std::move(after);
    return loads;
}

// What both components of the path split take: the units, the device classes and their links.
struct PathSplitInputs {
    Units units;
    std::vector<DeviceClass> classes;
    std::vector<CheapestLink> links;
};

// Where the path passes each op (the holes of the path loads).
PathPlaces pathPlaces(const Graph& graph, const std::vector<OpId>& path, const Units& units)
{
    PathPlaces places;
    const auto n = static_cast<size_t>(graph.opCount());
    std::vector<size_t> position(n, SIZE_MAX);
    for (size_t i = 0; i < path.size(); ++i)
        position[static_cast<size_t>(path[i])] = i;
    places.firstBefore.assign(n, SIZE_MAX);
    places.lastAfter.assign(n, SIZE_MAX);
    const std::span<const OpId> order = graph.topologicalOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto v = static_cast<size_t>(*it);
        size_t first = position[v];
        if (first == SIZE_MAX)
            for (EdgeId e : graph.outEdges(*it))
                first = std::min(first, places.firstBefore[static_cast<size_t>(graph.edge(e).to)]);
        places.firstBefore[v] = first;
    }
    for (OpId op : order) {
        const auto v = static_cast<size_t>(op);
        size_t last = position[v];
        if (last == SIZE_MAX)
            for (EdgeId e : graph.inEdges(op)) {
                const size_t p = places.lastAfter[static_cast<size_t>(graph.edge(e).from)];
                if (p != SIZE_MAX)
                    last = last == SIZE_MAX ? p : std::max(last, p);
            }
        places.lastAfter[v] = last;
    }
    places.unitPositions.resize(units.bytes.size());
    for (size_t i = 0; i < path.size(); ++i)
        places.unitPositions[static_cast<size_t>(units.of[static_cast<size_t>(path[i])])].push_back(i);
    return places;
}

// The memory-split component over three heavy paths (`byTime` the critical path).
double memorySplit(const Graph& graph, const PathSplitInputs& in, const std::vector<double>& fastestUs,
                   double optimizerStateFactor, const std::vector<OpId>& byTime)
{
    double largestOutput = 0.0;
    for (const Op& o : graph.ops())
        largestOutput = std::max(largestOutput, o.outputBytes);
    // Nothing is forced while some class holds the whole graph and is the fastest for every op.
    for (const DeviceClass& c : in.classes)
        if (c.capacity >= in.units.total + largestOutput && c.durationUs == fastestUs)
            return 0.0;
    const auto n = static_cast<size_t>(graph.opCount());
    double sumTime = 0.0;
    for (double t : fastestUs)
        sumTime += t;
    std::vector<double> byMemory(n), byBoth(n);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const auto i = static_cast<size_t>(op);
        const Op& o = graph.op(op);
        byMemory[i] = o.paramBytes * optimizerStateFactor + o.residentBytes;
        byBoth[i] = (sumTime > 0.0 ? fastestUs[i] / sumTime : 0.0)
            + (in.units.total > 0.0 ? byMemory[i] / in.units.total : 0.0);
    }
    PathSplit split(graph, in.classes, in.units, in.links);
    std::int64_t scans = 0;
    double bound = 0.0;
    for (const std::vector<OpId>& path : {byTime, heaviestPath(graph, byMemory), heaviestPath(graph, byBoth)}) {
        const double length = split.run(path, scans);
        if (length == kInf)
            return 0.0; // no placement fits: nothing to bound
        bound = std::max(bound, length);
    }
    return bound;
}

} // namespace

PathSplitBounds pathSplitBounds(const Graph& graph, const Cluster& cluster, const std::vector<double>& fastestUs,
                                const std::vector<double>& headUs, const std::vector<double>& tailUs,
                                double optimizerStateFactor, double floorUs)
{
    PathSplitBounds bounds;
    if (graph.opCount() == 0 || cluster.deviceCount() == 0)
        return bounds;
    PathSplitInputs in;
    in.units = memoryUnits(graph, optimizerStateFactor);
    in.classes = deviceClasses(graph, cluster);
    in.links = classLinks(cluster, in.classes);
    const std::vector<OpId> path = heaviestPath(graph, fastestUs);
    bounds.memorySplitUs = memorySplit(graph, in, fastestUs, optimizerStateFactor, path);
    const UnitLoads loads = unitLoads(graph, in.classes, in.links, in.units, fastestUs, headUs, tailUs);
    PathSplit split(graph, in.classes, in.units, in.links);
    std::int64_t scans = 0;
    bounds.pathLoadsUs = split.loads(path, loads, pathPlaces(graph, path, in.units),
                                     std::max(floorUs, bounds.memorySplitUs), scans);
    return bounds;
}

} // namespace post
