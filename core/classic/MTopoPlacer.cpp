#include "core/classic/MTopoPlacer.h"

#include "core/classic/MemoryFeedback.h"
#include "core/classic/MemoryLedger.h"
#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <algorithm>

namespace post {

Placement MTopoPlacer::split(const PlaceContext& context, const std::vector<double>& budgets)
{
    const Graph& graph = context.graph;
    const PlacerDevices devices = placerDevices(context.cluster);
    const auto& gpus = devices.primary;
    const int k = static_cast<int>(gpus.size());
    MemoryLedger ledger(graph, context.cluster, context.sim, budgets);

    // Baechi's per-device limit: an even share of the footprint plus the largest unit,
    // so k devices always hold everything (each stops only past its share).
    double total = 0.0;
    double largest = 0.0;
    std::vector<char> groupSeen(static_cast<size_t>(graph.colocationGroupCount()), 0);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const int g = graph.colocationGroup(op);
        if (g >= 0 && groupSeen[static_cast<size_t>(g)]++)
            continue;
        total += ledger.footprint(op);
        largest = std::max(largest, ledger.footprint(op));
    }
    const double limit = total / k + largest;

    // The balance is on static footprints (as Baechi's); capacity is the ledger's peak.
    std::vector<double> share(static_cast<size_t>(context.cluster.deviceCount()), 0.0);
    Placement placement(static_cast<size_t>(graph.opCount()), kNoDevice);
    std::vector<DeviceId> groupDevice(static_cast<size_t>(graph.colocationGroupCount()), kNoDevice);
    int current = 0;
    for (OpId op : graph.topologicalOrder()) {
        const int g = graph.colocationGroup(op);
        DeviceId d = g >= 0 ? groupDevice[static_cast<size_t>(g)] : kNoDevice;
        if (d == kNoDevice) {
            auto fitsShare = [&](DeviceId d) {
                return share[static_cast<size_t>(d)] + ledger.footprint(op) <= limit && ledger.fits(op, d);
            };
            while (current < k - 1 && !fitsShare(gpus[static_cast<size_t>(current)]))
                ++current;
            d = gpus[static_cast<size_t>(current)];
            if (!ledger.fits(op, d))
                d = overflowDevice(ledger, op, devices);
            if (g >= 0)
                groupDevice[static_cast<size_t>(g)] = d;
            share[static_cast<size_t>(d)] += ledger.footprint(op);
        }
        ledger.place(op, d);
        placement[static_cast<size_t>(op)] = d;
    }
    return placement;
}

PlaceResult MTopoPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    return placeWithMemoryFeedback(
        context, [&](const std::vector<double>& budgets) { return split(context, budgets); }, start);
}

} // namespace post
