#include "core/io/tf/TfShapeInference.h"

#include "core/cost/ReshapeShape.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace post {
namespace {

using Shape = TfAttrs::Shape;

constexpr std::array<std::string_view, 38> kSameShapeOps = {"Identity",
                                                            "ReadVariableOp",
                                                            "Snapshot",
                                                            "StopGradient",
                                                            "PreventGradient",
                                                            "Relu",
                                                            "Relu6",
                                                            "Elu",
                                                            "Selu",
                                                            "LeakyRelu",
                                                            "Sigmoid",
                                                            "Tanh",
                                                            "Softplus",
                                                            "Softsign",
                                                            "Softmax",
                                                            "LogSoftmax",
                                                            "BiasAdd",
                                                            "FusedBatchNorm",
                                                            "FusedBatchNormV2",
                                                            "FusedBatchNormV3",
                                                            "LRN",
                                                            "Neg",
                                                            "Exp",
                                                            "Log",
                                                            "Sqrt",
                                                            "Rsqrt",
                                                            "Square",
                                                            "Abs",
                                                            "Cast",
                                                            "Floor",
                                                            "Ceil",
                                                            "Round",
                                                            "Reciprocal",
                                                            "AddN",
                                                            "Erf",
                                                            "ZerosLike",
                                                            "OnesLike",
                                                            "CheckNumerics"};

constexpr std::array<std::string_view, 12> kBroadcastOps = {
    "Add", "AddV2",    "Sub",      "Mul", "RealDiv", "Div", "Maximum", "Minimum", "SquaredDifference",
    "Pow", "FloorDiv", "BiasAddV1"};

std::optional<Shape> broadcast(const Shape& a, const Shape& b)
{
    const std::size_t rank = std::max(a.size(), b.size());
    Shape out(rank, -1);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (x == 1)
            out[i] = y;
        else if (y == 1)
            out[i] = x;
        else if (x == -1 || y == -1)
            out[i] = std::max(x, y); // the known one, as TF would require them equal
        else
            out[i] = x == y ? x : -1;
    }
    return out;
}

