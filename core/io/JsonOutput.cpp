#include "io/JsonOutput.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>

namespace post {

using nlohmann::ordered_json;

ordered_json JsonOutput::number(double value)
{
    // Below 2^53 every integer is exact in a double, so the integer text reads back equal.
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9007199254740992.0)
        return static_cast<std::int64_t>(value);
    return value;
}

std::string JsonOutput::inlineText(const ordered_json& value)
{
    if (value.is_object()) {
        std::string text = "{";
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (it != value.begin())
                text += ", ";
            text += ordered_json(it.key()).dump() + ": " + inlineText(it.value());
        }
        return text + "}";
    }
    if (value.is_array()) {
        std::string text = "[";
        for (size_t i = 0; i < value.size(); ++i)
            text += (i ? ", " : "") + inlineText(value[i]);
        return text + "]";
    }
    return value.dump();
}

std::string JsonOutput::document(const ordered_json& root)
{
    if (!root.is_object())
        return inlineText(root) + "\n";
    std::string text = "{\n";
    for (auto it = root.begin(); it != root.end(); ++it) {
        text += "  " + ordered_json(it.key()).dump() + ": ";
        const ordered_json& value = it.value();
        if (value.is_array() && !value.empty()) {
            text += "[\n";
            for (size_t i = 0; i < value.size(); ++i)
                text += "    " + inlineText(value[i]) + (i + 1 < value.size() ? ",\n" : "\n");
            text += "  ]";
        } else if (value.is_object() && value.size() > 4) {
            text += "{\n";
            for (auto m = value.begin(); m != value.end(); ++m)
                text += "    " + ordered_json(m.key()).dump() + ": " + inlineText(m.value())
                    + (std::next(m) != value.end() ? ",\n" : "\n");
            text += "  }";
        } else {
            text += inlineText(value);
        }
        text += std::next(it) != root.end() ? ",\n" : "\n";
    }
    return text + "}\n";
}

} // namespace post
