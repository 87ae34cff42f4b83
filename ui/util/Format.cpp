#include "ui/util/Format.h"

namespace post {

namespace {

// Three significant digits without switching to exponent notation.
QString threeDigits(double v)
{
    const int decimals = v < 10 ? 2 : v < 100 ? 1 : 0;
    return QString::number(v, 'f', decimals);
}

} // namespace

QString formatMicroseconds(double us)
{
    if (us == 0.0)
        return QStringLiteral("0");
    if (us >= 1e6)
        return threeDigits(us / 1e6) + QStringLiteral(" s");
    if (us >= 1e3)
        return threeDigits(us / 1e3) + QStringLiteral(" ms");
    return threeDigits(us) + QStringLiteral(" µs");
}

QString formatBytes(double bytes)
{
    static const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
    int unit = 0;
    while (bytes >= 1000.0 && unit < 4) {
        bytes /= 1000.0;
        ++unit;
    }
    if (unit == 0)
        return QString::number(bytes, 'f', 0) + QStringLiteral(" B");
    return threeDigits(bytes) + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

} // namespace post
