#pragma once

#include "core/cost/CostModel.h"
#include "core/graph/Graph.h"

namespace post {

// A training step (from buildTrainingGraph) with the optimizer's update ops added: one
// ApplyAdam per op that owns parameters, fed by that op's backward op ("NAME/grad") with
// the weight gradient (the parameter's bytes) and colocated with it, as TensorFlow
// colocates an update with its variable. Adam reads the parameter, its gradient and both
// moments and writes the parameter and the moments: 7 x 4 bytes and 12 FLOPs per fp32
// element, timed by the roofline of `options`. The update owns no parameter bytes (the
// simulator's optimizer-state factor already holds the moments). Ops and edges of
// `training` keep their ids; the updates come after them.
Graph withAdamUpdates(const Graph& training, const CostModelOptions& options = {});

} // namespace post
