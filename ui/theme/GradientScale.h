#pragma once

#include <QColor>

namespace post {

// Maps a non-negative quantity to a colour on a perceptually even ramp (viridis), on a
// log scale because op times and sizes span several orders of magnitude.
class GradientScale {
public:
    GradientScale() = default;
    GradientScale(double minValue, double maxValue);

    QColor colour(double value) const;
    // Position in [0, 1] of `value` on the scale.
    double position(double value) const;
    static QColor at(double position);

    double minValue() const { return min_; }
    double maxValue() const { return max_; }

private:
    double min_ = 1.0;
    double max_ = 1.0;
};

} // namespace post
