#pragma once

#include <QColor>

namespace post {

// How different two colours look: CIEDE2000 (ΔE00) on sRGB with a D65 white, alpha ignored.
// About 2 is a just-noticeable difference side by side; thin lines and small markers need
// much more to be told apart at a glance. The app's colour checks (tests/ui/test_colours)
// ask for kDistinctSeries between the series of one chart and kDistinctFromDevices between
// any colour that marks something and the device colours (CategoryPalette).
double colourDifference(const QColor& a, const QColor& b);

constexpr double kDistinctSeries = 15.0;
constexpr double kDistinctFromDevices = 12.0;

} // namespace post
