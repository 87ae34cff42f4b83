#include "core/classic/CpuPlacer.h"

#include "core/classic/ClassicalReport.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/util/InputError.h"

namespace post {

PlaceResult CpuPlacer::place(const PlaceContext& context)
{
    const auto start = PlacerClock::now();
    const Cluster& cluster = context.cluster;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        if (cluster.device(d).kind == DeviceKind::Cpu)
            return reportPlacement(context, Placement(static_cast<size_t>(context.graph.opCount()), d), start);
    throw InputError(cluster.name(), "devices", "the cpu placer needs a CPU device and the cluster has none");
}

} // namespace post
