#pragma once

#include "core/graph/DeviceKind.h"

#include <limits>
#include <string>

namespace post {

struct Device {
    std::string name; // TensorFlow style, e.g. "/device:GPU:0"
    DeviceKind kind = DeviceKind::Gpu;
    double speed = 1.0; // an op takes time_us[kind] / speed here
    double memoryBytes = std::numeric_limits<double>::infinity();
    // Roofline figures (0 = unknown). When both are known and an op carries its FLOPs or
    // memory bytes, the op's time here is its roofline time (opTimeUs in cost/OpTime.h)
    // rather than time_us[kind] / speed.
    double peakFlops = 0.0;       // FP32 FLOP/s
    double memoryBandwidth = 0.0; // bytes/s
};

} // namespace post
