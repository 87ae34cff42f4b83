#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"

#include <optional>
#include <string>
#include <string_view>

namespace post {

// Graphviz DOT (a digraph), parsed by cgraph. Costs come from node attributes time_us_gpu,
// time_us_cpu (alias time_us), output_bytes, param_bytes, colocate, type and the edge
// attribute bytes; or, when node labels carry PipeDream's "[forward_compute_time=...]"
// statistics (pipedream graph.dot), the graph becomes the same training step as the
// graph.txt reader builds. Mapping: docs/importers.md. Throws InputError.
Graph parseDotGraph(std::string_view text, const std::string& source, const ImportOptions& options);

// For a DOT graph in which no op has any cost (no time, FLOPs or memory traffic), the
// warning that says so and names the attributes that give costs; nullopt otherwise.
std::optional<std::string> dotMissingCostWarning(const Graph& graph);

} // namespace post
