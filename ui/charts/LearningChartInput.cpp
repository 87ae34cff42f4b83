// LearningChart: mouse, wheel, keys and the context menu; saving the chart (PNG, SVG, CSV).
#include "ui/charts/LearningChart.h"

#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"
#include "ui/charts/ChartTicks.h"
#include "ui/charts/LearningChartInternal.h"
#include "ui/util/Format.h"

#include <QBuffer>
#include <QChart>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QKeyEvent>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPixmap>
#include <QSvgGenerator>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace post {

using chartdetail::known;

void LearningChart::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::MiddleButton
        || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier))) {
        panning_ = true;
        panFrom_ = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton) {
        const int index = sampleAt(event->position().toPoint());
        if (index >= 0) {
            selectSample(index);
            event->accept();
            return;
        }
    }
    QChartView::mousePressEvent(event);
}

void LearningChart::mouseMoveEvent(QMouseEvent* event)
{
    if (panning_) {
        const QPoint at = event->position().toPoint();
        pan(at.x() - panFrom_.x(), at.y() - panFrom_.y());
        panFrom_ = at;
        event->accept();
        return;
    }
    QChartView::mouseMoveEvent(event);
}

void LearningChart::mouseReleaseEvent(QMouseEvent* event)
{
    if (panning_) {
        panning_ = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    if (event->button() == Qt::RightButton) {
        event->accept(); // the context menu, not QChartView's zoom-out
        return;
    }
    const double xMin = xAxis_->min();
    const double xMax = xAxis_->max();
    const double yMin = stepAxisMin();
    const double yMax = stepAxisMax();
    QChartView::mouseReleaseEvent(event); // ends a rubber band with zoomIn()
    if (xAxis_->min() != xMin || xAxis_->max() != xMax || stepAxisMin() != yMin || stepAxisMax() != yMax)
        zoomed_ = true;
}

void LearningChart::wheelEvent(QWheelEvent* event)
{
    const int steps = event->angleDelta().y() / 120;
    if (steps == 0) {
        QChartView::wheelEvent(event);
        return;
    }
    flush();
    if (event->modifiers() & Qt::ShiftModifier) { // pans the samples, like the timeline
        pan(steps * 0.1 * chart()->plotArea().width(), 0.0);
        event->accept();
        return;
    }
    // Zoom about the point under the cursor, on both axes: it stays where it is (the strip
    // follows the sample axis).
    const QPointF chartPos = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const QPointF at = chart()->mapToValue(chartPos, feasibleSeries_);
    const double factor = std::pow(0.8, steps);
    zoomed_ = true;
    setChartRange(xAxis_, at.x() - (at.x() - xAxis_->min()) * factor, at.x() + (xAxis_->max() - at.x()) * factor, true);
    if (log_) { // the same in decades
        const double about = std::max(at.y(), 1e-300);
        setStepRange(about / std::pow(about / stepAxisMin(), factor), about * std::pow(stepAxisMax() / about, factor));
    } else {
        setStepRange(at.y() - (at.y() - stepAxisMin()) * factor, at.y() + (stepAxisMax() - at.y()) * factor);
    }
    event->accept();
}

void LearningChart::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && zoomed_) {
        resetZoom();
        event->accept();
        return;
    }
    const QRectF plot = chart()->plotArea();
    switch (event->key()) {
    case Qt::Key_B:
        showBest();
        break;
    case Qt::Key_L:
        setLogScale(!log_);
        break;
    case Qt::Key_Left:
        pan(0.1 * plot.width(), 0.0);
        break;
    case Qt::Key_Right:
        pan(-0.1 * plot.width(), 0.0);
        break;
    case Qt::Key_Up:
        pan(0.0, 0.1 * plot.height());
        break;
    case Qt::Key_Down:
        pan(0.0, -0.1 * plot.height());
        break;
    default:
        QChartView::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool LearningChart::savePng(const QString& path)
{
    flush();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!grab().save(&buffer, "PNG"))
        return false;
    try {
        writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
    } catch (const InputError&) {
        return false;
    }
    return true;
}

