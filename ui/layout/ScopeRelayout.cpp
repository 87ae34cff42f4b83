#include "ui/layout/ScopeRelayout.h"

#include <QHash>
#include <QLineF>

#include <algorithm>
#include <cmath>
#include <optional>

namespace post::ScopeRelayout {
namespace {

constexpr double kArrow = 8.0;
constexpr double kEps = 0.5;
// The least room a grown or shrunk frame keeps around its content (dot's clusters keep 8 pt).
constexpr double kInside = 2.0;

// How a box or frame at `r` moves when the block at `block` grows by (dx, dy) to the right
// and down (shrinks when negative): what lies below moves down (and right, when it is also
// right of the block); what lies right of it, level with it, moves right; the rest stays.
QPointF shift(const QRectF& r, const QRectF& block, double dx, double dy)
{
    const bool below = r.top() >= block.bottom() - kEps;
    const bool right = r.left() >= block.right() - kEps;
    if (below)
        return {right ? dx : 0.0, dy};
    if (right && r.bottom() > block.top() + kEps)
        return {dx, 0.0};
    return {};
}

QPointF borderPoint(const QRectF& rect, const QPointF& outside)
{
    const QPointF c = rect.center();
    const QPointF d = outside - c;
    if (d.isNull())
        return c;
    const double sx = d.x() != 0 ? (rect.width() / 2) / std::abs(d.x()) : 1e300;
    const double sy = d.y() != 0 ? (rect.height() / 2) / std::abs(d.y()) : 1e300;
    return c + d * std::min({sx, sy, 1.0});
}

EdgeRoute translated(const EdgeRoute& route, const QPointF& by)
{
    EdgeRoute out = route;
    for (QPointF& p : out.bezier)
        p += by;
    out.arrowTip += by;
    out.tailTip += by;
    return out;
}

LayoutResult failed()
{
    LayoutResult r;
    r.status = LayoutResult::Status::Failed;
    r.error = QStringLiteral("not a layout of this view");
    return r;
}

QString pairKey(const QString& a, const QString& b) { return a + QChar(0x1f) + b; }

struct Children {
    std::vector<std::vector<int>> nodes;  // by frame + 1 (0: the top)
    std::vector<std::vector<int>> frames; // by parent frame + 1
};

Children childrenOf(const ViewGraph& view)
{
    Children c;
    c.nodes.resize(view.frames.size() + 1);
    c.frames.resize(view.frames.size() + 1);
    for (size_t i = 0; i < view.nodes.size(); ++i)
        c.nodes[static_cast<size_t>(view.nodes[i].frame + 1)].push_back(static_cast<int>(i));
    for (size_t f = 0; f < view.frames.size(); ++f)
        c.frames[static_cast<size_t>(view.frames[f].parent + 1)].push_back(static_cast<int>(f));
    return c;
}

// The shared part of opened() and closed(): the old block (a box or a frame of `prev`) at
// `block` becomes `newSize` with its top left kept.
struct Moves {
    std::vector<QPointF> node;  // by prev node
    std::vector<QPointF> frame; // by prev frame
    std::vector<QRectF> grown;  // by prev frame: the new rect of a frame around the block (null: moved only)
};

Moves makeRoom(const ViewGraph& prev, const LayoutResult& layout, int blockNode, int blockFrame, const QSizeF& newSize)
{
    const Children children = childrenOf(prev);
    Moves m;
    m.node.assign(prev.nodes.size(), QPointF());
    m.frame.assign(prev.frames.size(), QPointF());
    m.grown.assign(prev.frames.size(), QRectF());
    auto moveFrame = [&](auto&& self, int f, const QPointF& by) -> void {
        m.frame[static_cast<size_t>(f)] += by;
        for (int n : children.nodes[static_cast<size_t>(f + 1)])
            m.node[static_cast<size_t>(n)] += by;
        for (int g : children.frames[static_cast<size_t>(f + 1)])
            self(self, g, by);
    };
    QRectF oldBlock = blockNode >= 0 ? layout.nodeRects[static_cast<size_t>(blockNode)]
                                     : layout.frameRects[static_cast<size_t>(blockFrame)];
    QRectF newBlock(oldBlock.topLeft(), newSize);
    int level = blockNode >= 0 ? prev.nodes[static_cast<size_t>(blockNode)].frame
                               : prev.frames[static_cast<size_t>(blockFrame)].parent;
    while (true) {
        const double dx = newBlock.right() - oldBlock.right();
        const double dy = newBlock.bottom() - oldBlock.bottom();
        QRectF content = newBlock;
        for (int n : children.nodes[static_cast<size_t>(level + 1)]) {
            if (n == blockNode)
                continue;
            const QRectF r = layout.nodeRects[static_cast<size_t>(n)];
            m.node[static_cast<size_t>(n)] += shift(r, oldBlock, dx, dy);
            content |= r.translated(m.node[static_cast<size_t>(n)]);
        }
        for (int f : children.frames[static_cast<size_t>(level + 1)]) {
            if (f == blockFrame)
                continue;
            const QRectF r = layout.frameRects[static_cast<size_t>(f)];
            moveFrame(moveFrame, f, shift(r, oldBlock, dx, dy));
            content |= r.translated(m.frame[static_cast<size_t>(f)]);
        }
        if (level < 0)
            break;
        // The frame around the block grows (or shrinks) as the block did, so closing undoes
        // opening exactly, but never leaves its content outside.
        const QRectF oldFrame = layout.frameRects[static_cast<size_t>(level)];
        const QRectF newFrame(oldFrame.topLeft(),
                              QPointF(std::max(oldFrame.right() + dx, content.right() + kInside),
                                      std::max(oldFrame.bottom() + dy, content.bottom() + kInside)));
        m.grown[static_cast<size_t>(level)] = newFrame;
        oldBlock = oldFrame;
        newBlock = newFrame;
        blockNode = -1;
        blockFrame = level;
        level = prev.frames[static_cast<size_t>(level)].parent;
    }
    return m;
}

// Places every node, frame and edge of `next` that `prev` drew, moved by `moves`; `place`
// gives the rest (the opened or closed scope's own boxes and frame).
template <typename PlaceNode, typename PlaceFrame, typename RouteEdge>
LayoutResult assemble(const ViewGraph& prev, const LayoutResult& layout, const ViewGraph& next, const Moves& moves,
                      PlaceNode placeNode, PlaceFrame placeFrame, RouteEdge routeEdge)
{
    QHash<QString, int> prevNode, prevFrame, prevEdge;
    for (size_t i = 0; i < prev.nodes.size(); ++i)
        prevNode.insert(prev.nodes[i].key, static_cast<int>(i));
    for (size_t f = 0; f < prev.frames.size(); ++f)
        prevFrame.insert(prev.frames[f].key, static_cast<int>(f));
    for (size_t e = 0; e < prev.edges.size(); ++e) {
        const ViewEdge& ve = prev.edges[e];
        prevEdge.insert(pairKey(prev.nodes[static_cast<size_t>(ve.from)].key, prev.nodes[static_cast<size_t>(ve.to)].key),
                        static_cast<int>(e));
    }

    LayoutResult out;
    out.status = LayoutResult::Status::Done;
    out.engine = layout.engine;
    out.nodeRects.reserve(next.nodes.size());
    std::vector<int> fromPrev(next.nodes.size(), -1);
    for (size_t i = 0; i < next.nodes.size(); ++i) {
        const auto it = prevNode.constFind(next.nodes[i].key);
        if (it != prevNode.constEnd() && next.nodes[i].key.size() > 0) {
            fromPrev[i] = *it;
            out.nodeRects.push_back(
                layout.nodeRects[static_cast<size_t>(*it)].translated(moves.node[static_cast<size_t>(*it)]));
        } else {
            out.nodeRects.push_back(placeNode(static_cast<int>(i)));
        }
    }
    out.frameRects.reserve(next.frames.size());
    for (size_t f = 0; f < next.frames.size(); ++f) {
        const auto it = prevFrame.constFind(next.frames[f].key);
        if (it == prevFrame.constEnd()) {
            out.frameRects.push_back(placeFrame(static_cast<int>(f)));
            continue;
        }
        const size_t p = static_cast<size_t>(*it);
        out.frameRects.push_back(moves.grown[p].isNull() ? layout.frameRects[p].translated(moves.frame[p])
                                                         : moves.grown[p]);
    }
    out.edges.reserve(next.edges.size());
    for (size_t e = 0; e < next.edges.size(); ++e) {
        const ViewEdge& ve = next.edges[e];
        const int a = fromPrev[static_cast<size_t>(ve.from)];
        const int b = fromPrev[static_cast<size_t>(ve.to)];
        if (a >= 0 && b >= 0 && moves.node[static_cast<size_t>(a)] == moves.node[static_cast<size_t>(b)]) {
            const auto it = prevEdge.constFind(
                pairKey(prev.nodes[static_cast<size_t>(a)].key, prev.nodes[static_cast<size_t>(b)].key));
            if (it != prevEdge.constEnd() && prev.edges[static_cast<size_t>(*it)].twoWay == ve.twoWay) {
                out.edges.push_back(
                    translated(layout.edges[static_cast<size_t>(*it)], moves.node[static_cast<size_t>(a)]));
                continue;
            }
        }
        if (std::optional<EdgeRoute> route = routeEdge(static_cast<int>(e))) {
            out.edges.push_back(std::move(*route));
            continue;
        }
        out.edges.push_back(plainRoute(out.nodeRects[static_cast<size_t>(ve.from)],
                                       out.nodeRects[static_cast<size_t>(ve.to)], ve.twoWay));
    }
    for (const QRectF& r : out.nodeRects)
        out.bounds |= r;
    for (const QRectF& r : out.frameRects)
        out.bounds |= r;
    return out;
}

} // namespace

Inner innerOf(const ViewGraph& next, int frame)
{
    Inner inner;
    std::vector<int> local(next.nodes.size(), -1);
    for (size_t i = 0; i < next.nodes.size(); ++i) {
        if (next.nodes[i].frame == frame) {
            local[i] = static_cast<int>(inner.nodes.size());
            inner.nodes.push_back(static_cast<int>(i));
        }
    }
    for (size_t e = 0; e < next.edges.size(); ++e)
        if (local[static_cast<size_t>(next.edges[e].from)] >= 0 && local[static_cast<size_t>(next.edges[e].to)] >= 0)
            inner.edges.push_back(static_cast<int>(e));
    return inner;
}

ViewGraph innerView(const ViewGraph& next, const Inner& inner)
{
    ViewGraph view;
    std::vector<int> local(next.nodes.size(), -1);
    for (int n : inner.nodes) {
        local[static_cast<size_t>(n)] = view.nodeCount();
        ViewNode node = next.nodes[static_cast<size_t>(n)];
        node.frame = -1;
        view.nodes.push_back(std::move(node));
    }
    for (int e : inner.edges) {
        ViewEdge edge = next.edges[static_cast<size_t>(e)];
        edge.from = local[static_cast<size_t>(edge.from)];
        edge.to = local[static_cast<size_t>(edge.to)];
        view.edges.push_back(edge);
    }
    return view;
}

LayoutResult opened(const ViewGraph& prev, const LayoutResult& prevLayout, const ViewGraph& next, const QString& key,
                    const Inner& inner)
{
    const int box = prev.nodeWithKey(key);
    const int frame = next.frameWithKey(key);
    if (box < 0 || frame < 0 || prevLayout.nodeRects.size() != prev.nodes.size()
        || inner.layout.nodeRects.size() != inner.nodes.size())
        return failed();
    const QRectF old = prevLayout.nodeRects[static_cast<size_t>(box)];
    QRectF content;
    for (const QRectF& r : inner.layout.nodeRects)
        content |= r;
    for (const EdgeRoute& route : inner.layout.edges)
        for (const QPointF& p : route.bezier)
            content |= QRectF(p, QSizeF(0.01, 0.01));
    const QSizeF size(std::max(old.width(), content.width() + 2 * kFrameMargin),
                      std::max(old.height(), content.height() + kFrameHeader + kFrameMargin));
    const Moves moves = makeRoom(prev, prevLayout, box, -1, size);
    // The content centred below the header.
    const QPointF origin = old.topLeft()
        + QPointF(kFrameMargin + (size.width() - 2 * kFrameMargin - content.width()) / 2, kFrameHeader)
        - content.topLeft();
    std::vector<int> innerIndex(next.nodes.size(), -1);
    for (size_t k = 0; k < inner.nodes.size(); ++k)
        innerIndex[static_cast<size_t>(inner.nodes[k])] = static_cast<int>(k);
    std::vector<int> innerEdge(next.edges.size(), -1);
    for (size_t k = 0; k < inner.edges.size() && k < inner.layout.edges.size(); ++k)
        innerEdge[static_cast<size_t>(inner.edges[k])] = static_cast<int>(k);
    return assemble(
        prev, prevLayout, next, moves,
        [&](int n) {
            const int k = innerIndex[static_cast<size_t>(n)];
            return k >= 0 ? inner.layout.nodeRects[static_cast<size_t>(k)].translated(origin)
                          : QRectF(old.topLeft(), old.size());
        },
        [&](int) { return QRectF(old.topLeft(), size); }, // the only new frame is the opened scope's
        [&](int e) -> std::optional<EdgeRoute> {
            const int k = innerEdge[static_cast<size_t>(e)];
            if (k < 0)
                return std::nullopt;
            return translated(inner.layout.edges[static_cast<size_t>(k)], origin);
        });
}

LayoutResult closed(const ViewGraph& prev, const LayoutResult& prevLayout, const ViewGraph& next, const QString& key,
                    const QSizeF& closedBox)
{
    const int frame = prev.frameWithKey(key);
    const int box = next.nodeWithKey(key);
    if (box < 0 || frame < 0 || prevLayout.frameRects.size() != prev.frames.size()
        || prevLayout.nodeRects.size() != prev.nodes.size())
        return failed();
    const QRectF old = prevLayout.frameRects[static_cast<size_t>(frame)];
    const Moves moves = makeRoom(prev, prevLayout, -1, frame, closedBox);
    return assemble(
        prev, prevLayout, next, moves, [&](int) { return QRectF(old.topLeft(), closedBox); },
        [&](int) { return QRectF(old.topLeft(), closedBox); },
        [](int) -> std::optional<EdgeRoute> { return std::nullopt; });
}

void fillFrames(const ViewGraph& view, LayoutResult& layout)
{
    layout.frameRects.resize(view.frames.size());
    if (layout.nodeRects.size() != view.nodes.size())
        return;
    std::vector<QRectF> content(view.frames.size());
    for (size_t i = 0; i < view.nodes.size(); ++i)
        if (view.nodes[i].frame >= 0)
            content[static_cast<size_t>(view.nodes[i].frame)] |= layout.nodeRects[i];
    // Parents come before their children: the innermost frames are last.
    for (size_t k = view.frames.size(); k-- > 0;) {
        if (layout.frameRects[k].isNull())
            layout.frameRects[k] = content[k].adjusted(-kFrameMargin, -kFrameHeader, kFrameMargin, kFrameMargin);
        const int parent = view.frames[k].parent;
        if (parent >= 0)
            content[static_cast<size_t>(parent)] |= layout.frameRects[k];
    }
    for (const QRectF& r : layout.frameRects)
        layout.bounds |= r;
}

EdgeRoute plainRoute(const QRectF& from, const QRectF& to, bool twoWay)
{
    QPointF a, tip;
    bool vertical = true;
    if (to.top() >= from.bottom()) {
        a = QPointF(from.center().x(), from.bottom());
        tip = QPointF(to.center().x(), to.top());
    } else if (to.bottom() <= from.top()) {
        a = QPointF(from.center().x(), from.top());
        tip = QPointF(to.center().x(), to.bottom());
    } else {
        a = borderPoint(from, to.center());
        tip = borderPoint(to, from.center());
        vertical = false;
    }
    const QLineF line(a, tip);
    const double length = std::max(line.length(), 1e-6);
    const double arrow = std::min(kArrow, length / 3);
    const QPointF unit = (tip - a) / length;
    EdgeRoute route;
    route.arrowTip = tip;
    QPointF start = a;
    if (twoWay) {
        route.tailArrow = true;
        route.tailTip = a;
        start = a + unit * arrow;
    }
    const QPointF end = tip - unit * arrow;
    if (vertical) {
        const double midY = (start.y() + end.y()) / 2;
        route.bezier = {start, QPointF(start.x(), midY), QPointF(end.x(), midY), end};
    } else {
        route.bezier = {start, start + (end - start) / 3, start + (end - start) * 2 / 3, end};
    }
    return route;
}

} // namespace post::ScopeRelayout
