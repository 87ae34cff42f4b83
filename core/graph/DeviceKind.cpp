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

std::string deviceTypeProblem(std::string_view text)
{
    constexpr size_t kMaxLength = 64;
    std::string quoted(1, '"');
    quoted.append(text.substr(0, kMaxLength));
    quoted.push_back('"');
    if (text.empty())
        return "a device type must not be empty";
    if (text.size() > kMaxLength)
        return "device type " + quoted + "... is longer than 64 characters";
    auto allowed = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    };
    for (char c : text)
        if (!allowed(c))
            return "device type " + quoted
                + " may hold only lower-case letters, digits, '.', '_' and '-' (e.g. \"v100\", \"xeon-8380\")";
    if (!((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= '0' && text[0] <= '9')))
        return "device type " + quoted + " must start with a letter or digit";
    if (text == "cpu" || text == "gpu")
        return "device type " + quoted + " is a device kind: name the model (e.g. \"v100\", \"xeon-8380\")";
    if (text.starts_with("x-"))
        return "device type " + quoted + " starts with \"x-\", which marks extension keys";
    return {};
}

} // namespace post
