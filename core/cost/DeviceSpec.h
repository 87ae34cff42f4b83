#pragma once

namespace post {

// Roofline figures of the device that a graph's `time_us[kind]` refers to (speed 1.0).
// time = max(flops / (peakFlops * computeEfficiency), bytes / (memoryBandwidth * memoryEfficiency))
//        + launch overhead.
struct DeviceSpec {
    double peakFlops = 0.0;            // FLOP/s
    double memoryBandwidth = 0.0;      // bytes/s
    double computeEfficiency = 0.5;    // share of peak a real kernel reaches
    double tensorCoreEfficiency = 0.5; // the same at a tensor-core peak (cost/OpTime.h)
    double memoryEfficiency = 0.3;
    // The same for a streaming element-wise kernel (OpCost::streaming: one read of each
    // input, one write, coalesced), which gets closer to the bandwidth than a multi-pass one.
    double streamingMemoryEfficiency = 0.9;
    double launchOverheadUs = 0.0; // fixed per-op cost
};

} // namespace post
