#include "core/cost/OpCostFormulas.h"

#include <algorithm>

namespace post::costs {
namespace {

// Elements of A x B: the output's when known, else from broadcast batch dimensions.
double productElements(const OpView& v, bool transposeA, bool transposeB)
{
    const ShapedTensor* a = v.input(0);
    const ShapedTensor* b = v.input(1);
    const ShapedTensor* y = v.output(0);
    if (OpView::rank(y) > 0)
        return OpView::elements(y);
    const double m = OpView::rank(a) >= 2 ? (transposeA ? OpView::dim(a, -1) : OpView::dim(a, -2)) : 1.0;
    const double n = OpView::rank(b) >= 2 ? (transposeB ? OpView::dim(b, -2) : OpView::dim(b, -1)) : 1.0;
    return std::max(OpView::dims(a, 0, -2), OpView::dims(b, 0, -2)) * m * n;
}

// out = A x B over broadcast batch dimensions; transposes swap the last two dimensions.
OpCost matrixProduct(const OpView& v, bool transposeA, bool transposeB)
{
    const ShapedTensor* a = v.input(0);
    const ShapedTensor* b = v.input(1);
    double k = 1.0;
    if (OpView::rank(a) >= 1)
        k = transposeA && OpView::rank(a) >= 2 ? OpView::dim(a, -2) : OpView::dim(a, -1);
    else if (OpView::rank(b) >= 1)
        k = OpView::rank(b) >= 2 && !transposeB ? OpView::dim(b, -2) : OpView::dim(b, -1);
    return ioCost(v, 2.0 * productElements(v, transposeA, transposeB) * k);
}

// Scaled dot-product attention of `batch` x `heads` heads: query length s, key length l,
// total key width d and value width dv over all heads. Scores and context are matrix
// products; softmax is 8 FLOPs per score (as the Softmax op).
double attentionFlops(double batch, double heads, double s, double l, double d, double dv)
{
    return 2.0 * batch * s * l * d + 8.0 * batch * heads * s * l + 2.0 * batch * s * l * dv;
}

// Attention over given query, key and value tensors: [B, S, D] (heads from the attribute),
// [B, heads, S, head size], or com.microsoft's packed [B, S, heads, 3, head size].
double attentionFromTensors(const OpView& v, const char* headsAttr)
{
    const ShapedTensor* q = v.input(0);
    const ShapedTensor* k = v.input(1);
    const ShapedTensor* val = v.input(2);
    double batch = OpView::dim(q, 0), heads = static_cast<double>(std::max<std::int64_t>(v.attr(headsAttr, 1), 1));
    double s = OpView::dim(q, 1), d = OpView::dim(q, -1);
    if (OpView::rank(q) == 4) {
        heads = OpView::dim(q, 1);
        s = OpView::dim(q, 2);
        d = heads * OpView::dim(q, 3);
    } else if (OpView::rank(q) == 5) {
        heads = OpView::dim(q, 2);
        d = heads * OpView::dim(q, 4);
    }
    double l = s;
    if (OpView::rank(k) == 3 || OpView::rank(k) == 5)
        l = OpView::dim(k, 1);
    else if (OpView::rank(k) == 4)
        l = OpView::dim(k, 2);
    double dv = d;
    if (OpView::rank(val) == 3)
        dv = OpView::dim(val, 2);
    else if (OpView::rank(val) == 4)
        dv = OpView::dim(val, 1) * OpView::dim(val, 3);
    return attentionFlops(batch, heads, s, l, d, dv);
}

} // namespace

OpCost matMul(const OpView& v)
{
    return matrixProduct(v, v.attr("transpose_a", 0) != 0, v.attr("transpose_b", 0) != 0);
}

OpCost batchMatMulTf(const OpView& v) { return matrixProduct(v, v.attr("adj_x", 0) != 0, v.attr("adj_y", 0) != 0); }

OpCost gemm(const OpView& v)
{
    const bool transposeA = v.attr("transA", 0) != 0, transposeB = v.attr("transB", 0) != 0;
    OpCost c = matrixProduct(v, transposeA, transposeB);
    if (v.input(2)) // + beta x C: one add per output
        c.flops += productElements(v, transposeA, transposeB);
    return c;
}

OpCost attentionOnnx(const OpView& v)
{
    const ShapedTensor* w = v.input(1);
    if (OpView::rank(w) != 2) // ONNX (opset 23) Attention: Q, K, V given
        return ioCost(v, attentionFromTensors(v, "q_num_heads"));
    // com.microsoft Attention: input [B, S, Din] x weights [Din, 3D] -> Q, K, V, then attention.
    const ShapedTensor* x = v.input(0);
    const double batch = OpView::dim(x, 0), s = OpView::dim(x, 1), in = OpView::dim(w, 0), qkv = OpView::dim(w, 1);
    const double heads = static_cast<double>(std::max<std::int64_t>(v.attr("num_heads", 1), 1));
    const double bias = v.input(2) ? batch * s * qkv : 0.0;
    const double d = qkv / 3.0;
    return ioCost(v, 2.0 * batch * s * in * qkv + bias + attentionFlops(batch, heads, s, s, d, d));
}

OpCost multiHeadAttention(const OpView& v) { return ioCost(v, attentionFromTensors(v, "num_heads")); }

} // namespace post::costs
