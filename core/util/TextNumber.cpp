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

std::string withThousands(long long value)
{
    // Digits of the magnitude, as unsigned: -LLONG_MIN does not fit a long long.
    const unsigned long long magnitude = value < 0 ? 0ULL - static_cast<unsigned long long>(value)
                                                   : static_cast<unsigned long long>(value);
    const std::string digits = std::to_string(magnitude);
    std::string out = value < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

} // namespace post
