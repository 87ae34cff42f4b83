#pragma once

#include <QString>

class QValueAxis;

namespace post {

// Round tick spacing for an axis: 1, 2, 2.5 or 5 times a power of ten, giving about
// `targetTicks` intervals over `span` (a positive range). Ticks sit at multiples of it.
double niceTickStep(double span, int targetTicks = 6);

// The label format (QtCharts' printf style, localised by the chart) that shows every
// multiple of `step` exactly and no more digits: "%.0f" for 500, "%.1f" for 2.5, "%.2f" for 0.05.
QString tickLabelFormat(double step);

// Round ticks for a span: niceTickStep, and for sample counts (`integral`) at least 1, 2 or 5 apart.
double chartTickStep(double span, bool integral);
// Ticks `step` apart from 0 on `axis`, labelled with tickLabelFormat (whole numbers when integral).
void setChartTicks(QValueAxis* axis, double step, bool integral);
// A new range with ticks that fit it. The axis lays its ticks out for the new range with the
// interval it has: a 30x wider range at the old interval would make 30x the tick items (tens
// of thousands going from an empty chart to a run's range), so the interval changes first
// when it grows and after the range when it shrinks.
void setChartRange(QValueAxis* axis, double lo, double hi, bool integral);

} // namespace post
