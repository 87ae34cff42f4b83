#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace post {

// Helpers for the writers of Post Studio's JSON formats (for their .cpp files).
class JsonOutput {
public:
    // Integral values become JSON integers ("4000000", not "4000000.0"); others keep
    // the shortest text that reads back to the same double. Throws std::domain_error for
    // infinity and NaN (JSON has neither; nlohmann would write null, unreadable back).
    static nlohmann::ordered_json number(double value);

    // One top-level field per line and one array element per line, everything deeper
    // inline: long graphs stay readable and diff well.
    static std::string document(const nlohmann::ordered_json& root);

    // A value on one line with a space after ':' and ','.
    static std::string inlineText(const nlohmann::ordered_json& value);
};

} // namespace post
