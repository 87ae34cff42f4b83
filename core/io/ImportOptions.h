#pragma once

#include "core/graph/GraphBuilder.h"

#include <algorithm>
#include <cstdint>

namespace post {

struct ImportOptions {
    // Where an input gives only accelerator (GPU) times, CPU time = GPU time x this.
    // 10 matches the ratio MSR's inputs use for most nodes; see docs/formats.md.
    double cpuSlowdown = 10.0;
    // ONNX: the value given to the symbolic batch dimension (the leading dim of the graph
    // inputs) before shape inference; must be >= 1. Other formats carry fixed costs.
    std::int64_t batch = 1;
};

// A CPU time an input does not give, from its GPU time: x cpuSlowdown, capped at
// GraphBuilder's bound, so that a GPU time within the bounds is never refused as a CPU time
// the file never wrote (the GPU time itself is checked where it is read).
inline double derivedCpuTimeUs(double gpuUs, const ImportOptions& options)
{
    return std::min(gpuUs * options.cpuSlowdown, GraphBuilder::kMaxTimeUs);
}

} // namespace post
