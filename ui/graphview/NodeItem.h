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
    // The critical path and a diff's moved ops: an op on the path gets a thick outline in
    // the path's colour, a moved op a dashed one in its new device's colour; a group also
    // gets badges with the counts ("◆ 3" on the path, "⇄ 5" moved) on its top edge.
    void setMarks(const NodeMarks& marks);
    const NodeMarks& marks() const { return marks_; }
    bool isGroup() const { return isGroup_; }
    // The badges of `marks` on the top edge of `box`, right-aligned (shared with frames).
    // Returns the left end of the leftmost badge (box.right() when there is none).
    static double paintBadges(QPainter* painter, const QRectF& box, const NodeMarks& marks, bool withText);
    static constexpr double kBadgeHeight = 14.0;

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
    NodeMarks marks_;
    QColor selectionColour_ = Qt::blue;
    QColor searchHitColour_ = QColor(0xf5, 0x9e, 0x0b);
};

} // namespace post
