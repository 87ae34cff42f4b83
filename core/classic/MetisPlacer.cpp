#include "core/classic/MetisPlacer.h"

#include "core/classic/MemoryFeedback.h"
#include "core/classic/MemoryLedger.h"
#include "core/classic/OpGroups.h"
#include "core/classic/PlacerDevices.h"
#include "core/classic/RoundRobinPlacer.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace post {
namespace {

// The colocation-merged graph in METIS's CSR form, weights scaled to integers:
// vertex weights sum to about 1e6 and edge weights (each counted from both ends) to
// about 2e7, well inside 32-bit idx_t; every weight is at least 1.
struct UnitGraph {
    std::vector<idx_t> xadj{0}, adjncy, vwgt, adjwgt;
    std::vector<double> commBytes; // per unit: bytes on edges to other units
    std::vector<std::map<int, double>> neighbours;
};

UnitGraph buildUnitGraph(const Graph& graph, const OpGroups& units, const Device& reference)
{
    const int n = units.unitCount();
    UnitGraph u;
    u.neighbours.resize(static_cast<size_t>(n));
    u.commBytes.assign(static_cast<size_t>(n), 0.0);
    std::vector<double> compute(static_cast<size_t>(n), 0.0);
    double totalCompute = 0.0;
    double totalBytes = 0.0;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const double us = balanceWeightUs(graph.op(op), reference);
        compute[static_cast<size_t>(units.unitOf(op))] += us;
        totalCompute += us;
    }
    for (const Edge& e : graph.edges()) {
        const int a = units.unitOf(e.from);
        const int b = units.unitOf(e.to);
        if (a == b)
            continue;
        u.neighbours[static_cast<size_t>(a)][b] += e.bytes;
        u.neighbours[static_cast<size_t>(b)][a] += e.bytes;
        u.commBytes[static_cast<size_t>(a)] += e.bytes;
        u.commBytes[static_cast<size_t>(b)] += e.bytes;
        totalBytes += e.bytes;
    }
    auto scaled = [](double value, double total, double scale) {
        return static_cast<idx_t>(std::max(1.0, total > 0.0 ? std::round(value / total * scale) : 1.0));
    };
    for (int a = 0; a < n; ++a) {
        u.vwgt.push_back(scaled(compute[static_cast<size_t>(a)], totalCompute, 1e6));
        for (const auto& [b, bytes] : u.neighbours[static_cast<size_t>(a)]) {
            u.adjncy.push_back(b);
            u.adjwgt.push_back(scaled(bytes, totalBytes, 1e7));
        }
        u.xadj.push_back(static_cast<idx_t>(u.adjncy.size()));
    }
    return u;
}

