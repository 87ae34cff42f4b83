#pragma once

#include "graph/DeviceKind.h"

#include <limits>
#include <string>

namespace post {

struct Device {
    std::string name; // TensorFlow style, e.g. "/device:GPU:0"
    DeviceKind kind = DeviceKind::Gpu;
    double speed = 1.0; // an op takes time_us[kind] / speed here
    double memoryBytes = std::numeric_limits<double>::infinity();
};

} // namespace post
