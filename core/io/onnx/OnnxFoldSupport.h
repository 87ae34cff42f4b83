#pragma once

// Internal to the ONNX constant folder (OnnxFoldOps.cpp, OnnxFoldMath.cpp): what the folds of
// data movement and of element-wise arithmetic share.
#include "core/io/onnx/OnnxFoldOps.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace post::onnxfold {

using Dims = std::vector<std::int64_t>;
using Result = std::optional<OnnxIntTensor>;

inline const onnx::AttributeProto* findAttr(const onnx::NodeProto& node, const std::string& name)
{
    for (const auto& a : node.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

inline std::int64_t intAttr(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback)
{
    const auto* a = findAttr(node, name);
    return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

inline std::optional<Dims> intsAttr(const onnx::NodeProto& node, const std::string& name)
{
    const auto* a = findAttr(node, name);
    if (!a || a->type() != onnx::AttributeProto::INTS)
        return std::nullopt;
    return Dims(a->ints().begin(), a->ints().end());
}

inline const OnnxIntTensor* valueAt(const std::vector<OnnxFoldInput>& in, std::size_t i)
{
    return i < in.size() ? in[i].value : nullptr;
}

inline bool presentAt(const std::vector<OnnxFoldInput>& in, std::size_t i) { return i < in.size() && in[i].present; }

inline std::optional<std::int64_t> normalizedAxis(std::int64_t axis, std::int64_t rank)
{
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return std::nullopt;
    return axis;
}

// A tensor of `dims` holding `values`; nullopt when they do not match or it is too large.
inline Result make(int type, Dims dims, std::vector<std::int64_t> values)
{
    const auto n = onnxElementCount(dims);
    if (!n || static_cast<std::size_t>(*n) != values.size() || values.size() > kOnnxMaxFoldElements)
        return std::nullopt;
    return OnnxIntTensor{type, std::move(dims), std::move(values), {}};
}

// A float tensor of `dims` holding `reals`; nullopt when they do not match or it is too large.
inline Result makeReal(int type, Dims dims, std::vector<double> reals)
{
    const auto n = onnxElementCount(dims);
    if (!n || static_cast<std::size_t>(*n) != reals.size() || reals.size() > kOnnxMaxFoldElements)
        return std::nullopt;
    for (double& v : reals) {
        if (!std::isfinite(v))
            return std::nullopt; // a division by zero, an overflow: nothing a shape can use
        if (type == onnx::TensorProto::FLOAT)
            v = static_cast<float>(v); // what a runtime computes in float32
    }
    OnnxIntTensor t{type, std::move(dims), {}, std::move(reals)};
    return t;
}

// The axes of a node that takes them as an attribute before `inputFrom` and as input 1 since
// (Squeeze, Unsqueeze: 13; ReduceSum: 13); nullopt when given but not known.
std::optional<Dims> axesOf(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset,
                           int inputFrom = 13);

// Element-wise arithmetic, comparisons, logic, Where, Cast, reductions (OnnxFoldMath.cpp),
// of integer tensors, and of float ones where an input is float (Cast, Add, Sub, Mul, Div,
// Min, Max, comparisons, Where, Floor, Ceil, Round, Neg, Abs); nullopt for any other type.
Result foldOnnxMath(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset,
                    std::size_t maxElements);

} // namespace post::onnxfold
