#pragma once

#include "core/sim/SimOptions.h"

#include "core/run/ComparisonRunner.h"

#include <string>

namespace post {

// The placement a file gives (an expert's, e.g. TensorFlow `device` fields) as a
// comparison row named "given": one simulated run, so it reads like a deterministic
// placer's row. Throws InputError(source, "given placement", ...) when the placement does
// not fit the graph and cluster.
ComparisonRow givenPlacementRow(const Graph& graph, const Cluster& cluster, const Placement& given,
                                const std::string& source, const SimOptions& sim = {});

} // namespace post
