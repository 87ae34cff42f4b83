#pragma once

#include "ui/layout/ViewGraph.h"

#include <QSet>
#include <QString>

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

} // namespace ViewGraphBuilder
} // namespace post