// Dimension arithmetic on sizes as written in the file (up to 2^63 - 1): a result that
// overflows is an unknown size (-1), not undefined behaviour.
std::int64_t product(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

std::int64_t sum(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? -1 : r;
}

// Output size of one spatial dimension ("SAME" or "VALID" padding).
std::int64_t windowed(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t dilation, bool same)
{
    if (in < 0 || kernel < 0 || stride <= 0)
        return -1;
    if (same)
        return in / stride + (in % stride != 0);
    if (kernel == 0)
        return -1;         // no window
    std::int64_t span = 0; // the window's extent minus one
    if (__builtin_mul_overflow(kernel - 1, std::max<std::int64_t>(dilation, 1), &span) || span >= in)
        return 0; // the window is wider than the input
    return (in - span - 1) / stride + 1;
}

std::int64_t at(const std::optional<std::vector<std::int64_t>>& v, std::size_t i, std::int64_t fallback)
{
    return v && i < v->size() ? (*v)[i] : fallback;
}

// Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool on 4-D NHWC / NCHW tensors.
std::optional<Shape> windowedOp(const TfNode& node, const TfAttrs& attrs, const std::vector<TfInputInfo>& inputs)
{
    if (inputs.empty() || !inputs[0].shape || inputs[0].shape->size() != 4)
        return std::nullopt;
    const Shape& in = *inputs[0].shape;
    const bool nchw = attrs.string("data_format").value_or("NHWC") == "NCHW";
    const std::size_t h = nchw ? 2 : 1, w = nchw ? 3 : 2, c = nchw ? 1 : 3;
    const bool same = attrs.string("padding").value_or("VALID") == "SAME";
    const auto strides = attrs.ints("strides");
    const auto dilations = attrs.ints("dilations");
    std::int64_t kh = -1, kw = -1, channels = in[c];
    if (node.op == "MaxPool" || node.op == "AvgPool") {
        const auto ksize = attrs.ints("ksize");
        kh = at(ksize, h, -1);
        kw = at(ksize, w, -1);
    } else {
        if (inputs.size() < 2 || !inputs[1].shape || inputs[1].shape->size() != 4)
            return std::nullopt;
        const Shape& filter = *inputs[1].shape; // [kh, kw, in, out or multiplier]
        kh = filter[0];
        kw = filter[1];
        if (node.op == "DepthwiseConv2dNative")
            channels = in[c] < 0 || filter[3] < 0 ? -1 : product(in[c], filter[3]);
        else
            channels = filter[3];
    }
    Shape out = in;
    out[h] = windowed(in[h], kh, at(strides, h, 1), at(dilations, h, 1), same);
    out[w] = windowed(in[w], kw, at(strides, w, 1), at(dilations, w, 1), same);
    out[c] = channels;
    return out;
}

std::optional<Shape> matMul(const TfNode& node, const TfAttrs& attrs, const std::vector<TfInputInfo>& inputs)
{
    if (inputs.size() < 2 || !inputs[0].shape || !inputs[1].shape)
        return std::nullopt;
    const Shape& a = *inputs[0].shape;
    const Shape& b = *inputs[1].shape;
    if (a.size() < 2 || b.size() < 2)
        return std::nullopt;
    const bool batch = node.op != "MatMul";
    const bool ta = attrs.boolean(batch ? "adj_x" : "transpose_a").value_or(false);
    const bool tb = attrs.boolean(batch ? "adj_y" : "transpose_b").value_or(false);
    Shape out;
    if (batch) {
        const Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
        out = *broadcast(ba, bb);
    } else if (a.size() != 2 || b.size() != 2) {
        return std::nullopt;
    }
    out.push_back(ta ? a[a.size() - 1] : a[a.size() - 2]);
    out.push_back(tb ? b[b.size() - 2] : b[b.size() - 1]);
    return out;
}

std::optional<Shape> reshape(const std::vector<TfInputInfo>& inputs)
{
    if (inputs.size() < 2 || !inputs[1].constValues)
        return std::nullopt;
    std::int64_t total = inputs[0].shape ? 1 : -1;
    if (inputs[0].shape)
        for (std::int64_t d : *inputs[0].shape)
            total = total < 0 || d < 0 ? -1 : product(total, d);
    return reshapeTarget(*inputs[1].constValues, total);
}

std::optional<Shape> concat(const std::vector<TfInputInfo>& inputs)
{
    if (inputs.size() < 3 || !inputs.back().constValues || inputs.back().constValues->size() != 1)
        return std::nullopt;
    const std::size_t n = inputs.size() - 1;
    if (!inputs[0].shape)
        return std::nullopt;
    Shape out = *inputs[0].shape;
    std::int64_t axis = (*inputs.back().constValues)[0];
    if (axis < 0)
        axis += static_cast<std::int64_t>(out.size());
    if (axis < 0 || axis >= static_cast<std::int64_t>(out.size()))
        return std::nullopt;
    const auto ax = static_cast<std::size_t>(axis);
    for (std::size_t i = 1; i < n; ++i) {
        if (!inputs[i].shape || inputs[i].shape->size() != out.size() || out[ax] < 0 || (*inputs[i].shape)[ax] < 0)
            out[ax] = -1;
        else
            out[ax] = sum(out[ax], (*inputs[i].shape)[ax]);
    }
    return out;
}

// Gradient ops whose output has the shape of one of their inputs (the forward tensor or the
// incoming gradient), with that input's index.
constexpr std::array<std::pair<std::string_view, std::size_t>, 20> kGradientLikeInput = {{
    {"ReluGrad", 0},
    {"Relu6Grad", 0},
    {"EluGrad", 0},
    {"SeluGrad", 0},
    {"LeakyReluGrad", 0},
    {"SoftplusGrad", 0},
    {"SoftsignGrad", 0},
    {"SigmoidGrad", 0},
    {"TanhGrad", 0},
    {"SqrtGrad", 0},
    {"RsqrtGrad", 0},
    {"ReciprocalGrad", 0},
    {"MaxPoolGrad", 0},
    {"MaxPoolGradV2", 0},
    {"LRNGrad", 0},
    {"FusedBatchNormGrad", 0},
    {"FusedBatchNormGradV2", 0},
    {"FusedBatchNormGradV3", 0},
    {"SoftmaxGrad", 0},
    {"BiasAddGradV1", 0},
}};

// The shape held as values by an integer input (a Const, or a Shape op's result).
std::optional<Shape> shapeFromValues(const std::vector<TfInputInfo>& inputs, std::size_t index)
{
    if (inputs.size() <= index || !inputs[index].constValues)
        return std::nullopt;
    return *inputs[index].constValues;
}

// Sum, Mean, Max, Min, Prod over constant axes, with or without keep_dims.
std::optional<Shape> reduction(const TfAttrs& attrs, const std::vector<TfInputInfo>& inputs)
{
    if (inputs.size() < 2 || !inputs[0].shape || !inputs[1].constValues)
        return std::nullopt;
    const Shape& in = *inputs[0].shape;
    const auto rank = static_cast<std::int64_t>(in.size());
    std::vector<char> reduced(in.size(), 0);
    for (std::int64_t axis : *inputs[1].constValues) {
        if (axis < 0)
            axis += rank;
        if (axis < 0 || axis >= rank)
            return std::nullopt;
        reduced[static_cast<std::size_t>(axis)] = 1;
    }
    const bool keep = attrs.boolean("keep_dims").value_or(attrs.boolean("keepdims").value_or(false));
    Shape out;
    for (std::size_t i = 0; i < in.size(); ++i)
        if (!reduced[i])
            out.push_back(in[i]);
        else if (keep)
            out.push_back(1);
    return out;
}

std::optional<Shape> tile(const std::vector<TfInputInfo>& inputs)
{
    if (inputs.size() < 2 || !inputs[0].shape || !inputs[1].constValues
        || inputs[1].constValues->size() != inputs[0].shape->size())
        return std::nullopt;
    Shape out = *inputs[0].shape;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::int64_t m = (*inputs[1].constValues)[i];
        out[i] = out[i] < 0 || m < 0 ? -1 : product(out[i], m);
    }
    return out;
}

