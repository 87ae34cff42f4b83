#pragma once

#include "core/cluster/Cluster.h"

#include <string>
#include <string_view>

namespace post {

// Post Studio's cluster format, "post-cluster/1" (see docs/formats.md).
// Throws InputError naming `source` and the line/column or field at fault.
Cluster parseCluster(std::string_view text, const std::string& source);
Cluster readClusterFile(const std::string& path);

// Writes `cluster` as post-cluster/1: links equal to the default link are left out and
// pairs with the same link both ways are written once with "bidirectional": true.
std::string clusterJson(const Cluster& cluster);

} // namespace post
