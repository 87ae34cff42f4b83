#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// Post Studio's placement format, "post-placement/1" (see docs/formats.md): every op of
// `graph` mapped to a device of `cluster`. Throws InputError naming `source` and the
// field at fault: an unknown op or device, an op left unplaced, a split colocation group.
Placement parsePlacement(std::string_view text, const std::string& source, const Graph& graph, const Cluster& cluster);
Placement readPlacementFile(const std::string& path, const Graph& graph, const Cluster& cluster);

// `placement` must give every op a device of `cluster` (std::invalid_argument otherwise).
// `modules`, when not empty, holds each op's PyTorch module path (none for some ops) and is
// written as the optional "modules" object (docs/pytorch.md).
std::string placementJson(const Graph& graph, const Cluster& cluster, const Placement& placement,
                          const std::vector<std::optional<std::string>>& modules = {});

} // namespace post
