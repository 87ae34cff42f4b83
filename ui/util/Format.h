#pragma once

#include "core/graph/Precision.h"

#include <QString>

namespace post {

// Short human forms with three significant digits, for legends, tables and the inspector.
QString formatMicroseconds(double us); // "850 µs", "1.25 ms", "2.40 s"
QString formatBytes(double bytes);     // "512 B", "3.40 MB" (decimal units)
// A precision mode's name as post-cli spells it ("fp32", "tf32", "amp"), and one line on what
// it means (the learner panel's tooltips, the inspector).
QString precisionName(PrecisionMode mode);
QString describePrecision(PrecisionMode mode);

} // namespace post
