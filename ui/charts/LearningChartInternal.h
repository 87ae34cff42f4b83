#pragma once
// What the LearningChart*.cpp units share (not for other files).

#include <cmath>

namespace post::chartdetail {

// A figure that is there: a positive, finite time.
inline bool known(double v) { return std::isfinite(v) && v > 0.0; }

} // namespace post::chartdetail
