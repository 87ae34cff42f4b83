#include "core/cost/OpCostFormulas.h"

#include <algorithm>

namespace post::costs {
namespace {

// The op with its inputs re-indexed (QLinearConv's weight is input 3, ...), for formulas
// written against the float op's input positions.
OpCost withInputs(const OpView& v, std::initializer_list<int> positions, OpCost (*formula)(const OpView&))
{
    ShapedOp op = v.op();
    op.inputs.clear();
    for (int p : positions)
        op.inputs.push_back(static_cast<size_t>(p) < v.op().inputs.size() ? v.op().inputs[static_cast<size_t>(p)] : -1);
    const OpCost c = formula(OpView(v.graph(), op));
    // The bytes are those of every input the op reads (scales and zero points too).
    OpCost out = ioCost(v, c.flops);
    out.bytesRead = std::max(out.bytesRead, c.bytesRead);
    return out;
}

} // namespace

OpCost resize(const OpView& v)
{
    // FLOPs per output element: nearest copies; linear interpolates 2 taps per spatial axis
    // (a multiply-add each: bilinear 4 taps = 8); cubic 4 taps per axis.
    const ShapedTensor* x = v.input(0);
    const std::string& type = v.op().type;
    const bool tf = type == "ResizeBilinear" || type == "ResizeNearestNeighbor"; // NHWC, 2 spatial axes
    const int spatial = tf ? 2 : std::max(OpView::rank(x) - 2, 1);
    const std::string mode = type == "ResizeBilinear" ? "linear"
        : type == "ResizeNearestNeighbor"             ? "nearest"
                                                      : v.stringAttr("mode", "nearest");
    double taps = 1.0;
    if (mode == "linear" || mode == "bilinear" || mode == "trilinear")
        taps = static_cast<double>(1 << std::min(spatial, 3));
    else if (mode == "cubic" || mode == "bicubic")
        taps = spatial >= 2 ? 16.0 : 4.0;
    const double perElement = mode == "nearest" ? 0.0 : 2.0 * taps;
    OpCost c = ioCost(v, perElement * OpView::elements(v.output(0)));
    c.bytesRead = std::min(c.bytesRead, OpView::bytes(x) + c.bytesWritten); // reads each input once at most
    return c;
}

OpCost quantizeLinear(const OpView& v) { return ioCost(v, 3.0 * v.inputElements(0)); }   // divide, round, clamp
OpCost dequantizeLinear(const OpView& v) { return ioCost(v, 2.0 * v.inputElements(0)); } // subtract, multiply

OpCost dynamicQuantizeLinear(const OpView& v)
{
    // min and max over the input (2), then quantize (3) each element.
    return ioCost(v, 5.0 * v.inputElements(0));
}

OpCost convInteger(const OpView& v) { return withInputs(v, {0, 1}, convOnnx); }
OpCost qLinearConv(const OpView& v) { return withInputs(v, {0, 3, 8}, convOnnx); }
OpCost matMulInteger(const OpView& v) { return withInputs(v, {0, 1}, matMul); }
OpCost qLinearMatMul(const OpView& v) { return withInputs(v, {0, 3}, matMul); }

} // namespace post::costs
