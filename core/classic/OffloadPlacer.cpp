#include "core/classic/OffloadPlacer.h"

#include "core/classic/MTopoPlacer.h"
#include "core/classic/MemoryFeedback.h"
#include "core/classic/MemoryLedger.h"
#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/sim/SimOptions.h"

#include <algorithm>
#include <limits>

namespace post {

Placement OffloadPlacer::split(const PlaceContext& context, const std::vector<double>& budgets)
{
    const Graph& graph = context.graph;
    const Cluster& cluster = context.cluster;
    const PlacerDevices devices = placerDevices(cluster);
    MemoryLedger ledger(graph, cluster, context.sim, budgets);
    double room = 0.0;
    for (DeviceId d : devices.primary)
        room += ledger.capacity(d);

    // Units: a colocation group or a lone op, with what it holds all step (parameters x the
    // optimizer's factor and resident bytes, as the simulator counts them) and the time its
    // ops take on the fastest accelerator and on the fastest fallback device. Live tensors
    // come on top; where they do not fit, the feedback rounds shrink the budgets (and so the
    // room) and more is offloaded.
    const double factor = optimizerStateFactor(graph, context.sim);
    const auto n = static_cast<size_t>(graph.opCount());
    const auto groups = static_cast<size_t>(graph.colocationGroupCount());
    auto unitOf = [&](OpId op) {
        const int g = graph.colocationGroup(op);
        return g >= 0 ? static_cast<size_t>(g) : groups + static_cast<size_t>(op);
    };
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<double> footprint(groups + n, 0.0), onPrimary(groups + n, 0.0), onFallback(groups + n, 0.0);
    double total = 0.0;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const size_t u = unitOf(op);
        const double held = graph.op(op).paramBytes * factor + graph.op(op).residentBytes;
        footprint[u] += held;
        total += held;
        double primary = kInf, fallback = kInf;
        for (DeviceId d : devices.primary)
            primary = std::min(primary, opTimeOn(graph.op(op), cluster.device(d)));
        for (DeviceId d : devices.fallback)
            fallback = std::min(fallback, opTimeOn(graph.op(op), cluster.device(d)));
        onPrimary[u] += graph.isCpuPinned(op) ? kInf : primary;
        onFallback[u] += fallback;
    }
    if (devices.fallback.empty() || total <= room)
        return MTopoPlacer::split(context, budgets);

    // The units to offload: least extra time per byte first (pinned ones, which run on the
    // CPU anyway, before any), until the rest fits the accelerators' budgets.
    std::vector<size_t> units;
    for (size_t u = 0; u < footprint.size(); ++u)
        if (footprint[u] > 0.0 || onPrimary[u] == kInf)
            units.push_back(u);
    auto cost = [&](size_t u) {
        if (onPrimary[u] == kInf)
            return -kInf;
        return (onFallback[u] - onPrimary[u]) / std::max(footprint[u], 1.0);
    };
    std::stable_sort(units.begin(), units.end(), [&](size_t a, size_t b) { return cost(a) < cost(b); });
    std::vector<char> offloaded(groups + n, 0);
    double left = total;
    for (size_t u : units) {
        if (left <= room && onPrimary[u] != kInf)
            break;
        offloaded[u] = 1;
        left -= footprint[u];
    }

    // The rest fill the accelerators in topological order (a group where its first op lands);
    // the offloaded ones go to the first fallback device they fit on.
    Placement placement(n, kNoDevice);
    std::vector<DeviceId> unitDevice(groups + n, kNoDevice);
    const auto& gpus = devices.primary;
    size_t current = 0;
    for (OpId op : graph.topologicalOrder()) {
        const size_t u = unitOf(op);
        DeviceId d = unitDevice[u];
        if (d == kNoDevice) {
            if (offloaded[u]) {
                d = devices.fallback.front();
                for (DeviceId f : devices.fallback)
                    if (ledger.fits(op, f)) {
                        d = f;
                        break;
                    }
            } else {
                while (current + 1 < gpus.size() && !ledger.fits(op, gpus[current]))
                    ++current;
                d = ledger.fits(op, gpus[current]) ? gpus[current] : overflowDevice(ledger, op, devices);
            }
            unitDevice[u] = d;
        }
        ledger.place(op, d);
        placement[static_cast<size_t>(op)] = d;
    }
    return placement;
}

PlaceResult OffloadPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    return placeWithMemoryFeedback(
        context, [&](const std::vector<double>& budgets) { return split(context, budgets); }, start);
}

} // namespace post
