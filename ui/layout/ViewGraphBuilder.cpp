#include "ui/layout/ViewGraphBuilder.h"

#include "core/graph/Graph.h"
#include "core/graph/ScopeTree.h"
#include "ui/util/Format.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <unordered_map>

namespace post::ViewGraphBuilder {
namespace {

ViewNode opNode(const Graph& graph, OpId id)
{
    const Op& op = graph.op(id);
    ViewNode node;
    node.kind = ViewNode::Kind::Op;
    node.ops = {id};
    node.title = QString::fromStdString(op.name);
    node.subtitle = QString::fromStdString(op.type);
    node.key = QStringLiteral("op:") + node.title;
    return node;
}

// Adds one edge per unordered node pair (self loops inside a group are dropped). Nodes
// are in topological order of their first op, so the lower index is the upstream box.
void addEdges(const Graph& graph, ViewGraph& view)
{
    std::unordered_map<long long, int> index;
    for (const Edge& e : graph.edges()) {
        const int from = view.nodeOfOp[static_cast<size_t>(e.from)];
        const int to = view.nodeOfOp[static_cast<size_t>(e.to)];
        if (from == to)
            continue;
        const int lo = std::min(from, to);
        const int hi = std::max(from, to);
        const long long key = static_cast<long long>(lo) * view.nodeCount() + hi;
        auto [it, inserted] = index.emplace(key, static_cast<int>(view.edges.size()));
        if (inserted) {
            view.edges.push_back(ViewEdge{from, to, e.bytes, 1, false});
        } else {
            ViewEdge& ve = view.edges[static_cast<size_t>(it->second)];
            ve.bytes += e.bytes;
            ++ve.opEdges;
            if (ve.from != from) {
                ve.twoWay = true;
                ve.from = lo;
                ve.to = hi;
            }
        }
    }
}

// "Conv2d · 2 ops": the most common type among the members, then the size.
QString groupSubtitle(const Graph& graph, const std::vector<OpId>& ops)
{
    std::map<std::string, int> count;
    for (OpId op : ops)
        ++count[graph.op(op).type];
    // Ties go to the type seen first, so a layer is named by its forward op.
    std::string best;
    int bestCount = 0;
    for (OpId op : ops) {
        const int c = count[graph.op(op).type];
        if (c > bestCount) {
            best = graph.op(op).type;
            bestCount = c;
        }
    }
    const QString size = QStringLiteral("%1 ops").arg(ops.size());
    return best.empty() ? size : QString::fromStdString(best) + QStringLiteral(" · ") + size;
}

int findRoot(std::vector<int>& parent, int x)
{
    while (parent[static_cast<size_t>(x)] != x) {
        parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
        x = parent[static_cast<size_t>(x)];
    }
    return x;
}

// The scope view of one scoped() call: open scopes are walked from the root; each shows its
// own ops and its child scopes as items, items named alike but for numbers gathered into
// series, each item then a box or (open) a frame holding its own items.
class ScopedView {
public:
    ScopedView(const Graph& graph, const ScopeTree& tree, const std::vector<int>& open,
               const std::vector<std::pair<int, QString>>& openSeries)
        : graph_(graph)
        , tree_(tree)
        , open_(open)
        , openSeries_(openSeries)
        , topoPos_(static_cast<size_t>(graph.opCount()))
    {
        int i = 0;
        for (OpId op : graph.topologicalOrder())
            topoPos_[static_cast<size_t>(op)] = i++;
    }

    ViewGraph build()
    {
        view_.grouped = true;
        view_.nodeOfOp.assign(static_cast<size_t>(graph_.opCount()), -1);
        std::vector<std::pair<int, int>> stack = {{ScopeTree::kRoot, -1}}; // (open scope, its frame)
        while (!stack.empty()) {
            const auto [s, frame] = stack.back();
            stack.pop_back();
            visit(s, frame, stack);
        }
        std::sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) { return a.first < b.first; });
        view_.nodes.reserve(pending_.size());
        for (Pending& p : pending_) {
            for (OpId op : p.node.ops)
                view_.nodeOfOp[static_cast<size_t>(op)] = view_.nodeCount();
            view_.nodes.push_back(std::move(p.node));
        }
        addEdges(graph_, view_);
        return std::move(view_);
    }

private:
    struct Pending {
        int first; // topological position of the first op
        ViewNode node;
    };
    // What one open scope holds: its own ops (scope -1) and its child scopes (op -1).
    struct Item {
        OpId op = -1;
        int scope = -1;
        QString label;
    };
    struct Placement {
        std::vector<int> frameOf; // per item: the frame it is drawn in
        std::vector<char> hidden; // per item: in a closed series box
    };

