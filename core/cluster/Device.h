#pragma once

#include "core/graph/DeviceKind.h"
#include "core/graph/Precision.h"

#include <limits>
#include <string>

namespace post {

struct Device {
    std::string name; // TensorFlow style, e.g. "/device:GPU:0"
    DeviceKind kind = DeviceKind::Gpu;
    double speed = 1.0; // an op without a time for `type` takes time_us[kind] / speed here
    double memoryBytes = std::numeric_limits<double>::infinity();
    // Roofline figures (0 = unknown). When both are known and an op carries its FLOPs or
    // memory bytes, the op's time here is its roofline time (opTimeUs in cost/OpTime.h)
    // rather than time_us[kind] / speed.
    double peakFlops = 0.0;       // FP32 FLOP/s
    double memoryBandwidth = 0.0; // bytes/s
    // Tensor-core peaks (0 = none: the device falls back to the next one it has, then FP32).
    double peakTf32Flops = 0.0; // TF32 tensor-core FLOP/s (dense)
    double peakFp16Flops = 0.0; // FP16/BF16 tensor-core FLOP/s (dense)
    double peakInt8Ops = 0.0;   // INT8 tensor-core operations/s (dense)
    // How FP32 matrix products and convolutions run here (the cluster's "precision").
    PrecisionMode precision = PrecisionMode::Tf32;
    // The device's model ("v100", "t4", "xeon-8380"; empty = none): an op with a time for this
    // type (Op::typedTimes, time_us["v100"]) takes exactly that here (cost/OpTime.h). Last, so
    // that positional initialisers of the fields above keep working.
    std::string type{};
    // Clocks (MHz, 0 = not given; both or neither): the one the compute peaks above are quoted
    // at (the data sheet's boost clock) and the one the device holds under a training load. The
    // roofline scales every compute peak by sustained / quoted (docs/clusters.md, "Clocks"): a
    // GeForce card under GPU Boost runs well above its rated boost clock.
    double clockMHz = 0.0;
    double sustainedClockMHz = 0.0;
    // The roofline's efficiencies on this device (0 = the cost model's reference ones, cost/
    // CostModel.h): the share of the FP32 peak, of a tensor-core peak, of the bandwidth for a
    // multi-pass kernel and for a streaming element-wise one that its kernels reach. A GPU
    // generation whose kernels reach less than those the model was calibrated on (Hopper:
    // docs/clusters.md, "Efficiencies") says so here.
    double computeEfficiency = 0.0;
    double tensorCoreEfficiency = 0.0;
    double memoryEfficiency = 0.0;
    double streamingMemoryEfficiency = 0.0;

    // sustainedClockMHz / clockMHz, or 1 where either is not given.
    double clockScale() const { return clockMHz > 0.0 && sustainedClockMHz > 0.0 ? sustainedClockMHz / clockMHz : 1.0; }
};

} // namespace post
