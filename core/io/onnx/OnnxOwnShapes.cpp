#include "core/io/onnx/OnnxOwnShapes.h"

#include "core/io/onnx/OnnxOpsetCompat.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

// Ops whose first output has the type and shape of their first input.
const std::unordered_set<std::string>& sameAsFirstInput()
{
    static const std::unordered_set<std::string> ops = {"Gelu",
                                                        "FastGelu",
                                                        "BiasGelu",
                                                        "QuickGelu",
                                                        "Mish",
                                                        "BitwiseNot",
                                                        "RMSNormalization",
                                                        "SimplifiedLayerNormalization",
                                                        "SkipSimplifiedLayerNormalization",
                                                        "GroupNormalization",
                                                        "LayerNormalization",
                                                        "SkipLayerNormalization",
                                                        "RotaryEmbedding",
                                                        "Swish",
                                                        "Silu",
                                                        "HardSwish",
                                                        "Relu",
                                                        "Sigmoid",
                                                        "Softmax",
                                                        "LogSoftmax",
                                                        "Dropout",
                                                        "Identity",
                                                        "BiasSoftmax",
                                                        "BiasAdd",
                                                        "BiasDropout",
                                                        "Erf",
                                                        "Tanh",
                                                        "Cast"};
    return ops;
}

const std::unordered_set<std::string>& broadcastTwo()
{
    static const std::unordered_set<std::string> ops = {"BitwiseAnd", "BitwiseOr", "BitwiseXor"};
    return ops;
}

bool hasShape(const onnx::TypeProto* t) { return t && t->has_tensor_type() && t->tensor_type().has_shape(); }

// Numpy broadcasting of two shapes; false when a pair of known dims does not broadcast.
bool broadcast(const onnx::TensorShapeProto& a, const onnx::TensorShapeProto& b, onnx::TensorShapeProto& out)
{
    const int rank = std::max(a.dim_size(), b.dim_size());
    out.clear_dim();
    for (int i = 0; i < rank; ++i) {
        const int ia = i - (rank - a.dim_size());
        const int ib = i - (rank - b.dim_size());
        const onnx::TensorShapeProto::Dimension* da = ia >= 0 ? &a.dim(ia) : nullptr;
        const onnx::TensorShapeProto::Dimension* db = ib >= 0 ? &b.dim(ib) : nullptr;
        auto* d = out.add_dim();
        const bool oneA = !da || (da->has_dim_value() && da->dim_value() == 1);
        const bool oneB = !db || (db->has_dim_value() && db->dim_value() == 1);
        if (oneA && db)
            *d = *db;
        else if (oneB && da)
            *d = *da;
        else if (da->has_dim_value() && db->has_dim_value() && da->dim_value() != db->dim_value())
            return false;
        else
            *d = da->has_dim_value() ? *da : *db;
    }
    return true;
}

} // namespace

int inferOwnOnnxShapes(onnx::GraphProto& graph)
{
    std::unordered_map<std::string, const onnx::TypeProto*> types;
    for (const auto& vi : graph.input())
        types[vi.name()] = &vi.type();
    for (const auto& vi : graph.value_info())
        types[vi.name()] = &vi.type();
    for (const auto& vi : graph.output())
        if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
            types[vi.name()] = &vi.type();
    std::unordered_map<std::string, onnx::TypeProto> initTypes;
    for (const auto& init : graph.initializer()) {
        onnx::TypeProto t;
        t.mutable_tensor_type()->set_elem_type(init.data_type());
        for (std::int64_t d : init.dims())
            t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
        initTypes[init.name()] = std::move(t);
    }
    for (const auto& [name, t] : initTypes)
        types.emplace(name, &t);

    auto typeOf = [&types](const onnx::NodeProto& node, int i) -> const onnx::TypeProto* {
        if (i >= node.input_size() || node.input(i).empty())
            return nullptr;
        const auto it = types.find(node.input(i));
        return it == types.end() ? nullptr : it->second;
    };

    std::vector<std::pair<std::string, onnx::TypeProto>> found;
    for (const auto& node : graph.node()) {
        const bool opaque = node.domain() == kOnnxOpaqueDomain;
        if (isOnnxDefaultDomain(node.domain()) || node.output_size() == 0 || node.output(0).empty()
            || types.count(node.output(0)))
            continue;
        const std::string& op = node.op_type();
        onnx::TypeProto out;
        const onnx::TypeProto* x = typeOf(node, 0);
        if (!hasShape(x))
            continue;
        if (sameAsFirstInput().count(op) && (opaque || op != "Cast")) {
            out = *x;
        } else if (opaque && broadcastTwo().count(op)) {
            const onnx::TypeProto* y = typeOf(node, 1);
            if (!hasShape(y))
                continue;
            out = *x;
            if (!broadcast(x->tensor_type().shape(), y->tensor_type().shape(),
                           *out.mutable_tensor_type()->mutable_shape()))
                continue;
        } else if (opaque && (op == "DequantizeLinear" || op == "QuantizeLinear")) {
            out = *x;
            const onnx::TypeProto* scale = typeOf(node, 1);
            const onnx::TypeProto* zero = typeOf(node, 2);
            int elem = 0;
            if (op == "DequantizeLinear" && scale)
                elem = scale->tensor_type().elem_type();
            else if (op == "QuantizeLinear")
                elem = zero ? zero->tensor_type().elem_type() : onnx::TensorProto::UINT8;
            for (const auto& a : node.attribute())
                if (a.name() == "output_dtype" && a.i() != 0)
                    elem = static_cast<int>(a.i());
            if (elem == 0)
                continue;
            out.mutable_tensor_type()->set_elem_type(elem);
        } else if (opaque && op == "Attention") {
            const onnx::TypeProto* v = typeOf(node, 2);
            if (!hasShape(v) || v->tensor_type().shape().dim_size() == 0 || x->tensor_type().shape().dim_size() == 0)
                continue;
            out = *x;
            auto* shape = out.mutable_tensor_type()->mutable_shape();
            *shape->mutable_dim(shape->dim_size()
                                - 1) = v->tensor_type().shape().dim(v->tensor_type().shape().dim_size() - 1);
        } else {
            continue;
        }
        found.emplace_back(node.output(0), std::move(out));
    }
    for (auto& [name, type] : found) {
        auto* vi = graph.add_value_info();
        vi->set_name(name);
        *vi->mutable_type() = std::move(type);
    }
    return static_cast<int>(found.size());
}

} // namespace post
