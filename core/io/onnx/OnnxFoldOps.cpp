// Data movement of shape computations, folded (docs/importers.md, "Infer shapes and fold
// constants"); the element-wise folds are in OnnxFoldMath.cpp.
#include "core/io/onnx/OnnxFoldOps.h"

#include "core/cost/ReshapeShape.h"
#include "core/io/onnx/OnnxFoldSupport.h"
#include "core/io/onnx/OnnxOpsetCompat.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace post {
namespace {

using namespace onnxfold;
using TP = onnx::TensorProto;

// Row-major strides of `dims`.
Dims stridesOf(const Dims& dims)
{
    Dims strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;)
        strides[i - 1] = strides[i] * dims[i];
    return strides;
}

Result foldShape(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    if (!in[0].shape)
        return std::nullopt;
    const Dims& s = *in[0].shape;
    const auto rank = static_cast<std::int64_t>(s.size());
    auto clampIndex = [rank](std::int64_t i) { return std::clamp(i < 0 ? i + rank : i, std::int64_t{0}, rank); };
    const std::int64_t start = clampIndex(intAttr(node, "start", 0));
    const std::int64_t end = clampIndex(intAttr(node, "end", rank));
    std::vector<std::int64_t> values;
    for (std::int64_t i = start; i < end; ++i)
        values.push_back(s[static_cast<std::size_t>(i)]);
    const auto size = static_cast<std::int64_t>(values.size()); // before the move
    return make(TP::INT64, {size}, std::move(values));
}

Result foldSize(const std::vector<OnnxFoldInput>& in)
{
    if (!in[0].shape)
        return std::nullopt;
    const auto n = onnxElementCount(*in[0].shape);
    if (!n)
        return std::nullopt;
    return make(TP::INT64, {}, {*n});
}

// A tensor seen along the axis its node's `axis` attribute (default 0) names: `outer` runs of
// `dims[axis]` slices of `inner` elements each (row-major); nullopt for an axis out of range.
struct AlongAxis {
    std::size_t axis = 0;
    std::int64_t outer = 1, inner = 1;
};

std::optional<AlongAxis> alongAxis(const onnx::NodeProto& node, const Dims& dims)
{
    const auto axis = normalizedAxis(intAttr(node, "axis", 0), static_cast<std::int64_t>(dims.size()));
    if (!axis)
        return std::nullopt;
    AlongAxis view;
    view.axis = static_cast<std::size_t>(*axis);
    for (std::size_t i = 0; i < view.axis; ++i)
        view.outer *= dims[i];
    for (std::size_t i = view.axis + 1; i < dims.size(); ++i)
        view.inner *= dims[i];
    return view;
}

Result foldGather(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    const OnnxIntTensor* indices = valueAt(in, 1);
    if (!data || !indices || data->dims.empty())
        return std::nullopt;
    const auto along = alongAxis(node, data->dims);
    if (!along)
        return std::nullopt;
    const std::size_t a = along->axis;
    const std::int64_t size = data->dims[a], outer = along->outer, inner = along->inner;
    // At most the data's size times the indices' count: checked before any work.
    if (static_cast<double>(outer) * static_cast<double>(indices->values.size()) * static_cast<double>(inner)
        > static_cast<double>(kOnnxMaxFoldElements))
        return std::nullopt;
    std::vector<std::int64_t> values;
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i : indices->values) {
            const auto k = normalizedAxis(i, size);
            if (!k)
                return std::nullopt;
            const auto at = static_cast<std::size_t>((o * size + *k) * inner);
            values.insert(values.end(), data->values.begin() + static_cast<std::ptrdiff_t>(at),
                          data->values.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(inner)));
        }
    Dims dims(data->dims.begin(), data->dims.begin() + static_cast<std::ptrdiff_t>(a));
    dims.insert(dims.end(), indices->dims.begin(), indices->dims.end());
    dims.insert(dims.end(), data->dims.begin() + static_cast<std::ptrdiff_t>(a + 1), data->dims.end());
    return make(data->dataType, std::move(dims), std::move(values));
}

