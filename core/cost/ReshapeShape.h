#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace post {

// The one inference of a Reshape's `-1` (ONNX shape folding and TensorFlow shape inference
// both use it). `dims` is the requested shape after any ONNX `0` was replaced by the input's
// dimension; `elements` is the input's element count, or negative when unknown. Returns the
// shape with the `-1` replaced by elements / (product of the others), or left -1 when that
// cannot be known: the element count is unknown, the product overflows int64, is 0, or does
// not divide it. nullopt when the request is invalid: more than one -1, or another negative.
std::optional<std::vector<std::int64_t>> reshapeTarget(std::vector<std::int64_t> dims, std::int64_t elements);

// Whether a Reshape to `dims` (ONNX `0`s already replaced) can hold `elements` (>= 0): the
// product of the sizes is `elements`, or with one -1 divides it. False for an invalid request
// (more than one -1, another negative) and for a product that overflows int64.
bool reshapeHolds(const std::vector<std::int64_t>& dims, std::int64_t elements);

} // namespace post
