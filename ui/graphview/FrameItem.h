#pragma once

#include "ui/graphview/NodePaint.h"

#include <QColor>
#include <QGraphicsItem>
#include <QString>

#include <utility>
#include <vector>

namespace post {

// An open name scope in a scope view: a tinted rounded frame behind its boxes, with the
// scope's title, op count and compute in a header strip and, when placed, the device mix
// of its ops as a stacked bar at the header's right. Double-click (or the context menu)
// closes it again.
class FrameItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };

    FrameItem(int frame, const QRectF& rect, QString title, QString subtitle, int depth);

    int type() const override { return Type; }
    int frame() const { return frame_; }
    const QString& title() const { return title_; }
    QRectF rect() const { return rect_; }

    void setColours(const QColor& tint, const QColor& border, const QColor& text);
    void setMix(std::vector<std::pair<QColor, double>> mix);
    const std::vector<std::pair<QColor, double>>& mix() const { return mix_; }
    // The scope's ops on the critical path and moved by a diff: badges on the header's top
    // edge (and the border in the path's colour when some of its ops are on it).
    void setMarks(const NodeMarks& marks);
    const NodeMarks& marks() const { return marks_; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int frame_;
    QRectF rect_;
    QString title_;
    QString subtitle_;
    QColor tint_;
    QColor border_;
    QColor text_;
    std::vector<std::pair<QColor, double>> mix_;
    NodeMarks marks_;
};

} // namespace post