std::optional<Shape> biasAddGrad(const TfAttrs& attrs, const std::vector<TfInputInfo>& inputs)
{
    if (inputs.empty() || !inputs[0].shape || inputs[0].shape->empty())
        return std::nullopt;
    const Shape& in = *inputs[0].shape;
    const bool nchw = attrs.string("data_format").value_or("NHWC") == "NCHW";
    return Shape{nchw && in.size() >= 2 ? in[1] : in.back()};
}

// The first output of a gradient or bookkeeping op of a TF1 training graph, from its inputs.
std::optional<Shape> gradientOp(const TfNode& node, const TfAttrs& attrs, const std::vector<TfInputInfo>& inputs)
{
    const std::string_view op = node.op;
    for (const auto& [name, index] : kGradientLikeInput)
        if (op == name)
            return inputs.size() > index && inputs[index].shape ? std::optional<Shape>(*inputs[index].shape)
                                                                : std::nullopt;
    if (op == "Conv2DBackpropInput" || op == "DepthwiseConv2dNativeBackpropInput" || op == "AvgPoolGrad")
        return shapeFromValues(inputs, 0);
    if (op == "Conv2DBackpropFilter" || op == "DepthwiseConv2dNativeBackpropFilter")
        return shapeFromValues(inputs, 1);
    if (op == "BiasAddGrad")
        return biasAddGrad(attrs, inputs);
    if (op == "Sum" || op == "Mean" || op == "Max" || op == "Min" || op == "Prod")
        return reduction(attrs, inputs);
    if (op == "Tile")
        return tile(inputs);
    if (op == "Shape")
        return inputs.empty() || !inputs[0].shape
            ? std::nullopt
            : std::optional<Shape>(Shape{static_cast<std::int64_t>(inputs[0].shape->size())});
    if ((op == "SparseSoftmaxCrossEntropyWithLogits" || op == "SoftmaxCrossEntropyWithLogits") && !inputs.empty()
        && inputs[0].shape && !inputs[0].shape->empty())
        return Shape{inputs[0].shape->front()};
    return std::nullopt;
}

} // namespace

std::optional<Shape> inferTfOutputShape(const TfNode& node, const TfAttrs& attrs, const std::vector<TfInputInfo>& inputs)
{
    const std::string_view op = node.op;
    if (op == "Placeholder" || op == "PlaceholderV2" || op == "Variable" || op == "VariableV2" || op == "VarHandleOp")
        return attrs.shapeAttr("shape");
    if (op == "Const" || op == "HostConst")
        return attrs.constShape();
    if (std::find(kSameShapeOps.begin(), kSameShapeOps.end(), op) != kSameShapeOps.end())
        return !inputs.empty() && inputs[0].shape ? std::optional<Shape>(*inputs[0].shape) : std::nullopt;
    if (std::find(kBroadcastOps.begin(), kBroadcastOps.end(), op) != kBroadcastOps.end()) {
        if (inputs.size() < 2 || !inputs[0].shape || !inputs[1].shape)
            return std::nullopt;
        return broadcast(*inputs[0].shape, *inputs[1].shape);
    }
    if (op == "MatMul" || op == "BatchMatMul" || op == "BatchMatMulV2")
        return matMul(node, attrs, inputs);
    if (op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MaxPool" || op == "AvgPool")
        return windowedOp(node, attrs, inputs);
    if (op == "Reshape")
        return reshape(inputs);
    if (op == "ConcatV2")
        return concat(inputs);
    return gradientOp(node, attrs, inputs);
}

} // namespace post
