#include "ui/charts/LearningChart.h"

#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"
#include "ui/graphview/ViewTheme.h"

#include <QBuffer>
#include <QChart>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QGraphicsLayout>
#include <QImage>
#include <QKeyEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QTimer>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace post {

namespace {

bool known(double v) { return std::isfinite(v) && v > 0.0; }

// Drawing tens of thousands of markers stalls the GUI thread for hundreds of ms; past
// this many, the chart shows an even stride of the samples (the CSV keeps all of them,
// and the best-so-far line is exact whatever is drawn).
constexpr int kMaxDrawnSamples = 5000;

constexpr int kMarkerSize = 3;

QImage dotImage(const QColor& colour, int size)
{
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawEllipse(QRectF(0, 0, size, size));
    return image;
}

QVector<QPointF> thinned(const QVector<QPointF>& points)
{
    if (points.size() <= kMaxDrawnSamples)
        return points;
    const qsizetype stride = (points.size() + kMaxDrawnSamples - 1) / kMaxDrawnSamples;
    QVector<QPointF> out;
    out.reserve(points.size() / stride + 1);
    for (qsizetype i = 0; i < points.size(); i += stride)
        out.append(points[i]);
    return out;
}

} // namespace

LearningChart::LearningChart(QWidget* parent)
    : QChartView(new QChart, parent) // setChart() would orphan (leak) the default chart
{
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::RectangleRubberBand);
    setFocusPolicy(Qt::StrongFocus); // Escape resets the zoom
    QChart* chart = this->chart();
    chart->setTitle(tr("Learning curve"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setAnimationOptions(QChart::NoAnimation);

    xAxis_ = new QValueAxis;
    xAxis_->setTitleText(tr("sample"));
    xAxis_->setLabelFormat(QStringLiteral("%d"));
    yAxis_ = new QValueAxis;
    yAxis_->setTitleText(tr("step time (ms)"));
    yAxis_->setLabelFormat(QStringLiteral("%g"));
    entropyAxis_ = new QValueAxis;
    entropyAxis_->setTitleText(tr("policy entropy"));
    entropyAxis_->setRange(0.0, 1.0);
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    chart->addAxis(entropyAxis_, Qt::AlignRight);

    auto add = [chart](QLineSeries*& series, const QString& name) {
        series = new QLineSeries;
        series->setName(name);
        chart->addSeries(series);
    };
    add(feasibleSeries_, tr("sampled"));
    add(infeasibleSeries_, tr("out of memory (at top)"));
    add(eliteSeries_, tr("elite threshold"));
    add(bestSeries_, tr("best so far"));
    add(lowerBoundSeries_, tr("lower bound"));
    add(singleDeviceSeries_, tr("best single GPU"));
    add(classicalSeries_, tr("best classical placer"));
    add(selectedSeries_, tr("shown sample"));
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    add(entropySeries_, tr("entropy (right)"));
    entropySeries_->attachAxis(xAxis_);
    entropySeries_->attachAxis(entropyAxis_);
    refreshTimer_ = new QTimer(this);
    refreshTimer_->setSingleShot(true);
    refreshTimer_->setInterval(0);
    connect(refreshTimer_, &QTimer::timeout, this, &LearningChart::refresh);
    applyTheme();
    reset();
}

void LearningChart::applyTheme()
{
    dark_ = ViewTheme::isDark(palette());
    chart()->setTheme(dark_ ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    // The theme's own background differs slightly from the window's: match the window.
    chart()->setBackgroundBrush(palette().color(QPalette::Base));
    chart()->setBackgroundRoundness(0);
    styleSeries();
}

void LearningChart::styleSeries()
{
    // Mid-tone colours read on both backgrounds; the neutral ones follow the palette.
    const QColor neutral = dark_ ? QColor(170, 170, 170) : QColor(90, 90, 90);
    auto points = [](QLineSeries* series, const QColor& colour, int size) {
        QPen pen(colour, 0);
        pen.setStyle(Qt::NoPen); // markers only, no connecting line
        series->setPen(pen);
        series->setColor(colour);
        series->setMarkerSize(size);
        // A pre-drawn dot blitted per point: painting 5,000 antialiased ellipses took most
        // of the chart's repaint (about 3x slower; the end-of-run stall, docs/studio.md).
        series->setLightMarker(dotImage(colour, size));
    };
    auto line = [](QLineSeries* series, const QColor& colour, qreal width, Qt::PenStyle style = Qt::SolidLine) {
        series->setPen(QPen(colour, width, style));
    };
    points(feasibleSeries_, dark_ ? QColor(110, 170, 240, 130) : QColor(70, 130, 200, 110), kMarkerSize);
    points(infeasibleSeries_, QColor(230, 90, 70, 140), kMarkerSize);
    line(eliteSeries_, QColor(230, 150, 20), 1.5);
    line(bestSeries_, dark_ ? QColor(70, 200, 100) : QColor(30, 150, 60), 2.5);
    line(lowerBoundSeries_, neutral, 1.2, Qt::DashLine);
    line(singleDeviceSeries_, dark_ ? QColor(200, 120, 210) : QColor(160, 60, 160), 1.2, Qt::DashLine);
    line(classicalSeries_, QColor(210, 130, 50), 1.2, Qt::DashDotLine);
    points(selectedSeries_, QColor(240, 50, 50), 9);
    updateLegend();
    // Solid, not dotted: stroking a dashed antialiased path of a long run's 1,500 updates
    // took about 300 ms per repaint (a solid one a few ms).
    line(entropySeries_, dark_ ? QColor(150, 150, 230, 190) : QColor(120, 120, 200, 170), 1.0);
}

void LearningChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && ViewTheme::isDark(palette()) != dark_)
        applyTheme();
}

