#pragma once

#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <string>
#include <string_view>

namespace post {

// TensorFlow GraphDef text format (.pbtxt; mapping in docs/importers.md): nodes through
// the cost model's ShapedGraph into one training step (buildTrainingGraph), or op for op
// when the file already is a training graph; `device` fields as the given placement.
// Throws InputError(source, "line N", ...).
ImportedGraph parsePbtxtGraph(std::string_view text, const std::string& source, const ImportOptions& options = {});

} // namespace post
