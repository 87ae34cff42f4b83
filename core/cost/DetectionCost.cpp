// What detection models add to a network's ops (torchvision's Faster R-CNN, RetinaNet, SSD
// exported to ONNX): pooling regions of interest, selecting boxes, taking the best k.
#include "core/cost/OpCostFormulas.h"

#include <algorithm>
#include <cmath>

namespace post::costs {

OpCost roiAlign(const OpView& v)
{
    // Each output element averages (or takes the largest of) sampling_ratio^2 bilinear
    // samples: 4 taps of a multiply-add each and the sample's weights, about 10 FLOPs. An
    // adaptive ratio (0) depends on each region's size; 2, torchvision's, is taken for it.
    const ShapedTensor* x = v.input(0);
    const double ratio = std::max<double>(static_cast<double>(v.attr("sampling_ratio", 0)), 0.0);
    const double samples = ratio > 0.0 ? ratio * ratio : 4.0;
    const double outputs = OpView::elements(v.output(0));
    OpCost c = ioCost(v, 10.0 * samples * outputs);
    // It reads the taps it needs, not the whole feature map, where the regions are few.
    const double elementBytes = OpView::elements(x) > 0.0 ? OpView::bytes(x) / OpView::elements(x) : 4.0;
    c.bytesRead = c.bytesRead - OpView::bytes(x) + std::min(OpView::bytes(x), 4.0 * samples * outputs * elementBytes);
    return c;
}

OpCost nonMaxSuppression(const OpView& v)
{
    // Per batch and class: the n boxes sorted by score (2 n log2 n) and every pair's
    // intersection over union against the threshold (about 12 FLOPs a pair, n^2 / 2 pairs), whose
    // bit mask (n^2 bits) is written and read again, as torchvision's CUDA kernel does.
    // ONNX: boxes [batches, n, 4], scores [batches, classes, n]; torchvision::nms: boxes [n, 4].
    const ShapedTensor* boxes = v.input(0);
    const ShapedTensor* scores = v.input(1);
    const bool batched = OpView::rank(boxes) == 3;
    const double n = OpView::dim(boxes, batched ? 1 : 0);
    const double runs = batched ? OpView::dim(scores, 0) * OpView::dim(scores, 1) : 1.0;
    const double perRun = 6.0 * n * n + 2.0 * n * std::log2(std::max(n, 2.0));
    OpCost c = ioCost(v, runs * perRun);
    const double maskBytes = runs * n * n / 8.0;
    c.bytesRead += maskBytes;
    c.bytesWritten += maskBytes;
    return c;
}

OpCost topK(const OpView& v)
{
    // A selection over each row of the axis: a comparison per element and level of a k-heap.
    const double k = OpView::dim(v.output(0), static_cast<int>(v.attr("axis", -1)));
    return ioCost(v, OpView::elements(v.input(0)) * std::log2(std::max(k, 2.0)));
}

OpCost nonZero(const OpView& v)
{
    // A test per element and the positions of those that pass (a prefix sum), about 2 FLOPs.
    return ioCost(v, 2.0 * OpView::elements(v.input(0)));
}

} // namespace post::costs
