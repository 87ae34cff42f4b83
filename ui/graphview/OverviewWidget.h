#pragma once

#include <QGraphicsView>
#include <QPointer>

namespace post {

class GraphView;

// A bird's-eye view of the whole scene with the main view's visible area outlined;
// clicking or dragging moves the main view there.
class OverviewWidget : public QGraphicsView {
    Q_OBJECT

public:
    explicit OverviewWidget(GraphView* mainView, QWidget* parent = nullptr);

    // Call when the scene's content changes size.
    void refit();
    QRectF visibleArea() const; // the main view's visible scene rect

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void drawBackground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    void moveMainViewTo(const QPoint& pos);

    QPointer<GraphView> main_;
};

} // namespace post
