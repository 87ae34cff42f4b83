#include "ui/theme/ViewTheme.h"

#include <QPalette>

namespace post {
namespace {

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

} // namespace

bool ViewTheme::isDark(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

ViewTheme ViewTheme::fromPalette(const QPalette& palette)
{
    ViewTheme t = isDark(palette) ? darkTheme() : light();
    t.background = palette.color(QPalette::Base);
    t.text = palette.color(QPalette::Text);
    t.selection = palette.color(QPalette::Highlight);
    // Some styles give a highlight too close to the background to mark a node: keep ours then.
    if (qAbs(t.selection.lightness() - t.background.lightness()) < 40)
        t.selection = t.dark ? QColor(0x5d, 0xa9, 0xff) : QColor(0x1f, 0x6f, 0xd6);
    return t;
}

ViewTheme ViewTheme::light()
{
    ViewTheme t;
    t.dark = false;
    t.background = QColor(0xfb, 0xfb, 0xfc);
    t.edge = QColor(0x6b, 0x72, 0x80);
    t.edgeHighlight = QColor(0x1f, 0x6f, 0xd6);
    t.text = QColor(0x1d, 0x21, 0x27);
    t.mutedText = QColor(0x55, 0x5c, 0x66);
    t.selection = QColor(0x1f, 0x6f, 0xd6);
    t.searchHit = QColor(0xf5, 0x9e, 0x0b);
    t.unplaced = QColor(0xa3, 0xa8, 0xb0);
    t.critical = QColor(190, 0, 190); // magenta: no device colour is near (ColourDifference)
    t.panel = QColor(255, 255, 255, 230);
    t.panelBorder = QColor(0xd0, 0xd4, 0xda);
    return t;
}

ViewTheme ViewTheme::darkTheme()
{
    ViewTheme t;
    t.dark = true;
    t.background = QColor(0x1e, 0x20, 0x24);
    t.edge = QColor(0x8b, 0x93, 0xa1);
    t.edgeHighlight = QColor(0x5d, 0xa9, 0xff);
    t.text = QColor(0xe6, 0xe8, 0xeb);
    t.mutedText = QColor(0xa8, 0xae, 0xb8);
    t.selection = QColor(0x5d, 0xa9, 0xff);
    t.searchHit = QColor(0xfb, 0xbf, 0x24);
    t.unplaced = QColor(0x7c, 0x82, 0x8c);
    t.critical = QColor(255, 60, 255); // was coral, GPU:2's colour
    t.panel = QColor(0x2a, 0x2d, 0x33, 235);
    t.panelBorder = QColor(0x45, 0x4a, 0x52);
    return t;
}

QColor ViewTheme::nodeFill(const QColor& category) const
{
    return dark ? mix(category, background, 0.55) : mix(category, QColor(Qt::white), 0.62);
}

QColor ViewTheme::textOn(const QColor& fill)
{
    // Relative luminance (sRGB weights) against a mid threshold.
    const double y = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return y > 0.5 ? QColor(0x1d, 0x21, 0x27) : QColor(0xf2, 0xf3, 0xf5);
}

} // namespace post
