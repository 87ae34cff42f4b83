#include "core/cost/OpCostFormulas.h"

#include <algorithm>

namespace post::costs {
namespace {

// One cell step for one sequence element: `gates` gate matrices over [x, h] (2 FLOPs per
// multiply-add), plus the element-wise cell math per hidden unit (`cellFlops`, counting
// a sigmoid or tanh as 4 FLOPs as the element-wise ops do).
struct CellShape {
    int gates;
    double cellFlops; // per hidden unit
};

// LSTM: Wx + Rh (4), 3 sigmoids (12), tanh of g (4), c = f*c + i*g (3), tanh(c) (4), o*tanh(c) (1).
constexpr CellShape kLstm{4, 28.0};
// GRU: Wx + Rh for z, r (2), r * (Rh) and its add (2), 2 sigmoids (8), tanh (4), h = (1-z)*h~ + z*h (4).
constexpr CellShape kGru{3, 20.0};
// RNN: Wx + Rh (1), tanh (4).
constexpr CellShape kRnn{1, 5.0};

double stepFlops(CellShape cell, double input, double hidden, bool twoBiases)
{
    const double bias = twoBiases ? 2.0 * cell.gates * hidden : 0.0; // ONNX's Wb + Rb
    return 2.0 * cell.gates * hidden * (input + hidden) + cell.cellFlops * hidden + bias;
}

// ONNX LSTM / GRU / RNN: X [S, B, I] (layout 0) or [B, S, I] (layout 1), W [dirs, gates*H, I],
// R [dirs, gates*H, H], optional B [dirs, 2*gates*H].
OpCost onnxRecurrent(const OpView& v, CellShape cell)
{
    const ShapedTensor* x = v.input(0);
    const ShapedTensor* w = v.input(1);
    const ShapedTensor* r = v.input(2);
    const double directions = OpView::rank(w) >= 1 ? OpView::dim(w, 0) : 1.0;
    double hidden = static_cast<double>(v.attr("hidden_size", 0));
    if (hidden <= 0.0)
        hidden = OpView::rank(r) >= 3 ? OpView::dim(r, 2) : OpView::dim(w, 1) / cell.gates;
    const double input = OpView::rank(x) >= 3 ? OpView::dim(x, 2) : OpView::dim(w, 2);
    const bool batchFirst = v.attr("layout", 0) == 1;
    const double steps = OpView::dim(x, batchFirst ? 1 : 0);
    const double batch = OpView::dim(x, batchFirst ? 0 : 1);
    return ioCost(v, steps * directions * batch * stepFlops(cell, input, hidden, v.input(3) != nullptr));
}

// TF block cells: one matrix [I + H, gates * H] over the concatenated [x, h], one bias
// (its add is the cell's "Wx + Rh" term, so no extra bias FLOPs).
double tfCellFlops(CellShape cell, const ShapedTensor* w, const ShapedTensor* x, const ShapedTensor* state)
{
    double hidden = OpView::rank(w) == 2 ? OpView::dim(w, 1) / cell.gates : OpView::dim(state, -1);
    double inputPlusHidden = OpView::rank(w) == 2 ? OpView::dim(w, 0) : OpView::dim(x, -1) + hidden;
    return stepFlops(cell, inputPlusHidden - hidden, hidden, false);
}

} // namespace

OpCost lstmOnnx(const OpView& v) { return onnxRecurrent(v, kLstm); }
OpCost gruOnnx(const OpView& v) { return onnxRecurrent(v, kGru); }
OpCost rnnOnnx(const OpView& v) { return onnxRecurrent(v, kRnn); }

OpCost lstmBlockCellTf(const OpView& v)
{
    // x [B, I], cs_prev, h_prev, w [I + H, 4H], wci, wcf, wco, b.
    const ShapedTensor* x = v.input(0);
    return ioCost(v, OpView::dim(x, 0) * tfCellFlops(kLstm, v.input(3), x, v.input(1)));
}

OpCost blockLstmTf(const OpView& v)
{
    // seq_len_max, x [T, B, I], cs_prev, h_prev, w [I + H, 4H], wci, wcf, wco, b.
    const ShapedTensor* x = v.input(1);
    return ioCost(v, OpView::dim(x, 0) * OpView::dim(x, 1) * tfCellFlops(kLstm, v.input(4), x, v.input(2)));
}

OpCost gruBlockCellTf(const OpView& v)
{
    // x [B, I], h_prev [B, H], w_ru [I + H, 2H], w_c [I + H, H], b_ru, b_c.
    const ShapedTensor* x = v.input(0);
    const ShapedTensor* h = v.input(1);
    const double hidden = OpView::rank(v.input(3)) == 2 ? OpView::dim(v.input(3), 1) : OpView::dim(h, -1);
    const double input = OpView::rank(v.input(3)) == 2 ? OpView::dim(v.input(3), 0) - hidden : OpView::dim(x, -1);
    return ioCost(v, OpView::dim(x, 0) * stepFlops(kGru, input, hidden, false));
}

} // namespace post::costs