Result foldUnsqueeze(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    const auto axes = axesOf(node, in, opset);
    if (!data || !axes)
        return std::nullopt;
    const auto rank = static_cast<std::int64_t>(data->dims.size() + axes->size());
    std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
    for (std::int64_t a : *axes) {
        const auto k = normalizedAxis(a, rank);
        if (!k || inserted[static_cast<std::size_t>(*k)])
            return std::nullopt;
        inserted[static_cast<std::size_t>(*k)] = true;
    }
    Dims dims;
    std::size_t next = 0;
    for (bool ins : inserted)
        dims.push_back(ins ? 1 : data->dims[next++]);
    return make(data->dataType, std::move(dims), data->values);
}

Result foldSqueeze(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    if (!data)
        return std::nullopt;
    const auto rank = static_cast<std::int64_t>(data->dims.size());
    std::vector<bool> removed(data->dims.size(), false);
    const bool axesGiven = opset < 13 ? findAttr(node, "axes") != nullptr : presentAt(in, 1);
    if (axesGiven) {
        const auto axes = axesOf(node, in, opset);
        if (!axes)
            return std::nullopt;
        for (std::int64_t a : *axes) {
            const auto k = normalizedAxis(a, rank);
            if (!k || data->dims[static_cast<std::size_t>(*k)] != 1)
                return std::nullopt;
            removed[static_cast<std::size_t>(*k)] = true;
        }
    } else {
        for (std::size_t i = 0; i < data->dims.size(); ++i)
            removed[i] = data->dims[i] == 1;
    }
    Dims dims;
    for (std::size_t i = 0; i < data->dims.size(); ++i)
        if (!removed[i])
            dims.push_back(data->dims[i]);
    return make(data->dataType, std::move(dims), data->values);
}

Result foldConcat(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    if (in.empty() || !in[0].value || in[0].value->dims.empty())
        return std::nullopt;
    const Dims& first = in[0].value->dims;
    const auto axis = normalizedAxis(intAttr(node, "axis", 0), static_cast<std::int64_t>(first.size()));
    if (!axis)
        return std::nullopt;
    const auto a = static_cast<std::size_t>(*axis);
    std::int64_t outer = 1;
    for (std::size_t i = 0; i < a; ++i)
        outer *= first[i];
    Dims dims = first;
    dims[a] = 0;
    for (const OnnxFoldInput& i : in) {
        const OnnxIntTensor* t = i.value;
        if (!t || t->dims.size() != first.size())
            return std::nullopt;
        for (std::size_t d = 0; d < first.size(); ++d)
            if (d != a && t->dims[d] != first[d])
                return std::nullopt;
        dims[a] += t->dims[a];
    }
    // Each input gives, per outer index, its block of dims[axis..] elements in turn.
    std::vector<std::int64_t> values;
    for (std::int64_t o = 0; o < outer; ++o)
        for (const OnnxFoldInput& i : in) {
            const OnnxIntTensor* t = i.value;
            const auto block = outer == 0 ? std::size_t{0} : t->values.size() / static_cast<std::size_t>(outer);
            const auto at = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(o) * block);
            values.insert(values.end(), t->values.begin() + at,
                          t->values.begin() + at + static_cast<std::ptrdiff_t>(block));
        }
    return make(in[0].value->dataType, std::move(dims), std::move(values));
}

Result foldReshape(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    const OnnxIntTensor* shape = valueAt(in, 1);
    if (!data || !shape || shape->dims.size() != 1)
        return std::nullopt;
    const bool allowZero = intAttr(node, "allowzero", 0) != 0;
    Dims dims = shape->values;
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i] == 0 && !allowZero) {
            if (i >= data->dims.size())
                return std::nullopt;
            dims[i] = data->dims[i];
        }
    const auto count = static_cast<std::int64_t>(data->values.size());
    auto target = reshapeTarget(std::move(dims), count);
    // Folded values must fill the shape exactly (a -1 left unknown, or a product that is
    // not the element count, cannot be folded).
    const auto elements = target ? onnxElementCount(*target) : std::nullopt;
    if (!elements || *elements != count)
        return std::nullopt;
    return make(data->dataType, std::move(*target), data->values);
}

