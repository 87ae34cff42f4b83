#include "core/graph/CriticalPath.h"

#include "core/graph/Graph.h"

#include <algorithm>

namespace post {

CriticalPath criticalPath(const Graph& graph, std::span<const double> opTimeUs)
{
    const auto n = static_cast<size_t>(graph.opCount());
    std::vector<double> finish(n, 0.0);
    std::vector<OpId> via(n, kNoOp);
    CriticalPath result;
    OpId last = kNoOp;
    for (OpId u : graph.topologicalOrder()) {
        double start = 0.0;
        for (EdgeId e : graph.inEdges(u)) {
            const OpId p = graph.edge(e).from;
            if (via[static_cast<size_t>(u)] == kNoOp || finish[static_cast<size_t>(p)] > start) {
                start = finish[static_cast<size_t>(p)];
                via[static_cast<size_t>(u)] = p;
            }
        }
        finish[static_cast<size_t>(u)] = start + opTimeUs[static_cast<size_t>(u)];
        if (last == kNoOp || finish[static_cast<size_t>(u)] > result.lengthUs) {
            result.lengthUs = finish[static_cast<size_t>(u)];
            last = u;
        }
    }
    for (OpId u = last; u != kNoOp; u = via[static_cast<size_t>(u)])
        result.ops.push_back(u);
    std::reverse(result.ops.begin(), result.ops.end());
    return result;
}

} // namespace post
