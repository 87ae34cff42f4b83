#include "graphview/EdgeItem.h"

#include <QLineF>
#include <QPainter>

namespace post {
namespace {

constexpr double kArrowHalfWidth = 3.6;

} // namespace

EdgeItem::EdgeItem(int from, int to, const EdgeRoute& route)
    : from_(from)
    , to_(to)
{
    const auto& pts = route.bezier;
    if (pts.empty())
        return;
    path_.moveTo(pts.front());
    for (size_t i = 1; i + 2 < pts.size(); i += 3)
        path_.cubicTo(pts[i], pts[i + 1], pts[i + 2]);

    // Arrowhead from the end of the spline to the tip; if the spline already reaches the
    // tip, point along its last control segment.
    QPointF base = pts.back();
    QLineF axis(base, route.arrowTip);
    if (axis.length() < 1.0 && pts.size() >= 2) {
        axis = QLineF(pts[pts.size() - 2], route.arrowTip);
        axis.setLength(7.0);
        axis = QLineF(route.arrowTip - (axis.p2() - axis.p1()), route.arrowTip);
        base = axis.p1();
    }
    const QLineF normal = axis.normalVector().unitVector();
    const QPointF side(normal.dx() * kArrowHalfWidth, normal.dy() * kArrowHalfWidth);
    arrow_ << route.arrowTip << base + side << base - side;
    bounds_ = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-2, -2, 2, 2);
    setZValue(0);
}

void EdgeItem::setColours(const QColor& normal, const QColor& highlight)
{
    normal_ = normal;
    highlight_ = highlight;
    update();
}

void EdgeItem::setHighlighted(bool on)
{
    if (highlighted_ == on)
        return;
    highlighted_ = on;
    setZValue(on ? 0.5 : 0);
    update();
}

QRectF EdgeItem::boundingRect() const
{
    return bounds_;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const QColor colour = highlighted_ ? highlight_ : normal_;
    painter->setPen(QPen(colour, highlighted_ ? 2.0 : 1.1));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    painter->drawPolygon(arrow_);
}

} // namespace post
