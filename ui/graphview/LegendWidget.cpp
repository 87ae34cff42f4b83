#include "ui/graphview/LegendWidget.h"

#include "ui/theme/GradientScale.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>

namespace post {
namespace {

constexpr int kPad = 8;
constexpr int kSwatch = 11;
constexpr int kRampWidth = 150;
constexpr int kRampHeight = 10;
constexpr int kMaxRows = 12;
constexpr int kLabelGap = 12;

// How wide a ramp must be for its end and middle labels to stand apart.
int rampWidthFor(const Legend& legend, const QFontMetrics& fm)
{
    const int ends = fm.horizontalAdvance(legend.lowLabel) + fm.horizontalAdvance(legend.highLabel);
    if (legend.midLabel.isEmpty())
        return std::max(kRampWidth, ends + kLabelGap);
    // The middle label is centred: each half must hold half of it and one end label.
    const int half = fm.horizontalAdvance(legend.midLabel) / 2 + kLabelGap
        + std::max(fm.horizontalAdvance(legend.lowLabel), fm.horizontalAdvance(legend.highLabel));
    return std::max(kRampWidth, 2 * half);
}

} // namespace

LegendWidget::LegendWidget(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_TransparentForMouseEvents);
    panel_ = palette().color(QPalette::Base);
    border_ = palette().color(QPalette::Mid);
    text_ = palette().color(QPalette::Text);
}

void LegendWidget::setLegend(const Legend& legend)
{
    legend_ = legend;
    updateGeometry();
    resize(sizeHint());
    update();
}

void LegendWidget::setPanelColours(const QColor& panel, const QColor& border, const QColor& text)
{
    panel_ = panel;
    border_ = border;
    text_ = text;
    update();
}

QSize LegendWidget::sizeHint() const
{
    const QFontMetrics fm(font());
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics bm(bold);
    int width = bm.horizontalAdvance(legend_.title);
    int height = bm.height();
    if (legend_.gradient) {
        width = std::max(width, rampWidthFor(legend_, fm));
        height += 4 + kRampHeight + 2 + fm.height();
    } else {
        const int rows = std::min<int>(static_cast<int>(legend_.entries.size()), kMaxRows);
        for (int i = 0; i < rows; ++i)
            width = std::max(width, kSwatch + 6 + fm.horizontalAdvance(legend_.entries[static_cast<size_t>(i)].label));
        height += rows * (fm.height() + 2) + 2;
        if (static_cast<int>(legend_.entries.size()) > kMaxRows)
            height += fm.height();
    }
    return {width + 2 * kPad, height + 2 * kPad};
}

void LegendWidget::paintEvent(QPaintEvent*)
{
    if (legend_.title.isEmpty())
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(border_, 1));
    p.setBrush(panel_);
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);

    const QFontMetrics fm(font());
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics bm(bold);
    int y = kPad;
    p.setPen(text_);
    p.setFont(bold);
    p.drawText(QRect(kPad, y, width() - 2 * kPad, bm.height()), Qt::AlignLeft | Qt::AlignVCenter, legend_.title);
    y += bm.height() + 4;
    p.setFont(font());

    if (legend_.gradient) {
        const QRect ramp(kPad, y, width() - 2 * kPad, kRampHeight);
        QLinearGradient g(ramp.topLeft(), ramp.topRight());
        for (int i = 0; i <= 8; ++i)
            g.setColorAt(i / 8.0, GradientScale::at(i / 8.0));
        p.setPen(Qt::NoPen);
        p.setBrush(g);
        p.drawRoundedRect(ramp, 2, 2);
        y += kRampHeight + 2;
        p.setPen(text_);
        p.drawText(QRect(kPad, y, ramp.width(), fm.height()), Qt::AlignLeft, legend_.lowLabel);
        p.drawText(QRect(kPad, y, ramp.width(), fm.height()), Qt::AlignRight, legend_.highLabel);
        if (!legend_.midLabel.isEmpty()) { // the value at the ramp's middle, under a tick
            const int centre = ramp.center().x();
            p.drawLine(centre, ramp.bottom() - 2, centre, ramp.bottom() + 1);
            p.drawText(QRect(kPad, y, ramp.width(), fm.height()), Qt::AlignHCenter, legend_.midLabel);
        }
        return;
    }
    const int rows = std::min<int>(static_cast<int>(legend_.entries.size()), kMaxRows);
    for (int i = 0; i < rows; ++i) {
        const Legend::Entry& e = legend_.entries[static_cast<size_t>(i)];
        const QRect swatch(kPad, y + (fm.height() - kSwatch) / 2, kSwatch, kSwatch);
        p.setPen(QPen(e.colour.darker(130), 1));
        p.setBrush(e.colour);
        p.drawRoundedRect(swatch, 2, 2);
        p.setPen(text_);
        p.drawText(QRect(swatch.right() + 6, y, width() - swatch.right() - 6 - kPad, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(e.label, Qt::ElideRight, width()));
        y += fm.height() + 2;
    }
    if (static_cast<int>(legend_.entries.size()) > kMaxRows) {
        p.drawText(QRect(kPad, y, width() - 2 * kPad, fm.height()), Qt::AlignLeft,
                   tr("… %1 more").arg(legend_.entries.size() - static_cast<size_t>(kMaxRows)));
    }
}

} // namespace post
