#pragma once

#include <functional>
#include <string>
#include <vector>

namespace post {

// The one topological sort of the project (Kahn's algorithm): graphs, forward graphs of
// the cost model, profiles and importers all order their nodes with it.
//
// Nodes are 0..n-1; `successors[u]` lists the nodes that must come after u (duplicates
// count as that many edges). The ready nodes form a FIFO seeded in index order, so the
// order is deterministic and stays close to the input's own order.
struct TopologicalSort {
    std::vector<int> order; // every node when the graph is acyclic
    // Empty when acyclic; otherwise one cycle, in edge order: cycle[i] -> cycle[i + 1] ->
    // ... -> cycle.back() -> cycle.front().
    std::vector<int> cycle;

    bool acyclic() const { return cycle.empty(); }
};

TopologicalSort topologicalSort(const std::vector<std::vector<int>>& successors);

// "'a' -> 'b' -> 'a'" for a cycle as topologicalSort gives it, at most `shown` names before
// "... (N more)".
std::string describeCycle(const std::vector<int>& cycle, const std::function<std::string(int)>& name,
                          std::size_t shown = 12);

} // namespace post