void LearningChart::reset(int plannedSamples)
{
    feasible_.clear();
    infeasible_.clear();
    best_.clear();
    elite_.clear();
    entropy_.clear();
    haveBest_ = false;
    bestMs_ = 0.0;
    lowerBoundMs_ = 0.0;
    singleDeviceMs_ = 0.0;
    classicalMs_ = std::numeric_limits<double>::quiet_NaN();
    classicalName_.clear();
    bestSeries_->setName(tr("best so far"));
    selected_ = -1;
    plannedSamples_ = plannedSamples;
    lastIndex_ = -1;
    zoomed_ = false; // a new run is followed from its start
    entropyAxis_->setRange(0.0, 1.0);
    refresh();
}

void LearningChart::continueRun(int plannedSamples)
{
    plannedSamples_ = plannedSamples;
    selected_ = -1;
    if (zoomed_)
        resetZoom();
    scheduleRefresh();
}

void LearningChart::addSnapshot(const LearnerSnapshot& snapshot)
{
    lowerBoundMs_ = snapshot.lowerBoundMs;
    // Unknown values leave the lines as they are: reset() cleared them for a new run, and a
    // continued run (which does not run the classical placers again) keeps the restored ones.
    if (known(snapshot.singleDeviceMs))
        singleDeviceMs_ = snapshot.singleDeviceMs;
    if (known(snapshot.classicalMs)) {
        if (classicalName_ != snapshot.classicalName) {
            classicalName_ = snapshot.classicalName;
            classicalSeries_->setName(classicalName_.isEmpty() ? tr("best classical placer")
                                                               : tr("best classical placer (%1)").arg(classicalName_));
        }
        classicalMs_ = snapshot.classicalMs;
    }
    if (known(snapshot.warmStartMs) && best_.isEmpty()) {
        // The starting placement was evaluated before sample 0 (not as a sample): it is
        // the best so far from the first sample on.
        best_.append(QPointF(0, snapshot.warmStartMs));
        bestMs_ = snapshot.warmStartMs;
        haveBest_ = true;
        bestSeries_->setName(tr("best so far (from the warm start)"));
    }
    for (const LearnerSample& s : snapshot.samples) {
        lastIndex_ = std::max(lastIndex_, s.index);
        (s.feasible ? feasible_ : infeasible_).append(QPointF(s.index, s.stepMs));
        if (s.feasible && (!haveBest_ || s.stepMs < bestMs_)) {
            if (haveBest_)
                best_.append(QPointF(s.index, bestMs_)); // a step, not a slope
            best_.append(QPointF(s.index, s.stepMs));
            bestMs_ = s.stepMs;
            haveBest_ = true;
        }
    }
    for (const LearnerUpdate& u : snapshot.updates) {
        if (u.kind == UpdateKind::CrossEntropy && std::isfinite(u.eliteThresholdMs))
            elite_.append(QPointF(u.afterSample, u.eliteThresholdMs));
        entropy_.append(QPointF(u.afterSample, u.entropy));
    }
    scheduleRefresh();
}

void LearningChart::finishRun(double bestMs)
{
    if (!known(bestMs) || (haveBest_ && !(bestMs < bestMs_)))
        return;
    // Found by evaluations that were not samples (a learner's final pick): a last step down
    // at the end of the run, so the line ends at the run's result.
    const double x = std::max(lastIndex_, 0);
    if (haveBest_)
        best_.append(QPointF(x, bestMs_));
    best_.append(QPointF(x, bestMs));
    bestMs_ = bestMs;
    haveBest_ = true;
    scheduleRefresh();
}

