#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"

#include <string>
#include <string_view>
#include <vector>

namespace post {

// PipeDream profiler output (graph.txt): node lines
//   nodeN -- <description> -- forward_compute_time=F, backward_compute_time=B, activation_size=A, parameter_size=P[ -- stage_id=S]
// and TAB-indented edge lines "nodeX -- nodeY". Expanded into one training step by
// TrainingStepBuilder (see docs/importers.md). Throws InputError naming the line. Where
// `warnings` is given it gets what makes the graph doubtful: nodes that no edge joins to the
// others in a file with edges (a file cut short at a line's end reads so).
Graph parsePipeDreamGraph(std::string_view text, const std::string& source, const ImportOptions& options,
                          std::vector<std::string>* warnings = nullptr);

} // namespace post
