#pragma once

#include <QString>
#include <QVariant>

#include <optional>

namespace post {

// A typed or pasted cell value as a finite number > 0 (>= 0 when `allowZero`), else nullopt.
std::optional<double> positiveNumber(const QVariant& value, bool allowZero = false);

// `value` x 10^`power` written exactly, without an exponent, from the shortest digits that
// read back as `value` ("12.884901888" for 12884901888 and power -9): the text of an edit in a
// larger unit than the stored one.
QString decimalTimesPow10(double value, int power);
// A typed value in that unit back to the stored one: the typed decimal x 10^`power`, rounded
// once (the exponent is moved in the text, so "12.884901888" with power 9 is 12884901888
// exactly and decimalTimesPow10's text always reads back as the value it was written from).
// As positiveNumber: nullopt unless finite and > 0 (>= 0 when `allowZero`).
std::optional<double> positiveNumberTimesPow10(const QVariant& value, int power, bool allowZero = false);

} // namespace post