QStringList LearningChart::legendNames() const
{
    QStringList names;
    for (QLegendMarker* marker : chart()->legend()->markers())
        if (marker->isVisible())
            names << marker->label();
    return names;
}

void LearningChart::updateLegend()
{
    // Only what is drawn: an empty series (no elite threshold from a PPO run, no classical
    // reference, no out-of-memory sample) has no legend entry.
    bool changed = false;
    for (QAbstractSeries* series : chart()->series()) {
        const bool drawn = series != selectedSeries_ && static_cast<QLineSeries*>(series)->count() > 0;
        for (QLegendMarker* marker : chart()->legend()->markers(series))
            if (marker->isVisible() != drawn) {
                marker->setVisible(drawn);
                changed = true;
            }
    }
    // QLegend does not lay itself out again when a marker is shown again.
    if (changed && chart()->legend()->layout())
        chart()->legend()->layout()->invalidate();
}

void LearningChart::scheduleRefresh()
{
    if (!refreshTimer_->isActive())
        refreshTimer_->start();
}

void LearningChart::flush()
{
    if (refreshTimer_->isActive())
        refresh();
}

void LearningChart::refresh()
{
    refreshTimer_->stop();
    updateAxes();
    const double top = fittedYMax_;
    // Out-of-memory samples carry a penalty, not a time: pin them to the top edge.
    QVector<QPointF> pinned = thinned(infeasible_);
    for (QPointF& p : pinned)
        p.setY(std::min(p.y(), top));
    QVector<QPointF> best = best_;
    if (haveBest_ && lastIndex_ > best.back().x())
        best.append(QPointF(lastIndex_, bestMs_));
    feasibleSeries_->replace(thinned(feasible_));
    infeasibleSeries_->replace(pinned);
    bestSeries_->replace(best);
    eliteSeries_->replace(elite_);
    entropySeries_->replace(entropy_);
    const double xEnd = fittedXMax_;
    auto reference = [xEnd](QLineSeries* series, double ms) {
        series->replace(known(ms) ? QVector<QPointF>{QPointF(0, ms), QPointF(xEnd, ms)} : QVector<QPointF>{});
    };
    reference(lowerBoundSeries_, lowerBoundMs_);
    reference(singleDeviceSeries_, singleDeviceMs_);
    reference(classicalSeries_, classicalMs_);
    QVector<QPointF> selected;
    if (selected_ >= 0) {
        for (const QVector<QPointF>* points : {&feasible_, &infeasible_})
            for (const QPointF& p : *points)
                if (static_cast<int>(p.x()) == selected_)
                    selected.append(QPointF(p.x(), std::min(p.y(), top)));
    }
    selectedSeries_->replace(selected);
    updateLegend();
}

int LearningChart::sampleAt(const QPoint& viewPos)
{
    flush(); // the axes as drawn
    constexpr qreal kPickPixels = 6.0;
    const QPointF scenePos = mapToScene(viewPos);
    const QPointF chartPos = chart()->mapFromScene(scenePos);
    if (!chart()->plotArea().adjusted(-kPickPixels, -kPickPixels, kPickPixels, kPickPixels).contains(chartPos))
        return -1;
    const double top = fittedYMax_;
    int best = -1;
    qreal bestDistance = kPickPixels * kPickPixels;
    // Only points drawn can be picked: the same stride as refresh().
    for (const QVector<QPointF>* points : {&feasible_, &infeasible_}) {
        const QVector<QPointF> drawn = thinned(*points);
        for (const QPointF& p : drawn) {
            const QPointF at = chart()->mapToPosition(QPointF(p.x(), std::min(p.y(), top)), feasibleSeries_);
            const QPointF d = at - chartPos;
            const qreal distance = d.x() * d.x() + d.y() * d.y();
            if (distance <= bestDistance) {
                bestDistance = distance;
                best = static_cast<int>(p.x());
            }
        }
    }
    return best;
}

std::optional<QPoint> LearningChart::samplePosition(int index)
{
    flush();
    const double top = fittedYMax_;
    for (const QVector<QPointF>* points : {&feasible_, &infeasible_})
        for (const QPointF& p : *points)
            if (static_cast<int>(p.x()) == index) {
                const QPointF at = chart()->mapToPosition(QPointF(p.x(), std::min(p.y(), top)), feasibleSeries_);
                return mapFromScene(chart()->mapToScene(at));
            }
    return std::nullopt;
}

