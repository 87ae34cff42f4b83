#pragma once

#include "core/graph/Ids.h"

#include <span>
#include <vector>

namespace post {

class Graph;

// The graph's ops merged into placement units: each colocation group is one unit and
// every free op is a unit of its own. Units are numbered in the topological order of
// their first op, so walking units 0..n-1 follows the graph's topological order.
class OpGroups {
public:
    explicit OpGroups(const Graph& graph);

    int unitCount() const { return static_cast<int>(unitOffsets_.size()) - 1; }
    int unitOf(OpId op) const { return unitOf_[static_cast<size_t>(op)]; }
    // The unit's ops in topological order; the first is where the unit "falls".
    std::span<const OpId> ops(int unit) const;

private:
    std::vector<int> unitOf_;
    std::vector<int> unitOffsets_;
    std::vector<OpId> unitOps_;
};

} // namespace post
