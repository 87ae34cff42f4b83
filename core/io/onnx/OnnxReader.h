#pragma once

#include "core/cost/CostModel.h"
#include "core/cost/ShapedGraph.h"
#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <string>
#include <string_view>

namespace post {

// ONNX models (.onnx, a serialized ModelProto), read with the ONNX library: checked, the
// symbolic batch dimension pinned to options.batch, shapes inferred, shape arithmetic
// folded, parameters taken from the initializers (docs/importers.md, "ONNX").
// Throws InputError naming `source` and the node ("node 12 'conv1' (Conv)").
ShapedGraph readOnnxShapedGraph(std::string_view content, const std::string& source, const ImportOptions& options = {});

// The same model as one training step (buildTrainingGraph with default cost options).
Graph parseOnnxGraph(std::string_view content, const std::string& source, const ImportOptions& options = {},
                     CostReport* report = nullptr);

// The training step with what the user should know: warnings (a batch the export's fixed
// dimensions do not take), notes (an inference export, weights taken from inputs), the
// unresolved dimensions and tensors left without a shape, and where the first is made.
ImportedGraph importOnnxGraph(std::string_view content, const std::string& source, const ImportOptions& options = {});

// True if `content` parses as a ModelProto with a non-empty graph (format sniffing).
bool looksLikeOnnxModel(std::string_view content);

} // namespace post