void LearningChart::selectSample(int index)
{
    selected_ = index;
    refresh();
    emit sampleClicked(index);
}

void LearningChart::mousePressEvent(QMouseEvent* event)
{
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

void LearningChart::updateAxes(bool force)
{
    // Every range change makes each series recompute its geometry: change only when needed.
    fittedXMax_ = std::max({plannedSamples_, lastIndex_ + 1, 10});
    if (!zoomed_ && (xAxis_->max() != fittedXMax_ || xAxis_->min() != 0.0))
        xAxis_->setRange(0, fittedXMax_);
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0.0;
    for (const QPointF& p : feasible_) {
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
    }
    for (double ref : {lowerBoundMs_, singleDeviceMs_, classicalMs_, haveBest_ ? bestMs_ : 0.0}) {
        if (known(ref)) {
            lo = std::min(lo, ref);
            hi = std::max(hi, ref);
        }
    }
    // Early random samples can be many times slower than the baseline: keep the
    // interesting band (up to 3x the single GPU) readable.
    if (known(singleDeviceMs_))
        hi = std::min(hi, 3.0 * singleDeviceMs_);
    if (!std::isfinite(lo) || hi <= 0.0) {
        fittedYMax_ = 1.0;
        if (!zoomed_ && (yAxis_->min() != 0.0 || yAxis_->max() != 1.0))
            yAxis_->setRange(0.0, 1.0);
        return;
    }
    if (zoomed_) {
        fittedYMax_ = std::max(fittedYMax_, hi);
        return;
    }
    // Keep the current range while the data fits and fills at least half of it.
    const double shownMin = yAxis_->min();
    const double shownMax = yAxis_->max();
    if (!force && lo >= shownMin && hi <= shownMax && (hi - lo) >= 0.5 * (shownMax - shownMin)
        && !(shownMin == 0.0 && shownMax == 1.0)) {
        fittedYMax_ = shownMax;
        return;
    }
    const double pad = std::max((hi - lo) * 0.06, hi * 0.01);
    yAxis_->setRange(std::max(0.0, lo - pad), hi + pad);
    yAxis_->applyNiceNumbers(); // round tick labels
    fittedYMax_ = yAxis_->max();
}

void LearningChart::zoomTo(double firstSample, double lastSample, double lowMs, double highMs)
{
    if (!(lastSample > firstSample) || !(highMs > lowMs))
        return;
    flush();
    zoomed_ = true;
    xAxis_->setRange(firstSample, lastSample);
    yAxis_->setRange(lowMs, highMs);
}

void LearningChart::resetZoom()
{
    if (!zoomed_)
        return;
    zoomed_ = false;
    entropyAxis_->setRange(0.0, 1.0);
    xAxis_->setRange(0, fittedXMax_);
    updateAxes(true);
    refresh();
}

void LearningChart::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::RightButton) {
        event->accept(); // the context menu, not QChartView's zoom-out
        return;
    }
    const double xMin = xAxis_->min();
    const double xMax = xAxis_->max();
    const double yMin = yAxis_->min();
    const double yMax = yAxis_->max();
    QChartView::mouseReleaseEvent(event); // ends a rubber band with zoomIn()
    if (xAxis_->min() != xMin || xAxis_->max() != xMax || yAxis_->min() != yMin || yAxis_->max() != yMax)
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
    // Zoom about the point under the cursor, on all three axes: it stays where it is.
    const QPointF chartPos = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const QPointF at = chart()->mapToValue(chartPos, feasibleSeries_);
    const double entropyAt = chart()->mapToValue(chartPos, entropySeries_).y();
    const double factor = std::pow(0.8, steps);
    auto scale = [factor](QValueAxis* axis, double about) {
        axis->setRange(about - (about - axis->min()) * factor, about + (axis->max() - about) * factor);
    };
    zoomed_ = true;
    scale(xAxis_, at.x());
    scale(yAxis_, at.y());
    scale(entropyAxis_, entropyAt);
    event->accept();
}

void LearningChart::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Escape && zoomed_) {
        resetZoom();
        event->accept();
        return;
    }
    QChartView::keyPressEvent(event);
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
    if (known(singleDeviceMs_))
        out << "single_gpu,0," << singleDeviceMs_ << '\n';
    if (known(classicalMs_))
        out << "best_classical,0," << classicalMs_ << '\n';
    writeFileAtomically(path.toStdString(), out.str());
}

void LearningChart::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    QAction* reset = menu.addAction(tr("Reset Zoom"), this, &LearningChart::resetZoom);
    reset->setShortcut(Qt::Key_Escape);
    reset->setEnabled(zoomed_);
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
