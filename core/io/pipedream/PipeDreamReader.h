#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"

#include <string>
#include <string_view>

namespace post {

// PipeDream profiler output (graph.txt): node lines
//   nodeN -- <description> -- forward_compute_time=F, backward_compute_time=B, activation_size=A, parameter_size=P[ -- stage_id=S]
// and TAB-indented edge lines "nodeX -- nodeY". Expanded into one training step by
// TrainingStepBuilder (see docs/importers.md). Throws InputError naming the line.
Graph parsePipeDreamGraph(std::string_view text, const std::string& source, const ImportOptions& options);

} // namespace post
