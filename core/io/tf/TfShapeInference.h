#pragma once

#include "core/io/tf/TfAttrs.h"

#include <optional>
#include <vector>

namespace post {

// What shape inference knows about one data input of a node.
struct TfInputInfo {
    const TfAttrs::Shape* shape = nullptr;                  // nullptr: unknown
    const std::vector<std::int64_t>* constValues = nullptr; // integer values of a Const input
};

// The first output's shape of a common TensorFlow op (element-wise, broadcasting binary,
// MatMul, BatchMatMul, Conv2D, DepthwiseConv2dNative, pooling, Reshape with a constant
// shape, ConcatV2, sources with a `shape` attr) when a graph has no `_output_shapes`;
// nullopt for other ops. Unknown sizes stay -1.
std::optional<TfAttrs::Shape> inferTfOutputShape(const TfNode& node, const TfAttrs& attrs,
                                                 const std::vector<TfInputInfo>& inputs);

} // namespace post
