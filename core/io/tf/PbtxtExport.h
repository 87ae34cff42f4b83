#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <string>
#include <string_view>

namespace post {

// `text` (a GraphDef .pbtxt that `graph` was imported from) with every node's `device`
// set from `placement`, written as tensorFlowDeviceName() gives it. Every other byte is
// kept: an existing device value is replaced in place, a missing one is inserted after
// the node's `op` field. Nodes that are not ops take their anchor op's device
// (TfShapedImport::anchorOfNode: a variable goes with the ops colocated with it, else
// with the first op reading it); a node of a type without a GPU kernel
// (tfOpHasNoGpuKernel: RestoreV2, queues, ...) gets the cluster's CPU; any other node
// with no anchor keeps its device. So the result runs in TensorFlow without soft
// placement when `placement` passes placementProblem(). Backward ops need no mapping: they are colocated with
// their forward ops. Throws InputError for text that does not parse and
// std::invalid_argument when `placement` does not fit `graph` and `cluster`.
std::string pbtxtWithPlacement(std::string_view text, const std::string& source, const Graph& graph,
                               const Cluster& cluster, const Placement& placement);

} // namespace post
