#pragma once

#include <QString>

#include <vector>

namespace post {

// Tick marks for a time axis: a 1-2-5 step giving about one label per `minSpacingPx`.
struct TimeTicks {
    double stepUs = 1.0;
    int decimals = 0;         // of the labels, in milliseconds
    std::vector<double> atUs; // inside [fromUs, toUs]

    static TimeTicks make(double fromUs, double toUs, double pxPerUs, double minSpacingPx);
    QString label(double us) const; // "12.5" (milliseconds)
};

} // namespace post
