#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include "core/io/ImportedGraph.h"
#include "core/io/onnx/OnnxConstantFolder.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace post {

// The ops whose output size depends on the values they read (docs/importers.md, "Sizes that
// depend on the data"): NonZero (how many elements are nonzero: at most its input's element
// count) and NonMaxSuppression (how many boxes it keeps: at most batches x classes x
// min(boxes, max_output_boxes_per_class)). For each such node whose inputs' shapes the last
// inference left known and whose output has none, records it in `sizes` (once, by node) and
// gives its output the shape of the size `given` names for it or, with `atMost`, of the most it
// can give; a size above that most is refused. Returns how many outputs got a shape.
int shapeOnnxDataDependentSizes(onnx::GraphProto& graph, const std::vector<int>& fileIndex,
                                const OnnxConstantFolder& folder, const std::map<std::string, std::int64_t>& given,
                                bool atMost, const std::string& source, std::vector<DataDependentSize>& sizes);

// Refuses a size `given` names that no op of `sizes` is, listing those that are.
void checkOnnxGivenSizes(const std::map<std::string, std::int64_t>& given, const std::vector<DataDependentSize>& sizes,
                         const std::string& source);

} // namespace post
