#include "ui/graphview/GraphView.h"

#include <QGraphicsItem>
#include <QKeyEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace post {
namespace {

constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 6.0;
constexpr double kWheelStep = 1.0015; // per 1/8 degree of wheel rotation

} // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(SmartViewportUpdate);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
}

void GraphView::setZoom(double zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    setTransform(QTransform::fromScale(zoom, zoom));
    setTransformationAnchor(anchor);
    emit viewportChanged();
}

void GraphView::zoomBy(double factor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    scale(target / zoom(), target / zoom());
    emit viewportChanged();
}

void GraphView::setPlaceholderText(const QString& text)
{
    placeholder_ = text;
    viewport()->update();
}

void GraphView::fitToWindow()
{
    if (!scene() || scene()->sceneRect().isEmpty())
        return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // Never blow a tiny graph up beyond its natural size.
    if (zoom() > 1.0)
        setZoom(1.0);
    if (zoom() < kMinZoom)
        setZoom(kMinZoom);
    emit viewportChanged();
}

void GraphView::actualSize() { setZoom(1.0); }

void GraphView::centreOnItem(QGraphicsItem* item)
{
    if (!item)
        return;
    // Zoom in enough to read the box when arriving from an overview of a large graph.
    if (zoom() < 0.6)
        setZoom(0.9);
    centerOn(item);
    emit viewportChanged();
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ShiftModifier) {
        QGraphicsView::wheelEvent(event); // scroll
        return;
    }
    const int delta = event->angleDelta().y();
    if (delta == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(kWheelStep, delta));
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25);
        return;
    case Qt::Key_Minus:
        zoomBy(0.8);
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewportChanged();
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    emit viewportChanged();
}

void GraphView::drawForeground(QPainter* painter, const QRectF& rect)
{
    QGraphicsView::drawForeground(painter, rect);
    if (placeholder_.isEmpty())
        return;
    painter->save();
    painter->resetTransform();
    QColor colour = palette().color(QPalette::Text);
    colour.setAlphaF(0.55f);
    painter->setPen(colour);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 1.2);
    painter->setFont(f);
    painter->drawText(viewport()->rect().adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
    painter->restore();
}

} // namespace post
