#include "ui/graphview/OverviewWidget.h"

#include "ui/graphview/GraphView.h"

#include <QMouseEvent>
#include <QPainter>

namespace post {

OverviewWidget::OverviewWidget(GraphView* mainView, QWidget* parent)
    : QGraphicsView(mainView->scene(), parent)
    , main_(mainView)
{
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRenderHints(QPainter::Antialiasing);
    setFrameShape(QFrame::StyledPanel);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    connect(mainView, &GraphView::viewportChanged, viewport(), qOverload<>(&QWidget::update));
}

void OverviewWidget::refit()
{
    if (scene() && !scene()->sceneRect().isEmpty())
        fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    viewport()->update();
}

QRectF OverviewWidget::visibleArea() const
{
    if (!main_)
        return {};
    return main_->mapToScene(main_->viewport()->rect()).boundingRect();
}

void OverviewWidget::drawBackground(QPainter* painter, const QRectF& rect)
{
    // Same background as the scene, but only the scene rect: the margins stay neutral.
    painter->fillRect(rect, palette().color(QPalette::Window));
    if (scene())
        painter->fillRect(scene()->sceneRect().intersected(rect), scene()->backgroundBrush());
}

void OverviewWidget::drawForeground(QPainter* painter, const QRectF&)
{
    const QRectF area = visibleArea().intersected(sceneRect());
    if (area.isEmpty())
        return;
    QColor colour = palette().color(QPalette::Highlight);
    painter->save();
    painter->setPen(QPen(colour, 0)); // cosmetic: one pixel whatever the scale
    colour.setAlpha(40);
    painter->setBrush(colour);
    painter->drawRect(area);
    painter->restore();
}

void OverviewWidget::moveMainViewTo(const QPoint& pos)
{
    if (main_)
        main_->centerOn(mapToScene(pos));
}

void OverviewWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        moveMainViewTo(event->position().toPoint());
}

void OverviewWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        moveMainViewTo(event->position().toPoint());
}

void OverviewWidget::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    refit();
}

void OverviewWidget::wheelEvent(QWheelEvent* event)
{
    event->ignore(); // the overview never scrolls or zooms itself
}

} // namespace post
