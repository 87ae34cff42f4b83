#include "ui/cluster/EditValue.h"

#include <QLocale>

#include <cmath>

namespace post {

std::optional<double> positiveNumber(const QVariant& value, bool allowZero)
{
    bool ok = false;
    const double v = value.toString().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < 0.0 || (v == 0.0 && !allowZero))
        return std::nullopt;
    return v;
}

QString decimalTimesPow10(double value, int power)
{
    if (!std::isfinite(value))
        return QString::number(value);
    if (value == 0.0)
        return QStringLiteral("0");
    // "-1.2884901888e+10": sign, the shortest digits and where the point goes.
    const QString e = QString::number(std::abs(value), 'e', QLocale::FloatingPointShortest);
    const qsizetype at = e.indexOf(QLatin1Char('e'));
    QString digits = e.left(at);
    digits.remove(QLatin1Char('.'));
    const int point = 1 + e.mid(at + 1).toInt() + power; // digits before the point
    QString text;
    if (point <= 0)
        text = QStringLiteral("0.") + QString(-point, QLatin1Char('0')) + digits;
    else if (point >= digits.size())
        text = digits + QString(point - digits.size(), QLatin1Char('0'));
    else
        text = digits.left(point) + QLatin1Char('.') + digits.mid(point);
    return value < 0.0 ? QLatin1Char('-') + text : text;
}

std::optional<double> positiveNumberTimesPow10(const QVariant& value, int power, bool allowZero)
{
    QString text = value.toString().trimmed();
    if (text.isEmpty())
        return std::nullopt;
    // Move the exponent in the text: one rounding, in the conversion.
    int exponent = power;
    if (const qsizetype at = text.indexOf(QLatin1Char('e'), 0, Qt::CaseInsensitive); at >= 0) {
        bool ok = false;
        exponent += text.mid(at + 1).toInt(&ok);
        if (!ok)
            return std::nullopt;
        text.truncate(at);
    }
    // The mantissa alone must be a plain decimal ("inf" or "0x10" are no amounts).
    for (const QChar c : text)
        if (!(c.isDigit() || c == QLatin1Char('.') || c == QLatin1Char('-') || c == QLatin1Char('+')))
            return std::nullopt;
    return positiveNumber(QVariant(text + QLatin1Char('e') + QString::number(exponent)), allowZero);
}

} // namespace post
