#pragma once

#include "ui/layout/LayoutResult.h"

#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>

#include <vector>

namespace post {

// A laid-out edge: the spline from Graphviz and an arrowhead at the consumer (and at
// the producer too for two-way edges between groups).
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
    // An edge between two consecutive ops of the critical path: drawn thick in `colour`.
    void setCritical(bool on, const QColor& colour = QColor());
    bool isCritical() const { return critical_; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int from_;
    int to_;
    QPainterPath path_;
    std::vector<QPolygonF> arrows_; // at the head, and at the tail of two-way edges
    QRectF bounds_;
    QColor normal_;
    QColor highlight_;
    QColor criticalColour_;
    bool highlighted_ = false;
    bool critical_ = false;
};

} // namespace post