    bool isOpen(int s) const { return std::binary_search(open_.begin(), open_.end(), s); }
    bool seriesOpen(const QString& key) const
    {
        return std::any_of(openSeries_.begin(), openSeries_.end(), [&](const auto& p) { return p.second == key; });
    }
    int firstPosition(std::span<const OpId> ops) const
    {
        int first = std::numeric_limits<int>::max();
        for (OpId op : ops)
            first = std::min(first, topoPos_[static_cast<size_t>(op)]);
        return first;
    }
    // "N ops · time" (no time when the ops cost nothing, like shape ops and inputs).
    static QString figures(size_t ops, double us)
    {
        const QString count = QStringLiteral("%1 ops").arg(ops);
        return us > 0 ? count + QStringLiteral(" · ") + formatMicroseconds(us) : count;
    }
    QString subtitleOf(int s) const { return figures(static_cast<size_t>(tree_.opCount(s)), scopeComputeUs(tree_, s)); }
    // The op's name (as the tree groups it: ScopeTree::nameOf) below the open scope it is
    // drawn in.
    QString relativeName(OpId op, int within) const
    {
        if (within == ScopeTree::kRoot)
            return QString::fromStdString(std::string(tree_.nameOf(graph_, op)));
        if (tree_.scopeOf(op) == within)
            return QString::fromStdString(tree_.opLabel(graph_, op));
        std::string_view rest = tree_.nameOf(graph_, op);
        rest.remove_prefix(std::min(rest.size(), tree_.scope(within).path.size()));
        while (!rest.empty() && rest.front() == '/')
            rest.remove_prefix(1);
        return QString::fromUtf8(rest.data(), static_cast<int>(rest.size()));
    }

    void visit(int s, int frame, std::vector<std::pair<int, int>>& stack)
    {
        std::vector<Item> items;
        for (OpId op : tree_.scope(s).ops)
            items.push_back({op, -1, relativeName(op, s)});
        for (int c : tree_.scope(s).children)
            items.push_back({-1, c, QString::fromStdString(tree_.scope(c).label)});
        Placement placed{std::vector<int>(items.size(), frame), std::vector<char>(items.size(), 0)};
        gatherSeries(s, frame, items, placed);
        for (size_t i = 0; i < items.size(); ++i)
            if (!placed.hidden[i])
                placeItem(s, items[i], placed.frameOf[i], stack);
    }

