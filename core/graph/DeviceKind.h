#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace post {

// The kinds of device an op's profiled time can be given for. Times per kind are
// for a device of speed 1.0; a device's own `speed` divides them.
enum class DeviceKind : std::uint8_t { Cpu = 0, Gpu = 1 };

inline constexpr int kDeviceKindCount = 2;

std::string_view toString(DeviceKind kind);
std::optional<DeviceKind> parseDeviceKind(std::string_view text);

// A device type names one model of device ("v100", "t4", "xeon-8380": docs/clusters.md, "Device
// types"): lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most
// 64 characters, and neither a kind name ("cpu", "gpu") nor an "x-" extension key, since an
// op's time_us holds times per type and per kind side by side. Returns why `text` is not one
// (empty when it is).
std::string deviceTypeProblem(std::string_view text);

} // namespace post
