#include "ui/layout/GraphvizLayout.h"

#include "core/io/dot/CgraphLock.h"

#include <QElapsedTimer>
#include <QLineF>

#include <gvc.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace post {
namespace {

constexpr double kPointsPerInch = 72.0;
// The blank cluster label's font size: dot keeps about this many points above a frame's
// boxes for the header the view draws.
constexpr const char* kFrameHeaderFontSize = "16";

// cgraph's API takes char* for names it never modifies.
char* cstr(const char* s) { return const_cast<char*>(s); }

void setGraphAttr(Agraph_t* g, const char* name, const char* value) { agattr(g, AGRAPH, cstr(name), cstr(value)); }

// The process's one Graphviz context, made on first use (under cgraphMutex) and never freed.
// A context per layout was freed after each one, and with it the font names its label sizing
// had made; Graphviz 2.42's pango plugin keeps a pointer to the last font name it used and
// compared the next layout's against the freed one (ASan: heap-use-after-free in strcmp
// under textspan_size, from the frames' blank labels).
GVC_t* graphvizContext()
{
    static GVC_t* const gvc = gvContext();
    return gvc;
}

// Owns a graph on the process's context, freeing the layout first as Graphviz requires.
struct GraphvizSession {
    GVC_t* gvc = graphvizContext();
    Agraph_t* graph = agopen(cstr("layout"), Agdirected, nullptr);
    bool laidOut = false;

    ~GraphvizSession()
    {
        if (laidOut)
            gvFreeLayout(gvc, graph);
        agclose(graph);
    }
};

// Where the segment from the centre of `rect` towards `outside` leaves the rect.
QPointF borderPoint(const QRectF& rect, const QPointF& outside)
{
    const QPointF c = rect.center();
    const QPointF d = outside - c;
    if (d.isNull())
        return c;
    const double sx = d.x() != 0 ? (rect.width() / 2) / std::abs(d.x()) : 1e300;
    const double sy = d.y() != 0 ? (rect.height() / 2) / std::abs(d.y()) : 1e300;
    const double s = std::min({sx, sy, 1.0});
    return c + d * s;
}

// A straight route between two boxes (used when the engine drew no splines).
EdgeRoute straightRoute(const QRectF& from, const QRectF& to)
{
    const QPointF a = borderPoint(from, to.center());
    const QPointF tip = borderPoint(to, from.center());
    QLineF line(a, tip);
    const double arrow = std::min(8.0, line.length() / 2);
    line.setLength(std::max(0.0, line.length() - arrow));
    const QPointF b = line.p2();
    EdgeRoute route;
    route.bezier = {a, a + (b - a) / 3, a + (b - a) * 2 / 3, b};
    route.arrowTip = tip;
    return route;
}

void configure(Agraph_t* g, LayoutEngine engine)
{
    setGraphAttr(g, "rankdir", "TB");
    setGraphAttr(g, "nodesep", "0.3");
    setGraphAttr(g, "ranksep", "0.45");
    if (engine == LayoutEngine::FastDot) {
        setGraphAttr(g, "nslimit", "0");
        setGraphAttr(g, "mclimit", "0.1");
    }
    if (engine == LayoutEngine::Sfdp) {
        setGraphAttr(g, "overlap", "prism");
        setGraphAttr(g, "splines", "false");
    }
    agattr(g, AGNODE, cstr("shape"), cstr("box"));
    agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(g, AGNODE, cstr("label"), cstr(""));
    agattr(g, AGNODE, cstr("width"), cstr("1"));
    agattr(g, AGNODE, cstr("height"), cstr("0.5"));
    agattr(g, AGEDGE, cstr("arrowsize"), cstr("0.8"));
    agattr(g, AGEDGE, cstr("dir"), cstr("forward"));
}

} // namespace

