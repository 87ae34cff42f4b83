#pragma once

#include "ui/graphview/NodePaint.h"

#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsItem>

namespace post {

// A rounded box with the op's name and type (or a group's name and size).
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };

    NodeItem(int viewNode, const QRectF& rect, QString title, QString subtitle, bool isGroup);

    int type() const override { return Type; }
    int viewNode() const { return viewNode_; }
    const QString& title() const { return title_; }
    const QString& subtitle() const { return subtitle_; }

    void setPaint(NodePaint paint);
    const NodePaint& nodePaint() const { return paint_; }
    // Colours of the selection outline and of the search-hit halo.
    void setAccentColours(const QColor& selection, const QColor& searchHit);
    // A search hit is drawn with a halo until the next search.
    void setHighlighted(bool on);
    bool isHighlighted() const { return highlighted_; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    // Shared by the scene when measuring node sizes before layout.
    static QFont titleFont();
    static QFont subtitleFont();
    static QSizeF sizeFor(const QString& title, const QString& subtitle);
    // `name` shortened to `width`: a '/'-separated path loses whole middle components
    // first ("gradients/…/layer_3/…/MatMul"), those with digits (a layer's number) last;
    // then Qt's middle elision.
    static QString elideName(const QString& name, const QFontMetricsF& metrics, double width);
    // The title as drawn.
    const QString& shownTitle() const { return shownTitle_; }

private:
    int viewNode_;
    QRectF rect_;
    QString title_;
    QString shownTitle_;
    QString subtitle_;
    bool isGroup_;
    bool highlighted_ = false;
    NodePaint paint_;
    QColor selectionColour_ = Qt::blue;
    QColor searchHitColour_ = QColor(0xf5, 0x9e, 0x0b);
};

} // namespace post
