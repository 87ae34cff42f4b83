#pragma once

#include "core/cluster/Cluster.h"

#include <optional>
#include <string>
#include <vector>

namespace post {

// Clusters shipped with Post Studio (resources/clusters/*.json, compiled in; the
// numbers and their sources are in docs/clusters.md). Sorted by name.
std::vector<std::string> clusterPresetNames();
std::optional<std::string> clusterPresetJson(const std::string& name);

// A preset name, else a post-cluster/1 file path. Throws InputError listing the preset
// names when `nameOrPath` is neither.
Cluster loadCluster(const std::string& nameOrPath);

} // namespace post