void LearningChart::saveSvg(const QString& path)
{
    flush();
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size());
    svg.setViewBox(QRect(QPoint(0, 0), size()));
    svg.setResolution(logicalDpiX()); // text keeps its on-screen size against the plot
    svg.setTitle(chart()->title());
    svg.setDescription(QStringLiteral("Learning curve exported by Post Studio"));
    {
        QPainter painter(&svg);
        painter.setRenderHint(QPainter::Antialiasing);
        // The scene, not the widget: vector output rather than a pixmap of the screen.
        scene()->render(&painter, QRectF(QPoint(0, 0), size()), sceneRect());
        paintEntropyStrip(&painter); // the view's foreground, which scene()->render() leaves out
        paintPhaseMarks(&painter);
        paintBoundNote(&painter);
    }
    const QByteArray& bytes = buffer.data();
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
}

void LearningChart::saveCsv(const QString& path) const
{
    std::ostringstream out;
    out.precision(10);
    out << "series,x,y\n";
    auto write = [&out](const char* name, const QVector<QPointF>& points) {
        for (const QPointF& p : points)
            out << name << ',' << p.x() << ',' << p.y() << '\n';
    };
    write("sampled", feasible_);
    write("out_of_memory", infeasible_);
    write("best", best_);
    write("elite_threshold", elite_);
    write("entropy", entropy_);
    if (known(lowerBoundMs_))
        out << "lower_bound,0," << lowerBoundMs_ << '\n';
    if (groupedChunks_ > 0 && known(groupedBoundMs_))
        out << "grouped_bound,0," << groupedBoundMs_ << '\n';
    if (known(singleDeviceMs_))
        out << "single_gpu,0," << singleDeviceMs_ << '\n';
    if (known(classicalMs_))
        out << "best_classical,0," << classicalMs_ << '\n';
    if (known(hostDispatchMs_))
        out << "host_dispatch,0," << hostDispatchMs_ << '\n';
    writeFileAtomically(path.toStdString(), out.str());
}

void LearningChart::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    QAction* reset = menu.addAction(tr("Reset Zoom"), this, &LearningChart::resetZoom);
    reset->setShortcut(Qt::Key_Escape);
    reset->setEnabled(zoomed_);
    QAction* best = menu.addAction(tr("Show Best"), this, &LearningChart::showBest);
    best->setShortcut(Qt::Key_B);
    best->setEnabled(haveBest_);
    QAction* log = menu.addAction(tr("Logarithmic Step Times"), this, [this](bool on) { setLogScale(on); });
    log->setCheckable(true);
    log->setChecked(log_);
    log->setShortcut(Qt::Key_L);
    menu.addSeparator();
    menu.addAction(tr("Save Chart as PNG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Chart"), QStringLiteral("learning.png"),
                                                          tr("PNG images (*.png)"));
        if (!path.isEmpty() && !savePng(path))
            QMessageBox::warning(this, tr("Save Chart"), tr("Could not write %1.").arg(path));
    });
    menu.addAction(tr("Save Chart as SVG…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Chart"), QStringLiteral("learning.svg"),
                                                          tr("SVG images (*.svg)"));
        if (path.isEmpty())
            return;
        try {
            saveSvg(path);
        } catch (const InputError& e) {
            QMessageBox::warning(this, tr("Save Chart"), QString::fromUtf8(e.what()));
        }
    });
    menu.addAction(tr("Save Points as CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Points"), QStringLiteral("learning.csv"),
                                                          tr("CSV files (*.csv)"));
        if (path.isEmpty())
            return;
        try {
            saveCsv(path);
        } catch (const InputError& e) {
            QMessageBox::warning(this, tr("Save Points"), QString::fromUtf8(e.what()));
        }
    });
    menu.exec(event->globalPos());
}

} // namespace post
