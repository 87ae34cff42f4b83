#include "core/io/json/JsonOutput.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace post {

using nlohmann::ordered_json;

ordered_json JsonOutput::number(double value)
{
    // JSON has no infinity or NaN: nlohmann would write null, which every reader refuses, so
    // the file could not be read back. Readers bound every figure so this does not happen.
    if (!std::isfinite(value))
        throw std::domain_error("a non-finite number (" + std::to_string(value) + ") cannot be written as JSON");
    // Below 2^53 every integer is exact in a double, so the integer text reads back equal.
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9007199254740992.0)
        return static_cast<std::int64_t>(value);
    return value;
}

std::string JsonOutput::inlineText(const ordered_json& value)
{
    // One dump() per value (each call sets up a serializer, too slow to do per field),
    // then a space after every ':' and ',' outside strings. Invalid UTF-8 in names from
    // other importers is replaced rather than thrown on.
    const std::string compact = value.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
    std::string text;
    text.reserve(compact.size() + compact.size() / 8);
    bool inString = false;
    for (size_t i = 0; i < compact.size(); ++i) {
        const char c = compact[i];
        text += c;
        if (inString) {
            if (c == '\\')
                text += compact[++i];
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == ':' || c == ',') {
            text += ' ';
        }
    }
    return text;
}

std::string JsonOutput::document(const ordered_json& root)
{
    if (!root.is_object())
        return inlineText(root) + "\n";
    std::string text = "{\n";
    for (auto it = root.begin(); it != root.end(); ++it) {
        text += "  " + inlineText(it.key()) + ": ";
        const ordered_json& value = it.value();
        if (value.is_array() && !value.empty()) {
            text += "[\n";
            for (size_t i = 0; i < value.size(); ++i)
                text += "    " + inlineText(value[i]) + (i + 1 < value.size() ? ",\n" : "\n");
            text += "  ]";
        } else if (value.is_object() && value.size() > 4) {
            text += "{\n";
            for (auto m = value.begin(); m != value.end(); ++m)
                text += "    " + inlineText(m.key()) + ": " + inlineText(m.value())
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