    // Series: at least kSeriesMin items named alike but for numbers, one box ("t[0–199]": the
    // range of the first number that varies; "p2o.Conv.[0–61]": a number every member shares
    // is part of the name), or a frame around them when open.
    void gatherSeries(int s, int frame, const std::vector<Item>& items, Placement& placed)
    {
        std::map<std::string, std::vector<size_t>> alike;
        for (size_t i = 0; i < items.size(); ++i) {
            std::string pattern = ScopeTree::numberPattern(items[i].label.toStdString());
            if (pattern.find('#') != std::string::npos)
                alike[std::move(pattern)].push_back(i);
        }
        for (const auto& [pattern, members] : alike) {
            if (static_cast<int>(members.size()) < kSeriesMin)
                continue;
            const QString key = QStringLiteral("series:") + QString::fromStdString(tree_.scope(s).path)
                + QStringLiteral("/") + QString::fromStdString(pattern);
            std::vector<std::string> names;
            std::vector<int> memberScopes;
            std::vector<OpId> ops;
            for (size_t i : members) {
                names.push_back(items[i].label.toStdString());
                if (items[i].scope >= 0) {
                    memberScopes.push_back(items[i].scope);
                    const std::span<const OpId> below = tree_.opsBelow(items[i].scope);
                    ops.insert(ops.end(), below.begin(), below.end());
                } else {
                    ops.push_back(items[i].op);
                }
            }
            const std::vector<std::string_view> views(names.begin(), names.end());
            const QString title = QString::fromStdString(ScopeTree::seriesTitle(views));
            double us = 0.0, cpuUs = 0.0;
            for (OpId op : ops) {
                us += graph_.op(op).time(DeviceKind::Gpu);
                cpuUs += graph_.op(op).time(DeviceKind::Cpu);
            }
            const QString subtitle = QStringLiteral("%1× · ").arg(members.size())
                + figures(ops.size(), us > 0 ? us : cpuUs);
            if (seriesOpen(key)) {
                ViewFrame f;
                f.parent = frame;
                f.seriesParent = s;
                f.members = std::move(memberScopes);
                f.ops = std::move(ops);
                f.key = key;
                f.title = title;
                f.subtitle = subtitle;
                view_.frames.push_back(std::move(f));
                for (size_t i : members)
                    placed.frameOf[i] = static_cast<int>(view_.frames.size()) - 1;
                continue;
            }
            ViewNode node;
            node.kind = ViewNode::Kind::Series;
            node.scope = s; // the scope whose boxes it gathers
            const int first = firstPosition(ops);
            node.ops = std::move(ops);
            node.title = title;
            node.subtitle = subtitle;
            node.key = key;
            node.frame = frame;
            pending_.push_back({first, std::move(node)});
            for (size_t i : members)
                placed.hidden[i] = 1;
        }
    }

    // An op's box; a child scope's box, or its frame (pushed on `stack`) when open.
    void placeItem(int s, const Item& item, int within, std::vector<std::pair<int, int>>& stack)
    {
        if (item.op >= 0) {
            ViewNode node = opNode(graph_, item.op);
            node.title = item.label;
            node.frame = within;
            pending_.push_back({topoPos_[static_cast<size_t>(item.op)], std::move(node)});
            return;
        }
        const int c = item.scope;
        const std::span<const OpId> below = tree_.opsBelow(c);
        const int first = firstPosition(below);
        const QString key = QStringLiteral("scope:") + QString::fromStdString(tree_.scope(c).path);
        if (isOpen(c) && below.size() > 1) {
            ViewFrame f;
            f.scope = c;
            f.parent = within;
            f.key = key;
            f.title = item.label;
            f.subtitle = subtitleOf(c);
            view_.frames.push_back(std::move(f));
            stack.emplace_back(c, static_cast<int>(view_.frames.size()) - 1);
            return;
        }
        ViewNode node;
        if (below.size() == 1) {
            node = opNode(graph_, below.front());
            node.title = relativeName(below.front(), s);
        } else {
            node.kind = ViewNode::Kind::Scope;
            node.ops.assign(below.begin(), below.end());
            node.title = item.label;
            node.subtitle = subtitleOf(c);
            node.key = key;
            node.scope = c;
        }
        node.frame = within;
        pending_.push_back({first, std::move(node)});
    }

    const Graph& graph_;
    const ScopeTree& tree_;
    const std::vector<int>& open_;
    const std::vector<std::pair<int, QString>>& openSeries_;
    std::vector<int> topoPos_;
    ViewGraph view_;
    std::vector<Pending> pending_;
};

} // namespace

ViewGraph opLevel(const Graph& graph)
{
    ViewGraph view;
    view.nodes.reserve(static_cast<size_t>(graph.opCount()));
    view.nodeOfOp.resize(static_cast<size_t>(graph.opCount()));
    for (OpId id = 0; id < graph.opCount(); ++id) {
        view.nodeOfOp[static_cast<size_t>(id)] = id;
        view.nodes.push_back(opNode(graph, id));
    }
    addEdges(graph, view);
    return view;
}

