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
std::optional<std::string> placementProblem(const Graph& graph, const Cluster& cluster, const Placement& placement);

} // namespace post
