#include "ui/layout/LayoutCost.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace post {

long long estimateDotCost(int nodeCount, const std::vector<std::pair<int, int>>& edges)
{
    const int n = nodeCount;
    std::vector<int> indegree(static_cast<size_t>(n), 0);
    std::vector<std::vector<int>> out(static_cast<size_t>(n));
    for (auto [from, to] : edges) {
        if (from < 0 || to < 0 || from >= n || to >= n || from == to)
            continue;
        out[static_cast<size_t>(from)].push_back(to);
        ++indegree[static_cast<size_t>(to)];
    }
    // Longest-path levels (Kahn); nodes left on cycles keep level 0, dot reverses one
    // edge of each cycle anyway.
    std::vector<int> level(static_cast<size_t>(n), 0);
    std::vector<int> ready;
    for (int v = 0; v < n; ++v)
        if (indegree[static_cast<size_t>(v)] == 0)
            ready.push_back(v);
    while (!ready.empty()) {
        const int v = ready.back();
        ready.pop_back();
        for (int w : out[static_cast<size_t>(v)]) {
            level[static_cast<size_t>(w)] = std::max(level[static_cast<size_t>(w)], level[static_cast<size_t>(v)] + 1);
            if (--indegree[static_cast<size_t>(w)] == 0)
                ready.push_back(w);
        }
    }
    long long cost = n;
    for (auto [from, to] : edges) {
        if (from < 0 || to < 0 || from >= n || to >= n)
            continue;
        const int span = std::abs(level[static_cast<size_t>(to)] - level[static_cast<size_t>(from)]);
        cost += std::max(0, span - 1);
    }
    return cost;
}

} // namespace post
