#pragma once

#include <QVariant>

#include <optional>

namespace post {

// A typed or pasted cell value as a finite number > 0 (>= 0 when `allowZero`), else nullopt.
std::optional<double> positiveNumber(const QVariant& value, bool allowZero = false);

} // namespace post
