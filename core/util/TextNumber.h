#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace post {

// Parses a whole decimal number (surrounding blanks allowed, nothing else): "12", "-3.5e2".
// Returns nullopt for anything else, including an empty string. "nan" and "inf" parse,
// so callers still check std::isfinite.
std::optional<double> parseDecimal(std::string_view text);

// Trims blanks (space, tab, CR, LF) from both ends.
std::string_view trimBlanks(std::string_view text);

// A whole number with thousands separators, as the import notes write counts: "-1,234,567".
std::string withThousands(long long value);

} // namespace post
