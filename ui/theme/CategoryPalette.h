#pragma once

#include <QColor>

namespace post {

// Distinct colours for categories (devices, op types), always in the same order so a
// device keeps its colour from one run to the next. Based on Tableau 10, which stays
// distinguishable as tints on light backgrounds and shades on dark ones.
struct CategoryPalette {
    static constexpr int kSize = 10;
    static QColor colour(int index); // wraps around after kSize
};

} // namespace post
