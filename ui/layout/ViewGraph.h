#pragma once

#include "core/graph/Ids.h"

#include <QString>

#include <memory>
#include <utility>
#include <vector>

namespace post {

class ScopeTree;

// One box on screen: a single op, or a collapsed group of ops (a colocation group, a
// chain of ops that only feed each other, a closed name scope, or a series: many boxes of
// one open scope named alike but for a number, such as 200 unrolled time steps t0 … t199).
struct ViewNode {
    enum class Kind { Op, ColocationGroup, Chain, Scope, Series };
    Kind kind = Kind::Op;
    std::vector<OpId> ops; // the op, or the group's members in input order
    QString title;         // op name, or the group's name
    QString subtitle;      // op type, or "N ops"
    QString key;           // stable across rebuilds; names the group to expand later
    int scope = -1;        // Kind::Scope: the ScopeTree scope the box stands for; Series: the scope it is in
    int frame = -1;        // scope views: the open scope drawn around the box (ViewGraph::frames), -1 at the top

    bool isGroup() const { return kind != Kind::Op; }
};

// An open name scope or series, drawn as a frame around its boxes (scope views only).
struct ViewFrame {
    int scope = -1;           // in ViewGraph::scopes; -1 for a series
    int seriesParent = -1;    // a series: the scope whose boxes it holds
    std::vector<int> members; // a series: its member scopes (its op members are in `ops`)
    std::vector<OpId> ops;    // a series: every op in it
    int parent = -1;          // the frame around this one, -1 at the top
    QString key;              // "scope:" + the scope's path, as the box of the closed scope
    QString title;            // the scope's label below its parent
    QString subtitle;         // "N ops · time"
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
    // Scope views: the scope tree, the open scopes (sorted ids, the root included) and a
    // frame per open scope but the root.
    std::shared_ptr<const ScopeTree> scopes;
    std::vector<int> openScopes;
    std::vector<std::pair<int, QString>> openSeries; // (the scope holding it, its key)
    std::vector<ViewFrame> frames;

    bool isScoped() const { return scopes != nullptr; }
    int frameWithKey(const QString& key) const;
    int nodeWithKey(const QString& key) const;

    int nodeCount() const { return static_cast<int>(nodes.size()); }
};

} // namespace post