// Slice over any axes of a known tensor (opset 10: starts, ends, axes, steps as inputs).
Result foldSlice(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    if (!data || data->dims.empty())
        return std::nullopt;
    std::optional<Dims> starts, ends, axes, steps;
    if (opset < 10) {
        starts = intsAttr(node, "starts");
        ends = intsAttr(node, "ends");
        axes = intsAttr(node, "axes");
    } else {
        auto input = [&](std::size_t i) -> std::optional<Dims> {
            if (const OnnxIntTensor* t = valueAt(in, i))
                return t->values;
            return std::nullopt;
        };
        starts = input(1);
        ends = input(2);
        if (presentAt(in, 3) && !(axes = input(3)))
            return std::nullopt;
        if (presentAt(in, 4) && !(steps = input(4)))
            return std::nullopt;
    }
    const auto rank = static_cast<std::int64_t>(data->dims.size());
    if (!starts || !ends || starts->size() != ends->size() || (axes && axes->size() != starts->size())
        || (steps && steps->size() != starts->size()))
        return std::nullopt;
    Dims first(data->dims.size(), 0), step(data->dims.size(), 1), outDims = data->dims;
    std::vector<bool> seen(data->dims.size(), false);
    for (std::size_t k = 0; k < starts->size(); ++k) {
        const auto axis = normalizedAxis(axes ? (*axes)[k] : static_cast<std::int64_t>(k), rank);
        if (!axis || seen[static_cast<std::size_t>(*axis)])
            return std::nullopt;
        const auto a = static_cast<std::size_t>(*axis);
        seen[a] = true;
        const std::int64_t s = steps ? (*steps)[k] : 1;
        if (s == 0)
            return std::nullopt;
        const std::int64_t dim = data->dims[a];
        auto clampTo = [dim](std::int64_t v, std::int64_t lo, std::int64_t hi) {
            if (v < 0)
                v = v < std::numeric_limits<std::int64_t>::min() + dim ? lo : v + dim;
            return std::clamp(v, lo, hi);
        };
        const std::int64_t start = s > 0 ? clampTo((*starts)[k], 0, dim) : clampTo((*starts)[k], -1, dim - 1);
        const std::int64_t end = s > 0 ? clampTo((*ends)[k], 0, dim) : clampTo((*ends)[k], -1, dim - 1);
        // ceil((end - start) / step), never negative; within [0, dim], so no overflow.
        const std::int64_t span = s > 0 ? end - start : start - end;
        const std::int64_t magnitude = s > 0 ? s : (s == std::numeric_limits<std::int64_t>::min() ? dim + 1 : -s);
        outDims[a] = span <= 0 ? 0 : 1 + (span - 1) / magnitude;
        first[a] = start;
        step[a] = s > 0 ? std::min(s, dim + 1) : -std::min(magnitude, dim + 1);
    }
    const auto count = onnxElementCount(outDims);
    if (!count)
        return std::nullopt;
    const Dims strides = stridesOf(data->dims);
    std::vector<std::int64_t> values(static_cast<std::size_t>(*count));
    Dims index(outDims.size(), 0);
    for (std::int64_t& v : values) {
        std::int64_t at = 0;
        for (std::size_t i = 0; i < index.size(); ++i)
            at += (first[i] + index[i] * step[i]) * strides[i];
        v = data->values[static_cast<std::size_t>(at)];
        for (std::size_t i = index.size(); i-- > 0;) {
            if (++index[i] < outDims[i])
                break;
            index[i] = 0;
        }
    }
    return make(data->dataType, std::move(outDims), std::move(values));
}

