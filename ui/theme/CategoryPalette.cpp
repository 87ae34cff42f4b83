#include "ui/theme/CategoryPalette.h"

#include <array>

namespace post {

QColor CategoryPalette::colour(int index)
{
    static constexpr std::array<QRgb, kSize> kColours = {
        0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0x17becf,
    };
    const int i = ((index % kSize) + kSize) % kSize;
    return QColor::fromRgb(kColours[static_cast<size_t>(i)]);
}

} // namespace post
