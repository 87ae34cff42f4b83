#pragma once

#include "core/graph/Ids.h"

#include <QString>

#include <vector>

namespace post {

// One box on screen: a single op, or a collapsed group of ops (a colocation group or a
// chain of ops that only feed each other).
struct ViewNode {
    enum class Kind { Op, ColocationGroup, Chain };
    Kind kind = Kind::Op;
    std::vector<OpId> ops; // the op, or the group's members in input order
    QString title;         // op name, or the group's name
    QString subtitle;      // op type, or "N ops"
    QString key;           // stable across rebuilds; names the group to expand later

    bool isGroup() const { return kind != Kind::Op; }
};

// A connection between two boxes. Parallel op edges between two groups are merged, and
// so are opposite ones (a layer's forward output and its gradient coming back): those
// become one two-way edge, oriented from the earlier box to the later.
struct ViewEdge {
    int from = 0;
    int to = 0;
    double bytes = 0.0;
    int opEdges = 1;     // how many op-level edges it stands for
    bool twoWay = false; // data also flows from `to` back to `from`
};

// The graph as drawn: nodes, edges and the box each op lives in.
struct ViewGraph {
    std::vector<ViewNode> nodes;
    std::vector<ViewEdge> edges;
    std::vector<int> nodeOfOp; // indexed by OpId
    bool grouped = false;

    int nodeCount() const { return static_cast<int>(nodes.size()); }
};

} // namespace post
