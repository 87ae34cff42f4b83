#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <string>

namespace post {

// Plain-text exports of a placement for other tools (see docs/formats.md). `placement`
// must give every op a device of `cluster` (std::invalid_argument otherwise).

// CSV (RFC 4180) with the header "op,device" and one row per op in graph order.
std::string placementCsv(const Graph& graph, const Cluster& cluster, const Placement& placement);

// One "op<TAB>/job:localhost/replica:0/task:0/device:GPU:0" line per op, for setting
// devices in a TensorFlow graph.
std::string placementTensorFlow(const Graph& graph, const Cluster& cluster, const Placement& placement);

// The full TensorFlow name of a device: TensorFlow-style names ("/device:GPU:1") get the
// local-job prefix, names already starting "/job:" are kept, and any other name becomes
// "/device:<KIND>:<n>" with n counting devices of that kind in cluster order.
std::string tensorFlowDeviceName(const Cluster& cluster, DeviceId device);

} // namespace post
