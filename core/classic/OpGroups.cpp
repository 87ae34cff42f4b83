#include "core/classic/OpGroups.h"

#include "core/graph/Graph.h"

namespace post {

OpGroups::OpGroups(const Graph& graph)
    : unitOf_(static_cast<size_t>(graph.opCount()), -1)
{
    std::vector<int> unitOfGroup(static_cast<size_t>(graph.colocationGroupCount()), -1);
    int units = 0;
    for (OpId op : graph.topologicalOrder()) {
        const int g = graph.colocationGroup(op);
        if (g < 0) {
            unitOf_[static_cast<size_t>(op)] = units++;
            continue;
        }
        int& u = unitOfGroup[static_cast<size_t>(g)];
        if (u < 0)
            u = units++;
        unitOf_[static_cast<size_t>(op)] = u;
    }
    // Counting sort by unit keeps each unit's ops in topological order.
    unitOffsets_.assign(static_cast<size_t>(units) + 1, 0);
    for (int u : unitOf_)
        ++unitOffsets_[static_cast<size_t>(u) + 1];
    for (size_t i = 0; i < static_cast<size_t>(units); ++i)
        unitOffsets_[i + 1] += unitOffsets_[i];
    unitOps_.resize(unitOf_.size());
    std::vector<int> fill(unitOffsets_.begin(), unitOffsets_.end() - 1);
    for (OpId op : graph.topologicalOrder())
        unitOps_[static_cast<size_t>(fill[static_cast<size_t>(unitOf(op))]++)] = op;
}

std::span<const OpId> OpGroups::ops(int unit) const
{
    const auto b = static_cast<size_t>(unitOffsets_[static_cast<size_t>(unit)]);
    const auto e = static_cast<size_t>(unitOffsets_[static_cast<size_t>(unit) + 1]);
    return {unitOps_.data() + b, e - b};
}

} // namespace post
