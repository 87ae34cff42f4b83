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
    bool gradient = false;      // true: draw a ramp from lowLabel to highLabel
    QString lowLabel;
    QString highLabel;
};

} // namespace post
