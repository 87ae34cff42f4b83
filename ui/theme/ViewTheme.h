#pragma once

#include <QColor>

class QPalette;

namespace post {

// Colours of the graph view, picked to read well on the current palette.
// Qt 6.4 has no colorScheme(): dark mode is a window colour with lightness < 128.
struct ViewTheme {
    bool dark = false;
    QColor background;
    QColor edge;
    QColor edgeHighlight;
    QColor text;
    QColor mutedText;
    QColor selection;
    QColor searchHit;
    QColor unplaced;
    // The simulated critical path, on the graph and the timeline: magenta, at least
    // kDistinctFromDevices from every device colour, their borders and the selection and
    // search colours in both themes (tests/ui/test_colours).
    QColor critical;
    QColor panel; // overlays (legend, search) drawn over the graph
    QColor panelBorder;

    static bool isDark(const QPalette& palette);
    static ViewTheme fromPalette(const QPalette& palette);
    static ViewTheme light();
    static ViewTheme darkTheme();

    // A node's fill for a category colour: a light tint in light mode, a deep shade in dark
    // mode, so the label keeps its contrast either way.
    QColor nodeFill(const QColor& category) const;
    // Black or white, whichever reads better on `fill`.
    static QColor textOn(const QColor& fill);
};

} // namespace post