ViewGraph grouped(const Graph& graph, const QSet<QString>& expanded)
{
    const int n = graph.opCount();
    // Union-find over ops: colocation groups first, then chains of free ops.
    std::vector<int> parent(static_cast<size_t>(n));
    std::iota(parent.begin(), parent.end(), 0);
    auto unite = [&](int a, int b) { parent[static_cast<size_t>(findRoot(parent, a))] = findRoot(parent, b); };

    std::vector<int> firstOfGroup(static_cast<size_t>(graph.colocationGroupCount()), -1);
    for (OpId id = 0; id < n; ++id) {
        const int g = graph.colocationGroup(id);
        if (g < 0)
            continue;
        int& first = firstOfGroup[static_cast<size_t>(g)];
        if (first < 0)
            first = id;
        else
            unite(id, first);
    }
    for (const Edge& e : graph.edges()) {
        if (graph.colocationGroup(e.from) >= 0 || graph.colocationGroup(e.to) >= 0)
            continue;
        if (graph.outEdges(e.from).size() == 1 && graph.inEdges(e.to).size() == 1)
            unite(e.from, e.to);
    }

    // Members per root, in input order.
    std::vector<std::vector<OpId>> members(static_cast<size_t>(n));
    for (OpId id = 0; id < n; ++id)
        members[static_cast<size_t>(findRoot(parent, id))].push_back(id);

    ViewGraph view;
    view.grouped = true;
    view.nodeOfOp.assign(static_cast<size_t>(n), -1);
    // Nodes in topological order of their first member, so the layout input is stable.
    for (OpId id : graph.topologicalOrder()) {
        const int root = findRoot(parent, id);
        if (view.nodeOfOp[static_cast<size_t>(id)] >= 0)
            continue;
        const std::vector<OpId>& ops = members[static_cast<size_t>(root)];
        ViewNode node;
        node.ops = ops;
        const int g = graph.colocationGroup(ops.front());
        if (g >= 0) {
            node.kind = ViewNode::Kind::ColocationGroup;
            node.title = QString::fromStdString(graph.colocationGroupName(g));
            node.key = QStringLiteral("group:") + node.title;
        } else {
            node.kind = ViewNode::Kind::Chain;
            // A chain's members are joined head to tail, so the topologically first is its head.
            node.title = QString::fromStdString(graph.op(id).name);
            node.key = QStringLiteral("chain:") + node.title;
        }
        if (ops.size() == 1 || expanded.contains(node.key)) {
            for (OpId m : ops) {
                view.nodeOfOp[static_cast<size_t>(m)] = view.nodeCount();
                view.nodes.push_back(opNode(graph, m));
            }
            continue;
        }
        for (OpId m : ops)
            view.nodeOfOp[static_cast<size_t>(m)] = view.nodeCount();
        node.subtitle = groupSubtitle(graph, ops);
        view.nodes.push_back(std::move(node));
    }
    addEdges(graph, view);
    return view;
}

double scopeComputeUs(const ScopeTree& scopes, int scope)
{
    const auto& t = scopes.scope(scope).timeUs;
    const double gpu = t[static_cast<size_t>(DeviceKind::Gpu)];
    return gpu > 0 ? gpu : t[static_cast<size_t>(DeviceKind::Cpu)];
}

ViewGraph scoped(const Graph& graph, std::shared_ptr<const ScopeTree> scopes, std::vector<int> open,
                 std::vector<std::pair<int, QString>> openSeries)
{
    std::sort(open.begin(), open.end());
    open.erase(std::unique(open.begin(), open.end()), open.end());
    if (open.empty() || open.front() != ScopeTree::kRoot)
        open.insert(open.begin(), ScopeTree::kRoot);
    ScopedView builder(graph, *scopes, open, openSeries);
    ViewGraph view = builder.build();
    // Only the series that are drawn open stay open.
    std::vector<std::pair<int, QString>> shownSeries;
    for (const ViewFrame& f : view.frames)
        if (f.scope < 0)
            shownSeries.emplace_back(f.seriesParent, f.key);
    view.scopes = std::move(scopes);
    view.openScopes = std::move(open);
    view.openSeries = std::move(shownSeries);
    return view;
}

} // namespace post::ViewGraphBuilder

namespace post {

int ViewGraph::frameWithKey(const QString& key) const
{
    for (size_t i = 0; i < frames.size(); ++i)
        if (frames[i].key == key)
            return static_cast<int>(i);
    return -1;
}

int ViewGraph::nodeWithKey(const QString& key) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].key == key)
            return static_cast<int>(i);
    return -1;
}

} // namespace post
