#pragma once

#include <QString>

namespace post {

// Round tick spacing for an axis: 1, 2, 2.5 or 5 times a power of ten, giving about
// `targetTicks` intervals over `span` (a positive range). Ticks sit at multiples of it.
double niceTickStep(double span, int targetTicks = 6);

// The label format (QtCharts' printf style, localised by the chart) that shows every
// multiple of `step` exactly and no more digits: "%.0f" for 500, "%.1f" for 2.5, "%.2f" for 0.05.
QString tickLabelFormat(double step);

} // namespace post
