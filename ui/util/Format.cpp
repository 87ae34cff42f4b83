#include "ui/util/Format.h"

#include <QObject>

#include <cmath>

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

QLocale numberLocale()
{
    const QLocale locale;
    return locale.language() == QLocale::C ? QLocale(QLocale::English, QLocale::UnitedStates) : locale;
}

QString formatMilliseconds(double ms)
{
    if (!std::isfinite(ms))
        return QObject::tr("none");
    const double size = std::abs(ms);
    const int decimals = size >= 1000 ? 0 : size >= 100 ? 1 : size >= 10 ? 2 : size >= 1 ? 3 : 4;
    return numberLocale().toString(ms, 'f', decimals) + QStringLiteral(" ms");
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

QString precisionName(PrecisionMode mode)
{
    const std::string_view name = toString(mode);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

QString describePrecision(PrecisionMode mode)
{
    switch (mode) {
    case PrecisionMode::Fp32:
        return QObject::tr("fp32: plain FP32 units, no tensor cores");
    case PrecisionMode::Tf32:
        return QObject::tr("tf32: TF32 tensor cores for every matrix product and convolution where the GPU has "
                           "them (Ampere and later), TensorFlow's default; plain FP32 elsewhere");
    case PrecisionMode::Pytorch:
        return QObject::tr("pytorch: PyTorch's default, convolutions in TF32 and matrix products in FP32 (the "
                           "default for ONNX graphs and PyTorch execution traces)");
    case PrecisionMode::Amp:
        return QObject::tr("amp: automatic mixed precision, FP16 tensor cores and 16-bit activations");
    }
    return {};
}

QString boundSourceLabel(const QString& source)
{
    if (source == QLatin1String("critical-path"))
        return QObject::tr("critical path");
    if (source == QLatin1String("device-windows"))
        return QObject::tr("device windows");
    if (source == QLatin1String("memory-split"))
        return QObject::tr("memory split");
    if (source == QLatin1String("path-loads"))
        return QObject::tr("path loads");
    if (source == QLatin1String("ready-order"))
        return QObject::tr("ready order");
    return source;
}

} // namespace post
