#pragma once

#include "ui/layout/LayoutEngine.h"
#include "ui/layout/ViewGraph.h"

#include <QSet>
#include <QString>

#include <memory>
#include <vector>

namespace post {

class Graph;
class ScopeTree;

// Whether the view shows every op, groups (one box per colocation group / chain) or name
// scopes (TensorBoard's view: one box per closed scope, a frame per open one).
enum class Grouping { Auto, Ops, Groups, Scopes };

// What to draw and how to lay it out.
struct LayoutPlan {
    ViewGraph view;
    LayoutEngine engine = LayoutEngine::Dot;
    long long cost = 0; // estimateDotCost of the view
};

// Picks the view and the Graphviz engine so a layout stays within a couple of seconds.
// Measured on this project's machine (2 cores, Graphviz 2.42; see bench_layout):
//   synthetic short-edge graphs: plain dot 1.3 s at 500 nodes, 33-85 s at 2,000;
//     dot nslimit=0 mclimit=0.1 0.2 s / 0.9 s / 12 s at 500 / 2,000 / 10,000;
//     sfdp 0.07 / 0.3 / 2.4 s.
//   real training steps have long forward-to-backward edges, so node count alone misleads:
//     ResNet-18 (141 ops, cost 4,600): dot 50 s, fast dot 1.3 s, sfdp 0.1 s;
//     grouped by layer (71 boxes, cost 71): dot 0.01 s.
struct LayoutPolicy {
    static constexpr int kPlainDotMaxNodes = 400;
    static constexpr long long kPlainDotMaxCost = 2000; // about a second with plain dot
    static constexpr int kFastDotMaxNodes = 2500;
    static constexpr long long kFastDotMaxCost = 6000; // about 1.5 s with fast dot
    // Auto grouping always groups graphs with more ops than this.
    static constexpr int kGroupAboveOps = 2000;
    // Auto keeps every op when dot is fast and edges are mostly short (cost per node at
    // most this); long edges (a training step's forward-to-backward ones) make a tangle.
    static constexpr int kShortEdgeCostPerNode = 2;
    // ... but a graph this small reads fine op by op whatever its edges.
    static constexpr int kAlwaysOpsUpTo = 40;

    // Auto draws graphs of more ops than this by name scope, when their names have scopes
    // that make the first view at least kScopeShrink times smaller than the graph, and
    // either open a scope below the root or show at least kScopeMinBoxes boxes.
    static constexpr int kScopesAboveOps = 300;
    static constexpr int kScopeShrink = 3;
    static constexpr int kScopeMinBoxes = 4;
    // The boxes a scope view opens with (ScopeTree::openWithin).
    static constexpr int kScopeBudget = 40;

    static LayoutEngine engineFor(int nodeCount, long long cost);
    // What the user asked for by hand (Every Op, a group expanded) keeps a layered drawing up
    // to this cost (about 4-5 s of fast dot): sfdp's hairball loses the dataflow the user
    // wanted to see, and a wait of a few seconds is what the request costs.
    static constexpr long long kAskedFastDotMaxCost = 3 * kFastDotMaxCost;
    static LayoutEngine engineForAsked(int nodeCount, long long cost);
    static LayoutEngine engineFor(const ViewGraph& view);
    // Whether the scopes' first view (openWithin kScopeBudget) groups the graph: at least
    // kScopeShrink times fewer boxes than ops, and a scope open below the root or at least
    // kScopeMinBoxes boxes.
    static bool groupsUsefully(const Graph& graph, const ScopeTree& scopes);
    // Whether Auto draws the graph by scope: more than kScopesAboveOps ops, grouped usefully.
    static bool prefersScopes(const Graph& graph, const ScopeTree& scopes);
    // The scopes the view groups by: the name scopes, or where they group nothing usefully
    // (flat names: MSR's "MatMul12", "Add4"), the layers found in the graph's structure
    // (ScopeTree::buildByLayers) when those do. For any thread.
    static std::shared_ptr<const ScopeTree> scopeTree(const Graph& graph);
    // The scope view with `open` open (the root always is).
    static LayoutPlan scopedPlan(const Graph& graph, std::shared_ptr<const ScopeTree> scopes, std::vector<int> open,
                                 std::vector<std::pair<int, QString>> openSeries = {});
    // Auto: the op-level view when plain dot handles it quickly and the graph is small or
    // its edges short; otherwise the grouped view, if grouping actually shrinks the graph.
    static LayoutPlan plan(const Graph& graph, Grouping grouping);
    // As above; when that draws groups, the groups keyed in `expanded` are drawn op by op.
    static LayoutPlan plan(const Graph& graph, Grouping grouping, const QSet<QString>& expanded);
};

} // namespace post
