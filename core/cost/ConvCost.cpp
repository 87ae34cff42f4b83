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

// cuDNN's non-fused Winograd F(m x m, r x r) with m = 4, r = 3 (docs/cost-model.md, "Winograd
// convolutions"): every 4x4 output tile is computed from a 6x6 input tile as 36 independent
// products over the channels, one batched product [tiles, Cin] x [Cin, Cout] per point of the
// 6x6 tile, between a data transform (input to 6x6 tiles), a filter transform (3x3 to 6x6) and
// an output transform (6x6 back to 4x4). 36 multiplies per 16 outputs per channel pair, where
// the direct convolution makes 144.
constexpr double kWinogradOutputTile = 4.0;
constexpr double kWinogradPoints = 36.0; // (4 + 3 - 1)^2

// Sets c's Winograd figures for a 3x3 stride-1 convolution of batch n, cin -> cout channels,
// output h x w (with a same-size input) in elements of `elementBytes`.
void setWinograd(OpCost& c, double n, double cin, double cout, double h, double w, double elementBytes)
{
    const double tiles = n * std::ceil(h / kWinogradOutputTile) * std::ceil(w / kWinogradOutputTile);
    const double data = kWinogradPoints * tiles * cin;     // transformed input
    const double filter = kWinogradPoints * cin * cout;    // transformed filter
    const double product = kWinogradPoints * tiles * cout; // products before the output transform
    const double input = n * cin * h * w;                  // stride 1, same padding: as large as the output
    c.winogradFlops = 2.0 * kWinogradPoints * tiles * cin * cout;
    c.winogradGemmBytes = (data + filter + product) * elementBytes;
    // data transform: reads the input, writes the tiles; filter: reads 3x3, writes 6x6; output
    // transform: reads the products, writes the output.
    c.winogradTransformBytes = (input + data + 9.0 * cin * cout + filter + product + n * cout * h * w) * elementBytes;
}

// A convolution cuDNN may run as Winograd: 2-D, 3x3, stride 1, no dilation, one group, FP32,
// more than a narrow input's channels.
bool winogradShape(double kh, double kw, bool unitStrides, double groups, double cin, int elementBytes)
{
    return kh == 3.0 && kw == 3.0 && unitStrides && groups == 1.0 && cin > 4.0 && elementBytes == 4;
}

bool allOnes(const OpView& v, const char* attr)
{
    const auto it = v.op().intAttrs.find(attr);
    if (it == v.op().intAttrs.end())
        return true;
    return std::all_of(it->second.begin(), it->second.end(), [](std::int64_t s) { return s == 1; });
}

// cuDNN runs the input gradient of a strided convolution with its atomic-add algorithm
// (CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, `dgrad_engine`, after `scalePackedTensor_kernel`: both
// measured traces, every strided layer; docs/cost-model.md, "Backward of strided
// convolutions"): it zeroes the input gradient, then adds each product of the output gradient
// and a filter tap into it atomically. Sets c.inputGradPassBytes for an FP32 convolution in one
// group with a stride above 1: the zeroing writes the input once (inputElements), and every
// product (output positions x input channels x taps = directFlops / (2 Cout)) is a read and a
// write of one input-gradient element.
void setStridedInputGradient(OpCost& c, bool strided, double groups, double inputElements, double directFlops,
                             double cout, int elementBytes)
{
    if (!strided || groups != 1.0 || elementBytes != 4 || !(cout > 0.0))
        return;
    const double products = directFlops / (2.0 * cout);
    c.inputGradPassBytes = (inputElements + 2.0 * products) * elementBytes;
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
    const double direct = 2.0 * outElements * inPerGroup * kernel;
    OpCost c = ioCost(v, direct + bias);
    c.narrow = inPerGroup <= kNarrowInputChannels;
    if (x)
        setStridedInputGradient(c, !allOnes(v, "strides"), group, OpView::elements(x), direct,
                                OpView::rank(w) >= 1 ? OpView::dim(w, 0) : OpView::dim(x, 1), x->elementBytes);
    if (spatial == 2 && x && x->shape.size() == 4
        && winogradShape(onnxKernelExtent(v, w, 0), onnxKernelExtent(v, w, 1),
                         allOnes(v, "strides") && allOnes(v, "dilations"), group, inPerGroup, x->elementBytes)) {
        const double n = OpView::dim(x, 0);
        const double cout = OpView::rank(w) >= 1 ? OpView::dim(w, 0) : OpView::dim(x, 1);
        const double h = OpView::rank(y) == 4 ? OpView::dim(y, 2) : onnxOutputExtent(v, x, 0, 2, 3.0);
        const double wd = OpView::rank(y) == 4 ? OpView::dim(y, 3) : onnxOutputExtent(v, x, 1, 2, 3.0);
        setWinograd(c, n, inPerGroup, cout, h, wd, x->elementBytes);
    }
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
    const ShapedTensor* x = v.input(0);
    // NHWC unless the output's channels are its second dimension (NCHW).
    const bool nchw = OpView::rank(y) == 4 && OpView::dim(y, 3) != OpView::dim(f, -1)
        && OpView::dim(y, 1) == OpView::dim(f, -1);
    const double groups = OpView::rank(x) == 4 && OpView::dim(x, nchw ? 1 : 3) == OpView::dim(f, -2) ? 1.0 : 0.0;
    if (x)
        setStridedInputGradient(c, !allOnes(v, "strides"), groups, OpView::elements(x), c.flops, OpView::dim(f, -1),
                                x->elementBytes);
    if (OpView::rank(f) == 4 && OpView::rank(y) == 4 && x
        && winogradShape(OpView::dim(f, 0), OpView::dim(f, 1), allOnes(v, "strides") && allOnes(v, "dilations"), groups,
                         OpView::dim(f, 2), x->elementBytes)) {
        const double cout = OpView::dim(f, 3);
        setWinograd(c, OpView::dim(y, 0), OpView::dim(f, 2), cout, OpView::dim(y, nchw ? 2 : 1),
                    OpView::dim(y, nchw ? 3 : 2), x->elementBytes);
    }
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