// Moves whole units off overflowing devices, lightest communication first, each unit
// at most once, to the device with room it exchanges most bytes with (GPUs before CPUs).
// Peaks come from replaying the placement through a MemoryLedger in topological order.
void repairMemory(const PlaceContext& context, const std::vector<double>& budgets, const OpGroups& units,
                  const UnitGraph& unitGraph, const PlacerDevices& devices, Placement& placement)
{
    const Graph& graph = context.graph;
    const Cluster& cluster = context.cluster;
    // Each replay visits every op and edge; on very large graphs that cannot fit (a 100k-op
    // training step of 286 GB of activations on 4 K80s) trying every unit on every device
    // took minutes per round, so the replays of one repair are capped at kRepairWork
    // op-and-edge visits (counted, not timed: the result stays deterministic). Graphs up to
    // tens of thousands of ops never reach it.
    constexpr double kRepairWork = 5e7;
    const double replayCost = static_cast<double>(graph.opCount()) + static_cast<double>(graph.edgeCount());
    double work = 0.0;
    auto peaks = [&] {
        work += replayCost;
        return MemoryLedger::placementPeaks(graph, cluster, context.sim, placement);
    };
    auto outOfWork = [&] { return work >= kRepairWork; };
    auto overflowing = [&](const std::vector<double>& peak, DeviceId d) {
        return peak[static_cast<size_t>(d)] > budgets[static_cast<size_t>(d)];
    };
    std::vector<double> peak = peaks();
    auto anyOverflow = [&] {
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
            if (overflowing(peak, d))
                return true;
        return false;
    };
    if (!anyOverflow())
        return;

    const int n = units.unitCount();
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return unitGraph.commBytes[static_cast<size_t>(a)] < unitGraph.commBytes[static_cast<size_t>(b)];
    });
    auto moveUnit = [&](int unit, DeviceId to) {
        for (OpId op : units.ops(unit))
            placement[static_cast<size_t>(op)] = to;
    };
    std::vector<char> moved(static_cast<size_t>(n), 0);
    for (bool progress = true; progress && anyOverflow() && !outOfWork();) {
        progress = false;
        for (int unit : order) {
            if (outOfWork())
                return;
            const DeviceId from = placement[static_cast<size_t>(units.ops(unit).front())];
            if (moved[static_cast<size_t>(unit)] || !overflowing(peak, from))
                continue;
            for (const std::vector<DeviceId>* set : {&devices.primary, &devices.fallback}) {
                DeviceId best = kNoDevice;
                double bestBytes = -1.0;
                double bestRoom = 0.0;
                for (DeviceId to : *set) {
                    if (to == from)
                        continue;
                    moveUnit(unit, to);
                    const std::vector<double> tried = peaks();
                    moveUnit(unit, from);
                    if (overflowing(tried, to))
                        continue;
                    const double room = budgets[static_cast<size_t>(to)] - tried[static_cast<size_t>(to)];
                    double bytes = 0.0;
                    for (const auto& [other, b] : unitGraph.neighbours[static_cast<size_t>(unit)])
                        if (placement[static_cast<size_t>(units.ops(other).front())] == to)
                            bytes += b;
                    if (bytes > bestBytes || (bytes == bestBytes && room > bestRoom)) {
                        best = to;
                        bestBytes = bytes;
                        bestRoom = room;
                    }
                }
                if (best != kNoDevice) {
                    moveUnit(unit, best);
                    moved[static_cast<size_t>(unit)] = 1;
                    peak = peaks();
                    progress = true;
                    break;
                }
            }
            if (!anyOverflow())
                return;
        }
    }
}

} // namespace

Placement MetisPlacer::partition(const PlaceContext& context, const MetisOptions& options,
                                 const std::vector<double>& budgets)
{
    const Graph& graph = context.graph;
    const Cluster& cluster = context.cluster;
    const PlacerDevices devices = placerDevices(cluster);
    const OpGroups units(graph);
    const int n = units.unitCount();
    const int k = static_cast<int>(devices.primary.size());
    const UnitGraph unitGraph = buildUnitGraph(graph, units, cluster.device(devices.primary.front()));

    std::vector<DeviceId> unitDevice(static_cast<size_t>(n), devices.primary.front());
    if (k > 1 && n > k) {
        idx_t vertices = n;
        idx_t constraints = 1;
        idx_t parts = k;
        idx_t cut = 0;
        std::vector<idx_t> part(static_cast<size_t>(n), 0);
        std::vector<real_t> targetShare;
        for (double share : workShares(graph, cluster, devices.primary))
            targetShare.push_back(static_cast<real_t>(share));
        idx_t metisOptions[METIS_NOPTIONS];
        METIS_SetDefaultOptions(metisOptions);
        metisOptions[METIS_OPTION_SEED] = options.seed;
        metisOptions[METIS_OPTION_UFACTOR] = options.imbalancePermille;
        UnitGraph g = unitGraph; // METIS takes non-const pointers
        const int status = METIS_PartGraphKway(&vertices, &constraints, g.xadj.data(), g.adjncy.data(), g.vwgt.data(),
                                               nullptr, g.adjwgt.data(), &parts, targetShare.data(), nullptr,
                                               metisOptions, &cut, part.data());
        if (status != METIS_OK)
            return RoundRobinPlacer::split(context, budgets); // documented fallback; METIS fails only on bad input or memory
        for (int u = 0; u < n; ++u)
            unitDevice[static_cast<size_t>(u)] = devices.primary[static_cast<size_t>(part[static_cast<size_t>(u)])];
    } else {
        for (int u = 0; u < n; ++u)
            unitDevice[static_cast<size_t>(u)] = devices.primary[static_cast<size_t>(u % k)];
    }

    Placement placement(static_cast<size_t>(graph.opCount()), kNoDevice);
    for (OpId op = 0; op < graph.opCount(); ++op)
        placement[static_cast<size_t>(op)] = unitDevice[static_cast<size_t>(units.unitOf(op))];
    repairMemory(context, budgets, units, unitGraph, devices, placement);
    return placement;
}

PlaceResult MetisPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    return placeWithMemoryFeedback(
        context, [&](const std::vector<double>& budgets) { return partition(context, options_, budgets); }, start);
}

} // namespace post
