#include "core/io/onnx/OnnxFoldOps.h"

#include "core/cost/ReshapeShape.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace post {
namespace {

using Dims = std::vector<std::int64_t>;
using TP = onnx::TensorProto;
using Result = std::optional<OnnxIntTensor>;

const onnx::AttributeProto* findAttr(const onnx::NodeProto& node, const std::string& name)
{
    for (const auto& a : node.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

std::int64_t intAttr(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback)
{
    const auto* a = findAttr(node, name);
    return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

std::optional<Dims> intsAttr(const onnx::NodeProto& node, const std::string& name)
{
    const auto* a = findAttr(node, name);
    if (!a || a->type() != onnx::AttributeProto::INTS)
        return std::nullopt;
    return Dims(a->ints().begin(), a->ints().end());
}

const OnnxIntTensor* valueAt(const std::vector<OnnxFoldInput>& in, std::size_t i)
{
    return i < in.size() ? in[i].value : nullptr;
}

bool presentAt(const std::vector<OnnxFoldInput>& in, std::size_t i) { return i < in.size() && in[i].present; }

std::optional<std::int64_t> normalizedAxis(std::int64_t axis, std::int64_t rank)
{
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return std::nullopt;
    return axis;
}

Result make(int type, Dims dims, std::vector<std::int64_t> values)
{
    const auto n = onnxElementCount(dims);
    if (!n || static_cast<std::size_t>(*n) != values.size() || values.size() > kOnnxMaxFoldElements)
        return std::nullopt;
    return OnnxIntTensor{type, std::move(dims), std::move(values)};
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

Result foldGather(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    const OnnxIntTensor* indices = valueAt(in, 1);
    // Shape chains gather from a 1-D shape vector; other gathers are real data movement.
    if (!data || !indices || data->dims.size() != 1 || intAttr(node, "axis", 0) != 0)
        return std::nullopt;
    const auto size = static_cast<std::int64_t>(data->values.size());
    std::vector<std::int64_t> values;
    for (std::int64_t i : indices->values) {
        const auto k = normalizedAxis(i, size);
        if (!k)
            return std::nullopt;
        values.push_back(data->values[static_cast<std::size_t>(*k)]);
    }
    return make(data->dataType, indices->dims, std::move(values));
}

std::optional<Dims> axesOf(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    if (opset < 13)
        return intsAttr(node, "axes");
    if (!presentAt(in, 1))
        return std::nullopt;
    if (const OnnxIntTensor* axes = valueAt(in, 1))
        return axes->values;
    return std::nullopt;
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

Result foldConcat(const std::vector<OnnxFoldInput>& in)
{
    // Shape vectors are 1-D, so only 1-D concatenation is folded.
    std::vector<std::int64_t> values;
    int type = TP::INT64;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const OnnxIntTensor* t = in[i].value;
        if (!t || t->dims.size() != 1)
            return std::nullopt;
        type = i == 0 ? t->dataType : type;
        values.insert(values.end(), t->values.begin(), t->values.end());
    }
    if (in.empty())
        return std::nullopt;
    const auto size = static_cast<std::int64_t>(values.size());
    return make(type, {size}, std::move(values));
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

Result foldCast(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    const auto to = static_cast<int>(intAttr(node, "to", 0));
    if (!data || !isOnnxIntegerType(to))
        return std::nullopt;
    std::vector<std::int64_t> values = data->values;
    for (std::int64_t& v : values) {
        switch (to) {
        case TP::BOOL:
            v = v != 0;
            break;
        case TP::INT32:
            v = static_cast<std::int32_t>(v);
            break;
        case TP::UINT32:
            v = static_cast<std::uint32_t>(v);
            break;
        case TP::INT16:
            v = static_cast<std::int16_t>(v);
            break;
        case TP::UINT16:
            v = static_cast<std::uint16_t>(v);
            break;
        case TP::INT8:
            v = static_cast<std::int8_t>(v);
            break;
        case TP::UINT8:
            v = static_cast<std::uint8_t>(v);
            break;
        default:
            break;
        }
    }
    return make(to, data->dims, std::move(values));
}

Result foldSlice(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    if (!data || data->dims.size() != 1)
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
    if (!starts || !ends || starts->size() != 1 || ends->size() != 1)
        return std::nullopt;
    if (axes && (axes->size() != 1 || !normalizedAxis((*axes)[0], 1)))
        return std::nullopt;
    const std::int64_t step = steps ? (steps->size() == 1 ? (*steps)[0] : 0) : 1;
    if (step == 0)
        return std::nullopt;
    const auto dim = static_cast<std::int64_t>(data->values.size());
    auto clampTo = [dim](std::int64_t v, std::int64_t lo, std::int64_t hi) {
        if (v < 0)
            v = v < std::numeric_limits<std::int64_t>::min() + dim ? lo : v + dim;
        return std::clamp(v, lo, hi);
    };
    std::int64_t start = 0, end = 0;
    if (step > 0) {
        start = clampTo((*starts)[0], 0, dim);
        end = clampTo((*ends)[0], 0, dim);
    } else {
        start = clampTo((*starts)[0], -1, dim - 1);
        end = clampTo((*ends)[0], -1, dim - 1);
    }
    std::vector<std::int64_t> values;
    for (std::int64_t i = start; step > 0 ? i < end : i > end;) {
        values.push_back(data->values[static_cast<std::size_t>(i)]);
        if (__builtin_add_overflow(i, step, &i)) // a step beyond the data ends the slice
            break;
    }
    const auto size = static_cast<std::int64_t>(values.size());
    return make(data->dataType, {size}, std::move(values));
}

// NumPy broadcasting of `operands` (all known), `op` applied per output element.
Result foldBroadcast(const std::vector<const OnnxIntTensor*>& operands, int type, std::size_t maxElements,
                     const std::function<std::optional<std::int64_t>(const std::vector<std::int64_t>&)>& op)
{
    std::size_t rank = 0;
    for (const OnnxIntTensor* t : operands)
        rank = std::max(rank, t->dims.size());
    Dims out(rank, 1);
    for (const OnnxIntTensor* t : operands) {
        const std::size_t offset = rank - t->dims.size();
        for (std::size_t i = 0; i < t->dims.size(); ++i) {
            const std::int64_t d = t->dims[i];
            std::int64_t& o = out[offset + i];
            if (d != 1 && o != 1 && d != o)
                return std::nullopt;
            if (d != 1)
                o = d;
        }
    }
    const auto count = onnxElementCount(out);
    if (!count || static_cast<std::size_t>(*count) > maxElements)
        return std::nullopt;
    std::vector<std::int64_t> values(static_cast<std::size_t>(*count));
    std::vector<std::int64_t> args(operands.size());
    Dims index(rank, 0);
    for (std::size_t flat = 0; flat < values.size(); ++flat) {
        for (std::size_t k = 0; k < operands.size(); ++k) {
            const OnnxIntTensor* t = operands[k];
            const std::size_t offset = rank - t->dims.size();
            std::int64_t at = 0;
            for (std::size_t i = 0; i < t->dims.size(); ++i)
                at = at * t->dims[i] + (t->dims[i] == 1 ? 0 : index[offset + i]);
            args[k] = t->values[static_cast<std::size_t>(at)];
        }
        const auto v = op(args);
        if (!v)
            return std::nullopt;
        values[flat] = *v;
        for (std::size_t i = rank; i-- > 0;) { // odometer over the output index
            if (++index[i] < out[i])
                break;
            index[i] = 0;
        }
    }
    return make(type, std::move(out), std::move(values));
}

Result foldArithmetic(const std::string& type, const std::vector<OnnxFoldInput>& in, std::size_t maxElements)
{
    const OnnxIntTensor* a = valueAt(in, 0);
    const OnnxIntTensor* b = valueAt(in, 1);
    if (!a || !b || in.size() != 2)
        return std::nullopt;
    using Args = std::vector<std::int64_t>;
    if (type == "Add")
        return foldBroadcast({a, b}, a->dataType, maxElements, [](const Args& x) -> std::optional<std::int64_t> {
            std::int64_t r = 0;
            return __builtin_add_overflow(x[0], x[1], &r) ? std::nullopt : std::optional(r);
        });
    if (type == "Sub")
        return foldBroadcast({a, b}, a->dataType, maxElements, [](const Args& x) -> std::optional<std::int64_t> {
            std::int64_t r = 0;
            return __builtin_sub_overflow(x[0], x[1], &r) ? std::nullopt : std::optional(r);
        });
    if (type == "Mul")
        return foldBroadcast({a, b}, a->dataType, maxElements, [](const Args& x) -> std::optional<std::int64_t> {
            std::int64_t r = 0;
            return __builtin_mul_overflow(x[0], x[1], &r) ? std::nullopt : std::optional(r);
        });
    if (type == "Div")
        return foldBroadcast({a, b}, a->dataType, maxElements, [](const Args& x) -> std::optional<std::int64_t> {
            if (x[1] == 0 || (x[1] == -1 && x[0] == std::numeric_limits<std::int64_t>::min()))
                return std::nullopt;
            return x[0] / x[1];
        });
    if (type == "Equal")
        return foldBroadcast({a, b}, TP::BOOL, maxElements,
                             [](const Args& x) -> std::optional<std::int64_t> { return x[0] == x[1]; });
    return std::nullopt;
}

Result foldWhere(const std::vector<OnnxFoldInput>& in, std::size_t maxElements)
{
    const OnnxIntTensor* c = valueAt(in, 0);
    const OnnxIntTensor* x = valueAt(in, 1);
    const OnnxIntTensor* y = valueAt(in, 2);
    if (!c || !x || !y)
        return std::nullopt;
    return foldBroadcast(
        {c, x, y}, x->dataType, maxElements,
        [](const std::vector<std::int64_t>& v) -> std::optional<std::int64_t> { return v[0] ? v[1] : v[2]; });
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
    for (const OnnxFoldInput& in : inputs)
        if (in.value) {
            largest = std::max(largest, in.value->values.size());
            total += in.value->values.size();
        }
    if ((type == "Concat" ? total : largest) > maxElements)
        return std::nullopt;
    if (type == "Identity")
        return inputs[0].value ? std::optional<OnnxIntTensor>(*inputs[0].value) : std::nullopt;
    if (type == "Gather")
        return foldGather(node, inputs);
    if (type == "Unsqueeze")
        return foldUnsqueeze(node, inputs, opset);
    if (type == "Squeeze")
        return foldSqueeze(node, inputs, opset);
    if (type == "Concat")
        return foldConcat(inputs);
    if (type == "Reshape")
        return foldReshape(node, inputs);
    if (type == "Cast")
        return foldCast(node, inputs);
    if (type == "Slice")
        return foldSlice(node, inputs, opset);
    if (type == "Add" || type == "Sub" || type == "Mul" || type == "Div" || type == "Equal")
        return foldArithmetic(type, inputs, maxElements);
    if (type == "Where")
        return foldWhere(inputs, maxElements);
    if (type == "ConstantOfShape")
        return foldConstantOfShape(node, inputs, maxElements);
    if (type == "Range")
        return foldRange(inputs, maxElements);
    return std::nullopt;
}

} // namespace

std::optional<OnnxIntTensor> foldOnnxNode(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& inputs,
                                          int opset, std::size_t maxElements)
{
    if (node.output_size() != 1 || inputs.empty() || !(node.domain().empty() || node.domain() == "ai.onnx"))
        return std::nullopt;
    maxElements = std::min(maxElements, kOnnxMaxFoldElements);
    Result result = foldByType(node, inputs, opset, maxElements);
    if (result && result->values.size() > maxElements)
        return std::nullopt;
    return result;
}

} // namespace post