// Expand (bidirectional broadcast to a shape) and Tile (repeats per axis) of a known tensor.
Result foldExpandOrTile(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, std::size_t maxElements)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    const OnnxIntTensor* arg = valueAt(in, 1);
    if (!data || !arg || arg->dims.size() != 1)
        return std::nullopt;
    const bool tile = node.op_type() == "Tile";
    if (tile && arg->values.size() != data->dims.size())
        return std::nullopt;
    const std::size_t rank = std::max(data->dims.size(), arg->values.size());
    Dims from(rank, 1), out(rank, 1);
    std::copy(data->dims.begin(), data->dims.end(), from.begin() + static_cast<std::ptrdiff_t>(rank - data->dims.size()));
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t lead = rank - arg->values.size(); // a shorter shape counts as 1s in front
        const std::int64_t want = i < lead ? 1 : arg->values[i - lead];
        if (want < 0 || (!tile && from[i] != 1 && want != 1 && want != from[i]))
            return std::nullopt;
        if (tile && __builtin_mul_overflow(from[i], want, &out[i]))
            return std::nullopt;
        if (!tile)
            out[i] = from[i] == 1 ? want : from[i];
    }
    const auto count = onnxElementCount(out);
    if (!count || static_cast<std::size_t>(*count) > maxElements)
        return std::nullopt;
    const Dims strides = stridesOf(from);
    std::vector<std::int64_t> values(static_cast<std::size_t>(*count));
    Dims index(rank, 0);
    for (std::int64_t& v : values) {
        std::int64_t at = 0;
        for (std::size_t i = 0; i < rank; ++i)
            at += (from[i] == 1 ? 0 : index[i] % from[i]) * strides[i];
        v = data->values[static_cast<std::size_t>(at)];
        for (std::size_t i = rank; i-- > 0;) {
            if (++index[i] < out[i])
                break;
            index[i] = 0;
        }
    }
    return make(data->dataType, std::move(out), std::move(values));
}

Result foldTranspose(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    if (!data)
        return std::nullopt;
    const std::size_t rank = data->dims.size();
    Dims perm(rank);
    for (std::size_t i = 0; i < rank; ++i)
        perm[i] = static_cast<std::int64_t>(rank - 1 - i); // default: reversed
    if (const auto given = intsAttr(node, "perm"))
        perm = *given;
    std::vector<bool> used(rank, false);
    if (perm.size() != rank)
        return std::nullopt;
    Dims out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        if (perm[i] < 0 || perm[i] >= static_cast<std::int64_t>(rank) || used[static_cast<std::size_t>(perm[i])])
            return std::nullopt;
        used[static_cast<std::size_t>(perm[i])] = true;
        out[i] = data->dims[static_cast<std::size_t>(perm[i])];
    }
    const Dims strides = stridesOf(data->dims);
    std::vector<std::int64_t> values(data->values.size());
    Dims index(rank, 0);
    for (std::int64_t& v : values) {
        std::int64_t at = 0;
        for (std::size_t i = 0; i < rank; ++i)
            at += index[i] * strides[static_cast<std::size_t>(perm[i])];
        v = data->values[static_cast<std::size_t>(at)];
        for (std::size_t i = rank; i-- > 0;) {
            if (++index[i] < out[i])
                break;
            index[i] = 0;
        }
    }
    return make(data->dataType, std::move(out), std::move(values));
}

Result foldConstantOfShape(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, std::size_t maxElements)
{
    const OnnxIntTensor* shape = valueAt(in, 0);
    const auto* valueAttr = findAttr(node, "value");
    // Without `value` the output is float zeros: not shape arithmetic.
    if (!shape || shape->dims.size() != 1 || !valueAttr || valueAttr->type() != onnx::AttributeProto::TENSOR)
        return std::nullopt;
    const auto fill = decodeOnnxIntTensor(valueAttr->t(), 1);
    const auto count = onnxElementCount(shape->values);
    if (!fill || fill->values.size() != 1 || !count || static_cast<std::size_t>(*count) > maxElements)
        return std::nullopt;
    return make(fill->dataType, shape->values,
                std::vector<std::int64_t>(static_cast<std::size_t>(*count), fill->values[0]));
}

