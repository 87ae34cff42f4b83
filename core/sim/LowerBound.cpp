#include "sim/LowerBound.h"

#include "cluster/Cluster.h"
#include "graph/Graph.h"

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

    // Highest speed per kind (0 when the cluster has no device of that kind): an op's
    // fastest time is min over kinds present of time[kind] / that speed.
    std::array<double, kDeviceKindCount> bestSpeed{};
    for (const Device& d : cluster.devices()) {
        double& s = bestSpeed[static_cast<size_t>(d.kind)];
        s = std::max(s, d.speed);
    }

    std::vector<double> finish(static_cast<size_t>(graph.opCount()), 0.0);
    double totalMinTime = 0.0;
    for (OpId op : graph.topologicalOrder()) {
        const Op& o = graph.op(op);
        double fastest = kInf;
        double minTime = kInf;
        for (int k = 0; k < kDeviceKindCount; ++k) {
            const double speed = bestSpeed[static_cast<size_t>(k)];
            if (speed <= 0.0)
                continue;
            const double t = o.timeUs[static_cast<size_t>(k)];
            fastest = std::min(fastest, t / speed);
            minTime = std::min(minTime, t);
        }
        double start = 0.0;
        for (EdgeId e : graph.inEdges(op))
            start = std::max(start, finish[static_cast<size_t>(graph.edge(e).from)]);
        finish[static_cast<size_t>(op)] = start + fastest;
        bound.criticalPathUs = std::max(bound.criticalPathUs, start + fastest);
        totalMinTime += minTime;
    }
    bound.workUs = totalMinTime / cluster.totalSpeed();
    return bound;
}

} // namespace post
