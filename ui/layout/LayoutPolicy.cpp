#include "ui/layout/LayoutPolicy.h"

#include "core/graph/Graph.h"
#include "core/graph/ScopeTree.h"
#include "ui/layout/LayoutCost.h"
#include "ui/layout/ViewGraphBuilder.h"

namespace post {
namespace {

long long costOf(const ViewGraph& view)
{
    std::vector<std::pair<int, int>> edges;
    edges.reserve(view.edges.size());
    for (const ViewEdge& e : view.edges)
        edges.emplace_back(e.from, e.to);
    return estimateDotCost(view.nodeCount(), edges);
}

LayoutPlan makePlan(ViewGraph view)
{
    LayoutPlan plan;
    plan.cost = costOf(view);
    plan.engine = LayoutPolicy::engineFor(view.nodeCount(), plan.cost);
    plan.view = std::move(view);
    return plan;
}

} // namespace

LayoutEngine LayoutPolicy::engineFor(int nodeCount, long long cost)
{
    if (nodeCount <= kPlainDotMaxNodes && cost <= kPlainDotMaxCost)
        return LayoutEngine::Dot;
    if (nodeCount <= kFastDotMaxNodes && cost <= kFastDotMaxCost)
        return LayoutEngine::FastDot;
    return LayoutEngine::Sfdp;
}

LayoutEngine LayoutPolicy::engineForAsked(int nodeCount, long long cost)
{
    const LayoutEngine engine = engineFor(nodeCount, cost);
    if (engine == LayoutEngine::Sfdp && nodeCount <= kFastDotMaxNodes && cost <= kAskedFastDotMaxCost)
        return LayoutEngine::FastDot;
    return engine;
}

LayoutEngine LayoutPolicy::engineFor(const ViewGraph& view) { return engineFor(view.nodeCount(), costOf(view)); }

bool LayoutPolicy::groupsUsefully(const Graph& graph, const ScopeTree& scopes)
{
    if (scopes.scopeCount() < 2)
        return false;
    const std::vector<int> open = scopes.openWithin(kScopeBudget);
    const int boxes = scopes.visibleCount(open);
    // A first view of a box or two with no scope open below the root (PipeDream's node1 …
    // node921, each with its node/grad, are one series box) hides the whole graph behind a
    // click: draw groups instead.
    if (boxes < kScopeMinBoxes && open.size() < 2)
        return false;
    return static_cast<long long>(boxes) * kScopeShrink <= graph.opCount();
}

bool LayoutPolicy::prefersScopes(const Graph& graph, const ScopeTree& scopes)
{
    return graph.opCount() > kScopesAboveOps && groupsUsefully(graph, scopes);
}

std::shared_ptr<const ScopeTree> LayoutPolicy::scopeTree(const Graph& graph)
{
    auto byName = std::make_shared<const ScopeTree>(ScopeTree::build(graph));
    if (groupsUsefully(graph, *byName))
        return byName;
    std::optional<ScopeTree> byLayers = ScopeTree::buildByLayers(graph);
    if (byLayers && groupsUsefully(graph, *byLayers))
        return std::make_shared<const ScopeTree>(std::move(*byLayers));
    return byName;
}

LayoutPlan LayoutPolicy::scopedPlan(const Graph& graph, std::shared_ptr<const ScopeTree> scopes, std::vector<int> open,
                                    std::vector<std::pair<int, QString>> openSeries)
{
    return makePlan(ViewGraphBuilder::scoped(graph, std::move(scopes), std::move(open), std::move(openSeries)));
}

LayoutPlan LayoutPolicy::plan(const Graph& graph, Grouping grouping)
{
    if (grouping == Grouping::Groups || grouping == Grouping::Scopes)
        return makePlan(ViewGraphBuilder::grouped(graph));
    if (grouping == Grouping::Ops || graph.opCount() == 0) {
        LayoutPlan plan = makePlan(ViewGraphBuilder::opLevel(graph));
        plan.engine = engineForAsked(plan.view.nodeCount(), plan.cost); // "Every Op", asked for
        return plan;
    }
    if (graph.opCount() <= kGroupAboveOps) {
        LayoutPlan ops = makePlan(ViewGraphBuilder::opLevel(graph));
        if (ops.engine == LayoutEngine::Dot
            && (ops.view.nodeCount() <= kAlwaysOpsUpTo || ops.cost <= kShortEdgeCostPerNode * ops.view.nodeCount()))
            return ops;
        LayoutPlan groups = makePlan(ViewGraphBuilder::grouped(graph));
        // Grouping that barely shrinks the graph only hides detail.
        if (groups.view.nodeCount() * 5 > ops.view.nodeCount() * 4)
            return ops;
        return groups;
    }
    return makePlan(ViewGraphBuilder::grouped(graph));
}

LayoutPlan LayoutPolicy::plan(const Graph& graph, Grouping grouping, const QSet<QString>& expanded)
{
    LayoutPlan plan = LayoutPolicy::plan(graph, grouping);
    if (!plan.view.grouped || expanded.isEmpty())
        return plan;
    LayoutPlan open = makePlan(ViewGraphBuilder::grouped(graph, expanded));
    // Expanding a group of a layered drawing keeps it layered (a 2-op group expanded in a
    // 2,501-op graph switched the whole drawing to sfdp).
    if (plan.engine != LayoutEngine::Sfdp)
        open.engine = engineForAsked(open.view.nodeCount(), open.cost);
    return open;
}

} // namespace post
