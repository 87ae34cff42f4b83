#pragma once

#include <QString>

namespace post {

// Short human forms with three significant digits, for legends, tables and the inspector.
QString formatMicroseconds(double us); // "850 µs", "1.25 ms", "2.40 s"
QString formatBytes(double bytes);     // "512 B", "3.40 MB" (decimal units)

} // namespace post
