#include "core/io/onnx/OnnxOpsetCompat.h"

#include "core/io/onnx/OnnxTensorData.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

const std::unordered_set<std::string>& reduceOpsWithAxesInput18()
{
    // ReduceSum took axes as an input from opset 13; the others from 18.
    static const std::unordered_set<std::string> ops = {"ReduceMean",   "ReduceMax",       "ReduceMin",
                                                        "ReduceProd",   "ReduceL1",        "ReduceL2",
                                                        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
    return ops;
}

const onnx::AttributeProto* findAttr(const onnx::NodeProto& node, const std::string& name)
{
    for (const auto& a : node.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

void removeAttr(onnx::NodeProto& node, const std::string& name)
{
    auto* attrs = node.mutable_attribute();
    for (int i = attrs->size() - 1; i >= 0; --i)
        if (attrs->Get(i).name() == name)
            attrs->DeleteSubrange(i, 1);
}

std::int64_t intAttr(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback)
{
    const auto* a = findAttr(node, name);
    return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

void truncateInputs(onnx::NodeProto& node, int count)
{
    while (node.input_size() > count)
        node.mutable_input()->RemoveLast();
}

bool hasInput(const onnx::NodeProto& node, int i) { return node.input_size() > i && !node.input(i).empty(); }

// Integer constants of one graph: initializers and Constant nodes.
class GraphConstants {
public:
    explicit GraphConstants(const onnx::GraphProto& graph)
    {
        for (const auto& init : graph.initializer())
            tensors_[init.name()] = &init;
        for (const auto& node : graph.node())
            if (isOnnxDefaultDomain(node.domain()) && node.op_type() == "Constant" && node.output_size() == 1)
                if (const auto* v = findAttr(node, "value"); v && v->type() == onnx::AttributeProto::TENSOR)
                    tensors_[node.output(0)] = &v->t();
    }

    std::optional<std::vector<std::int64_t>> ints(const std::string& name) const
    {
        const auto it = tensors_.find(name);
        if (it == tensors_.end())
            return std::nullopt;
        auto t = decodeOnnxIntTensor(*it->second, 1024);
        if (!t)
            return std::nullopt;
        return std::move(t->values);
    }

private:
    std::unordered_map<std::string, const onnx::TensorProto*> tensors_;
};

class Downgrader {
public:
    Downgrader(onnx::ModelProto& model, int opset)
        : model_(model)
        , opset_(opset)
    {
    }

    void run()
    {
        graph(*model_.mutable_graph());
        if (opaqueCount_ > 0) {
            auto* imp = model_.add_opset_import();
            imp->set_domain(kOnnxOpaqueDomain);
            imp->set_version(1);
        }
        if (opset_ > kOnnxLibraryOpset)
            for (auto& imp : *model_.mutable_opset_import())
                if (isOnnxDefaultDomain(imp.domain()))
                    imp.set_version(kOnnxLibraryOpset);
        if (model_.ir_version() > kOnnxLibraryIrVersion)
            model_.set_ir_version(kOnnxLibraryIrVersion);
    }

private:
    void graph(onnx::GraphProto& g)
    {
        const GraphConstants constants(g);
        for (auto& node : *g.mutable_node()) {
            for (auto& a : *node.mutable_attribute()) {
                if (a.type() == onnx::AttributeProto::GRAPH)
                    graph(*a.mutable_g());
                else if (a.type() == onnx::AttributeProto::GRAPHS)
                    for (auto& sub : *a.mutable_graphs())
                        graph(sub);
            }
            if (!isOnnxDefaultDomain(node.domain()))
                continue;
            if (opset_ > kOnnxLibraryOpset)
                rewrite(node, constants);
            if (!isOnnxDefaultDomain(node.domain()))
                continue; // made opaque by the rewrite
            const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Instance()->GetSchema(
                node.op_type(), std::min(opset_, kOnnxLibraryOpset), "");
            if (!schema) {
                makeOpaque(node); // an op newer than libonnx, or none of ai.onnx at all
            } else if (opset_ > kOnnxLibraryOpset) {
                // What the rewrite did not cover and the opset-17 schema refuses (an
                // attribute or input it does not have) cannot be inferred by libonnx.
                try {
                    schema->Verify(node);
                } catch (const std::exception&) {
                    makeOpaque(node);
                }
            }
        }
    }

    void makeOpaque(onnx::NodeProto& node)
    {
        node.set_domain(kOnnxOpaqueDomain);
        ++opaqueCount_;
    }

    // One node of opset 18..23 to its opset-17 form, where it has one.
    void rewrite(onnx::NodeProto& node, const GraphConstants& constants)
    {
        const std::string& type = node.op_type();
        if (reduceOpsWithAxesInput18().count(type)) {
            const bool noop = intAttr(node, "noop_with_empty_axes", 0) != 0;
            removeAttr(node, "noop_with_empty_axes");
            if (hasInput(node, 1)) {
                const auto axes = constants.ints(node.input(1));
                if (!axes)
                    return makeOpaque(node); // axes computed at run time
                truncateInputs(node, 1);
                if (!axes->empty()) {
                    auto* a = node.add_attribute();
                    a->set_name("axes");
                    a->set_type(onnx::AttributeProto::INTS);
                    for (std::int64_t v : *axes)
                        a->add_ints(v);
                } else if (noop) {
                    node.set_op_type("Identity");
                    node.clear_attribute();
                }
            } else {
                truncateInputs(node, 1);
                if (noop) {
                    node.set_op_type("Identity"); // no axes and noop: the input itself
                    node.clear_attribute();
                }
            }
        } else if (type == "Split") {
            removeAttr(node, "num_outputs"); // opset 13 splits evenly among the outputs
        } else if (type == "Pad") {
            if (hasInput(node, 3))
                return makeOpaque(node); // pads for some axes only
            truncateInputs(node, 3);
            if (const auto* mode = findAttr(node, "mode"); mode && mode->s() == "wrap")
                removeAttr(node, "mode"); // same shape as constant padding
        } else if (type == "Resize") {
            removeAttr(node, "antialias"); // changes values, not shapes
            if (findAttr(node, "axes") || findAttr(node, "keep_aspect_ratio_policy"))
                return makeOpaque(node);
            if (const auto* m = findAttr(node, "coordinate_transformation_mode"); m && m->s() == "half_pixel_symmetric") {
                removeAttr(node, "coordinate_transformation_mode");
                auto* a = node.add_attribute();
                a->set_name("coordinate_transformation_mode");
                a->set_type(onnx::AttributeProto::STRING);
                a->set_s("half_pixel");
            }
        } else if (type == "Cast" || type == "CastLike") {
            removeAttr(node, "saturate");
            removeAttr(node, "round_mode");
        } else if (type == "QuantizeLinear") {
            removeAttr(node, "saturate");
            if (intAttr(node, "block_size", 0) != 0 || findAttr(node, "output_dtype") || findAttr(node, "precision"))
                return makeOpaque(node);
            removeAttr(node, "block_size");
        } else if (type == "DequantizeLinear") {
            if (intAttr(node, "block_size", 0) != 0 || findAttr(node, "output_dtype"))
                return makeOpaque(node);
            removeAttr(node, "block_size");
        } else if (type == "AveragePool" || type == "LpPool") {
            if (const auto* d = findAttr(node, "dilations")) {
                if (std::any_of(d->ints().begin(), d->ints().end(), [](std::int64_t v) { return v != 1; }))
                    return makeOpaque(node);
                removeAttr(node, "dilations");
            }
            if (type == "LpPool" && findAttr(node, "ceil_mode")) {
                if (intAttr(node, "ceil_mode", 0) != 0)
                    return makeOpaque(node);
                removeAttr(node, "ceil_mode");
            }
        } else if (type == "GridSample") {
            if (auto* m = const_cast<onnx::AttributeProto*>(findAttr(node, "mode"))) {
                if (m->s() == "linear")
                    m->set_s("bilinear");
                else if (m->s() == "cubic")
                    m->set_s("bicubic");
            }
        }
    }

    onnx::ModelProto& model_;
    int opset_;
    int opaqueCount_ = 0;
};

} // namespace

void downgradeOnnxModel(onnx::ModelProto& model, int opset) { Downgrader(model, opset).run(); }

} // namespace post
