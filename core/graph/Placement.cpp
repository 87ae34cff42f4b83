#include "core/graph/Placement.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <unordered_map>

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
    if (cpuPinDevice(cluster) != kNoDevice)
        for (OpId op : graph.cpuPinnedOps()) {
            const Device& d = cluster.device(placement[static_cast<size_t>(op)]);
            if (d.kind != DeviceKind::Cpu)
                return "op '" + graph.op(op).name + "' (" + graph.op(op).type + ") is pinned to a CPU"
                    + (graph.op(op).cpuOnly ? " (no GPU kernel)" : " (colocated with an op that has no GPU kernel)")
                    + " but is on " + d.name;
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

DeviceId cpuPinDevice(const Cluster& cluster) { return cluster.fastestOfKind(DeviceKind::Cpu); }

int applyCpuPinning(const Graph& graph, const Cluster& cluster, Placement& placement)
{
    if (graph.cpuPinnedOps().empty())
        return 0;
    const DeviceId cpu = cpuPinDevice(cluster);
    if (cpu == kNoDevice)
        return 0;
    auto onCpu = [&](DeviceId d) {
        return d >= 0 && d < cluster.deviceCount() && cluster.device(d).kind == DeviceKind::Cpu;
    };
    // A colocation group stays whole: it goes to the CPU its first op is on, else `cpu`.
    std::unordered_map<int, DeviceId> groupTarget;
    for (OpId op : graph.cpuPinnedOps())
        if (const int g = graph.colocationGroup(op); g >= 0 && !groupTarget.contains(g)) {
            const DeviceId d = placement[static_cast<size_t>(op)];
            groupTarget.emplace(g, onCpu(d) ? d : cpu);
        }
    int moved = 0;
    for (OpId op : graph.cpuPinnedOps()) {
        const int g = graph.colocationGroup(op);
        const DeviceId target = g >= 0 ? groupTarget.at(g) : cpu;
        DeviceId& d = placement[static_cast<size_t>(op)];
        if (d == target || (g < 0 && onCpu(d)))
            continue;
        d = target;
        ++moved;
    }
    return moved;
}

} // namespace post
