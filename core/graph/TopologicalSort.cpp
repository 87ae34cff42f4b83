#include "core/graph/TopologicalSort.h"

#include <algorithm>

namespace post {

TopologicalSort topologicalSort(const std::vector<std::vector<int>>& successors)
{
    const std::size_t n = successors.size();
    std::vector<int> indegree(n, 0);
    for (const auto& next : successors)
        for (int v : next)
            ++indegree[static_cast<std::size_t>(v)];
    TopologicalSort result;
    result.order.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        if (indegree[i] == 0)
            result.order.push_back(static_cast<int>(i));
    for (std::size_t head = 0; head < result.order.size(); ++head)
        for (int v : successors[static_cast<std::size_t>(result.order[head])])
            if (--indegree[static_cast<std::size_t>(v)] == 0)
                result.order.push_back(v);
    if (result.order.size() == n)
        return result;

    // Every node left with indegree > 0 lies on or downstream of a cycle. Walk backwards
    // along unresolved predecessors until a node repeats: that loop is a cycle.
    std::vector<std::vector<int>> predecessors(n);
    for (std::size_t u = 0; u < n; ++u)
        for (int v : successors[u])
            if (indegree[static_cast<std::size_t>(v)] > 0 && indegree[u] > 0)
                predecessors[static_cast<std::size_t>(v)].push_back(static_cast<int>(u));
    int cur = 0;
    while (indegree[static_cast<std::size_t>(cur)] == 0)
        ++cur;
    std::vector<int> seenAt(n, -1);
    std::vector<int> path;
    while (seenAt[static_cast<std::size_t>(cur)] < 0) {
        seenAt[static_cast<std::size_t>(cur)] = static_cast<int>(path.size());
        path.push_back(cur);
        cur = predecessors[static_cast<std::size_t>(cur)].front(); // a node left over has one
    }
    result.cycle.assign(path.begin() + seenAt[static_cast<std::size_t>(cur)], path.end());
    std::reverse(result.cycle.begin(), result.cycle.end());
    return result;
}

std::string describeCycle(const std::vector<int>& cycle, const std::function<std::string(int)>& name, std::size_t shown)
{
    if (cycle.empty())
        return {};
    std::string text;
    const std::size_t count = std::min(cycle.size(), shown);
    for (std::size_t i = 0; i < count; ++i)
        text.append("'").append(name(cycle[i])).append("' -> ");
    if (count < cycle.size())
        text.append("... (").append(std::to_string(cycle.size() - count)).append(" more) -> ");
    return text.append("'").append(name(cycle.front())).append("'");
}

} // namespace post
