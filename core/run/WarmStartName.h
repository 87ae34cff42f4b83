#pragma once

#include <optional>
#include <string_view>

namespace post {

// The one parse of LEARNER@PLACER ("post@m-sct", "post@best"): the text before the first '@'
// and the text after it. nullopt for a name without '@'. Whether the parts name a learner and
// a classical placer (or "best") is the registry's to say (makePlacer(), placerDescription()).
struct WarmStartName {
    std::string_view learner;
    std::string_view starter;
};
inline std::optional<WarmStartName> splitWarmStartName(std::string_view name)
{
    const auto at = name.find('@');
    if (at == std::string_view::npos)
        return std::nullopt;
    return WarmStartName{name.substr(0, at), name.substr(at + 1)};
}

} // namespace post
