#include "ui/timeline/TimeTicks.h"

#include <algorithm>
#include <cmath>

namespace post {

TimeTicks TimeTicks::make(double fromUs, double toUs, double pxPerUs, double minSpacingPx)
{
    TimeTicks ticks;
    if (!(pxPerUs > 0.0) || !(toUs > fromUs))
        return ticks;
    const double raw = minSpacingPx / pxPerUs;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    double step = decade;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (decade * m >= raw) {
            step = decade * m;
            break;
        }
    ticks.stepUs = step;
    // Enough decimals of a millisecond to tell neighbouring ticks apart.
    ticks.decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step / 1000.0) - 1e-9)), 0, 9);
    const double first = std::ceil(fromUs / step);
    const double last = std::floor(toUs / step);
    for (double i = first; i <= last && ticks.atUs.size() < 10000; i += 1.0)
        ticks.atUs.push_back(i * step);
    return ticks;
}

QString TimeTicks::label(double us) const
{
    const double ms = us / 1000.0;
    return QString::number(std::abs(ms) < 1e-12 ? 0.0 : ms, 'f', decimals);
}

} // namespace post
