#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <string>
#include <string_view>

namespace post {

// Post Studio's placement format, "post-placement/1" (see docs/formats.md): every op of
// `graph` mapped to a device of `cluster`. Throws InputError naming `source` and the
// field at fault: an unknown op or device, an op left unplaced, a split colocation group.
Placement parsePlacement(std::string_view text, const std::string& source, const Graph& graph, const Cluster& cluster);
Placement readPlacementFile(const std::string& path, const Graph& graph, const Cluster& cluster);

// `placement` must give every op a device of `cluster` (std::invalid_argument otherwise).
std::string placementJson(const Graph& graph, const Cluster& cluster, const Placement& placement);

} // namespace post
