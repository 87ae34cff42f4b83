// LearningChart: the drawing (theme, series styles, the entropy strip and phase marks over the plot).
#include "ui/charts/LearningChart.h"

#include "ui/charts/ChartColours.h"
#include "ui/theme/ViewTheme.h"
#include "ui/util/Format.h"

#include <QChart>
#include <QEvent>
#include <QGraphicsLayout>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QResizeEvent>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace post {

namespace {

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

} // namespace

void LearningChart::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event); // fits chart() to the view
    layoutStrip();
}

void LearningChart::layoutStrip()
{
    // A fifth of the height (60 to 150 px) under the sample axis; none in a tiny view.
    const int height = viewport()->height();
    const int strip = height < 240 ? 0 : std::clamp(height / 5, 60, 150);
    if (strip == stripHeight_)
        return;
    stripHeight_ = strip;
    QMargins margins = chart()->margins();
    margins.setBottom(strip + 6);
    chart()->setMargins(margins);
}

QRectF LearningChart::entropyStripRect() const
{
    if (stripHeight_ <= 0)
        return {};
    const QRectF plot = chart()->mapRectToScene(chart()->plotArea());
    const QRectF bounds = chart()->mapRectToScene(chart()->rect());
    const QRectF scene(plot.left(), bounds.bottom() - stripHeight_, plot.width(), stripHeight_ - 12.0);
    return QRectF(mapFromScene(scene).boundingRect());
}

QPointF LearningChart::entropyPosition(double x, double e) const
{
    const QRectF strip = entropyStripRect();
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    const double fx = hi > lo ? (x - lo) / (hi - lo) : 0.0;
    return QPointF(strip.left() + fx * strip.width(), strip.bottom() - std::clamp(e, 0.0, 1.0) * strip.height());
}

void LearningChart::drawForeground(QPainter* painter, const QRectF& rect)
{
    QChartView::drawForeground(painter, rect);
    painter->save();
    // drawForeground paints in scene coordinates; the strip is laid out in view coordinates.
    painter->resetTransform();
    paintEntropyStrip(painter);
    paintPhaseMarks(painter);
    paintBoundNote(painter);
    painter->restore();
}

QRectF LearningChart::plotRectInView() const
{
    return mapFromScene(chart()->mapToScene(chart()->plotArea())).boundingRect();
}

QFont LearningChart::boundNoteFont() const
{
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.9));
    return small;
}

QFont LearningChart::phaseLabelFont() const
{
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    return small;
}

QRectF LearningChart::boundNoteRect() const
{
    // The certified gap and any grouped bound, in the plot's top right corner.
    const QString note = boundNote();
    if (note.isEmpty())
        return {};
    const QRectF plot = plotRectInView();
    return QFontMetrics(boundNoteFont())
        .boundingRect(plot.toRect().adjusted(8, 6, -8, -6), Qt::AlignRight | Qt::AlignTop, note)
        .adjusted(-4, -2, 4, 2);
}

void LearningChart::paintBoundNote(QPainter* painter) const
{
    const QRectF box = boundNoteRect();
    if (box.isEmpty())
        return;
    painter->save();
    painter->setFont(boundNoteFont());
    QColor back = palette().color(QPalette::Base);
    back.setAlpha(215);
    painter->setPen(Qt::NoPen);
    painter->setBrush(back);
    painter->drawRect(box);
    painter->setPen(palette().color(QPalette::Text));
    painter->drawText(box.adjusted(4, 2, -4, -2), Qt::AlignRight | Qt::AlignTop, boundNote());
    painter->restore();
}

