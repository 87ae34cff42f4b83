#include "core/util/TextNumber.h"

#include <charconv>

namespace post {

std::string_view trimBlanks(std::string_view text)
{
    constexpr std::string_view blanks = " \t\r\n";
    const auto begin = text.find_first_not_of(blanks);
    if (begin == std::string_view::npos)
        return {};
    const auto end = text.find_last_not_of(blanks);
    return text.substr(begin, end - begin + 1);
}

std::optional<double> parseDecimal(std::string_view text)
{
    text = trimBlanks(text);
    if (text.empty())
        return std::nullopt;
    // from_chars rejects a leading '+', which people do write.
    if (text.front() == '+')
        text.remove_prefix(1);
    double value = 0.0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end)
        return std::nullopt;
    return value;
}

} // namespace post
