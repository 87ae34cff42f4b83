#include "ui/graphview/EdgeItem.h"

#include <QLineF>
#include <QPainter>

namespace post {
namespace {

constexpr double kArrowHalfWidth = 3.6;
constexpr double kArrowLength = 7.0;

// A triangle from `base` to `tip`; if they coincide (the spline already reaches the
// node), one along the direction `from` -> `tip` instead.
QPolygonF arrowHead(QPointF base, const QPointF& tip, const QPointF& from)
{
    QLineF axis(base, tip);
    if (axis.length() < 1.0) {
        QLineF back(tip, from);
        back.setLength(kArrowLength);
        base = back.p2();
        axis = QLineF(base, tip);
    }
    const QLineF normal = axis.normalVector().unitVector();
    const QPointF side(normal.dx() * kArrowHalfWidth, normal.dy() * kArrowHalfWidth);
    return QPolygonF({tip, base + side, base - side});
}

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
    const QPointF beforeEnd = pts.size() >= 2 ? pts[pts.size() - 2] : pts.front();
    arrows_.push_back(arrowHead(pts.back(), route.arrowTip, beforeEnd));
    if (route.tailArrow)
        arrows_.push_back(arrowHead(pts.front(), route.tailTip, pts.size() >= 2 ? pts[1] : pts.front()));
    bounds_ = path_.boundingRect();
    for (const QPolygonF& a : arrows_)
        bounds_ = bounds_.united(a.boundingRect());
    bounds_.adjust(-3, -3, 3, 3); // the thick pen of a critical edge
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
    setZValue(on ? 0.5 : critical_ ? 0.4 : 0);
    update();
}

void EdgeItem::setCritical(bool on, const QColor& colour)
{
    if (critical_ == on && criticalColour_ == colour)
        return;
    critical_ = on;
    criticalColour_ = colour;
    setZValue(highlighted_ ? 0.5 : critical_ ? 0.4 : 0);
    update();
}

QRectF EdgeItem::boundingRect() const { return bounds_; }

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const QColor colour = highlighted_ ? highlight_ : critical_ ? criticalColour_ : normal_;
    painter->setPen(QPen(colour, critical_ ? 3.0 : highlighted_ ? 2.0 : 1.1));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    for (const QPolygonF& a : arrows_)
        painter->drawPolygon(a);
}

} // namespace post
