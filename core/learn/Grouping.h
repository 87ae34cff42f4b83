#pragma once

#include "core/graph/Ids.h"
#include "core/graph/Placement.h"
#include "core/learn/LearnerOptions.h"

#include <span>
#include <vector>

namespace post {

class Graph;
class Cluster;

// A partition of a graph's ops into the groups a learner places as units. Colocation
// groups are never split. Groups are numbered by their first op in topological order.
class Grouping {
public:
    Grouping() = default;
    // `groupOf` gives any label per op; labels are renumbered densely.
    Grouping(const Graph& graph, std::span<const int> labels);

    int groupCount() const { return static_cast<int>(members_.size()); }
    int opCount() const { return static_cast<int>(groupOf_.size()); }
    int groupOf(OpId op) const { return groupOf_[static_cast<size_t>(op)]; }
    std::span<const OpId> members(int group) const { return members_[static_cast<size_t>(group)]; }

    // The op-level placement for a device per group; `placement` is resized to opCount().
    void expand(std::span<const DeviceId> groupDevices, Placement& placement) const;
    Placement expand(std::span<const DeviceId> groupDevices) const;
    // The device per group an op-level placement implies (majority of its ops; lowest id on ties).
    std::vector<DeviceId> collapse(const Placement& placement, int devices) const;
    // Each group split by the device `placement` gives its ops, so that `placement` is exactly
    // expressible (colocation stays whole when `placement` respects it).
    Grouping refinedBy(const Graph& graph, const Placement& placement, int devices) const;

private:
    std::vector<int> groupOf_;
    std::vector<std::vector<OpId>> members_;
};

// Groups the ops of `graph` with the chosen strategy (docs/learners.md).
Grouping groupOps(const Graph& graph, const GroupingOptions& options);

// Compute weight of an op for balancing: its GPU time, or CPU time for CPU-only profiles.
double groupingWeight(const Graph& graph, OpId op);

// Per group: every op of it is CPU-pinned and the cluster has a CPU, so every placement puts
// it on a CPU whatever device it is given (applyCpuPinning). Empty when no group is.
std::vector<char> pinnedGroups(const Grouping& grouping, const Graph& graph, const Cluster& cluster);
// Per group, the other groups joined to it by an edge of `graph` (either way), ascending.
std::vector<std::vector<int>> adjacentGroups(const Grouping& grouping, const Graph& graph);
// Gives each pinned group (`pinned`, as pinnedGroups() returns it; empty: none) that is off
// the CPUs cpuPinDevice(), where applyCpuPinning sends it, so that a learner's sample or a
// local search's state says where its ops run. Whether `choice` changed.
bool pinChoice(std::span<const char> pinned, const Cluster& cluster, std::span<DeviceId> choice);

} // namespace post
