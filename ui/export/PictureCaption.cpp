#include "ui/export/PictureCaption.h"

#include "core/graph/GraphSizes.h"
#include "core/sim/Simulator.h"
#include "ui/graphview/GraphScene.h"
#include "ui/theme/GradientScale.h"
#include "ui/util/Format.h"

#include <QFileInfo>
#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>

namespace post {
namespace {

constexpr double kPad = 10.0;
constexpr double kSwatch = 11.0;
constexpr double kEntryGap = 16.0;
constexpr double kRampWidth = 160.0;
constexpr double kLabelGap = 12.0;
constexpr double kRampHeight = 10.0;

QFont boldOf(const QFont& font)
{
    QFont bold = font;
    bold.setBold(true);
    return bold;
}

// The legend's entries flow left to right and wrap: the x of each and the number of rows.
struct Flow {
    std::vector<QPointF> at; // top left of each entry, relative to the legend's first row
    int rows = 0;
};

Flow flow(const Legend& legend, const QFont& font, double left, double width)
{
    const QFontMetricsF fm(font);
    Flow out;
    double x = left;
    double y = 0.0;
    out.rows = legend.entries.empty() ? 0 : 1;
    for (const Legend::Entry& e : legend.entries) {
        const double w = kSwatch + 5.0 + fm.horizontalAdvance(e.label);
        if (x > left && x + w > width) {
            x = left;
            y += fm.height() + 3.0;
            ++out.rows;
        }
        out.at.emplace_back(x, y);
        x += w + kEntryGap;
    }
    return out;
}

// How wide a ramp must be for its end and middle labels to stand apart.
double rampWidthFor(const Legend& legend, const QFontMetricsF& fm)
{
    const double low = fm.horizontalAdvance(legend.lowLabel);
    const double high = fm.horizontalAdvance(legend.highLabel);
    if (legend.midLabel.isEmpty())
        return std::max(kRampWidth, low + high + kLabelGap);
    // The middle label is centred: each half must hold half of it and one end label.
    return std::max(kRampWidth, 2.0 * (fm.horizontalAdvance(legend.midLabel) / 2.0 + kLabelGap + std::max(low, high)));
}

} // namespace

PictureCaption PictureCaption::of(const GraphScene& scene)
{
    PictureCaption c;
    c.legend = scene.legend();
    c.theme = scene.theme();
    c.font.setPixelSize(12);
    const DocumentPtr& doc = scene.document();
    if (!doc || !doc->graph)
        return c;
    QStringList title{QFileInfo(doc->path).fileName()};
    if (doc->cluster)
        title << QString::fromStdString(doc->cluster->name());
    title << (doc->opCount() == 1 ? QObject::tr("1 op") : QObject::tr("%1 ops").arg(doc->opCount()));
    c.title = title.join(QStringLiteral(" · "));
    if (!doc->isPlaced() || !doc->cluster) {
        c.step = QObject::tr("not placed: no step time");
        return c;
    }
    // The same simulation the status bar shows (core's Simulator, the document's rule).
    const SimResult r = Simulator(*doc->graph, *doc->cluster, doc->sim).run(doc->placement);
    c.step = QObject::tr("step %1 · %2")
                 .arg(formatMicroseconds(r.stepTimeUs),
                      !hasMemorySizes(*doc->graph) ? QObject::tr("memory unknown")
                          : r.feasible             ? QObject::tr("fits memory")
                                                   : QObject::tr("out of memory"));
    if (doc->sim.dispatch != Dispatch::ReadyOrder)
        c.step += QObject::tr(" · %1 dispatch").arg(QString::fromLatin1(dispatchName(doc->sim.dispatch)));
    return c;
}

double PictureCaption::minimumWidth() const
{
    const QFontMetricsF bm(boldOf(font));
    const QFontMetricsF fm(font);
    return 2 * kPad
        + std::max({bm.horizontalAdvance(title) + kEntryGap + fm.horizontalAdvance(step),
                    bm.horizontalAdvance(legend.title) + kEntryGap + rampWidthFor(legend, fm), 240.0});
}

double PictureCaption::height(double width) const
{
    const QFontMetricsF bm(boldOf(font));
    const QFontMetricsF fm(font);
    double h = kPad + bm.height() + 6.0; // the title line
    if (!legend.title.isEmpty()) {
        if (legend.gradient) {
            h += std::max(bm.height(), kRampHeight + 2.0 + fm.height());
        } else {
            const double legendLeft = kPad + bm.horizontalAdvance(legend.title) + kEntryGap;
            h += std::max(1, flow(legend, font, legendLeft, width - kPad).rows) * (fm.height() + 3.0);
        }
    }
    return h + kPad;
}

void PictureCaption::paint(QPainter& painter, const QRectF& band) const
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.fillRect(band, theme.panel);
    painter.setPen(QPen(theme.panelBorder, 1));
    painter.drawLine(band.bottomLeft(), band.bottomRight());
    const QFont bold = boldOf(font);
    const QFontMetricsF bm(bold);
    const QFontMetricsF fm(font);
    double y = band.top() + kPad;
    painter.setPen(theme.text);
    painter.setFont(bold);
    const double titleWidth = bm.horizontalAdvance(title);
    painter.drawText(QRectF(band.left() + kPad, y, titleWidth + 1, bm.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
    painter.setFont(font);
    painter.drawText(QRectF(band.left() + kPad + titleWidth + kEntryGap, y,
                            band.width() - 2 * kPad - titleWidth - kEntryGap, bm.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, step);
    y += bm.height() + 6.0;
    if (legend.title.isEmpty()) {
        painter.restore();
        return;
    }
    painter.setFont(bold);
    const double legendTitleWidth = bm.horizontalAdvance(legend.title);
    painter.drawText(QRectF(band.left() + kPad, y, legendTitleWidth + 1, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     legend.title);
    painter.setFont(font);
    const double left = kPad + legendTitleWidth + kEntryGap;
    if (legend.gradient) {
        const QRectF ramp(band.left() + left, y + (fm.height() - kRampHeight) / 2, rampWidthFor(legend, fm), kRampHeight);
        QLinearGradient g(ramp.topLeft(), ramp.topRight());
        for (int i = 0; i <= 8; ++i)
            g.setColorAt(i / 8.0, GradientScale::at(i / 8.0));
        painter.setPen(Qt::NoPen);
        painter.setBrush(g);
        painter.drawRoundedRect(ramp, 2, 2);
        painter.setPen(theme.text);
        const QRectF labels(ramp.left(), ramp.bottom() + 2.0, ramp.width(), fm.height());
        painter.drawText(labels, Qt::AlignLeft, legend.lowLabel);
        painter.drawText(labels, Qt::AlignRight, legend.highLabel);
        if (!legend.midLabel.isEmpty()) { // the value at the ramp's middle, under a tick
            painter.drawLine(QPointF(ramp.center().x(), ramp.bottom() - 2.0),
                             QPointF(ramp.center().x(), ramp.bottom() + 1.0));
            painter.drawText(labels, Qt::AlignHCenter, legend.midLabel);
        }
        painter.restore();
        return;
    }
    const Flow placed = flow(legend, font, left, band.width() - kPad);
    for (size_t i = 0; i < legend.entries.size(); ++i) {
        const Legend::Entry& e = legend.entries[i];
        const QPointF at = band.topLeft() + QPointF(placed.at[i].x(), y + placed.at[i].y());
        const QRectF swatch(at.x(), at.y() + (fm.height() - kSwatch) / 2, kSwatch, kSwatch);
        painter.setPen(QPen(e.colour.darker(130), 1));
        painter.setBrush(e.colour);
        painter.drawRoundedRect(swatch, 2, 2);
        painter.setPen(theme.text);
        painter.drawText(QRectF(swatch.right() + 5.0, at.y(), fm.horizontalAdvance(e.label) + 2, fm.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, e.label);
    }
    painter.restore();
}

} // namespace post