Result foldRange(const std::vector<OnnxFoldInput>& in, std::size_t maxElements)
{
    const OnnxIntTensor* start = valueAt(in, 0);
    const OnnxIntTensor* limit = valueAt(in, 1);
    const OnnxIntTensor* delta = valueAt(in, 2);
    if (!start || !limit || !delta || start->values.size() != 1 || limit->values.size() != 1
        || delta->values.size() != 1 || delta->values[0] == 0)
        return std::nullopt;
    const std::int64_t s = start->values[0], l = limit->values[0], d = delta->values[0];
    // ceil((limit - start) / delta), computed in double to avoid overflow; checked below.
    const double n = std::max(0.0, std::ceil((static_cast<double>(l) - static_cast<double>(s)) / static_cast<double>(d)));
    if (n > static_cast<double>(maxElements))
        return std::nullopt;
    std::vector<std::int64_t> values(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < values.size(); ++i) {
        std::int64_t offset = 0; // the double count above may be one too many near the int64 limits
        if (__builtin_mul_overflow(static_cast<std::int64_t>(i), d, &offset)
            || __builtin_add_overflow(s, offset, &values[i]))
            return std::nullopt;
    }
    const auto size = static_cast<std::int64_t>(values.size());
    return make(start->dataType, {size}, std::move(values));
}

// The sizes of a Split's parts along an axis of `dim` elements: its `split` attribute (before
// opset 13) or input, else equal parts (the folder sees opset 17 forms: opset 18's num_outputs
// is rewritten before, OnnxOpsetCompat); nullopt unless there are `parts` of them, none
// negative, summing to `dim`.
std::optional<Dims> splitSizes(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset,
                               std::int64_t dim, std::int64_t parts)
{
    std::optional<Dims> sizes;
    if (opset < 13) {
        sizes = intsAttr(node, "split");
    } else if (presentAt(in, 1)) {
        const OnnxIntTensor* given = valueAt(in, 1);
        if (!given || given->isReal())
            return std::nullopt;
        sizes = given->values;
    }
    if (!sizes) {
        if (dim % parts != 0)
            return std::nullopt;
        sizes = Dims(static_cast<std::size_t>(parts), dim / parts);
    }
    if (static_cast<std::int64_t>(sizes->size()) != parts)
        return std::nullopt;
    std::int64_t left = dim;
    for (const std::int64_t size : *sizes) {
        if (size < 0 || size > left)
            return std::nullopt;
        left -= size;
    }
    if (left != 0)
        return std::nullopt;
    return sizes;
}

bool isDataMovement(const std::string& type)
{
    return type == "Gather" || type == "Unsqueeze" || type == "Squeeze" || type == "Concat" || type == "Reshape"
        || type == "Slice" || type == "Expand" || type == "Tile" || type == "Transpose";
}

Result foldByType(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& inputs, int opset,
                  std::size_t maxElements);

// Data movement of float values (torchvision's detection transform builds an image size as
// [floor(h * scale), floor(w * scale)] with Unsqueeze and Concat): folded as the same op on
// the values' positions in one pool, each float input replaced by the integers counting up
// from its first element's place there, then the positions it returns read back as floats.
// Every float input must be of one type, as ONNX asks of these ops' data.
Result foldRealDataMovement(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& inputs, int opset,
                            std::size_t maxElements)
{
    const std::string& type = node.op_type();
    std::vector<double> pool;
    std::vector<OnnxIntTensor> proxies;
    proxies.reserve(inputs.size()); // stable addresses for the inputs below
    std::vector<OnnxFoldInput> proxied = inputs;
    int realType = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const OnnxIntTensor* t = inputs[k].value;
        if (type == "Concat" && (!t || !t->isReal()))
            return std::nullopt; // every input is data there
        if (!t || !t->isReal())
            continue;
        if (realType != 0 && t->dataType != realType)
            return std::nullopt;
        realType = t->dataType;
        OnnxIntTensor& proxy = proxies.emplace_back(OnnxIntTensor{TP::INT64, t->dims, {}, {}});
        for (double v : t->reals) {
            proxy.values.push_back(static_cast<std::int64_t>(pool.size()));
            pool.push_back(v);
        }
        proxied[k].value = &proxy;
    }
    Result moved = foldByType(node, proxied, opset, maxElements);
    if (!moved || moved->dataType != TP::INT64)
        return std::nullopt;
    OnnxIntTensor result{realType, moved->dims, {}, {}};
    for (std::int64_t at : moved->values) {
        if (at < 0 || static_cast<std::size_t>(at) >= pool.size())
            return std::nullopt; // an integer input's value, not a float's position
        result.reals.push_back(pool[static_cast<std::size_t>(at)]);
    }
    return result;
}

