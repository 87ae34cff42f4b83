#pragma once

#include <QColor>
#include <QString>

#include <utility>
#include <vector>

namespace post {

// The learning chart's series colours for a light or a dark background. Every pair differs by
// at least kDistinctSeries (CIEDE2000) and each differs from every device colour
// (CategoryPalette) by kDistinctFromDevices, in both themes (tests/ui/test_colours).
struct ChartColours {
    QColor sampled;
    QColor outOfMemory;
    QColor elite;
    QColor best;
    QColor lowerBound;
    QColor groupedBound;
    QColor singleDevice;
    QColor classical;
    QColor hostDispatch;
    QColor selected;
    QColor entropy;

    static ChartColours forTheme(bool dark);
    // Each colour with the series it draws, for the checks.
    std::vector<std::pair<QString, QColor>> named() const;
};

} // namespace post
