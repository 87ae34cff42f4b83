#include "ui/theme/GradientScale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace post {

GradientScale::GradientScale(double minValue, double maxValue)
    : min_(std::max(minValue, 1e-9))
    , max_(std::max(maxValue, std::max(minValue, 1e-9)))
{
}

double GradientScale::position(double value) const
{
    if (!(value > min_))
        return 0.0;
    if (value >= max_ || max_ <= min_)
        return max_ <= min_ ? 0.0 : 1.0;
    return std::log(value / min_) / std::log(max_ / min_);
}

QColor GradientScale::colour(double value) const { return at(position(value)); }

QColor GradientScale::at(double position)
{
    // Viridis sampled at 0, 0.25, 0.5, 0.75, 1.
    static constexpr std::array<QRgb, 5> kStops = {0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725};
    const double p = std::clamp(position, 0.0, 1.0) * (kStops.size() - 1);
    const auto i = std::min(static_cast<size_t>(p), kStops.size() - 2);
    const double t = p - static_cast<double>(i);
    const QColor a = QColor::fromRgb(kStops[i]);
    const QColor b = QColor::fromRgb(kStops[i + 1]);
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

} // namespace post
