#include "core/graph/DeviceKind.h"

namespace post {

std::string_view toString(DeviceKind kind) { return kind == DeviceKind::Cpu ? "cpu" : "gpu"; }

std::optional<DeviceKind> parseDeviceKind(std::string_view text)
{
    if (text == "cpu" || text == "CPU")
        return DeviceKind::Cpu;
    if (text == "gpu" || text == "GPU")
        return DeviceKind::Gpu;
    return std::nullopt;
}

} // namespace post
