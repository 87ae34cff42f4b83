#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace post {

// The kinds of device an op's profiled time can be given for. Times per kind are
// for a device of speed 1.0; a device's own `speed` divides them.
enum class DeviceKind : std::uint8_t { Cpu = 0, Gpu = 1 };

inline constexpr int kDeviceKindCount = 2;

std::string_view toString(DeviceKind kind);
std::optional<DeviceKind> parseDeviceKind(std::string_view text);

} // namespace post
