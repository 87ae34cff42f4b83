#pragma once

#include <cstdint>

namespace post {

// Dense indices: ops, edges and devices are stored in arrays and referred to by position.
using OpId = std::int32_t;
using EdgeId = std::int32_t;
using DeviceId = std::int32_t;

inline constexpr OpId kNoOp = -1;
inline constexpr DeviceId kNoDevice = -1;

} // namespace post
