#pragma once

#include "core/graph/Precision.h"

#include <QLocale>
#include <QString>

namespace post {

// Short human forms with three significant digits, for legends, tables and the inspector.
QString formatMicroseconds(double us); // "850 µs", "1.25 ms", "2.40 s"
QString formatBytes(double bytes);     // "512 B", "3.40 MB" (decimal units)
// The locale numbers are written in: the user's, or English where that is the C locale
// (which writes no thousands separators).
QLocale numberLocale();
// A step time in ms as the learner's status and the chart write it: four significant digits,
// never an exponent, grouped thousands ("20,230 ms", "1,097 ms", "921.9 ms", "0.8525 ms").
QString formatMilliseconds(double ms);
// A precision mode's name as post-cli spells it ("fp32", "tf32", "amp"), and one line on what
// it means (the learner panel's tooltips, the inspector).
QString precisionName(PrecisionMode mode);
QString describePrecision(PrecisionMode mode);
// How legends and tables name what gives a lower bound (LowerBound::source(): "critical-path"
// -> "critical path", "ready-order" -> "ready order"; work, fork-join, ancestry and milp as
// they are).
QString boundSourceLabel(const QString& source);

} // namespace post
