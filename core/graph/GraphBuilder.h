#pragma once

#include "core/graph/Graph.h"

#include <string>
#include <string_view>

namespace post {

// Collects ops and edges, then validates and freezes them into a Graph.
// Throws GraphError naming the op(s) at fault.
class GraphBuilder {
public:
    // Larger costs are refused: far beyond any real model, and small enough that sums over
    // millions of ops, or a transfer over the slowest allowed link, stay finite.
    static constexpr double kMaxTimeUs = 1e15; // ~32 years for one op
    static constexpr double kMaxBytes = 1e24;  // a yottabyte
    static constexpr int kMaxCollectiveRanks = 1 << 20;

    explicit GraphBuilder(std::string name = {});

    // Rejects duplicate names, names, types and colocation groups that are not valid UTF-8,
    // and negative, non-finite or absurdly large costs.
    OpId addOp(Op op);
    void addEdge(OpId from, OpId to, double bytes);
    // An edge by op names; a negative `bytes` means "the producer's output_bytes".
    void addEdge(std::string_view from, std::string_view to, double bytes = -1.0);

    std::optional<OpId> find(std::string_view opName) const;
    Op& op(OpId id) { return graph_.ops_[static_cast<size_t>(id)]; }
    int opCount() const { return static_cast<int>(graph_.ops_.size()); }
    void reserve(size_t ops, size_t edges);

    // Validates (acyclic: the error names ops on a cycle; a graph name in UTF-8) and returns the graph.
    Graph build() &&;

private:
    void buildAdjacency();
    void buildTopologicalOrder();
    void buildColocationGroups();
    void buildDeviceTypes();

    Graph graph_;
};

// `graph` with its ops replaced by `ops` (one per op, in its order: the same ops with other
// times, groups or marks) and its edges kept, validated again as build() validates.
Graph withOps(const Graph& graph, std::vector<Op> ops);

} // namespace post
