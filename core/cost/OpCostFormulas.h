#pragma once

#include "core/cost/OpCost.h"
#include "core/cost/OpView.h"

namespace post::costs {

// The per-family FLOP formulas of the cost model (docs/cost-model.md). Each reads the
// whole inputs and writes the whole outputs unless it says otherwise.

OpCost ioCost(const OpView& v, double flops);

// Convolutions. ONNX: NCHW, weight [M, C/group, k...]; TensorFlow: NHWC, filter
// [k..., Cin/group, Cout]; output shapes are taken from the output tensor when known.
OpCost convOnnx(const OpView& v);
OpCost convTransposeOnnx(const OpView& v);
OpCost convTf(const OpView& v);
OpCost depthwiseConvTf(const OpView& v);
OpCost convBackpropInputTf(const OpView& v);     // TF's transposed convolution
OpCost convBackpropFilterTf(const OpView& v);    // Conv2DBackpropFilter: 2 x out_backprop x k x Cin
OpCost depthwiseConvBackpropTf(const OpView& v); // both depthwise gradients: 2 x out_backprop x kh x kw
OpCost poolGradTf(const OpView& v);              // MaxPoolGrad, AvgPoolGrad: window x gradient elements

// Matrix products: 2 FLOPs per multiply-add over the output elements.
OpCost matMul(const OpView& v);        // ONNX MatMul; TF MatMul's transpose_a / transpose_b
OpCost batchMatMulTf(const OpView& v); // adj_x / adj_y
OpCost gemm(const OpView& v);
OpCost attentionOnnx(const OpView& v); // com.microsoft Attention or ONNX Attention
OpCost multiHeadAttention(const OpView& v);

// Recurrent layers over a whole sequence (ONNX) or one step (TF block cells).
OpCost lstmOnnx(const OpView& v);
OpCost gruOnnx(const OpView& v);
OpCost rnnOnnx(const OpView& v);
OpCost lstmBlockCellTf(const OpView& v);
OpCost blockLstmTf(const OpView& v);
OpCost gruBlockCellTf(const OpView& v);

// Resize / Upsample by mode (nearest: a copy; linear, cubic: 2 FLOPs per tap and output).
OpCost resize(const OpView& v);
// Detection (DetectionCost.cpp): RoiAlign 10 FLOPs per bilinear sample (sampling_ratio^2 per
// output element, 4 where adaptive); NonMaxSuppression 6 n^2 + 2 n log2 n per batch and class of n
// boxes, with its n^2-bit overlap mask written and read; TopK a comparison per element and
// level of a k-heap; NonZero 2 FLOPs per element.
OpCost roiAlign(const OpView& v);
OpCost nonMaxSuppression(const OpView& v);
OpCost topK(const OpView& v);
OpCost nonZero(const OpView& v);
// Quantization: QuantizeLinear 3 FLOPs per element, DequantizeLinear 2, DynamicQuantizeLinear
// 5 (min/max, then quantize); the integer products cost what their float forms do, with
// the same 2 operations per multiply-add (QLinearConv's weight is input 3, bias input 8).
OpCost quantizeLinear(const OpView& v);
OpCost dequantizeLinear(const OpView& v);
OpCost dynamicQuantizeLinear(const OpView& v);
OpCost convInteger(const OpView& v);
OpCost qLinearConv(const OpView& v);
OpCost matMulInteger(const OpView& v);
OpCost qLinearMatMul(const OpView& v);

} // namespace post::costs