LayoutResult runGraphvizLayout(const LayoutInput& input, const std::function<bool()>& shouldStop)
{
    QElapsedTimer timer;
    timer.start();
    LayoutResult result;
    result.requestId = input.requestId;
    result.engine = input.engine;
    auto stopped = [&] {
        if (shouldStop && shouldStop()) {
            result.status = LayoutResult::Status::Cancelled;
            return true;
        }
        return false;
    };
    if (stopped())
        return result;
    if (input.nodeCount() == 0) {
        result.elapsedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        return result;
    }

    std::lock_guard lock(cgraphMutex());
    GraphvizSession session;
    Agraph_t* g = session.graph;
    configure(g, input.engine);

    std::vector<Agnode_t*> nodes;
    nodes.reserve(input.nodeSizes.size());
    for (int i = 0; i < input.nodeCount(); ++i) {
        char name[24];
        std::snprintf(name, sizeof name, "n%d", i);
        Agnode_t* n = agnode(g, name, 1);
        const QSizeF size = input.nodeSizes[static_cast<size_t>(i)];
        agset(n, cstr("width"), cstr(std::to_string(size.width() / kPointsPerInch).c_str()));
        agset(n, cstr("height"), cstr(std::to_string(size.height() / kPointsPerInch).c_str()));
        nodes.push_back(n);
    }
    std::vector<Agedge_t*> edges;
    edges.reserve(input.edges.size());
    for (auto [from, to] : input.edges) {
        if (from < 0 || to < 0 || from >= input.nodeCount() || to >= input.nodeCount()) {
            result.status = LayoutResult::Status::Failed;
            result.error = QStringLiteral("edge to a node that does not exist");
            return result;
        }
        edges.push_back(agedge(g, nodes[static_cast<size_t>(from)], nodes[static_cast<size_t>(to)], nullptr, 1));
    }
    // Frames as nested clusters, parents first; a blank label keeps room for the header the
    // view draws.
    std::vector<Agraph_t*> clusters;
    if (input.engine != LayoutEngine::Sfdp && !input.frameParent.empty()
        && input.nodeFrame.size() == input.nodeSizes.size()) {
        for (size_t f = 0; f < input.frameParent.size(); ++f) {
            const int parent = input.frameParent[f];
            char name[32];
            std::snprintf(name, sizeof name, "cluster_%zu", f);
            Agraph_t* within = parent >= 0 && static_cast<size_t>(parent) < f ? clusters[static_cast<size_t>(parent)] : g;
            Agraph_t* sub = agsubg(within, name, 1);
            agsafeset(sub, cstr("label"), cstr(" "), cstr(""));
            agsafeset(sub, cstr("fontsize"), cstr(kFrameHeaderFontSize), cstr("14"));
            clusters.push_back(sub);
        }
        for (size_t i = 0; i < nodes.size(); ++i) {
            const int f = input.nodeFrame[i];
            if (f >= 0 && static_cast<size_t>(f) < clusters.size())
                agsubnode(clusters[static_cast<size_t>(f)], nodes[i], 1);
        }
    }
    for (int e : input.twoWayEdges)
        if (e >= 0 && e < static_cast<int>(edges.size()))
            agset(edges[static_cast<size_t>(e)], cstr("dir"), cstr("both"));
    if (stopped())
        return result;

    const char* engineName = input.engine == LayoutEngine::Sfdp ? "sfdp" : "dot";
    if (gvLayout(session.gvc, g, engineName) != 0) {
        result.status = LayoutResult::Status::Failed;
        result.error = QStringLiteral("Graphviz %1 could not lay the graph out").arg(QLatin1String(engineName));
        return result;
    }
    session.laidOut = true;
    if (stopped())
        return result;

    // Graphviz has y up in points; the scene has y down with the box's top left at 0.
    const boxf bb = GD_bb(g);
    auto toScene = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
    result.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    result.nodeRects.reserve(nodes.size());
    for (Agnode_t* n : nodes) {
        const double w = ND_width(n) * kPointsPerInch;
        const double h = ND_height(n) * kPointsPerInch;
        const QPointF c = toScene(ND_coord(n));
        result.nodeRects.emplace_back(c.x() - w / 2, c.y() - h / 2, w, h);
    }
    result.edges.reserve(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
        const splines* spl = ED_spl(edges[i]);
        EdgeRoute route;
        if (spl && spl->size > 0 && spl->list[0].size >= 4) {
            for (int b = 0; b < spl->size; ++b) {
                const bezier& bz = spl->list[b];
                for (int p = (b == 0 ? 0 : 1); p < bz.size; ++p)
                    route.bezier.push_back(toScene(bz.list[p]));
            }
            const bezier& last = spl->list[spl->size - 1];
            route.arrowTip = last.eflag ? toScene(last.ep) : route.bezier.back();
            const bezier& first = spl->list[0];
            route.tailArrow = first.sflag != 0;
            route.tailTip = first.sflag ? toScene(first.sp) : route.bezier.front();
        } else {
            const auto [from, to] = input.edges[i];
            route = straightRoute(result.nodeRects[static_cast<size_t>(from)], result.nodeRects[static_cast<size_t>(to)]);
            if (std::find(input.twoWayEdges.begin(), input.twoWayEdges.end(), static_cast<int>(i))
                != input.twoWayEdges.end()) {
                // Shorten the start too, for the tail's arrowhead.
                QLineF line(route.bezier.front(), route.bezier.back());
                const double arrow = std::min(8.0, line.length() / 3);
                route.tailArrow = true;
                route.tailTip = line.p1();
                line.setP1(line.pointAt(arrow / std::max(line.length(), 1.0)));
                const QPointF a = line.p1(), b = line.p2();
                route.bezier = {a, a + (b - a) / 3, a + (b - a) * 2 / 3, b};
            }
        }
        result.edges.push_back(std::move(route));
    }
    if (!clusters.empty()) {
        for (Agraph_t* sub : clusters) {
            const boxf fb = GD_bb(sub);
            const QPointF a = toScene(fb.LL), b = toScene(fb.UR);
            result.frameRects.emplace_back(QRectF(a, b).normalized());
        }
    } else {
        result.frameRects.assign(input.frameParent.size(), QRectF());
    }
    // Sfdp ignores bounding boxes for straight edges drawn outside nodes; include everything.
    for (const QRectF& r : result.nodeRects)
        result.bounds = result.bounds.united(r);
    result.elapsedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return result;
}

} // namespace post
