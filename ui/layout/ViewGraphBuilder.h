#pragma once

#include "core/graph/ScopeTree.h"
#include "ui/layout/ViewGraph.h"

#include <QSet>
#include <QString>

#include <memory>
#include <utility>
#include <vector>

namespace post {

class Graph;

// Builds what the graph view draws from a Graph.
namespace ViewGraphBuilder {

// One node per op, one edge per distinct (from, to) pair.
ViewGraph opLevel(const Graph& graph);

// One node per colocation group and per chain of free ops (an op with a single consumer
// followed by an op with a single producer), so very large graphs stay readable. Groups
// whose key is in `expanded` are drawn op by op instead (expand-a-group).
ViewGraph grouped(const Graph& graph, const QSet<QString>& expanded = {});

// By name scope (TensorBoard's view): each open scope (sorted ids of `scopes`; the root is
// always open) is a frame around its own ops and its child scopes, each closed child a box
// ("layer_3", "N ops · time"; a scope of one op is drawn as that op). At least
// kSeriesMin ops and child scopes of one scope named alike but for numbers (t0 … t199) are
// one series box ("t[0–199]"), unless its key is in `openSeries`: then a frame around them.
// Titles are relative to the frame they are drawn in. Nodes come in topological order of
// their first op.
constexpr int kSeriesMin = ScopeTree::kSeriesMin;
ViewGraph scoped(const Graph& graph, std::shared_ptr<const ScopeTree> scopes, std::vector<int> open,
                 std::vector<std::pair<int, QString>> openSeries = {});

// The compute of a scope box's subtitle: time on a speed-1 GPU (a CPU for CPU-only graphs).
double scopeComputeUs(const ScopeTree& scopes, int scope);

} // namespace ViewGraphBuilder
} // namespace post
