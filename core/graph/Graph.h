#pragma once

#include "core/graph/Edge.h"
#include "core/graph/Ids.h"
#include "core/graph/Op.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace post {

class GraphBuilder;

// An immutable, validated (acyclic) op graph with compact adjacency arrays (CSR)
// so the simulator's hot loop walks flat memory. Build one with GraphBuilder.
class Graph {
public:
    Graph() = default;

    const std::string& name() const { return name_; }
    int opCount() const { return static_cast<int>(ops_.size()); }
    int edgeCount() const { return static_cast<int>(edges_.size()); }

    std::span<const Op> ops() const { return ops_; }
    const Op& op(OpId id) const { return ops_[static_cast<size_t>(id)]; }
    std::span<const Edge> edges() const { return edges_; }
    const Edge& edge(EdgeId id) const { return edges_[static_cast<size_t>(id)]; }

    std::optional<OpId> find(std::string_view opName) const;

    // Edge ids entering / leaving an op, in input order.
    std::span<const EdgeId> inEdges(OpId id) const;
    std::span<const EdgeId> outEdges(OpId id) const;

    // Kahn order; among ops ready together the one listed first in the input comes first.
    std::span<const OpId> topologicalOrder() const { return topo_; }

    // Colocation: group index per op (-1 when free) and the group names.
    int colocationGroupCount() const { return static_cast<int>(groupNames_.size()); }
    int colocationGroup(OpId id) const { return groupOf_[static_cast<size_t>(id)]; }
    const std::string& colocationGroupName(int group) const { return groupNames_[static_cast<size_t>(group)]; }

    // Ops pinned to a CPU: cpuOnly ones and every op sharing a colocation group with one,
    // in OpId order.
    std::span<const OpId> cpuPinnedOps() const { return pinned_; }
    bool isCpuPinned(OpId id) const { return pinnedFlag_[static_cast<size_t>(id)] != 0; }

    // The device types some op has a time for (Op::typedTimes), sorted; empty for a graph
    // timed per kind only.
    std::span<const std::string> deviceTypes() const { return deviceTypes_; }
    bool hasTypedTimes() const { return !deviceTypes_.empty(); }

    double totalTimeUs(DeviceKind kind) const;
    double totalParamBytes() const;
    double totalResidentBytes() const;

private:
    friend class GraphBuilder;

    std::string name_;
    std::vector<Op> ops_;
    std::vector<Edge> edges_;
    std::unordered_map<std::string, OpId> index_;
    std::vector<EdgeId> inOffsets_, inList_, outOffsets_, outList_;
    std::vector<OpId> topo_;
    std::vector<int> groupOf_;
    std::vector<std::string> groupNames_;
    std::vector<OpId> pinned_;
    std::vector<char> pinnedFlag_;
    std::vector<std::string> deviceTypes_;
};

} // namespace post
