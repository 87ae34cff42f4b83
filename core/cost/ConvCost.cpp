#include "core/cost/OpCostFormulas.h"

#include <algorithm>
#include <cmath>

namespace post::costs {
namespace {

// Spatial size of output dimension i of an ONNX convolution from its attributes.
double onnxOutputExtent(const OpView& v, const ShapedTensor* x, int i, int spatialRank, double kernel)
{
    const double in = OpView::dim(x, 2 + i);
    const double stride = static_cast<double>(std::max<std::int64_t>(v.attr("strides", 1, static_cast<size_t>(i)), 1));
    const double dilation = static_cast<double>(std::max<std::int64_t>(v.attr("dilations", 1, static_cast<size_t>(i)), 1));
    const double pads = static_cast<double>(v.attr("pads", 0, static_cast<size_t>(i))
                                            + v.attr("pads", 0, static_cast<size_t>(i + spatialRank)));
    return std::max(1.0, std::floor((in + pads - dilation * (kernel - 1.0) - 1.0) / stride) + 1.0);
}

double onnxKernelExtent(const OpView& v, const ShapedTensor* w, int i)
{
    const std::int64_t k = v.attr("kernel_shape", -1, static_cast<size_t>(i));
    return k > 0 ? static_cast<double>(k) : OpView::dim(w, 2 + i);
}

int onnxSpatialRank(const OpView& v, const ShapedTensor* x, const ShapedTensor* w)
{
    if (OpView::rank(w) >= 3)
        return OpView::rank(w) - 2;
    const auto it = v.op().intAttrs.find("kernel_shape");
    if (it != v.op().intAttrs.end())
        return static_cast<int>(it->second.size());
    return std::max(OpView::rank(x) - 2, 0);
}

// Output elements of a TF convolution without an output shape: padding SAME (the
// `padding` attribute is a string the cost model does not see), NHWC.
double tfOutputElements(const OpView& v, const ShapedTensor* x, double channels)
{
    double elements = OpView::dim(x, 0) * channels;
    for (int i = 1; i + 1 < OpView::rank(x); ++i) {
        const double stride = static_cast<double>(std::max<std::int64_t>(v.attr("strides", 1, static_cast<size_t>(i)), 1));
        elements *= std::ceil(OpView::dim(x, i) / stride);
    }
    return elements;
}

} // namespace

// cuDNN's kernels for a convolution over this few input channels per group (an RGB image's
// 3) are FP32 ones, whatever TF32 allows (docs/cost-model.md, "Precision").
constexpr double kNarrowInputChannels = 4.0;

OpCost ioCost(const OpView& v, double flops)
{
    OpCost c;
    c.flops = flops;
    c.bytesRead = v.inputBytes();
    c.bytesWritten = v.outputBytes();
    return c;
}

OpCost convOnnx(const OpView& v)
{
    const ShapedTensor* x = v.input(0);
    const ShapedTensor* w = v.input(1);
    const ShapedTensor* y = v.output(0);
    const int spatial = onnxSpatialRank(v, x, w);
    const double group = static_cast<double>(std::max<std::int64_t>(v.attr("group", 1), 1));
    const double inPerGroup = OpView::rank(w) >= 2 ? OpView::dim(w, 1) : OpView::dim(x, 1) / group;
    double kernel = 1.0;
    for (int i = 0; i < spatial; ++i)
        kernel *= onnxKernelExtent(v, w, i);
    double outElements = OpView::elements(y);
    if (OpView::rank(y) == 0) {
        outElements = OpView::dim(x, 0) * (OpView::rank(w) >= 1 ? OpView::dim(w, 0) : OpView::dim(x, 1));
        for (int i = 0; i < spatial; ++i)
            outElements *= onnxOutputExtent(v, x, i, spatial, onnxKernelExtent(v, w, i));
    }
    const double bias = v.input(2) ? outElements : 0.0;
    OpCost c = ioCost(v, 2.0 * outElements * inPerGroup * kernel + bias);
    c.narrow = inPerGroup <= kNarrowInputChannels;
    return c;
}

OpCost convTransposeOnnx(const OpView& v)
{
    // Every input element is scattered into (M / group) x kernel outputs.
    const ShapedTensor* x = v.input(0);
    const ShapedTensor* w = v.input(1);
    const int spatial = onnxSpatialRank(v, x, w);
    double kernel = 1.0;
    for (int i = 0; i < spatial; ++i)
        kernel *= onnxKernelExtent(v, w, i);
    const double outPerGroup = OpView::dim(w, 1);
    const double bias = v.input(2) ? OpView::elements(v.output(0)) : 0.0;
    return ioCost(v, 2.0 * OpView::elements(x) * outPerGroup * kernel + bias);
}

OpCost convTf(const OpView& v)
{
    const ShapedTensor* f = v.input(1);
    const ShapedTensor* y = v.output(0);
    const double macsPerOutput = OpView::dims(f, 0, -1); // k... x Cin/group
    const double outElements = OpView::rank(y) > 0 ? OpView::elements(y)
                                                   : tfOutputElements(v, v.input(0), OpView::dim(f, -1));
    OpCost c = ioCost(v, 2.0 * outElements * macsPerOutput);
    c.narrow = OpView::rank(f) >= 2 && OpView::dim(f, -2) <= kNarrowInputChannels;
    return c;
}

OpCost depthwiseConvTf(const OpView& v)
{
    const ShapedTensor* f = v.input(1); // [kh, kw, Cin, multiplier]
    const ShapedTensor* y = v.output(0);
    const double macsPerOutput = OpView::dims(f, 0, -2);
    const double outElements = OpView::rank(y) > 0
        ? OpView::elements(y)
        : tfOutputElements(v, v.input(0), OpView::dim(f, -2) * OpView::dim(f, -1));
    return ioCost(v, 2.0 * outElements * macsPerOutput);
}

OpCost convBackpropInputTf(const OpView& v)
{
    // Inputs: input_sizes, filter [k..., Cresult, Cgrad], out_backprop. Every element of
    // out_backprop is scattered into k x Cresult results.
    const ShapedTensor* f = v.input(1);
    const double scatter = OpView::dims(f, 0, -1);
    return ioCost(v, 2.0 * OpView::elements(v.input(2)) * scatter);
}

OpCost convBackpropFilterTf(const OpView& v)
{
    // Inputs: input, filter_sizes, out_backprop; the output is the filter gradient
    // [k..., Cin, Cout]: each element of out_backprop meets k x Cin inputs.
    const ShapedTensor* grad = v.output(0);
    const double gather = OpView::rank(grad) > 1 ? OpView::dims(grad, 0, -1) : OpView::dim(v.input(0), -1);
    return ioCost(v, 2.0 * OpView::elements(v.input(2)) * gather);
}

OpCost depthwiseConvBackpropTf(const OpView& v)
{
    // Input and filter gradients of a depthwise convolution: each element of out_backprop
    // (input 2) meets kh x kw values. The filter is input 1 (backprop input) or the output
    // (backprop filter).
    const bool filterGrad = v.op().type == "DepthwiseConv2dNativeBackpropFilter";
    const ShapedTensor* f = filterGrad ? v.output(0) : v.input(1);
    return ioCost(v, 2.0 * OpView::elements(v.input(2)) * OpView::dims(f, 0, -2));
}

OpCost poolGradTf(const OpView& v)
{
    // MaxPoolGrad (orig_input, orig_output, grad), AvgPoolGrad (orig_input_shape, grad): each
    // gradient element is compared or spread over its window.
    const double window = v.attrProduct("ksize");
    const ShapedTensor* grad = v.input(v.inputCount() - 1);
    return ioCost(v, std::max(window, 1.0) * OpView::elements(grad));
}

} // namespace post::costs
