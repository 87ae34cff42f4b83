#include "core/graph/Placement.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

namespace post {

std::optional<std::string> placementProblem(const Graph& graph, const Cluster& cluster, const Placement& placement)
{
    if (static_cast<int>(placement.size()) != graph.opCount())
        return "placement has " + std::to_string(placement.size()) + " entries for " + std::to_string(graph.opCount())
            + " ops";
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const DeviceId d = placement[static_cast<size_t>(op)];
        if (d < 0 || d >= cluster.deviceCount())
            return "op '" + graph.op(op).name + "' is not placed on a device of cluster '" + cluster.name() + "'";
    }
    std::vector<OpId> firstOfGroup(static_cast<size_t>(graph.colocationGroupCount()), kNoOp);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const int g = graph.colocationGroup(op);
        if (g < 0)
            continue;
        OpId& first = firstOfGroup[static_cast<size_t>(g)];
        if (first == kNoOp) {
            first = op;
        } else if (placement[static_cast<size_t>(first)] != placement[static_cast<size_t>(op)]) {
            return "colocation group '" + graph.colocationGroupName(g) + "' is split: op '" + graph.op(first).name
                + "' is on " + cluster.device(placement[static_cast<size_t>(first)]).name + " but op '"
                + graph.op(op).name + "' is on " + cluster.device(placement[static_cast<size_t>(op)]).name;
        }
    }
    return std::nullopt;
}

} // namespace post
