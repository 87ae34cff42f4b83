#pragma once

// Internal to the ONNX importer (includes the ONNX protobuf headers; core .cpp files only).
#include "core/io/onnx/OnnxTensorData.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace post {

// What the constant folder knows about one node input.
struct OnnxFoldInput {
    bool present = false;                             // the input name is not empty
    const OnnxIntTensor* value = nullptr;             // a known integer tensor, else null
    const std::vector<std::int64_t>* shape = nullptr; // an inferred shape with every dim known, else null
};

// Largest tensor the folder creates or reads: shape arithmetic is small, and bigger
// constants would only bloat the model between shape-inference rounds.
inline constexpr std::size_t kOnnxMaxFoldElements = 1 << 16;
// And of all tensors the folder computes in one import together: a thousand
// ConstantOfShape nodes of 65,536 elements each fit in 60 KB of model but would be half a
// gigabyte of int64 and more in protobuf copies (fuzz-regressions/onnx). Past the budget
// nodes stay ops.
inline constexpr std::size_t kOnnxMaxComputedElements = 1 << 20;
// Float values are folded only from the file's Constant nodes of at most this many elements
// (literal scales; float initializers are weights) and what is computed from them.
inline constexpr std::size_t kOnnxMaxRealElements = 64;

// The output of a single-output shape-arithmetic node (Shape, Size; data movement: Identity,
// Gather, Unsqueeze, Squeeze, Concat, Reshape, Slice, Expand, Tile, Transpose; element-wise:
// Cast, Add, Sub, Mul, Div, Mod, Pow, Min, Max, Neg, Abs, Sign, Equal, Less(OrEqual),
// Greater(OrEqual), Not, And, Or, Xor, Where; ReduceProd/Sum/Min/Max; ConstantOfShape, Range;
// on float values: Cast, Add, Sub, Mul, Div, Min, Max, Pow, Sqrt, Reciprocal, Floor, Ceil,
// Round, Neg, Abs, comparisons, Where, and the data movement above) computed from its inputs; nullopt when it cannot be folded or
// would hold more than `maxElements` (at most kOnnxMaxFoldElements) elements.
std::optional<OnnxIntTensor> foldOnnxNode(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& inputs,
                                          int opset, std::size_t maxElements = kOnnxMaxFoldElements);

// The outputs of a Split of a known integer tensor, one per output (sizes from its `split`
// attribute before opset 13, its input since, else equal parts); nullopt when it cannot be
// folded or its input holds more than `maxElements` (at most kOnnxMaxFoldElements) elements.
// torchvision's MViT computes a shape through one (Expand, Split, Concat).
std::optional<std::vector<OnnxIntTensor>> foldOnnxSplit(const onnx::NodeProto& node,
                                                        const std::vector<OnnxFoldInput>& inputs, int opset,
                                                        std::size_t maxElements = kOnnxMaxFoldElements);

} // namespace post
