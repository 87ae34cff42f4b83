#pragma once

#include <optional>
#include <string_view>

namespace post {

// Parses a whole decimal number (surrounding blanks allowed, nothing else): "12", "-3.5e2".
// Returns nullopt for anything else, including an empty string. "nan" and "inf" parse,
// so callers still check std::isfinite.
std::optional<double> parseDecimal(std::string_view text);

// Trims blanks (space, tab, CR, LF) from both ends.
std::string_view trimBlanks(std::string_view text);

} // namespace post