void LearningChart::paintEntropyStrip(QPainter* painter) const
{
    const QRectF strip = entropyStripRect();
    if (strip.height() < 8.0 || strip.width() < 8.0)
        return;
    const QColor text = palette().color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(40);
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(QPen(grid, 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(strip);
    painter->drawLine(QPointF(strip.left(), strip.center().y()), QPointF(strip.right(), strip.center().y()));
    // Labels: 0 and 1 on the left like the step-time axis, the name in the corner.
    QFont font = painter->font();
    font.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.85));
    painter->setFont(font);
    painter->setPen(text);
    const QFontMetricsF metrics(font);
    for (const auto& [value, label] : {std::pair{0.0, QStringLiteral("0")}, std::pair{1.0, QStringLiteral("1")}}) {
        const qreal y = strip.bottom() - value * strip.height();
        const QRectF box(strip.left() - metrics.horizontalAdvance(label) - 6, y - metrics.height() / 2,
                         metrics.horizontalAdvance(label) + 2, metrics.height());
        painter->drawText(box, Qt::AlignRight | Qt::AlignVCenter, label);
    }
    // Its name turned like the step-time axis's title, beside it.
    painter->save();
    painter->translate(strip.left() - 36.0, strip.center().y());
    painter->rotate(-90.0);
    QFont bold = font;
    bold.setBold(true);
    painter->setFont(bold);
    painter->drawText(QRectF(-strip.height(), -10.0, 2.0 * strip.height(), 20.0), Qt::AlignCenter, tr("entropy"));
    painter->restore();
    if (entropy_.isEmpty()) {
        painter->drawText(strip, Qt::AlignCenter, tr("no policy updates"));
        return;
    }
    // The points within the shown samples, at most about two per pixel.
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    // One polyline per phase: a race's runs each have their own policy, never joined.
    QList<QPolygonF> line;
    int segment = -1;
    const auto append = [&](const QPointF& p) {
        const int s = phases_.segmentOf(p.x());
        if (s != segment || line.isEmpty()) {
            line.append(QPolygonF{});
            segment = s;
        }
        line.back() << entropyPosition(p.x(), p.y());
    };
    const qsizetype stride = std::max<qsizetype>(
        1, entropy_.size() / std::max<qsizetype>(1, 2 * static_cast<qsizetype>(strip.width())));
    for (qsizetype i = 0; i < entropy_.size(); i += stride) {
        const QPointF& p = entropy_[i];
        if (p.x() >= lo && p.x() <= hi)
            append(p);
    }
    if (entropy_.back().x() >= lo && entropy_.back().x() <= hi && (entropy_.size() - 1) % stride != 0)
        append(entropy_.back());
    // The clip is the strip's alone: what is painted after it (the phase marks, the certified
    // gap in the plot's corner) must not inherit it.
    painter->save();
    painter->setClipRect(strip.adjusted(0, -1, 0, 1));
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(ChartColours::forTheme(dark_).entropy, 1.2));
    for (const QPolygonF& part : line) {
        if (part.size() == 1)
            painter->drawEllipse(part.front(), 1.5, 1.5);
        else
            painter->drawPolyline(part);
    }
    painter->restore();
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
    // One colour per series, distinct from each other and from the device colours in both
    // themes (ChartColours, tests/ui/test_colours).
    const ChartColours colours = ChartColours::forTheme(dark_);
    const auto translucent = [](QColor c, int alpha) {
        c.setAlpha(alpha);
        return c;
    };
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
    points(feasibleSeries_, translucent(colours.sampled, dark_ ? 140 : 120), kMarkerSize);
    points(infeasibleSeries_, translucent(colours.outOfMemory, 160), kMarkerSize);
    for (QLineSeries* segment : eliteSegments_)
        line(segment, colours.elite, 1.5);
    line(bestSeries_, colours.best, 2.5);
    line(lowerBoundSeries_, colours.lowerBound, 1.2, Qt::DashLine);
    line(groupedBoundSeries_, colours.groupedBound, 1.2, Qt::DotLine);
    line(singleDeviceSeries_, colours.singleDevice, 1.2, Qt::DashLine);
    line(classicalSeries_, colours.classical, 1.4, Qt::DashDotLine);
    line(hostDispatchSeries_, colours.hostDispatch, 1.4, Qt::DotLine);
    points(selectedSeries_, colours.selected, 9);
    updateLegend();
    viewport()->update(); // the entropy strip takes the palette's colours
}

void LearningChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && ViewTheme::isDark(palette()) != dark_)
        applyTheme();
}

QRectF LearningChart::outOfMemoryRow() const
{
    const QRectF plot = plotRectInView();
    if (plot.isEmpty())
        return {};
    // Where the pinned markers' centres are, as the series draws them, and their radius.
    const QPointF centre = mapFromScene(
        chart()->mapToScene(chart()->mapToPosition(QPointF(xAxis_->min(), outOfMemoryY()), infeasibleSeries_)));
    const double bottom = std::clamp(centre.y() + kMarkerSize, plot.top(), plot.bottom());
    return {plot.left(), plot.top(), plot.width(), bottom - plot.top()};
}

std::vector<LearningChart::PhaseLabel> LearningChart::phaseLabels() const
{
    std::vector<PhaseLabel> labels;
    const QRectF plot = plotRectInView();
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    if (phases_.empty() || !(hi > lo) || plot.width() < 8.0)
        return labels;
    const auto xOf = [&](double sample) { return plot.left() + (sample - lo) / (hi - lo) * plot.width(); };
    const QFontMetricsF metrics(phaseLabelFont());
    // A row of their own under the out-of-memory row, whose markers they used to cover.
    const double top = outOfMemoryRow().bottom() + 2.0;
    if (top + metrics.height() > plot.bottom())
        return labels;
    const QRectF note = boundNoteRect();
    const auto& phases = phases_.phases();
    for (size_t i = 0; i < phases.size(); ++i) {
        const double start = phases[i].firstSample;
        const double end = i + 1 < phases.size() ? phases[i + 1].firstSample : hi;
        if (end < lo || start > hi)
            continue;
        const double x = xOf(std::max(start, lo));
        const QString text = phases[i].kind == PhaseKind::LearnerRun ? tr("run %1").arg(phases[i].run + 1)
                                                                     : phases[i].label;
        double room = xOf(std::min(end, hi)) - x - 6.0;
        if (!note.isEmpty() && top + metrics.height() >= note.top() && top <= note.bottom() && x < note.right())
            room = std::min(room, note.left() - x - 6.0); // never under the bound's note
        const double width = metrics.horizontalAdvance(text);
        if (width <= room)
            labels.push_back({text, QRectF(x + 3.0, top, width, metrics.height())});
    }
    return labels;
}

void LearningChart::paintPhaseMarks(QPainter* painter) const
{
    if (phases_.empty())
        return;
    const QRectF plot = plotRectInView();
    const QRectF strip = entropyStripRect();
    const double lo = xAxis_->min();
    const double hi = xAxis_->max();
    if (!(hi > lo) || plot.width() < 8.0)
        return;
    const auto xOf = [&](double sample) { return plot.left() + (sample - lo) / (hi - lo) * plot.width(); };
    QColor line = palette().color(QPalette::Text);
    line.setAlpha(90);
    QColor text = palette().color(QPalette::Text);
    text.setAlpha(190);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    for (const LearnerPhase& phase : phases_.phases()) {
        const double start = phase.firstSample;
        if (start <= lo || start > hi)
            continue;
        // Where a phase begins: a dashed line through the plot and the strip.
        const double x = xOf(start);
        painter->setPen(QPen(line, 1, Qt::DashLine));
        painter->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        if (!strip.isEmpty())
            painter->drawLine(QPointF(x, strip.top()), QPointF(x, strip.bottom()));
    }
    painter->setFont(phaseLabelFont());
    painter->setPen(text);
    for (const PhaseLabel& label : phaseLabels())
        painter->drawText(label.rect, Qt::AlignLeft | Qt::AlignVCenter, label.text);
    painter->restore();
}

} // namespace post
