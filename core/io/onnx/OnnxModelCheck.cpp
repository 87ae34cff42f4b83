#include "core/io/onnx/OnnxModelCheck.h"

#include "core/io/onnx/OnnxNodeLocation.h"
#include "core/io/onnx/OnnxOpsetCompat.h"
#include "core/io/onnx/OnnxTensorData.h"
#include "core/util/InputError.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <unordered_map>

namespace post {
namespace {

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The checker's message without the context it appends ("\n\n==> Context: ...").
std::string checkerMessage(const std::exception& e)
{
    std::string text = e.what();
    if (const auto cut = text.find("\n\n==> Context:"); cut != std::string::npos)
        text.erase(cut);
    for (char& c : text)
        if (c == '\n')
            c = ' ';
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

void checkTensorData(const onnx::TensorProto& tensor, const std::string& source, const std::string& location)
{
    if (const auto problem = onnxTensorDataProblem(tensor))
        throw InputError(source, location, *problem);
}

void checkSparseData(const onnx::SparseTensorProto& sparse, const std::string& source, const std::string& location)
{
    checkTensorData(sparse.values(), source, location + " values");
    checkTensorData(sparse.indices(), source, location + " indices");
}

void checkNodeAttributes(const onnx::NodeProto& node, const std::string& source, const std::string& location);

// Subgraphs (If/Loop/Scan bodies) are inferred as well, so they are checked alike.
void checkSubgraph(const onnx::GraphProto& graph, const std::string& source, const std::string& location)
{
    for (const auto& init : graph.initializer())
        checkTensorData(init, source, location + " initializer '" + init.name() + "'");
    for (const auto& init : graph.sparse_initializer())
        checkSparseData(init, source, location + " sparse initializer '" + init.values().name() + "'");
    for (int i = 0; i < graph.node_size(); ++i)
        checkNodeAttributes(graph.node(i), source, location + " " + onnxNodeLocation(i, graph.node(i)));
}

// What libonnx 1.12's shape inference would trip over, refused with the node's location:
// - it divides by `strides` unchecked (a 0 is a SIGFPE: fuzz-regressions/onnx); window
//   sizes and dilations are positive by the spec too;
// - it copies a constant's raw_data into a vector sized from the byte count, so bytes that
//   do not fit the dims write through a null pointer or past the vector (fuzz-regressions/onnx).
//   The checker does not compare data with dims, and ONNX keeps inference errors after a
//   custom-domain op non-fatal, so the data is checked here, before anything reads it.
void checkNodeAttributes(const onnx::NodeProto& node, const std::string& source, const std::string& location)
{
    for (const auto& a : node.attribute()) {
        if (a.type() == onnx::AttributeProto::GRAPH) {
            checkSubgraph(a.g(), source, location + ", " + a.name());
        } else if (a.type() == onnx::AttributeProto::GRAPHS) {
            for (const auto& g : a.graphs())
                checkSubgraph(g, source, location + ", " + a.name());
        } else if (a.type() == onnx::AttributeProto::TENSOR) {
            checkTensorData(a.t(), source, location + ", attribute " + a.name() + " (tensor '" + a.t().name() + "')");
        } else if (a.type() == onnx::AttributeProto::TENSORS) {
            for (const auto& t : a.tensors())
                checkTensorData(t, source, location + ", attribute " + a.name() + " (tensor '" + t.name() + "')");
        } else if (a.type() == onnx::AttributeProto::SPARSE_TENSOR) {
            checkSparseData(a.sparse_tensor(), source, location + ", attribute " + a.name());
        } else if (a.type() == onnx::AttributeProto::SPARSE_TENSORS) {
            for (const auto& t : a.sparse_tensors())
                checkSparseData(t, source, location + ", attribute " + a.name());
        } else if (a.type() == onnx::AttributeProto::INTS
                   && (a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape")) {
            for (std::int64_t v : a.ints())
                if (v < 1)
                    throw InputError(source, location,
                                     "attribute " + a.name() + " must hold values >= 1, got " + std::to_string(v));
        }
    }
}

} // namespace

onnx::ModelProto parseOnnxModel(std::string_view content, const std::string& source)
{
    if (content.size() > static_cast<std::size_t>(INT_MAX))
        throw InputError(source, {}, "ONNX model larger than 2 GB: protobuf cannot read it in one piece");
    onnx::ModelProto model;
    if (!model.ParseFromArray(content.data(), static_cast<int>(content.size())))
        throw InputError(
            source, {},
            "not a readable ONNX model: the protobuf does not parse (truncated file, or not an ONNX ModelProto)");
    return model;
}

int readOnnxOpset(const onnx::ModelProto& model, const std::string& source)
{
    if (!model.has_graph())
        throw InputError(source, {}, "ONNX model has no graph (truncated file?)");
    const auto& graph = model.graph();
    if (graph.node_size() == 0)
        throw InputError(source, "graph", "the graph has no nodes");
    if (model.ir_version() < 1)
        throw InputError(source, "ir_version", "missing (not an ONNX model, or a truncated one)");
    if (model.ir_version() > kOnnxMaxIrVersion)
        throw InputError(source, "ir_version",
                         "unsupported IR version " + std::to_string(model.ir_version()) + " (this build reads up to "
                             + std::to_string(kOnnxMaxIrVersion) + ")");
    int opset = -1;
    for (const auto& imp : model.opset_import())
        if (isDefaultDomain(imp.domain()))
            opset = static_cast<int>(std::clamp<std::int64_t>(imp.version(), INT_MIN, INT_MAX));
    if (opset < 0 && model.opset_import_size() == 0 && model.ir_version() < 3)
        opset = 1; // before IR 3 the opset was implicit
    if (opset < 0)
        throw InputError(source, "opset_import", "no opset for the ONNX domain (ai.onnx); truncated file?");
    const int lowest = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at("").first;
    if (opset < lowest || opset > kOnnxMaxOpset)
        throw InputError(source, "opset_import",
                         "unsupported ONNX opset " + std::to_string(opset) + " (this build reads opsets "
                             + std::to_string(lowest) + " to " + std::to_string(kOnnxMaxOpset) + ")");
    return opset;
}

void checkOnnxModel(const onnx::ModelProto& model, const std::string& source, const std::vector<int>& fileIndex)
{
    const auto& graph = model.graph();
    std::unordered_map<std::string, int> opsets;
    for (const auto& imp : model.opset_import())
        opsets[isDefaultDomain(imp.domain()) ? std::string() : imp.domain()] = static_cast<int>(imp.version());
    if (model.opset_import_size() == 0 && model.ir_version() < 3)
        opsets[""] = 1;
    auto where = [&fileIndex](int i, const onnx::NodeProto& node) {
        return onnxNodeLocation(fileIndex[static_cast<std::size_t>(i)], node);
    };

    onnx::checker::CheckerContext ctx;
    ctx.set_ir_version(static_cast<int>(model.ir_version()));
    ctx.set_opset_imports(opsets);
    onnx::checker::LexicalScopeContext scope;
    for (const auto& input : graph.input())
        scope.add(input.name());
    for (const auto& init : graph.initializer())
        scope.add(init.name());
    for (const auto& init : graph.sparse_initializer())
        scope.add(init.values().name());
    for (int i = 0; i < graph.node_size(); ++i) {
        const auto& node = graph.node(i);
        for (const auto& input : node.input())
            if (!input.empty() && !scope.this_graph_has(input))
                throw InputError(source, where(i, node),
                                 "input '" + input + "' is not a graph input, an initializer or the output of any node");
        try {
            onnx::checker::check_node(node, ctx, scope);
        } catch (const std::exception& e) {
            throw InputError(source, where(i, node), checkerMessage(e));
        }
        checkNodeAttributes(node, source, where(i, node));
        for (const auto& output : node.output())
            if (!output.empty())
                scope.add(output);
    }
    // Of the rest of check_model only the initializers matter here; its demand that every
    // graph output declare a shape would refuse models that runtimes accept.
    for (const auto& init : graph.initializer()) {
        // Sizes come from the dims (external data too): a negative one is no size at all.
        for (int k = 0; k < init.dims_size(); ++k)
            if (init.dims(k) < 0)
                throw InputError(source, "initializer '" + init.name() + "'",
                                 "dims[" + std::to_string(k) + "] must be >= 0, got " + std::to_string(init.dims(k)));
        // External data is never read (sizes come from the dims), so its file need not
        // exist; the checker would look for it relative to the working directory.
        if (init.data_location() == onnx::TensorProto::EXTERNAL)
            continue;
        // Types newer than libonnx 1.12 (float8, int4, float4: IR 9 and later) are not
        // checked by it; their data is not read either.
        if (init.data_type() > onnx::TensorProto::BFLOAT16)
            continue;
        try {
            onnx::checker::check_tensor(init, ctx);
        } catch (const std::exception& e) {
            throw InputError(source, "initializer '" + init.name() + "'", checkerMessage(e));
        }
        checkTensorData(init, source, "initializer '" + init.name() + "'");
    }
    for (const auto& init : graph.sparse_initializer())
        checkSparseData(init, source, "sparse initializer '" + init.values().name() + "'");
}

} // namespace post
