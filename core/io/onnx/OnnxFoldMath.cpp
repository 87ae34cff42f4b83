// Element-wise integer arithmetic of shape computations, folded (docs/importers.md, "Infer
// shapes and fold constants"): what exporters emit around a shape (Swin's window padding:
// (window - W % window) % window; torch's floor division: Div, Mod, Where, Equal, ...).
#include "core/io/onnx/OnnxFoldSupport.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>

namespace post::onnxfold {
namespace {

using TP = onnx::TensorProto;
using Args = std::vector<std::int64_t>;
using Scalar = std::optional<std::int64_t>;
using ElementOp = std::function<Scalar(const Args&)>;

// NumPy broadcasting of `operands` (all known): the output's dims, and `f(flat, at)` called
// per output element with each operand's flat index in `at`. False when they do not
// broadcast, the output would exceed `maxElements`, or `f` fails.
template <typename F>
bool forEachBroadcast(const std::vector<const OnnxIntTensor*>& operands, std::size_t maxElements, Dims& out, F&& f)
{
    std::size_t rank = 0;
    for (const OnnxIntTensor* t : operands)
        rank = std::max(rank, t->dims.size());
    out.assign(rank, 1);
    for (const OnnxIntTensor* t : operands) {
        const std::size_t offset = rank - t->dims.size();
        for (std::size_t i = 0; i < t->dims.size(); ++i) {
            const std::int64_t d = t->dims[i];
            std::int64_t& o = out[offset + i];
            if (d != 1 && o != 1 && d != o)
                return false;
            if (d != 1)
                o = d;
        }
    }
    const auto count = onnxElementCount(out);
    if (!count || static_cast<std::size_t>(*count) > maxElements)
        return false;
    std::vector<std::size_t> at(operands.size());
    Dims index(rank, 0);
    for (std::size_t flat = 0; flat < static_cast<std::size_t>(*count); ++flat) {
        for (std::size_t k = 0; k < operands.size(); ++k) {
            const OnnxIntTensor* t = operands[k];
            const std::size_t offset = rank - t->dims.size();
            std::int64_t a = 0;
            for (std::size_t i = 0; i < t->dims.size(); ++i)
                a = a * t->dims[i] + (t->dims[i] == 1 ? 0 : index[offset + i]);
            at[k] = static_cast<std::size_t>(a);
        }
        if (!f(flat, at))
            return false;
        for (std::size_t i = rank; i-- > 0;) { // odometer over the output index
            if (++index[i] < out[i])
                break;
            index[i] = 0;
        }
    }
    return true;
}

// Integer operands (all of `values` known), `op` applied per output element.
Result foldBroadcast(const std::vector<const OnnxIntTensor*>& operands, int type, std::size_t maxElements,
                     const ElementOp& op)
{
    for (const OnnxIntTensor* t : operands)
        if (t->isReal())
            return std::nullopt;
    Dims out;
    std::vector<std::int64_t> values;
    std::vector<std::int64_t> args(operands.size());
    const bool ok = forEachBroadcast(operands, maxElements, out, [&](std::size_t, const std::vector<std::size_t>& at) {
        for (std::size_t k = 0; k < operands.size(); ++k)
            args[k] = operands[k]->values[at[k]];
        const auto v = op(args);
        if (v)
            values.push_back(*v);
        return v.has_value();
    });
    if (!ok)
        return std::nullopt;
    return make(type, std::move(out), std::move(values));
}

double realAt(const OnnxIntTensor& t, std::size_t i)
{
    return t.isReal() ? t.reals[i] : static_cast<double>(t.values[i]);
}

// Operands of which some are float: computed in double; a bool result is an integer tensor.
Result foldRealBroadcast(const std::vector<const OnnxIntTensor*>& operands, int type, std::size_t maxElements,
                         const std::function<std::optional<double>(const std::vector<double>&)>& op)
{
    Dims out;
    std::vector<double> reals;
    std::vector<double> args(operands.size());
    const bool ok = forEachBroadcast(operands, maxElements, out, [&](std::size_t, const std::vector<std::size_t>& at) {
        for (std::size_t k = 0; k < operands.size(); ++k)
            args[k] = realAt(*operands[k], at[k]);
        const auto v = op(args);
        if (v)
            reals.push_back(*v);
        return v.has_value();
    });
    if (!ok)
        return std::nullopt;
    if (type != TP::BOOL)
        return makeReal(type, std::move(out), std::move(reals));
    std::vector<std::int64_t> values(reals.begin(), reals.end());
    return make(type, std::move(out), std::move(values));
}

using RealOp = std::function<std::optional<double>(const std::vector<double>&)>;

// The element-wise ops folded on float values: the function and whether the result is bool.
const std::unordered_map<std::string, std::pair<RealOp, bool>>& realOps()
{
    using V = std::vector<double>;
    static const std::unordered_map<std::string, std::pair<RealOp, bool>> ops = {
        {"Add", {[](const V& x) { return std::optional(x[0] + x[1]); }, false}},
        {"Sub", {[](const V& x) { return std::optional(x[0] - x[1]); }, false}},
        {"Mul", {[](const V& x) { return std::optional(x[0] * x[1]); }, false}},
        {"Div", {[](const V& x) { return x[1] == 0.0 ? std::nullopt : std::optional(x[0] / x[1]); }, false}},
        {"Min", {[](const V& x) { return std::optional(*std::min_element(x.begin(), x.end())); }, false}},
        {"Max", {[](const V& x) { return std::optional(*std::max_element(x.begin(), x.end())); }, false}},
        {"Equal", {[](const V& x) { return std::optional(x[0] == x[1] ? 1.0 : 0.0); }, true}},
        {"Less", {[](const V& x) { return std::optional(x[0] < x[1] ? 1.0 : 0.0); }, true}},
        {"LessOrEqual", {[](const V& x) { return std::optional(x[0] <= x[1] ? 1.0 : 0.0); }, true}},
        {"Greater", {[](const V& x) { return std::optional(x[0] > x[1] ? 1.0 : 0.0); }, true}},
        {"GreaterOrEqual", {[](const V& x) { return std::optional(x[0] >= x[1] ? 1.0 : 0.0); }, true}},
        {"Floor", {[](const V& x) { return std::optional(std::floor(x[0])); }, false}},
        {"Ceil", {[](const V& x) { return std::optional(std::ceil(x[0])); }, false}},
        {"Round", {[](const V& x) { return std::optional(std::nearbyint(x[0])); }, false}}, // half to even
        {"Neg", {[](const V& x) { return std::optional(-x[0]); }, false}},
        {"Abs", {[](const V& x) { return std::optional(std::fabs(x[0])); }, false}},
        {"Sqrt", {[](const V& x) { return x[0] < 0.0 ? std::nullopt : std::optional(std::sqrt(x[0])); }, false}},
        {"Pow", {[](const V& x) { return std::optional(std::pow(x[0], x[1])); }, false}}, // NaN, inf: not folded
        {"Reciprocal", {[](const V& x) { return x[0] == 0.0 ? std::nullopt : std::optional(1.0 / x[0]); }, false}},
    };
    return ops;
}

Result foldReduce(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset);

// ReduceMin and ReduceMax of float values (torchvision's detection transform takes the largest
// image size as a float): the same reduction of each value's rank among them, read back.
Result foldRealMinMax(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    if (!data || !data->isReal())
        return std::nullopt;
    std::vector<double> sorted = data->reals;
    if (std::any_of(sorted.begin(), sorted.end(), [](double v) { return std::isnan(v); }))
        return std::nullopt;
    std::sort(sorted.begin(), sorted.end());
    OnnxIntTensor ranks{TP::INT64, data->dims, {}, {}};
    for (double v : data->reals)
        ranks.values.push_back(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
    std::vector<OnnxFoldInput> ranked = in;
    ranked[0].value = &ranks;
    Result reduced = foldReduce(node, ranked, opset);
    if (!reduced)
        return std::nullopt;
    OnnxIntTensor result{data->dataType, reduced->dims, {}, {}};
    for (std::int64_t r : reduced->values)
        result.reals.push_back(sorted[static_cast<std::size_t>(r)]);
    return result;
}

// Where some input is float: the ops of realOps, ReduceMin, ReduceMax, Where, and Cast (to an integer type
// truncating, as runtimes do; to float or double).
Result foldRealMath(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset, std::size_t maxElements)
{
    const std::string& type = node.op_type();
    if (type == "ReduceMin" || type == "ReduceMax")
        return foldRealMinMax(node, in, opset);
    std::vector<const OnnxIntTensor*> operands;
    for (const OnnxFoldInput& i : in) {
        if (!i.value)
            return std::nullopt;
        operands.push_back(i.value);
    }
    if (operands.empty())
        return std::nullopt;
    if (type == "Cast") {
        const auto to = static_cast<int>(intAttr(node, "to", 0));
        const OnnxIntTensor& x = *operands[0];
        if (to == TP::FLOAT || to == TP::DOUBLE)
            return foldRealBroadcast({&x}, to, maxElements,
                                     [](const std::vector<double>& v) { return std::optional(v[0]); });
        if (!isOnnxIntegerType(to) || !x.isReal())
            return std::nullopt;
        OnnxIntTensor truncated{TP::INT64, x.dims, {}, {}};
        for (double v : x.reals) {
            if (!(v > -9.2e18 && v < 9.2e18)) // NaN, infinite or beyond int64
                return std::nullopt;
            truncated.values.push_back(static_cast<std::int64_t>(v));
        }
        OnnxFoldInput cast;
        cast.present = true;
        cast.value = &truncated;
        return foldOnnxMath(node, {cast}, 17, maxElements); // the integer Cast narrows to `to`
    }
    if (type == "Where") {
        if (operands.size() != 3 || operands[0]->isReal() || operands[1]->dataType != operands[2]->dataType)
            return std::nullopt;
        return foldRealBroadcast(operands, operands[1]->dataType, maxElements,
                                 [](const std::vector<double>& v) { return std::optional(v[0] != 0.0 ? v[1] : v[2]); });
    }
    const auto it = realOps().find(type);
    if (it == realOps().end())
        return std::nullopt;
    const bool unary = type == "Floor" || type == "Ceil" || type == "Round" || type == "Neg" || type == "Abs"
        || type == "Sqrt" || type == "Reciprocal";
    const bool variadic = type == "Min" || type == "Max";
    if (unary ? operands.size() != 1 : (!variadic && operands.size() != 2))
        return std::nullopt;
    int resultType = operands[0]->dataType;
    for (const OnnxIntTensor* t : operands)
        if (t->isReal())
            resultType = t->dataType; // ONNX asks for one type; the float one if they differ
    return foldRealBroadcast(operands, it->second.second ? static_cast<int>(TP::BOOL) : resultType, maxElements,
                             it->second.first);
}

Scalar add(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? std::nullopt : Scalar(r);
}

Scalar multiply(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::nullopt : Scalar(r);
}

bool divisionUndefined(std::int64_t a, std::int64_t b)
{
    return b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min());
}

// ONNX Mod: fmod = 0 takes the divisor's sign (Python's %), fmod = 1 the dividend's (C's %).
Scalar modulo(std::int64_t a, std::int64_t b, bool fmod)
{
    if (divisionUndefined(a, b))
        return std::nullopt;
    std::int64_t r = a % b;
    if (!fmod && r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

Scalar power(std::int64_t base, std::int64_t exponent)
{
    if (exponent < 0)
        return base == 1 ? Scalar(1) : std::nullopt; // an integer result only for 1
    std::int64_t r = 1;
    for (std::int64_t i = 0; i < exponent; ++i) {
        if (__builtin_mul_overflow(r, base, &r))
            return std::nullopt;
        if (r == 0 || r == 1)
            break; // 0 and 1 stay (base 0 or 1); -1 alternates, bounded by the exponent
    }
    return r;
}

// Binary and variadic element-wise ops: the function and whether the result is bool.
const std::unordered_map<std::string, std::pair<std::function<Scalar(const onnx::NodeProto&, const Args&)>, bool>>& elementOps()
{
    using F = std::function<Scalar(const onnx::NodeProto&, const Args&)>;
    static const std::unordered_map<std::string, std::pair<F, bool>> ops = {
        {"Add", {[](const auto&, const Args& x) { return add(x[0], x[1]); }, false}},
        {"Sub",
         {[](const auto&, const Args& x) -> Scalar {
              std::int64_t r = 0;
              return __builtin_sub_overflow(x[0], x[1], &r) ? std::nullopt : Scalar(r);
          },
          false}},
        {"Mul", {[](const auto&, const Args& x) { return multiply(x[0], x[1]); }, false}},
        {"Div", // truncating, as integer division in ONNX runtimes
         {[](const auto&, const Args& x) { return divisionUndefined(x[0], x[1]) ? std::nullopt : Scalar(x[0] / x[1]); },
          false}},
        {"Mod",
         {[](const onnx::NodeProto& node, const Args& x) { return modulo(x[0], x[1], intAttr(node, "fmod", 0) != 0); },
          false}},
        {"Pow", {[](const auto&, const Args& x) { return power(x[0], x[1]); }, false}},
        {"Min", {[](const auto&, const Args& x) { return Scalar(*std::min_element(x.begin(), x.end())); }, false}},
        {"Max", {[](const auto&, const Args& x) { return Scalar(*std::max_element(x.begin(), x.end())); }, false}},
        {"Equal", {[](const auto&, const Args& x) { return Scalar(x[0] == x[1]); }, true}},
        {"Less", {[](const auto&, const Args& x) { return Scalar(x[0] < x[1]); }, true}},
        {"LessOrEqual", {[](const auto&, const Args& x) { return Scalar(x[0] <= x[1]); }, true}},
        {"Greater", {[](const auto&, const Args& x) { return Scalar(x[0] > x[1]); }, true}},
        {"GreaterOrEqual", {[](const auto&, const Args& x) { return Scalar(x[0] >= x[1]); }, true}},
        {"And", {[](const auto&, const Args& x) { return Scalar(x[0] != 0 && x[1] != 0); }, true}},
        {"Or", {[](const auto&, const Args& x) { return Scalar(x[0] != 0 || x[1] != 0); }, true}},
        {"Xor", {[](const auto&, const Args& x) { return Scalar((x[0] != 0) != (x[1] != 0)); }, true}},
    };
    return ops;
}

const std::unordered_map<std::string, std::function<Scalar(std::int64_t)>>& unaryOps()
{
    static const std::unordered_map<std::string, std::function<Scalar(std::int64_t)>> ops = {
        {"Neg", [](std::int64_t v) { return v == std::numeric_limits<std::int64_t>::min() ? std::nullopt : Scalar(-v); }},
        {"Abs",
         [](std::int64_t v) {
             return v == std::numeric_limits<std::int64_t>::min() ? std::nullopt : Scalar(v < 0 ? -v : v);
         }},
        {"Sign", [](std::int64_t v) { return Scalar((v > 0) - (v < 0)); }},
        {"Not", [](std::int64_t v) { return Scalar(v == 0); }},
    };
    return ops;
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

Result foldWhere(const std::vector<OnnxFoldInput>& in, std::size_t maxElements)
{
    const OnnxIntTensor* c = valueAt(in, 0);
    const OnnxIntTensor* x = valueAt(in, 1);
    const OnnxIntTensor* y = valueAt(in, 2);
    if (!c || !x || !y)
        return std::nullopt;
    return foldBroadcast({c, x, y}, x->dataType, maxElements, [](const Args& v) -> Scalar { return v[0] ? v[1] : v[2]; });
}

// ReduceProd, ReduceSum, ReduceMin, ReduceMax over the given axes (all when none), keepdims.
Result foldReduce(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset)
{
    const OnnxIntTensor* data = valueAt(in, 0);
    if (!data)
        return std::nullopt;
    const auto rank = static_cast<std::int64_t>(data->dims.size());
    // ReduceSum takes its axes as an input from opset 13, the others from 18 (rewritten to
    // the attribute for this build: OnnxOpsetCompat).
    const bool asInput = node.op_type() == "ReduceSum" && opset >= 13;
    const bool given = asInput ? presentAt(in, 1) : findAttr(node, "axes") != nullptr;
    std::vector<bool> reduced(data->dims.size(), !given);
    if (given) {
        const auto axes = asInput ? (valueAt(in, 1) ? std::optional(valueAt(in, 1)->values) : std::nullopt)
                                  : intsAttr(node, "axes");
        if (!axes)
            return std::nullopt;
        if (axes->empty() && intAttr(node, "noop_with_empty_axes", 0) != 0)
            return *data;
        if (axes->empty())
            reduced.assign(reduced.size(), true);
        for (std::int64_t a : *axes) {
            const auto k = normalizedAxis(a, rank);
            if (!k)
                return std::nullopt;
            reduced[static_cast<std::size_t>(*k)] = true;
        }
    }
    const bool keep = intAttr(node, "keepdims", 1) != 0;
    Dims outDims;
    for (std::size_t i = 0; i < data->dims.size(); ++i)
        if (!reduced[i] || keep)
            outDims.push_back(reduced[i] ? 1 : data->dims[i]);
    const std::string& type = node.op_type();
    std::vector<Scalar> acc;
    // Each input element goes to the output element of its index with reduced axes at 0.
    Dims index(data->dims.size(), 0);
    Dims kept; // the output's full-rank dims: 1 where reduced
    for (std::size_t i = 0; i < data->dims.size(); ++i)
        kept.push_back(reduced[i] ? 1 : data->dims[i]);
    const auto outCount = onnxElementCount(kept);
    if (!outCount)
        return std::nullopt;
    const std::int64_t empty = type == "ReduceProd" ? 1 : 0;
    acc.assign(static_cast<std::size_t>(*outCount), std::nullopt);
    for (std::int64_t v : data->values) {
        std::int64_t at = 0;
        for (std::size_t i = 0; i < index.size(); ++i)
            at = at * kept[i] + (reduced[i] ? 0 : index[i]);
        Scalar& a = acc[static_cast<std::size_t>(at)];
        if (!a)
            a = v;
        else if (type == "ReduceProd")
            a = multiply(*a, v);
        else if (type == "ReduceSum")
            a = add(*a, v);
        else if (type == "ReduceMin")
            a = std::min(*a, v);
        else
            a = std::max(*a, v);
        if (!a)
            return std::nullopt; // overflow
        for (std::size_t i = index.size(); i-- > 0;) {
            if (++index[i] < data->dims[i])
                break;
            index[i] = 0;
        }
    }
    std::vector<std::int64_t> values;
    for (const Scalar& a : acc) {
        if (!a && (type == "ReduceMin" || type == "ReduceMax"))
            return std::nullopt; // the reduction of nothing has no value
        values.push_back(a.value_or(empty));
    }
    return make(data->dataType, std::move(outDims), std::move(values));
}

} // namespace

std::optional<Dims> axesOf(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset, int inputFrom)
{
    if (opset < inputFrom)
        return intsAttr(node, "axes");
    if (!presentAt(in, 1))
        return std::nullopt;
    if (const OnnxIntTensor* axes = valueAt(in, 1))
        return axes->values;
    return std::nullopt;
}

Result foldOnnxMath(const onnx::NodeProto& node, const std::vector<OnnxFoldInput>& in, int opset, std::size_t maxElements)
{
    const std::string& type = node.op_type();
    for (const OnnxFoldInput& i : in)
        if (i.value && i.value->isReal())
            return foldRealMath(node, in, opset, maxElements);
    if (type == "Cast"
        && (static_cast<int>(intAttr(node, "to", 0)) == TP::FLOAT
            || static_cast<int>(intAttr(node, "to", 0)) == TP::DOUBLE))
        return foldRealMath(node, in, opset, maxElements); // an integer made float (a size scaled next)
    if (const auto it = elementOps().find(type); it != elementOps().end()) {
        const bool variadic = type == "Min" || type == "Max";
        if (in.empty() || (!variadic && in.size() != 2))
            return std::nullopt;
        std::vector<const OnnxIntTensor*> operands;
        for (const OnnxFoldInput& i : in) {
            if (!i.value)
                return std::nullopt;
            operands.push_back(i.value);
        }
        const auto& [op, isBool] = it->second;
        return foldBroadcast(operands, isBool ? TP::BOOL : operands[0]->dataType, maxElements,
                             [&node, &op = op](const Args& x) { return op(node, x); });
    }
    if (const auto it = unaryOps().find(type); it != unaryOps().end()) {
        const OnnxIntTensor* x = valueAt(in, 0);
        if (!x || in.size() != 1)
            return std::nullopt;
        std::vector<std::int64_t> values;
        for (std::int64_t v : x->values) {
            const Scalar r = it->second(v);
            if (!r)
                return std::nullopt;
            values.push_back(*r);
        }
        return make(type == "Not" ? static_cast<int>(TP::BOOL) : x->dataType, x->dims, std::move(values));
    }
    if (type == "Cast")
        return foldCast(node, in);
    if (type == "Where")
        return foldWhere(in, maxElements);
    if (type == "ReduceProd" || type == "ReduceSum" || type == "ReduceMin" || type == "ReduceMax")
        return foldReduce(node, in, opset);
    return std::nullopt;
}

} // namespace post::onnxfold
