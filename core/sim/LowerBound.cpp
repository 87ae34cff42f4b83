#include "core/sim/LowerBound.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

namespace post {

LowerBound lowerBound(const Graph& graph, const Cluster& cluster)
{
    LowerBound bound;
    if (graph.opCount() == 0)
        return bound;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (cluster.deviceCount() == 0) // nowhere to run: no finite step time exists
        return LowerBound{kInf, kInf};

    // Highest speed per kind (0 when the cluster has no device of that kind): without
    // roofline figures an op's fastest time is min over kinds present of time[kind] / that speed.
    std::array<double, kDeviceKindCount> bestSpeed{};
    bool roofline = false;
    for (const Device& d : cluster.devices()) {
        double& s = bestSpeed[static_cast<size_t>(d.kind)];
        s = std::max(s, d.speed);
        roofline = roofline || (d.peakFlops > 0.0 && d.memoryBandwidth > 0.0);
    }

    std::vector<double> finish(static_cast<size_t>(graph.opCount()), 0.0);
    double totalWork = 0.0;
    for (OpId op : graph.topologicalOrder()) {
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
        double start = 0.0;
        for (EdgeId e : graph.inEdges(op))
            start = std::max(start, finish[static_cast<size_t>(graph.edge(e).from)]);
        finish[static_cast<size_t>(op)] = start + fastest;
        bound.criticalPathUs = std::max(bound.criticalPathUs, start + fastest);
        totalWork += work;
    }
    bound.workUs = totalWork / cluster.totalSpeed();
    return bound;
}

} // namespace post
