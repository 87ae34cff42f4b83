#include "classic/RoundRobinPlacer.h"

#include "classic/ClassicalReport.h"
#include "classic/MemoryLedger.h"
#include "classic/PlacerDevices.h"
#include "cluster/Cluster.h"
#include "graph/Graph.h"

#include <algorithm>
#include <cmath>

namespace post {

Placement RoundRobinPlacer::split(const PlaceContext& context)
{
    const Graph& graph = context.graph;
    const PlacerDevices devices = placerDevices(context.cluster);
    const auto& chunkDevice = devices.primary;
    const int k = static_cast<int>(chunkDevice.size());
    const DeviceKind kind = context.cluster.device(chunkDevice.front()).kind;

    // Ops without any compute (e.g. all-zero profiles) are balanced by count instead.
    const double totalUs = graph.totalTimeUs(kind);
    auto weight = [&](OpId op) { return totalUs > 0.0 ? graph.op(op).time(kind) : 1.0; };
    const double total = totalUs > 0.0 ? totalUs : static_cast<double>(graph.opCount());

    MemoryLedger ledger(graph, context.cluster, context.sim);
    Placement placement(static_cast<size_t>(graph.opCount()), kNoDevice);
    std::vector<DeviceId> groupDevice(static_cast<size_t>(graph.colocationGroupCount()), kNoDevice);
    double before = 0.0;
    int chunk = 0;
    for (OpId op : graph.topologicalOrder()) {
        const double w = weight(op);
        const int g = graph.colocationGroup(op);
        DeviceId d = g >= 0 ? groupDevice[static_cast<size_t>(g)] : kNoDevice;
        if (d == kNoDevice) {
            const int wanted = static_cast<int>(std::floor(k * (before + 0.5 * w) / total));
            chunk = std::max(chunk, std::min(k - 1, wanted));
            while (chunk < k - 1 && !ledger.fits(op, chunkDevice[static_cast<size_t>(chunk)]))
                ++chunk;
            d = chunkDevice[static_cast<size_t>(chunk)];
            if (!ledger.fits(op, d))
                d = overflowDevice(ledger, op, devices);
            if (g >= 0)
                groupDevice[static_cast<size_t>(g)] = d;
        }
        ledger.place(op, d);
        placement[static_cast<size_t>(op)] = d;
        before += w;
    }
    return placement;
}

PlaceResult RoundRobinPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    return reportPlacement(context, split(context), start);
}

} // namespace post
