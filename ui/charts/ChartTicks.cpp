#include "ui/charts/ChartTicks.h"

#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace post {

double niceTickStep(double span, int targetTicks)
{
    if (!(span > 0.0) || !std::isfinite(span))
        return 1.0;
    const double raw = span / std::max(1, targetTicks);
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 2.5, 5.0})
        if (m * decade >= raw * 0.999)
            return m * decade;
    return 10.0 * decade;
}

QString tickLabelFormat(double step)
{
    int decimals = 0;
    // The fewest decimals that write the step itself exactly (2.5 needs one, 0.25 two).
    while (decimals < 9) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
            break;
        ++decimals;
    }
    return QStringLiteral("%.%1f").arg(decimals);
}

double chartTickStep(double span, bool integral)
{
    double step = niceTickStep(span);
    if (integral && step < 10.0)
        step = step < 1.5 ? 1.0 : step < 3.0 ? 2.0 : 5.0;
    return step;
}

void setChartTicks(QValueAxis* axis, double step, bool integral)
{
    if (axis->tickType() != QValueAxis::TicksDynamic)
        axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0.0);
    axis->setTickInterval(step);
    const QString format = integral ? QStringLiteral("%.0f") : tickLabelFormat(step);
    if (axis->labelFormat() != format)
        axis->setLabelFormat(format);
}

void setChartRange(QValueAxis* axis, double lo, double hi, bool integral)
{
    const double step = chartTickStep(hi - lo, integral);
    const bool grows = step >= axis->tickInterval();
    if (grows)
        setChartTicks(axis, step, integral);
    axis->setRange(lo, hi);
    if (!grows)
        setChartTicks(axis, step, integral);
}

} // namespace post
