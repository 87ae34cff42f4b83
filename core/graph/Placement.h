#pragma once

#include "core/graph/Ids.h"

#include <optional>
#include <string>
#include <vector>

namespace post {

class Graph;
class Cluster;

// The device of every op, indexed by OpId.
using Placement = std::vector<DeviceId>;

// A reason the placement cannot be simulated (wrong size, device out of range, a
// colocation group split across devices, naming the group and two of its ops), or nullopt.
// A CPU-pinned op (Graph::cpuPinnedOps) off the cluster's CPUs is a problem too, when
// the cluster has a CPU.
std::optional<std::string> placementProblem(const Graph& graph, const Cluster& cluster, const Placement& placement);

// The device CPU-pinned ops go to: the cluster's fastest CPU, or kNoDevice without one
// (then nothing is pinned: a cluster of GPUs alone cannot run those ops anyway).
DeviceId cpuPinDevice(const Cluster& cluster);

// Moves every CPU-pinned op that is not on a CPU to cpuPinDevice(); returns how many
// moved. `placement` must have one entry per op.
int applyCpuPinning(const Graph& graph, const Cluster& cluster, Placement& placement);

} // namespace post
