#pragma once

namespace post {

struct ImportOptions {
    // Where an input gives only accelerator (GPU) times, CPU time = GPU time x this.
    // 10 matches the ratio MSR's inputs use for most nodes; see docs/formats.md.
    double cpuSlowdown = 10.0;
};

} // namespace post
