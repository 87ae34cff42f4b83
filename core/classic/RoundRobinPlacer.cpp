#include "core/classic/RoundRobinPlacer.h"

#include "core/classic/MemoryFeedback.h"
#include "core/classic/MemoryLedger.h"
#include "core/classic/OpGroups.h"
#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <algorithm>
#include <cmath>

namespace post {

Placement RoundRobinPlacer::split(const PlaceContext& context, const std::vector<double>& budgets)
{
    const Graph& graph = context.graph;
    const PlacerDevices devices = placerDevices(context.cluster);
    const auto& chunkDevice = devices.primary;
    const int k = static_cast<int>(chunkDevice.size());
    const Device& reference = context.cluster.device(chunkDevice.front());
    const OpGroups units(graph);

    // Units without any compute (e.g. all-zero profiles) are balanced by op count instead.
    double totalUs = 0.0;
    for (const Op& op : graph.ops())
        totalUs += balanceWeightUs(op, reference);
    std::vector<double> weight(static_cast<size_t>(units.unitCount()), 0.0);
    for (int u = 0; u < units.unitCount(); ++u)
        for (OpId op : units.ops(u))
            weight[static_cast<size_t>(u)] += totalUs > 0.0 ? balanceWeightUs(graph.op(op), reference) : 1.0;
    const double total = totalUs > 0.0 ? totalUs : static_cast<double>(graph.opCount());

    // Chunks are decided per unit, in the order of the units' first ops.
    std::vector<DeviceId> unitDevice(static_cast<size_t>(units.unitCount()), kNoDevice);
    {
        MemoryLedger ledger(graph, context.cluster, context.sim, budgets);
        double before = 0.0;
        int chunk = 0;
        for (OpId op : graph.topologicalOrder()) {
            const int u = units.unitOf(op);
            DeviceId& d = unitDevice[static_cast<size_t>(u)];
            if (d == kNoDevice) {
                const double w = weight[static_cast<size_t>(u)];
                const int wanted = static_cast<int>(std::floor(k * (before + 0.5 * w) / total));
                chunk = std::max(chunk, std::min(k - 1, wanted));
                while (chunk < k - 1 && !ledger.fits(op, chunkDevice[static_cast<size_t>(chunk)]))
                    ++chunk;
                d = chunkDevice[static_cast<size_t>(chunk)];
                if (!ledger.fits(op, d))
                    d = overflowDevice(ledger, op, devices);
                before += w;
            }
            ledger.place(op, d);
        }
    }
    Placement placement(static_cast<size_t>(graph.opCount()));
    for (OpId op = 0; op < graph.opCount(); ++op)
        placement[static_cast<size_t>(op)] = unitDevice[static_cast<size_t>(units.unitOf(op))];
    return placement;
}

PlaceResult RoundRobinPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    return placeWithMemoryFeedback(
        context, [&](const std::vector<double>& budgets) { return split(context, budgets); }, start);
}

} // namespace post
