#include "core/classic/SingleDevicePlacer.h"

#include "core/classic/ClassicalReport.h"
#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"

namespace post {

PlaceResult SingleDevicePlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    const Graph& graph = context.graph;
    const Cluster& cluster = context.cluster;
    if (cluster.deviceCount() == 0)
        throw InputError(cluster.name(), "devices", "the cluster has no devices");

    Simulator simulator(graph, cluster, context.sim);
    Placement placement(static_cast<size_t>(graph.opCount()), 0);
    DeviceId best = kNoDevice;
    SimResult bestRun;
    DeviceId fastest = kNoDevice;
    SimResult fastestRun;
    double fastestComputeUs = 0.0;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
        placement.assign(placement.size(), d);
        applyCpuPinning(graph, cluster, placement); // "single" means every op that may run there
        const SimResult& run = simulator.run(placement);
        if (run.feasible && (best == kNoDevice || run.stepTimeUs < bestRun.stepTimeUs)) {
            best = d;
            bestRun = run;
        }
        double computeUs = 0.0;
        for (const Op& op : graph.ops())
            computeUs += opTimeOn(op, cluster.device(d));
        if (fastest == kNoDevice || computeUs < fastestComputeUs) {
            fastest = d;
            fastestComputeUs = computeUs;
            fastestRun = run;
        }
    }
    const DeviceId chosen = best != kNoDevice ? best : fastest;
    placement.assign(placement.size(), chosen);
    applyCpuPinning(graph, cluster, placement);
    return reportPlacement(context, std::move(placement), start, cluster.deviceCount(),
                           best != kNoDevice ? &bestRun : &fastestRun);
}

} // namespace post
