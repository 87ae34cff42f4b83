#pragma once

#include <QGraphicsView>

namespace post {

// Pans by dragging, zooms with the wheel around the point under the mouse.
class GraphView : public QGraphicsView {
    Q_OBJECT

public:
    explicit GraphView(QWidget* parent = nullptr);

    double zoom() const { return transform().m11(); }
    void setZoom(double zoom); // keeps the centre of the view in place
    void zoomBy(double factor);

    // Drawn centred over the view while not empty (e.g. "Open a graph…").
    void setPlaceholderText(const QString& text);

public slots:
    void fitToWindow();
    void actualSize();
    void centreOnItem(QGraphicsItem* item);

signals:
    // The visible part of the scene moved or changed size (for the overview).
    void viewportChanged();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    QString placeholder_;
};

} // namespace post
