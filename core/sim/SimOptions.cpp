#include "core/sim/SimOptions.h"

#include "core/graph/Graph.h"

#include <algorithm>
#include <cctype>

namespace post {

namespace {

bool namesAdam(const std::string& type)
{
    std::string lower(type);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower.find("adam") != std::string::npos;
}

} // namespace

double optimizerStateFactor(const Graph& graph, const SimOptions& options)
{
    if (options.optimizerStateFactor)
        return *options.optimizerStateFactor;
    const bool adam = std::any_of(graph.ops().begin(), graph.ops().end(),
                                  [](const Op& op) { return namesAdam(op.type); });
    return adam ? 4.0 : 3.0;
}

SimOptions resolvedFor(const Graph& graph, SimOptions options)
{
    options.optimizerStateFactor = optimizerStateFactor(graph, options);
    return options;
}

} // namespace post
