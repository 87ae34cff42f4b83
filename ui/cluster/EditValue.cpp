#include "ui/cluster/EditValue.h"

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

} // namespace post
