#pragma once
// Whether a graph says anything of memory: a graph whose ops and edges carry no bytes at all
// (a Chakra trace, which gives no tensor sizes; a DOT graph without sizes) has a peak memory of
// 0 B in every placement and never runs out, which is no finding: the CLI and Post Studio say
// "unknown" there instead of "0 B" and "fits memory".

#include "core/graph/Graph.h"

#include <algorithm>

namespace post {

inline bool hasMemorySizes(const Graph& graph)
{
    const auto sized = [](const Op& op) { return op.outputBytes > 0.0 || op.paramBytes > 0.0 || op.residentBytes > 0.0; };
    return std::any_of(graph.ops().begin(), graph.ops().end(), sized)
        || std::any_of(graph.edges().begin(), graph.edges().end(), [](const Edge& e) { return e.bytes > 0.0; });
}

} // namespace post
