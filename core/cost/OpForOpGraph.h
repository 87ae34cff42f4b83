#pragma once

#include "core/cost/CostModel.h"

namespace post {

// A ShapedGraph that already is a training step (a TensorFlow graph with its gradient
// and optimizer ops) as a Graph, op for op, without adding backward ops: times from the
// cost model's roofline, edge bytes from tensor shapes (unknown sizes count as 1), a
// parameter's bytes on the first op that reads it. Gradient ops of convolutions and
// pooling are costed as the forward op they mirror (docs/importers.md).
Graph buildOpForOpGraph(const ShapedGraph& graph, const CostModelOptions& options = {}, CostReport* report = nullptr);

} // namespace post
