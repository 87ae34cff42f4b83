#pragma once

#include "core/graph/Ids.h"

#include <span>
#include <vector>

namespace post {

class Graph;

struct CriticalPath {
    double lengthUs = 0.0;
    std::vector<OpId> ops; // from a source to a sink
};

// Longest path through the graph when op i takes opTimeUs[i] and transfers are free.
CriticalPath criticalPath(const Graph& graph, std::span<const double> opTimeUs);

} // namespace post
