#include "core/io/pipedream/PipeDreamStats.h"

#include "core/graph/GraphBuilder.h"
#include "core/util/InputError.h"
#include "core/util/TextNumber.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace post {
namespace {

constexpr std::array<std::string_view, 4> kKeys = {"forward_compute_time", "backward_compute_time", "activation_size",
                                                   "parameter_size"};

double parseAmount(std::string_view key, std::string_view value, const std::string& source, const std::string& location)
{
    value = trimBlanks(value);
    auto number = parseDecimal(value);
    if (!number)
        throw InputError(source, location, std::string(key) + ": '" + std::string(value) + "' is not a number");
    if (!std::isfinite(*number))
        throw InputError(source, location,
                         std::string(key) + " must be a finite number, got '" + std::string(value) + "'");
    if (*number < 0.0)
        throw InputError(source, location, std::string(key) + " must be >= 0, got " + std::string(value));
    // Times are milliseconds, sizes bytes: GraphBuilder's bounds, as the file writes them.
    const bool time = key.ends_with("_time");
    const double limit = time ? GraphBuilder::kMaxTimeUs / 1000.0 : GraphBuilder::kMaxBytes;
    if (*number > limit) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", limit);
        throw InputError(source, location,
                         std::string(key) + " must be at most " + text + (time ? " (ms)" : "") + ", got "
                             + std::string(value));
    }
    return *number;
}

// "[a; b; c]" -> a + b + c (LSTM layers report one size per output tensor); PipeDream's
// graph.dot writes the same list as Python does, "[a, b, c]".
double parseActivation(std::string_view value, const std::string& source, const std::string& location)
{
    value = trimBlanks(value);
    if (value.empty() || value.front() != '[')
        return parseAmount("activation_size", value, source, location);
    if (value.back() != ']')
        throw InputError(source, location, "activation_size: list '" + std::string(value) + "' lacks its closing ']'");
    std::string_view items = value.substr(1, value.size() - 2);
    double sum = 0.0;
    while (true) {
        const auto semi = items.find_first_of(";,");
        sum += parseAmount("activation_size", items.substr(0, semi), source, location);
        if (semi == std::string_view::npos)
            break;
        items.remove_prefix(semi + 1);
    }
    if (sum > GraphBuilder::kMaxBytes)
        throw InputError(source, location,
                         "activation_size: the list '" + std::string(value) + "' adds up to more than 1e+24");
    return sum;
}

} // namespace

PipeDreamStats parsePipeDreamStats(std::string_view text, const std::string& source, const std::string& location)
{
    PipeDreamStats stats;
    std::array<bool, kKeys.size()> seen{};
    while (!text.empty()) {
        // A comma inside [...] separates list items, not statistics.
        std::size_t comma = 0;
        for (int depth = 0; comma < text.size(); ++comma) {
            if (text[comma] == '[')
                ++depth;
            else if (text[comma] == ']' && depth > 0)
                --depth;
            else if (text[comma] == ',' && depth == 0)
                break;
        }
        if (comma == text.size())
            comma = std::string_view::npos;
        const std::string_view item = trimBlanks(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw InputError(source, location, "expected key=value, got '" + std::string(item) + "'");
        const std::string_view key = trimBlanks(item.substr(0, eq));
        const std::string_view value = item.substr(eq + 1);
        size_t k = 0;
        while (k < kKeys.size() && kKeys[k] != key)
            ++k;
        if (k == kKeys.size())
            continue; // later profiler versions may add keys
        if (seen[k])
            throw InputError(source, location, std::string(key) + " is given twice");
        seen[k] = true;
        switch (k) {
        case 0:
            stats.forwardMs = parseAmount(key, value, source, location);
            break;
        case 1:
            stats.backwardMs = parseAmount(key, value, source, location);
            break;
        case 2:
            stats.activationBytes = parseActivation(value, source, location);
            break;
        default:
            stats.parameterBytes = parseAmount(key, value, source, location);
            break;
        }
    }
    for (size_t k = 0; k < kKeys.size(); ++k)
        if (!seen[k])
            throw InputError(source, location, "missing " + std::string(kKeys[k]));
    return stats;
}

} // namespace post