Result foldByType(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& inputs, int opset,
                  std::size_t maxElements)
{
    const std::string& type = node.op_type();
    if (type == "Shape")
        return foldShape(node, inputs);
    if (type == "Size")
        return foldSize(inputs);
    // Checked before any work: the folds below make at most as many elements as their
    // largest known input (Concat: all of them) holds, or check `maxElements` themselves.
    std::size_t largest = 0, total = 0;
    bool real = false;
    for (const OnnxFoldInput& in : inputs)
        if (in.value) {
            largest = std::max(largest, in.value->size());
            total += in.value->size();
            real = real || in.value->isReal();
        }
    if ((type == "Concat" ? total : largest) > maxElements)
        return std::nullopt;
    // Float values (a scale) fold through element-wise arithmetic (OnnxFoldMath.cpp) and
    // through data movement, which only rearranges them.
    if (real && isDataMovement(type))
        return foldRealDataMovement(node, inputs, opset, maxElements);
    if (real && type != "Identity")
        return foldOnnxMath(node, inputs, opset, maxElements);
    if (type == "Identity")
        return inputs[0].value ? std::optional<OnnxIntTensor>(*inputs[0].value) : std::nullopt;
    if (type == "Gather")
        return foldGather(node, inputs);
    if (type == "Unsqueeze")
        return foldUnsqueeze(node, inputs, opset);
    if (type == "Squeeze")
        return foldSqueeze(node, inputs, opset);
    if (type == "Concat")
        return foldConcat(node, inputs);
    if (type == "Reshape")
        return foldReshape(node, inputs);
    if (type == "Slice")
        return foldSlice(node, inputs, opset);
    if (type == "Expand" || type == "Tile")
        return foldExpandOrTile(node, inputs, maxElements);
    if (type == "Transpose")
        return foldTranspose(node, inputs);
    if (type == "ConstantOfShape")
        return foldConstantOfShape(node, inputs, maxElements);
    if (type == "Range")
        return foldRange(inputs, maxElements);
    return foldOnnxMath(node, inputs, opset, maxElements);
}

} // namespace

std::optional<OnnxIntTensor> foldOnnxNode(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& inputs,
                                          int opset, std::size_t maxElements)
{
    if (node.output_size() != 1 || inputs.empty() || !(node.domain().empty() || node.domain() == "ai.onnx"))
        return std::nullopt;
    maxElements = std::min(maxElements, kOnnxMaxFoldElements);
    Result result = foldByType(node, inputs, opset, maxElements);
    if (result && result->size() > maxElements)
        return std::nullopt;
    return result;
}

std::optional<std::vector<OnnxIntTensor>> foldOnnxSplit(const onnx::NodeProto& node,
                                                        const std::vector<OnnxFoldInput>& inputs, int opset,
                                                        std::size_t maxElements)
{
    const OnnxIntTensor* data = valueAt(inputs, 0);
    const auto parts = static_cast<std::int64_t>(node.output_size());
    if (node.op_type() != "Split" || !isOnnxDefaultDomain(node.domain()) || parts < 1 || !data || data->isReal()
        || data->dims.empty() || data->size() > std::min(maxElements, kOnnxMaxFoldElements))
        return std::nullopt;
    const auto along = alongAxis(node, data->dims);
    if (!along)
        return std::nullopt;
    const std::size_t a = along->axis;
    const std::int64_t outer = along->outer, inner = along->inner;
    const auto sizes = splitSizes(node, inputs, opset, data->dims[a], parts);
    if (!sizes)
        return std::nullopt;
    std::vector<OnnxIntTensor> out;
    std::int64_t first = 0;
    for (const std::int64_t size : *sizes) {
        Dims dims = data->dims;
        dims[a] = size;
        std::vector<std::int64_t> values;
        values.reserve(static_cast<std::size_t>(outer * size * inner));
        for (std::int64_t o = 0; o < outer; ++o) {
            const auto from = data->values.begin() + (o * data->dims[a] + first) * inner;
            values.insert(values.end(), from, from + size * inner);
        }
        Result part = make(data->dataType, std::move(dims), std::move(values));
        if (!part)
            return std::nullopt;
        out.push_back(std::move(*part));
        first += size;
    }
    return out;
}

} // namespace post
