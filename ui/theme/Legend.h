#pragma once

#include <QColor>
#include <QString>

#include <vector>

namespace post {

// What the colours mean: swatches for categories, or a ramp with its end values.
struct Legend {
    struct Entry {
        QColor colour;
        QString label;
    };

    QString title;
    std::vector<Entry> entries; // categories
    // true: draw a ramp from lowLabel to highLabel, each the value its end maps ("≤ 5.00 µs"
    // where smaller values, zeros, take the lowest colour too), and midLabel, the value at its
    // middle (the ramp is logarithmic: GradientScale), under its centre.
    bool gradient = false;
    QString lowLabel;
    QString midLabel;
    QString highLabel;
};

} // namespace post
