#pragma once

#include "layout/LayoutResult.h"

#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>

namespace post {

// A laid-out edge: the spline from Graphviz and an arrowhead at the consumer.
class EdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };

    EdgeItem(int from, int to, const EdgeRoute& route);

    int type() const override { return Type; }
    int from() const { return from_; }
    int to() const { return to_; }

    void setColours(const QColor& normal, const QColor& highlight);
    // Edges touching the selected node are drawn in the highlight colour, on top.
    void setHighlighted(bool on);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int from_;
    int to_;
    QPainterPath path_;
    QPolygonF arrow_;
    QRectF bounds_;
    QColor normal_;
    QColor highlight_;
    bool highlighted_ = false;
};

} // namespace post
