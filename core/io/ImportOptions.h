#pragma once

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

} // namespace post
