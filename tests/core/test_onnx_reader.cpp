// The ONNX importer on tiny models the project wrote (tests/data/onnx/make_models.py):
// shapes, folding, parameters, batch pinning, the training graph, and malformed files.
#include "tests/support/TestData.h"

#include "core/cost/CostModel.h"
#include "core/io/GraphFile.h"
#include "core/io/ImportedGraph.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/io/onnx/OnnxShapeInference.h"
#include "core/io/onnx/OnnxWeightSkip.h"

#include "core/util/FileText.h"
#include "core/util/InputError.h"
#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <functional>
#include <random>

using namespace post;

namespace {

std::string modelPath(const std::string& file)
{
    return testdata::sourceDir().toStdString() + "/tests/data/onnx/" + file;
}

std::string modelBytes(const std::string& file) { return readFileText(modelPath(file)); }

// What torch.onnx.export(..., export_params=False) writes: each initializer a graph input
// with its shape, and no initializer.
void weightsAsInputs(onnx::GraphProto& graph)
{
    for (const onnx::TensorProto& init : graph.initializer()) {
        onnx::ValueInfoProto* input = graph.add_input();
        input->set_name(init.name());
        auto* tt = input->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(init.data_type());
        for (std::int64_t d : init.dims())
            tt->mutable_shape()->add_dim()->set_dim_value(d);
    }
    graph.clear_initializer();
}

ShapedGraph readShaped(const std::string& file, std::int64_t batch = 1)
{
    ImportOptions options;
    options.batch = batch;
    return readOnnxShapedGraph(modelBytes(file), file, options);
}

const ShapedOp& opNamed(const ShapedGraph& g, const std::string& name)
{
    for (const ShapedOp& op : g.ops)
        if (op.name == name)
            return op;
    qFatal("no op %s", name.c_str());
}

const ShapedTensor* findTensor(const ShapedGraph& g, const std::string& name)
{
    for (const ShapedTensor& t : g.tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

const ShapedTensor& tensorNamed(const ShapedGraph& g, const std::string& name)
{
    if (const ShapedTensor* t = findTensor(g, name))
        return *t;
    qFatal("no tensor %s", name.c_str());
}

using Shape = std::vector<std::int64_t>;

double tensorBytes(const ShapedTensor& t)
{
    double n = t.elementBytes;
    for (std::int64_t d : t.shape)
        n *= static_cast<double>(d);
    return n;
}

double parameterBytes(const ShapedGraph& g)
{
    double total = 0.0;
    for (const ShapedTensor& t : g.tensors)
        if (t.isParameter)
            total += tensorBytes(t);
    return total;
}

double activationBytes(const ShapedGraph& g)
{
    double total = 0.0;
    for (const ShapedTensor& t : g.tensors)
        if (!t.isParameter && !t.isConstant)
            total += tensorBytes(t);
    return total;
}

std::vector<std::string> opNames(const ShapedGraph& g)
{
    std::vector<std::string> names;
    for (const ShapedOp& op : g.ops)
        names.push_back(op.name);
    return names;
}

// Parameter bytes counted by hand from make_models.py (float32 = 4 bytes):
// conv1 8x3x3x3 + 8, bn1 4 x 8, conv2 16x8x3x3, fc 10x16 + 10.
constexpr double kCnnParamBytes = 4.0 * ((8 * 3 * 3 * 3 + 8) + 4 * 8 + 16 * 8 * 3 * 3 + (10 * 16 + 10));
// ln1, ln2 2 x 16 each; Wq Wk Wv Wo 16x16; W1 16x64 + 64; W2 64x16 + 16; and the four
// float scalar Constant nodes the ops read (scale, sqrt2, one, half): Constant weights
// count like initializers.
constexpr double kTransformerParamBytes = 4.0 * (2 * 2 * 16 + 4 * 16 * 16 + (16 * 64 + 64) + (64 * 16 + 16) + 4);

// Expects `call` to throw InputError naming `file`, with `location` and `message` in it.
template <typename F>
void expectInputError(F&& call, const std::string& file, const QString& location, const QString& message)
{
    try {
        call();
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(file));
        if (!location.isEmpty())
            QCOMPARE(QString::fromStdString(e.location()), location);
        QVERIFY2(QString::fromStdString(e.message()).contains(message), e.what());
    }
}

// cnn.onnx with a 128 KiB float weight in raw bytes ('big.weight', [10, 3277], the last
// initializer), read by a MatMul on its output.
onnx::ModelProto modelWithLargeWeight()
{
    onnx::ModelProto model;
    if (!model.ParseFromString(modelBytes("cnn.onnx")))
        qFatal("cnn.onnx does not parse");
    onnx::GraphProto& graph = *model.mutable_graph();
    onnx::TensorProto& big = *graph.add_initializer();
    big.set_name("big.weight");
    big.set_data_type(onnx::TensorProto::FLOAT);
    big.add_dims(10);
    big.add_dims(3277);
    big.set_raw_data(std::string(10 * 3277 * 4, '\x01'));
    const std::string output = graph.output(0).name();
    onnx::NodeProto& mm = *graph.add_node();
    mm.set_name("project");
    mm.set_op_type("MatMul");
    mm.add_input(output);
    mm.add_input("big.weight");
    mm.add_output("projected");
    graph.mutable_output(0)->set_name("projected");
    graph.mutable_output(0)->clear_type();
    return model;
}

// What importing gives, to compare two imports: the error's message, or the op count, the
// parameter bytes and the forward FLOPs.
std::string importOutcome(const std::function<ImportedGraph()>& import)
{
    try {
        const ImportedGraph g = import();
        return std::to_string(g.graph.opCount()) + " ops, " + std::to_string(g.graph.totalParamBytes()) + " B, "
            + std::to_string(g.forwardFlops) + " FLOPs";
    } catch (const InputError& e) {
        return "InputError: " + e.message();
    }
}

// A model of opset 17 built node by node, for the tests that need shapes from values.
struct ModelBuilder {
    onnx::ModelProto model;
    onnx::GraphProto& graph;

    explicit ModelBuilder(const std::string& name)
        : graph(*model.mutable_graph())
    {
        model.set_ir_version(8);
        model.add_opset_import()->set_version(17);
        graph.set_name(name);
    }
    void input(const std::string& name, int type, const Shape& dims)
    {
        auto* info = graph.add_input();
        info->set_name(name);
        auto* tt = info->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(type);
        for (std::int64_t d : dims)
            tt->mutable_shape()->add_dim()->set_dim_value(d);
    }
    void output(const std::string& name) { graph.add_output()->set_name(name); }
    onnx::NodeProto& node(const std::string& type, const std::vector<std::string>& in, const std::string& out)
    {
        return addNode(graph, type, in, out);
    }
    // A node named after its one output, in `g` (a body too).
    static onnx::NodeProto& addNode(onnx::GraphProto& g, const std::string& type, const std::vector<std::string>& in,
                                    const std::string& out)
    {
        onnx::NodeProto& n = *g.add_node();
        n.set_name(out);
        n.set_op_type(type);
        for (const std::string& i : in)
            n.add_input(i);
        n.add_output(out);
        return n;
    }
    void ints(const std::string& name, const Shape& dims, const std::vector<std::int64_t>& values)
    {
        onnx::TensorProto& t = addConstant(graph, name, onnx::TensorProto::INT64, dims);
        for (std::int64_t v : values)
            t.add_int64_data(v);
    }
    void floats(const std::string& name, const Shape& dims, const std::vector<float>& values)
    {
        onnx::TensorProto& t = addConstant(graph, name, onnx::TensorProto::FLOAT, dims);
        for (float v : values)
            t.add_float_data(v);
    }
    static void intAttr(onnx::NodeProto& n, const std::string& name, std::int64_t v)
    {
        onnx::AttributeProto& a = *n.add_attribute();
        a.set_name(name);
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(v);
    }
    std::string bytes() const { return model.SerializeAsString(); }
    // A Constant node named after its output, in `g`; its tensor is filled by the caller.
    static onnx::TensorProto& addConstant(onnx::GraphProto& g, const std::string& name, int type, const Shape& dims)
    {
        onnx::AttributeProto& a = *addNode(g, "Constant", {}, name).add_attribute();
        a.set_name("value");
        a.set_type(onnx::AttributeProto::TENSOR);
        onnx::TensorProto& t = *a.mutable_t();
        t.set_data_type(type);
        for (std::int64_t d : dims)
            t.add_dims(d);
        return t;
    }
};

const Op& graphOp(const Graph& g, const std::string& name)
{
    for (const Op& op : g.ops())
        if (op.name == name)
            return op;
    qFatal("no op %s", name.c_str());
}

} // namespace

class TestOnnxReader : public QObject {
    Q_OBJECT

private slots:
    void cnnOpsShapesAndAttributes()
    {
        const ShapedGraph g = readShaped("cnn.onnx");
        QCOMPARE(g.name, std::string("tiny_cnn"));
        QCOMPARE(g.source, std::string("cnn.onnx"));
        // The flatten's Shape -> Gather -> Unsqueeze -> Concat chain and its three Constant
        // nodes are folded away; the nine compute nodes stay, in file order.
        const std::vector<std::string> expected{"conv1", "bn1", "relu1",   "pool1", "conv2",
                                                "relu2", "gap", "flatten", "fc"};
        QCOMPARE(opNames(g), expected);
        QCOMPARE(opNamed(g, "conv2").location, std::string("node 4 'conv2' (Conv)"));
        QCOMPARE(opNamed(g, "fc").location, std::string("node 15 'fc' (Gemm)"));

        // Shapes by hand: 16x16 input, 3x3 pad-1 convs, a 2x2 pool, a stride-2 conv.
        QCOMPARE(tensorNamed(g, "x").shape, (Shape{1, 3, 16, 16}));
        QCOMPARE(tensorNamed(g, "c1").shape, (Shape{1, 8, 16, 16}));
        QCOMPARE(tensorNamed(g, "p1").shape, (Shape{1, 8, 8, 8}));
        QCOMPARE(tensorNamed(g, "c2").shape, (Shape{1, 16, 4, 4}));
        QCOMPARE(tensorNamed(g, "g").shape, (Shape{1, 16, 1, 1}));
        QCOMPARE(tensorNamed(g, "flat").shape, (Shape{1, 16}));
        QCOMPARE(tensorNamed(g, "y").shape, (Shape{1, 10}));

        // The folded reshape target is a constant input of the Reshape, not a parameter.
        const ShapedTensor& target = tensorNamed(g, "flat_shape");
        QVERIFY(target.isConstant);
        QVERIFY(!target.isParameter);
        QCOMPARE(target.shape, (Shape{2}));
        QCOMPARE(target.elementBytes, 8);
        const ShapedOp& flatten = opNamed(g, "flatten");
        QCOMPARE(flatten.inputs.size(), size_t(2));
        QCOMPARE(g.tensors[static_cast<size_t>(flatten.inputs[1])].name, std::string("flat_shape"));

        const ShapedOp& conv1 = opNamed(g, "conv1");
        QCOMPARE(conv1.intAttrs.at("kernel_shape"), (Shape{3, 3}));
        QCOMPARE(conv1.intAttrs.at("pads"), (Shape{1, 1, 1, 1}));
        QCOMPARE(conv1.intAttrs.at("strides"), (Shape{1, 1}));
        // conv2 has no kernel_shape in the file: taken from its 16x8x3x3 weight.
        QCOMPARE(opNamed(g, "conv2").intAttrs.at("kernel_shape"), (Shape{3, 3}));
        QCOMPARE(opNamed(g, "conv2").intAttrs.at("strides"), (Shape{2, 2}));
        QCOMPARE(opNamed(g, "pool1").intAttrs.at("kernel_shape"), (Shape{2, 2}));
        QCOMPARE(opNamed(g, "fc").intAttrs.at("transB"), (Shape{1}));
        QCOMPARE(opNamed(g, "fc").type, std::string("Gemm"));
    }

    void cnnParametersAreTheInitializers()
    {
        const ShapedGraph g = readShaped("cnn.onnx");
        QCOMPARE(parameterBytes(g), kCnnParamBytes);
        int parameters = 0;
        for (const ShapedTensor& t : g.tensors)
            parameters += t.isParameter ? 1 : 0;
        QCOMPARE(parameters, 9); // conv1.W/B, four bn1 tensors, conv2.W, fc.W/B
        QCOMPARE(tensorNamed(g, "conv1.W").shape, (Shape{8, 3, 3, 3}));
        QVERIFY(tensorNamed(g, "bn1.var").isParameter);
    }

    void weightsLeftOutOfTheFileAreItsInputs()
    {
        // torch.onnx.export(..., export_params=False) writes no initializer: each parameter
        // is a graph input with its shape. The same cnn.onnx made that way counts the same
        // parameters and builds the same training graph.
        onnx::ModelProto model;
        QVERIFY(model.ParseFromString(modelBytes("cnn.onnx")));
        onnx::GraphProto& graph = *model.mutable_graph();
        QCOMPARE(graph.initializer_size(), 9);
        weightsAsInputs(graph);
        const std::string bytes = model.SerializeAsString();
        const ShapedGraph g = readOnnxShapedGraph(bytes, "noweights.onnx", {});
        QCOMPARE(g.weightInputs, 9);
        QCOMPARE(parameterBytes(g), kCnnParamBytes);
        QVERIFY(tensorNamed(g, "conv1.W").isParameter);
        QVERIFY(!tensorNamed(g, "x").isParameter); // the first input is the data
        QCOMPARE(readShaped("cnn.onnx").weightInputs, 0);

        const ImportedGraph imported = parseGraphWithPlacement(bytes, "noweights.onnx", GraphFormat::Auto, {});
        const Graph original = parseOnnxGraph(modelBytes("cnn.onnx"), "cnn.onnx", {});
        QCOMPARE(imported.graph.opCount(), original.opCount());
        QCOMPARE(imported.graph.edgeCount(), original.edgeCount());
        QCOMPARE(imported.graph.totalParamBytes(), original.totalParamBytes());
        for (OpId op = 0; op < original.opCount(); ++op)
            QCOMPARE(imported.graph.op(op).paramBytes, original.op(op).paramBytes);
        // Two notes: the weights taken from inputs, and (batch norm in inference form) an inference export.
        QCOMPARE(imported.notes.size(), size_t(2));
        QVERIFY(QString::fromStdString(imported.notes[0]).contains("inference export"));
        QVERIFY(QString::fromStdString(imported.notes[1]).startsWith("9 graph input(s) taken as the model's weights"));

        // An input --input-shape names is data.
        ImportOptions shaped;
        shaped.inputShapes["fc.B"] = {10};
        const ShapedGraph named = readOnnxShapedGraph(bytes, "noweights.onnx", shaped);
        QCOMPARE(named.weightInputs, 8);
        QVERIFY(!tensorNamed(named, "fc.B").isParameter);
        // A file with any initializer keeps its inputs as data.
        onnx::ModelProto mixed = model;
        onnx::TensorProto* unused = mixed.mutable_graph()->add_initializer();
        unused->set_name("unused");
        unused->set_data_type(onnx::TensorProto::FLOAT);
        unused->add_dims(1);
        unused->add_float_data(0.0f);
        QCOMPARE(readOnnxShapedGraph(mixed.SerializeAsString(), "mixed.onnx", {}).weightInputs, 0);
    }

    // PyTorch's eval exports read weights through Identity nodes of the root's scope: each is
    // the weight itself, so the convolution reading it has it as its parameter and no op
    // sends it every step; the same where the weights are graph inputs (export_params=False).
    void identityOfAWeightIsTheWeight()
    {
        const Graph original = parseOnnxGraph(modelBytes("cnn.onnx"), "cnn.onnx", {});
        for (const bool asInputs : {false, true}) {
            onnx::ModelProto model;
            QVERIFY(model.ParseFromString(modelBytes("cnn.onnx")));
            onnx::GraphProto& graph = *model.mutable_graph();
            onnx::NodeProto identity;
            identity.set_name("Identity_0");
            identity.set_op_type("Identity");
            identity.add_input("conv1.W");
            identity.add_output("conv1.W.copy");
            for (onnx::NodeProto& node : *graph.mutable_node())
                for (std::string& input : *node.mutable_input())
                    if (input == "conv1.W")
                        input = "conv1.W.copy";
            *graph.mutable_node()->Add() = identity; // after its reader: files come in any order
            if (asInputs)
                weightsAsInputs(graph);
            const Graph g = parseOnnxGraph(model.SerializeAsString(), "identity.onnx", {});
            QVERIFY2(!g.find("Identity_0"), asInputs ? "weights as inputs" : "initializers");
            QCOMPARE(g.opCount(), original.opCount());
            QCOMPARE(g.edgeCount(), original.edgeCount());
            QCOMPARE(g.op(*g.find("conv1")).paramBytes, original.op(*original.find("conv1")).paramBytes);
            QCOMPARE(g.totalParamBytes(), original.totalParamBytes());
        }
    }

    void batchPinningScalesActivations()
    {
        const ShapedGraph one = readShaped("cnn.onnx", 1);
        const ShapedGraph eight = readShaped("cnn.onnx", 8);
        QCOMPARE(tensorNamed(eight, "c1").shape, (Shape{8, 8, 16, 16}));
        QCOMPARE(tensorNamed(eight, "flat").shape, (Shape{8, 16}));
        QCOMPARE(tensorNamed(eight, "y").shape, (Shape{8, 10}));
        // Every activation has the batch as its leading dim; parameters have none.
        QCOMPARE(activationBytes(eight), 8.0 * activationBytes(one));
        QCOMPARE(parameterBytes(eight), parameterBytes(one));

        const ShapedGraph t3 = readShaped("transformer.onnx", 3);
        QCOMPARE(tensorNamed(t3, "x").shape, (Shape{3, 8, 16}));
        QCOMPARE(tensorNamed(t3, "scores").shape, (Shape{3, 2, 8, 8}));
        QCOMPARE(activationBytes(t3), 3.0 * activationBytes(readShaped("transformer.onnx", 1)));
    }

    void transformerBlock()
    {
        const ShapedGraph g = readShaped("transformer.onnx", 4);
        QCOMPARE(g.ops.size(), size_t(29)); // 41 nodes, 12 folded (5 shape arithmetic, 7 Constant)
        for (const ShapedOp& op : g.ops)
            QVERIFY2(op.type != "Shape" && op.type != "Gather" && op.type != "Unsqueeze" && op.type != "Concat"
                         && op.type != "Constant",
                     op.name.c_str());
        // Head split and merge reshapes resolved through the folded Shape chain.
        QCOMPARE(tensorNamed(g, "q4").shape, (Shape{4, 8, 2, 8}));
        QCOMPARE(tensorNamed(g, "kh").shape, (Shape{4, 2, 8, 8}));
        QCOMPARE(tensorNamed(g, "probs").shape, (Shape{4, 2, 8, 8}));
        QCOMPARE(tensorNamed(g, "ctx3").shape, (Shape{4, 8, 16}));
        QCOMPARE(tensorNamed(g, "gelu").shape, (Shape{4, 8, 64}));
        QCOMPARE(tensorNamed(g, "y").shape, (Shape{4, 8, 16}));
        QCOMPARE(tensorNamed(g, "shape4").shape, (Shape{4}));
        QVERIFY(tensorNamed(g, "shape4").isConstant);
        // Constant nodes are weights like initializers (float scalars here, 4 bytes each). The
        // int64 initializer heads_shape fed only the folded Concat, so no op reads it any more;
        // what the folder computed (shape4) is a constant, never a parameter.
        QVERIFY(tensorNamed(g, "sqrt2").isParameter);
        QVERIFY(!tensorNamed(g, "sqrt2").isConstant);
        QCOMPARE(tensorNamed(g, "sqrt2").elementBytes, 4);
        QVERIFY(!findTensor(g, "heads_shape"));
        QVERIFY(!tensorNamed(g, "shape4").isParameter);
        QCOMPARE(parameterBytes(g), kTransformerParamBytes);
        QCOMPARE(opNamed(g, "softmax").intAttrs.at("axis"), (Shape{-1}));
        QCOMPARE(opNamed(g, "ln1").intAttrs.at("axis"), (Shape{-1}));
        QCOMPARE(opNamed(g, "k_heads_t").intAttrs.at("perm"), (Shape{0, 2, 3, 1}));
    }

    void customOpsAndUnnamedNodes()
    {
        const ShapedGraph g = readShaped("custom_op.onnx", 3);
        const std::vector<std::string> expected{"relu", "fancy", "relu2", "Relu_3"};
        QCOMPARE(opNames(g), expected);
        QCOMPARE(opNamed(g, "Relu_3").location, std::string("node 3 (Relu)"));
        QCOMPARE(opNamed(g, "fancy").type, std::string("FancyOp"));
        // No schema, so nothing is inferred after the custom op: rank unknown.
        QCOMPARE(tensorNamed(g, "r").shape, (Shape{3, 4}));
        QCOMPARE(tensorNamed(g, "f").shape, (Shape{-1}));
        QCOMPARE(tensorNamed(g, "z").shape, (Shape{3, 4}));

        CostReport report;
        const Graph training = parseOnnxGraph(modelBytes("custom_op.onnx"), "custom_op.onnx", {}, &report);
        // Forward and backward ops, and the step's update and input-copy ops (issue 27).
        QCOMPARE(training.opCount(), 8 + report.optimizerOps + report.inputCopies);
        QCOMPARE(report.inputCopies, 1);
        QCOMPARE(report.unknownTypes.size(), size_t(1));
        QCOMPARE(report.unknownTypes[0].first, std::string("FancyOp"));
        QCOMPARE(report.unknownTypes[0].second, 1);
    }

    void trainingGraphCounts()
    {
        CostReport report;
        const Graph cnn = parseOnnxGraph(modelBytes("cnn.onnx"), "cnn.onnx", {}, &report);
        // A backward op per forward op, an SGD update per parameter owner, the input's copy.
        int owners = 0;
        for (const Op& op : cnn.ops())
            owners += op.paramBytes > 0.0 ? 1 : 0;
        QCOMPARE(report.optimizerOps, owners);
        QCOMPARE(report.inputCopies, 1);
        QCOMPARE(cnn.opCount(), 2 * 9 + owners + 1);
        QCOMPARE(report.opCount, 2 * 9 + owners + 1);
        QCOMPARE(cnn.totalParamBytes(), kCnnParamBytes);
        QCOMPARE(report.parameterBytes, kCnnParamBytes);
        QVERIFY(report.unknownTypes.empty());
        QVERIFY(cnn.find("conv1").has_value());
        QVERIFY(cnn.find("conv1/grad").has_value());

        const Graph transformer = readGraphFile(modelPath("transformer.onnx"));
        int added = 0; // the step's SGD updates and input copies (issue 27)
        for (const Op& op : transformer.ops())
            added += op.type == "ApplyMomentum" || op.type == "MemcpyHtoD" ? 1 : 0;
        QVERIFY(added > 0);
        QCOMPARE(transformer.opCount(), 2 * 29 + added);
        QCOMPARE(transformer.totalParamBytes(), kTransformerParamBytes);
    }

    void convFlopsReachTheOpTimes()
    {
        // conv1: output 8x16x16 per sample, each a 3x3x3 dot product (2 FLOPs per
        // multiply-add) plus the bias add.
        const double perSample = 2.0 * (8 * 16 * 16) * (3 * 3 * 3) + 8 * 16 * 16;
        for (std::int64_t batch : {1, 8}) {
            ImportOptions options;
            options.batch = batch;
            const ShapedGraph shaped = readOnnxShapedGraph(modelBytes("cnn.onnx"), "cnn.onnx", options);
            const OpCost cost = estimateOpCost(shaped, opNamed(shaped, "conv1"));
            QCOMPARE(cost.flops, perSample * static_cast<double>(batch));
            QVERIFY(cost.known);

            const Graph g = buildTrainingGraph(shaped);
            const Op& conv1 = g.op(*g.find("conv1"));
            const DeviceSpec gpu = CostModelOptions::defaultReferenceDevices()[static_cast<int>(DeviceKind::Gpu)];
            QCOMPARE(conv1.time(DeviceKind::Gpu), rooflineTimeUs(cost, gpu));
            // The compute side of the roofline alone bounds the time from below.
            QVERIFY(conv1.time(DeviceKind::Gpu) >= perSample * batch / (gpu.peakFlops * gpu.computeEfficiency) * 1e6);
        }
    }

    void edgeBytesFollowTheBatch()
    {
        ImportOptions eight;
        eight.batch = 8;
        const Graph g1 = readGraphFile(modelPath("cnn.onnx"));
        const Graph g8 = readGraphFile(modelPath("cnn.onnx"), GraphFormat::Auto, eight);
        auto edgeBytes = [](const Graph& g, const std::string& from, const std::string& to) {
            const OpId a = *g.find(from);
            const OpId b = *g.find(to);
            for (EdgeId e : g.outEdges(a))
                if (g.edge(e).to == b)
                    return g.edge(e).bytes;
            qFatal("no edge %s -> %s", from.c_str(), to.c_str());
        };
        // conv1's output: 8 channels of 16x16 float32 per sample.
        QCOMPARE(edgeBytes(g1, "conv1", "bn1"), 8.0 * 16 * 16 * 4);
        QCOMPARE(edgeBytes(g8, "conv1", "bn1"), 8.0 * 8 * 16 * 16 * 4);
        QCOMPARE(g8.totalParamBytes(), g1.totalParamBytes());
    }

    // IR 10 / opset 21 (Debian's libonnx 1.12 knows IR 8 / opset 17): each op of a changed
    // form is read as its opset-17 equivalent, Gelu (new in 20) by the project's own rule.
    void modernOpsetsReadAsOpset17Forms()
    {
        const ShapedGraph g = readShaped("modern_opset21.onnx", 2);
        QCOMPARE(tensorNamed(g, "c").shape, (Shape{2, 8, 8, 8}));
        QCOMPARE(tensorNamed(g, "m").shape, (Shape{2, 8, 1, 1}));    // ReduceMean axes input [2, 3]
        QCOMPARE(tensorNamed(g, "s1").shape, (Shape{2, 4, 8, 8}));   // Split num_outputs=2
        QCOMPARE(tensorNamed(g, "up").shape, (Shape{2, 4, 16, 16})); // Resize antialias, scales 2
        QCOMPARE(tensorNamed(g, "padded").shape, (Shape{2, 4, 18, 18}));
        QCOMPARE(tensorNamed(g, "g").shape, (Shape{2, 4, 18, 18})); // Gelu: own shape rule
        QCOMPARE(tensorNamed(g, "g16").shape, (Shape{2, 4, 18, 18}));
        QCOMPARE(tensorNamed(g, "g16").elementBytes, 2);      // Cast to float16 (saturate dropped)
        QCOMPARE(tensorNamed(g, "all_max").shape, (Shape{})); // ReduceMax without axes: all
        QCOMPARE(opNamed(g, "resize").stringAttrs.at("mode"), std::string("linear"));
        CostReport report;
        (void)parseOnnxGraph(modelBytes("modern_opset21.onnx"), "modern_opset21.onnx", {}, &report);
        QVERIFY(report.unknownTypes.empty());
        QVERIFY(report.unshapedTensors.empty());
        // Resize linear over 2 spatial axes: 4 taps, 2 FLOPs each, per output element.
        QCOMPARE(estimateOpCost(g, opNamed(g, "resize")).flops, 8.0 * 2 * 4 * 16 * 16);
    }

    // A shape computed through a Split of constants (torchvision's MViT builds its positional
    // encoding's with Expand, Split and Concat; RAFT likewise): the Split folds, output by
    // output, and the Expand reading the result gets its shape. Before, the Split stayed a
    // node, and once folded the Expand still got none: the value_info entry the first shape
    // inference made for the folded tensor hid the initializer's values from ONNX's
    // inference (the folder now drops it).
    void splitOfConstantsFoldsIntoShapes()
    {
        onnx::ModelProto model;
        model.set_ir_version(8);
        model.add_opset_import()->set_version(17);
        onnx::GraphProto& graph = *model.mutable_graph();
        graph.set_name("split_shape");
        auto addValue = [](auto* info, const std::string& name, int type, const Shape& dims) {
            info->set_name(name);
            auto* tt = info->mutable_type()->mutable_tensor_type();
            tt->set_elem_type(type);
            for (std::int64_t d : dims)
                tt->mutable_shape()->add_dim()->set_dim_value(d);
        };
        addValue(graph.add_input(), "x", onnx::TensorProto::FLOAT, {1, 1, 96});
        addValue(graph.add_output(), "z", onnx::TensorProto::FLOAT, {});
        auto constant = [&](const std::string& name, const Shape& dims, const std::vector<std::int64_t>& values) {
            onnx::NodeProto& node = *graph.add_node();
            node.set_name(name);
            node.set_op_type("Constant");
            node.add_output(name);
            onnx::AttributeProto& value = *node.add_attribute();
            value.set_name("value");
            value.set_type(onnx::AttributeProto::TENSOR);
            onnx::TensorProto& t = *value.mutable_t();
            t.set_data_type(onnx::TensorProto::INT64);
            for (std::int64_t d : dims)
                t.add_dims(d);
            for (std::int64_t v : values)
                t.add_int64_data(v);
        };
        auto node = [&](const std::string& type, const std::vector<std::string>& in,
                        const std::vector<std::string>& out, std::int64_t axis = -100) {
            onnx::NodeProto& n = *graph.add_node();
            n.set_name(out[0]);
            n.set_op_type(type);
            for (const std::string& i : in)
                n.add_input(i);
            for (const std::string& o : out)
                n.add_output(o);
            if (axis != -100) {
                onnx::AttributeProto& a = *n.add_attribute();
                a.set_name("axis");
                a.set_type(onnx::AttributeProto::INT);
                a.set_i(axis);
            }
        };
        constant("k", {2, 3}, {4, 3, 96, 8, 6, 192});
        node("Split", {"k"}, {"row0", "row1"}, 0); // equal parts: [[4, 3, 96]] and [[8, 6, 192]]
        constant("sizes", {2}, {2, 1});
        node("Split", {"row0", "sizes"}, {"front", "back"}, 1); // along axis 1: [[4, 3]] and [[96]]
        node("Concat", {"front", "back"}, {"joined"}, 1);
        constant("flat", {1}, {3});
        node("Reshape", {"joined", "flat"}, {"shape"});
        node("Expand", {"x", "shape"}, {"y"});
        node("Relu", {"y"}, {"z"});
        CostReport report;
        const ShapedGraph g = readOnnxShapedGraph(model.SerializeAsString(), "split_shape.onnx", {});
        QCOMPARE(opNames(g), (std::vector<std::string>{"y", "z"})); // the shape arithmetic folded away
        QCOMPARE(tensorNamed(g, "y").shape, (Shape{4, 3, 96}));
        QCOMPARE(tensorNamed(g, "z").shape, (Shape{4, 3, 96}));
        (void)parseOnnxGraph(model.SerializeAsString(), "split_shape.onnx", {}, &report);
        QVERIFY(report.unshapedTensors.empty());
    }

    // torch 1.13 exports torch.tensor_split as a Loop of known trip count filling a sequence
    // that SequenceAt reads, and a squeeze of a dimension that may be 1 as an If whose
    // branches' shapes differ (torchvision's MViT): no shape gets through either. The Loop is
    // unrolled, the sequence resolved and the If replaced by the branch its known condition
    // takes, so every tensor gets its shape.
    void sizesThatDependOnTheDataAreGivenOrRefused()
    {
        const std::string bytes = modelBytes("data_sizes.onnx");
        // None given: both ops are listed with the most they can give, the shapes after them
        // stay unknown, and the refusal names each op and the options.
        const ImportedGraph open = importOnnxGraph(bytes, "data_sizes.onnx", {});
        QCOMPARE(open.dataDependentSizes.size(), std::size_t{2});
        const DataDependentSize& pick = open.dataDependentSizes[0];
        QCOMPARE(pick.node, std::string("pick"));
        QCOMPARE(pick.location, std::string("node 2 'pick' (NonZero)"));
        QCOMPARE(pick.largest, std::int64_t{16});
        QCOMPARE(pick.value, std::int64_t{-1});
        QCOMPARE(open.dataDependentSizes[1].node, std::string("keep"));
        QCOMPARE(open.dataDependentSizes[1].largest, std::int64_t{5}); // 1 batch x 1 class x min(10, 5)
        QVERIFY(!open.unshapedTensors.empty());
        const std::string problem = unshapedTensorsProblem(open);
        QVERIFY2(problem.find("--count pick=N") != std::string::npos, problem.c_str());
        QVERIFY2(problem.find("--count keep=N") != std::string::npos, problem.c_str());
        QVERIFY2(problem.find("--count-max") != std::string::npos, problem.c_str());

        // Given: the shapes and costs after the op follow the size.
        ImportOptions given;
        given.counts = {{"pick", 5}, {"keep", 3}};
        const ImportedGraph five = importOnnxGraph(bytes, "data_sizes.onnx", given);
        QVERIFY2(five.unshapedTensors.empty(), five.unshapedTensors.empty() ? "" : five.unshapedTensors[0].c_str());
        QCOMPARE(graphOp(five.graph, "project").flops, 2.0 * 5 * 64 * 32);
        QCOMPARE(five.dataDependentSizes[0].value, std::int64_t{5});
        QVERIFY(std::any_of(five.notes.begin(), five.notes.end(), [](const std::string& n) {
            return n.find("as given (--count): 'pick' 5") != std::string::npos;
        }));

        // At their most: a worst case, and said so.
        ImportOptions most;
        most.countsAtMost = true;
        const ImportedGraph worst = importOnnxGraph(bytes, "data_sizes.onnx", most);
        QVERIFY(worst.unshapedTensors.empty());
        QCOMPARE(graphOp(worst.graph, "project").flops, 2.0 * 16 * 64 * 32);
        QVERIFY(worst.dataDependentSizes[0].atMost);
        QVERIFY(std::any_of(worst.notes.begin(), worst.notes.end(),
                            [](const std::string& n) { return n.find("worst case") != std::string::npos; }));
        // One given, the other at its most.
        ImportOptions mixed = most;
        mixed.counts = {{"pick", 2}};
        const ImportedGraph two = importOnnxGraph(bytes, "data_sizes.onnx", mixed);
        QCOMPARE(graphOp(two.graph, "project").flops, 2.0 * 2 * 64 * 32);
        QCOMPARE(two.dataDependentSizes[1].value, std::int64_t{5});

        // More than the op can give, or an op that is not one of them: refused, naming it.
        ImportOptions tooMany;
        tooMany.counts = {{"pick", 17}};
        expectInputError([&] { (void)importOnnxGraph(bytes, "data_sizes.onnx", tooMany); }, "data_sizes.onnx",
                         "option count",
                         "node 2 'pick' (NonZero) gives the nonzero elements of a [16] tensor, at most 16, not 17");
        ImportOptions stranger;
        stranger.counts = {{"rows", 4}};
        expectInputError([&] { (void)importOnnxGraph(bytes, "data_sizes.onnx", stranger); }, "data_sizes.onnx",
                         "option count",
                         "no op whose size depends on the data is named 'rows' (those the import reached: 'pick', "
                         "'keep')");
    }

    void floatSizesFoldThroughDataMovement()
    {
        // torchvision's detection transform: scale = min(20 / min(h, w), 40 / max(h, w)) in
        // float, the new size [floor(h * scale), floor(w * scale)] through Unsqueeze and
        // Concat of floats, then Cast, Concat with [N, C] and Resize.
        ModelBuilder m("resize_by_scale");
        m.input("x", onnx::TensorProto::FLOAT, {1, 3, 10, 16});
        m.node("Shape", {"x"}, "shape");
        m.ints("hw_at", {2}, {2, 3});
        m.intAttr(m.node("Gather", {"shape", "hw_at"}, "hw"), "axis", 0);
        m.intAttr(m.node("Cast", {"hw"}, "hw_f"), "to", onnx::TensorProto::FLOAT);
        m.intAttr(m.node("ReduceMin", {"hw_f"}, "small"), "keepdims", 0);
        m.intAttr(m.node("ReduceMax", {"hw_f"}, "large"), "keepdims", 0);
        m.node("Reciprocal", {"small"}, "inv_small");
        m.node("Reciprocal", {"large"}, "inv_large");
        m.floats("twenty", {}, {20.0f});
        m.floats("forty", {}, {40.0f});
        m.node("Mul", {"inv_small", "twenty"}, "by_small");
        m.node("Mul", {"inv_large", "forty"}, "by_large");
        m.node("Min", {"by_small", "by_large"}, "scale"); // min(2, 2.5) = 2
        m.ints("one_at", {1}, {0});
        m.ints("h_at", {}, {0});
        m.ints("w_at", {}, {1});
        m.intAttr(m.node("Gather", {"hw_f", "h_at"}, "h"), "axis", 0);
        m.intAttr(m.node("Gather", {"hw_f", "w_at"}, "w"), "axis", 0);
        m.node("Mul", {"h", "scale"}, "h2");
        m.node("Mul", {"w", "scale"}, "w2");
        m.node("Floor", {"h2"}, "h3");
        m.node("Floor", {"w2"}, "w3");
        m.node("Unsqueeze", {"h3", "one_at"}, "h4");
        m.node("Unsqueeze", {"w3", "one_at"}, "w4");
        m.intAttr(m.node("Concat", {"h4", "w4"}, "hw_new"), "axis", 0);
        m.intAttr(m.node("Cast", {"hw_new"}, "hw_int"), "to", onnx::TensorProto::INT64);
        m.ints("nc", {2}, {1, 3});
        m.intAttr(m.node("Concat", {"nc", "hw_int"}, "sizes"), "axis", 0);
        m.node("Resize", {"x", "", "", "sizes"}, "y");
        m.output("y");
        const ShapedGraph g = readOnnxShapedGraph(m.bytes(), "resize.onnx", {});
        QCOMPARE(opNames(g), (std::vector<std::string>{"y"}));
        QCOMPARE(tensorNamed(g, "y").shape, (Shape{1, 3, 20, 32}));
    }

    void loopsFillingSequencesUnroll()
    {
        onnx::ModelProto model;
        model.set_ir_version(8);
        model.add_opset_import()->set_version(17);
        onnx::GraphProto& graph = *model.mutable_graph();
        graph.set_name("tensor_split");
        auto tensorType = [](onnx::TypeProto* type, int elem, const Shape& dims) {
            auto* tt = type->mutable_tensor_type();
            tt->set_elem_type(elem);
            for (std::int64_t d : dims)
                tt->mutable_shape()->add_dim()->set_dim_value(d);
        };
        auto value = [&](auto* info, const std::string& name, int elem, const Shape& dims) {
            info->set_name(name);
            tensorType(info->mutable_type(), elem, dims);
        };
        auto sequence = [](auto* info, const std::string& name) {
            info->set_name(name);
            info->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
                onnx::TensorProto::FLOAT);
        };
        const auto node = &ModelBuilder::addNode;
        auto constant = [&](onnx::GraphProto& g, const std::string& name, int type, const Shape& dims,
                            const std::vector<std::int64_t>& values) {
            onnx::TensorProto& t = ModelBuilder::addConstant(g, name, type, dims);
            for (std::int64_t v : values)
                type == onnx::TensorProto::BOOL ? t.add_int32_data(static_cast<int>(v)) : t.add_int64_data(v);
        };
        const auto intAttr = &ModelBuilder::intAttr;
        value(graph.add_input(), "x", onnx::TensorProto::FLOAT, {2, 5, 4});
        constant(graph, "points", onnx::TensorProto::INT64, {3}, {0, 1, 5});
        constant(graph, "trips", onnx::TensorProto::INT64, {}, {2});
        constant(graph, "go", onnx::TensorProto::BOOL, {}, {1});
        intAttr(node(graph, "SequenceEmpty", {}, "empty"), "dtype", onnx::TensorProto::FLOAT);
        // The body: x[:, points[i]:points[i + 1]] appended to the sequence.
        onnx::NodeProto& loop = node(graph, "Loop", {"trips", "go", "empty"}, "parts");
        onnx::AttributeProto& bodyAttr = *loop.add_attribute();
        bodyAttr.set_name("body");
        bodyAttr.set_type(onnx::AttributeProto::GRAPH);
        onnx::GraphProto& body = *bodyAttr.mutable_g();
        body.set_name("body");
        value(body.add_input(), "i", onnx::TensorProto::INT64, {1});
        value(body.add_input(), "cond_in", onnx::TensorProto::BOOL, {});
        sequence(body.add_input(), "seq_in");
        intAttr(node(body, "Gather", {"points", "i"}, "start"), "axis", 0);
        constant(body, "one", onnx::TensorProto::INT64, {1}, {1});
        node(body, "Add", {"i", "one"}, "i1");
        intAttr(node(body, "Gather", {"points", "i1"}, "end"), "axis", 0);
        constant(body, "axis1", onnx::TensorProto::INT64, {1}, {1});
        node(body, "Slice", {"x", "start", "end", "axis1"}, "slice");
        node(body, "SequenceInsert", {"seq_in", "slice"}, "seq_out");
        intAttr(node(body, "ReduceSum", {"slice"}, "total"), "keepdims", 0); // a scan output: one per iteration
        node(body, "Identity", {"go"}, "cond_out");                          // as torch writes it: the outer condition
        value(body.add_output(), "cond_out", onnx::TensorProto::BOOL, {});
        sequence(body.add_output(), "seq_out");
        value(body.add_output(), "total", onnx::TensorProto::FLOAT, {});
        loop.add_output("totals");
        constant(graph, "zero", onnx::TensorProto::INT64, {}, {0});
        constant(graph, "first", onnx::TensorProto::INT64, {}, {1});
        node(graph, "SequenceAt", {"parts", "zero"}, "a");  // [2, 1, 4]
        node(graph, "SequenceAt", {"parts", "first"}, "b"); // [2, 4, 4]
        // Squeeze a's axis 1 where it is 1: an If whose branches' shapes differ.
        constant(graph, "is_one", onnx::TensorProto::BOOL, {}, {1});
        onnx::NodeProto& squeeze = node(graph, "If", {"is_one"}, "c");
        for (const bool then : {true, false}) {
            onnx::AttributeProto& branch = *squeeze.add_attribute();
            branch.set_name(then ? "then_branch" : "else_branch");
            branch.set_type(onnx::AttributeProto::GRAPH);
            onnx::GraphProto& g = *branch.mutable_g();
            g.set_name(branch.name());
            if (then) {
                constant(g, "squeeze_axes", onnx::TensorProto::INT64, {1}, {1});
                node(g, "Squeeze", {"a", "squeeze_axes"}, "squeezed");
            } else {
                node(g, "Identity", {"a"}, "unsqueezed");
            }
            value(g.add_output(), then ? "squeezed" : "unsqueezed", onnx::TensorProto::FLOAT, {});
        }
        node(graph, "Relu", {"b"}, "rb");
        node(graph, "Relu", {"c"}, "rc");
        node(graph, "Relu", {"totals"}, "rt");
        value(graph.add_output(), "rb", onnx::TensorProto::FLOAT, {});
        value(graph.add_output(), "rc", onnx::TensorProto::FLOAT, {});
        value(graph.add_output(), "rt", onnx::TensorProto::FLOAT, {});

        CostReport report;
        (void)parseOnnxGraph(model.SerializeAsString(), "tensor_split.onnx", {}, &report);
        QCOMPARE(report.unshapedTensors, std::vector<std::string>{});
        const ShapedGraph g = readOnnxShapedGraph(model.SerializeAsString(), "tensor_split.onnx", {});
        QCOMPARE(tensorNamed(g, "rb").shape, (Shape{2, 4, 4}));
        QCOMPARE(tensorNamed(g, "rc").shape, (Shape{2, 4}));
        QCOMPARE(tensorNamed(g, "rt").shape, (Shape{2})); // the scan output: the iterations' sums stacked
        QCOMPARE(tensorNamed(g, "slice/unrolled0").shape, (Shape{2, 1, 4}));
        for (const ShapedOp& op : g.ops)
            QVERIFY2(op.type != "Loop" && op.type != "If" && op.type.rfind("Sequence", 0) != 0, op.name.c_str());
        // Each slice an op of its own, as eager PyTorch runs them.
        QCOMPARE(opNamed(g, "parts/unrolled1/slice").type, std::string("Slice")); // the Loop's name first
    }

    // An op nobody has a shape rule for leaves its outputs unknown and named, never fails.
    void opsWithoutAnyShapeRuleStayUnknown()
    {
        CostReport report;
        const Graph training = parseOnnxGraph(modelBytes("unknown_new_op.onnx"), "unknown_new_op.onnx", {}, &report);
        QCOMPARE(training.opCount(), 4 + report.optimizerOps + report.inputCopies); // and the update and copy ops
        QCOMPARE(report.unshapedTensors, (std::vector<std::string>{"cropped", "y"}));
        QCOMPARE(report.unknownTypes.size(), size_t(1));
        QCOMPARE(report.unknownTypes[0].first, std::string("CenterCropPad"));
    }

    void nodesInAnyOrderAndCycles()
    {
        const ShapedGraph g = readShaped("unsorted.onnx");
        QCOMPARE(opNames(g), (std::vector<std::string>{"first", "middle", "last"}));
        QCOMPARE(opNamed(g, "first").location, std::string("node 2 'first' (MatMul)")); // its place in the file
        QCOMPARE(tensorNamed(g, "y").shape, (Shape{2, 4}));
        expectInputError([] { (void)readShaped("cycle.onnx"); }, "cycle.onnx", "node 1 'middle' (Add)",
                         "the nodes form a cycle: 'middle' -> 'last' -> 'middle'");
    }

    void everySymbolicDimensionCanBeGiven()
    {
        // Only the batch has a value: height and width are listed, never taken as 1 silently.
        const ShapedGraph open = readShaped("symbolic_dims.onnx", 2);
        QCOMPARE(open.unresolved.size(), size_t(2));
        QCOMPARE(open.unresolved[0].tensor, std::string("images"));
        QCOMPARE(open.unresolved[0].axis, 2);
        QCOMPARE(open.unresolved[0].symbol, std::string("height"));
        QCOMPARE(open.unresolved[1].symbol, std::string("width"));
        QCOMPARE(open.unresolved[1].rank, 4);
        // The known dimensions come along (the batch given, the channels), for a whole shape.
        QCOMPARE(open.unresolved[0].shape, (std::vector<std::int64_t>{2, 3, -1, -1}));
        QCOMPARE(tensorNamed(open, "y").shape, (Shape{2, 4, -1, -1}));

        ImportOptions named;
        named.dims = {{"height", 960}, {"width", 640}};
        const ShapedGraph byName = readOnnxShapedGraph(modelBytes("symbolic_dims.onnx"), "s.onnx", named);
        QVERIFY(byName.unresolved.empty());
        QCOMPARE(tensorNamed(byName, "y").shape, (Shape{1, 4, 960, 640}));
        QCOMPARE(estimateOpCost(byName, opNamed(byName, "conv")).flops, 2.0 * 4 * 3 * 9 * 960 * 640);

        ImportOptions whole;
        whole.inputShapes = {{"images", {3, 3, 64, 32}}};
        const ShapedGraph byInput = readOnnxShapedGraph(modelBytes("symbolic_dims.onnx"), "s.onnx", whole);
        QVERIFY(byInput.unresolved.empty());
        QCOMPARE(tensorNamed(byInput, "y").shape, (Shape{3, 4, 64, 32})); // the output's dim_params follow

        ImportOptions typo;
        typo.dims = {{"heigth", 960}};
        expectInputError([&] { (void)readOnnxShapedGraph(modelBytes("symbolic_dims.onnx"), "s.onnx", typo); }, "s.onnx",
                         "option dim", "no symbolic dimension 'heigth' in the model");
        ImportOptions rank;
        rank.inputShapes = {{"images", {1, 3, 64}}};
        expectInputError([&] { (void)readOnnxShapedGraph(modelBytes("symbolic_dims.onnx"), "s.onnx", rank); }, "s.onnx",
                         "option input-shape", "input 'images' has rank 4, got 3 dimensions");
        ImportOptions ghost;
        ghost.inputShapes = {{"pixels", {1, 3, 64, 64}}};
        expectInputError([&] { (void)readOnnxShapedGraph(modelBytes("symbolic_dims.onnx"), "s.onnx", ghost); },
                         "s.onnx", "option input-shape", "no graph input 'pixels' (inputs: 'images')");
        // Through the generic reader the list reaches the imported graph.
        const ImportedGraph imported = readGraphFileWithPlacement(modelPath("symbolic_dims.onnx"));
        QCOMPARE(imported.unresolvedDims.size(), size_t(2));
    }

    // int8 weights count at 1 byte, a Constant-node weight like an initializer, and the
    // integer ops cost what their float forms do.
    void quantizedOpsAndWeightsOfEveryType()
    {
        const ShapedGraph g = readShaped("quantized.onnx");
        QCOMPARE(tensorNamed(g, "wq").elementBytes, 1);
        QVERIFY(tensorNamed(g, "wq").isParameter);
        QVERIFY(tensorNamed(g, "fcw").isParameter); // a Constant node
        QCOMPARE(tensorBytes(tensorNamed(g, "fcw")), 144.0 * 10 * 4);
        QCOMPARE(tensorNamed(g, "yq").shape, (Shape{1, 8, 6, 6}));
        auto flops = [&g](const char* op) { return estimateOpCost(g, opNamed(g, op)).flops; };
        QCOMPARE(flops("qconv"), 2.0 * 8 * 4 * 9 * 36);
        QCOMPARE(flops("conv_int"), 2.0 * 16 * 8 * 36);
        QCOMPARE(flops("matmul_int"), 2.0 * 2 * 144 * 12);
        QCOMPARE(flops("qmatmul"), 2.0 * 2 * 144 * 12);
        QCOMPARE(flops("quant"), 3.0 * 4 * 36);
        QCOMPARE(flops("dequant"), 2.0 * 8 * 36);
        QCOMPARE(flops("dyn_quant"), 5.0 * 288);
        CostReport report;
        (void)parseOnnxGraph(modelBytes("quantized.onnx"), "quantized.onnx", {}, &report);
        QVERIFY(report.unknownTypes.empty());
        // Every initializer an op reads, at its own element size: wq 288 + wq2 128 int8, mq and
        // mq8 2 x 1728 uint8, fcw 5760 float, and the scales (4 x 4 bytes), zero points
        // (5 x 1 byte) and the int64 flatten shape (16 bytes).
        QCOMPARE(report.parameterBytes, 288.0 + 128 + 2 * 1728 + 5760 + 4 * 4 + 5 * 1 + 16);
    }

    void controlFlowIsCostedFromItsBodies()
    {
        const ShapedGraph g = readShaped("control_flow.onnx");
        auto cost = [&g](const char* op) { return estimateOpCost(g, opNamed(g, op)).flops; };
        const double matmul = 2.0 * 4 * 64 * 64;
        QCOMPARE(cost("if_input"), matmul); // the larger branch
        QVERIFY(opNamed(g, "if_input").bodySummary.find("costed as then_branch (the larger)") != std::string::npos);
        QCOMPARE(cost("if_false"), 4.0 * 64); // the Relu a constant false takes
        QVERIFY(opNamed(g, "if_false").bodySummary.find("constant condition") != std::string::npos);
        QCOMPARE(cost("loop"), 5 * matmul);
        QCOMPARE(cost("scan"), 7 * (matmul + 4.0 * 64));
        QCOMPARE(opNamed(g, "scan").bodySummary, std::string("body: 2 ops, x 7 iterations"));
        // The weight the bodies read is a parameter of the ops, counted once.
        CostReport report;
        (void)parseOnnxGraph(modelBytes("control_flow.onnx"), "control_flow.onnx", {}, &report);
        QCOMPARE(report.parameterBytes, 64.0 * 64 * 4 + 1 + 8); // w, the false and the trip count
        QCOMPARE(report.forwardOpCount, 4);                     // shown as one op each
        // The training step keeps how each was counted, for the inspector (and post-graph/1).
        const Graph step = parseOnnxGraph(modelBytes("control_flow.onnx"), "control_flow.onnx");
        const auto stepOp = [&step](const std::string& name) -> const Op& {
            for (OpId i = 0; i < step.opCount(); ++i)
                if (step.op(i).name == name)
                    return step.op(i);
            throw std::runtime_error("no op " + name);
        };
        QCOMPARE(stepOp("scan").body, std::string("body: 2 ops, x 7 iterations"));
        QVERIFY(stepOp("if_input").body.find("costed as then_branch") != std::string::npos);
        QCOMPARE(stepOp("scan/grad").body, std::string("gradient of body: 2 ops, x 7 iterations"));
    }

    void sniffingAndBinaryFiles()
    {
        const std::string bytes = modelBytes("cnn.onnx");
        QVERIFY(bytes.find('\0') != std::string::npos); // really binary
        QVERIFY(sniffGraphFormat(bytes, "model.onnx") == GraphFormat::Onnx);
        // Without the extension the content decides.
        QVERIFY(sniffGraphFormat(bytes, "model.bin") == GraphFormat::Onnx);
        QVERIFY(sniffGraphFormat(bytes.substr(0, 40), "cut.onnx") == GraphFormat::Onnx);
        QVERIFY(parseGraphFormat("onnx") == GraphFormat::Onnx);
        QCOMPARE(std::string(toString(GraphFormat::Onnx)), std::string("onnx"));

        // readGraphFile reads the bytes whole, whatever the name.
        QTemporaryDir dir;
        const QString copy = dir.filePath("model-without-extension");
        QVERIFY(QFile::copy(QString::fromStdString(modelPath("cnn.onnx")), copy));
        const Graph g = readGraphFile(copy.toStdString());
        QCOMPARE(g.opCount(), 23); // trainingGraphCounts: 18, 4 updates, the input's copy
        QCOMPARE(g.name(), std::string("tiny_cnn"));
    }

    void truncatedFilesNameTheFile()
    {
        const std::string bytes = modelBytes("cnn.onnx");
        // Every proper prefix: the protobuf does not parse, or the graph or the opset
        // (serialized after the graph) is missing.
        for (size_t n = 1; n < bytes.size(); n += (n < 64 ? 1 : 7)) {
            const std::string cut = bytes.substr(0, n);
            try {
                (void)parseGraph(cut, "cut.onnx");
                QFAIL(qPrintable(QString("prefix of %1 bytes accepted").arg(n)));
            } catch (const InputError& e) {
                QCOMPARE(QString::fromStdString(e.file()), QString("cut.onnx"));
            }
        }
        expectInputError([&] { (void)parseGraph(bytes.substr(0, bytes.size() / 2), "half.onnx"); }, "half.onnx", "",
                         "does not parse");
    }

    void malformedModels()
    {
        expectInputError([] { (void)readShaped("bad_opset.onnx"); }, "bad_opset.onnx", "opset_import",
                         "unsupported ONNX opset 99");
        expectInputError([] { (void)readShaped("no_graph.onnx"); }, "no_graph.onnx", "", "no graph");
        expectInputError([] { (void)readShaped("bad_shapes.onnx"); }, "bad_shapes.onnx", "node 1 'mm' (MatMul)",
                         "shape inference failed");
        expectInputError([] { (void)readShaped("undefined_input.onnx"); }, "undefined_input.onnx", "node 0 'add' (Add)",
                         "'ghost'");
        // Data that does not fit its type and dims, refused before libonnx reads it, even
        // where a custom-domain op makes shape-inference errors non-fatal.
        expectInputError([] { (void)readShaped("short_raw_data.onnx"); }, "short_raw_data.onnx",
                         "node 3 'delta' (Constant), attribute value (tensor 'delta_v')",
                         "holds 1 byte of raw data, but type int64 and dims [] need 8");
        expectInputError([] { (void)readShaped("short_weight.onnx"); }, "short_weight.onnx", "initializer 'w'",
                         "holds 5 values in float_data, but type float and dims [2, 3] need 6");
        // Through the generic entry point too, with the path as the file name.
        const std::string path = modelPath("bad_shapes.onnx");
        expectInputError([&] { (void)readGraphFile(path); }, path, "node 1 'mm' (MatMul)", "Incompatible dimensions");

        const std::string text = "this is a text file, not a protobuf";
        expectInputError([&] { (void)parseGraph(text, "text.onnx", GraphFormat::Onnx); }, "text.onnx", "", "");
        ImportOptions zero;
        zero.batch = 0;
        expectInputError([&] { (void)parseGraph(modelBytes("cnn.onnx"), "cnn.onnx", GraphFormat::Onnx, zero); },
                         "cnn.onnx", "option batch", ">= 1");
    }

    // A model file's large float weights are never read (onnxWithoutWeightBytes): the graph,
    // its shapes and its parameter bytes are those of the whole file; a weight whose bytes do
    // not fit its dims is still read and refused; a truncated file is read whole and refused.
    void largeWeightsAreLeftUnread()
    {
        onnx::ModelProto model = modelWithLargeWeight();
        onnx::TensorProto& big = *model.mutable_graph()->mutable_initializer(model.graph().initializer_size() - 1);
        QTemporaryDir dir;
        auto write = [&](const std::string& name, const std::string& bytes) {
            const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
            std::ofstream(path, std::ios::binary) << bytes;
            return path;
        };
        const std::string bytes = model.SerializeAsString();
        const std::string path = write("big.onnx", bytes);
        const std::optional<std::string> skipped = onnxWithoutWeightBytes(openRegularInput(path, bytes.size()));
        QVERIFY(skipped.has_value());
        QVERIFY2(skipped->size() + 10 * 3277 * 4 <= bytes.size() + 16, qPrintable(QString::number(skipped->size())));
        const ImportedGraph fromFile = readGraphFileWithPlacement(path);
        const ImportedGraph fromBytes = importOnnxGraph(bytes, path, {});
        QCOMPARE(fromFile.graph.totalParamBytes(), fromBytes.graph.totalParamBytes());
        QCOMPARE(fromFile.graph.opCount(), fromBytes.graph.opCount());
        QCOMPARE(fromFile.graph.totalTimeUs(DeviceKind::Gpu), fromBytes.graph.totalTimeUs(DeviceKind::Gpu));
        QCOMPARE(fromFile.forwardFlops, fromBytes.forwardFlops);
        QVERIFY(fromFile.graph.find("project"));
        QCOMPARE(fromFile.graph.op(*fromFile.graph.find("project")).paramBytes, 10.0 * 3277 * 4);

        // One byte short: read, and refused as the whole file's check refuses it.
        big.set_raw_data(std::string(10 * 3277 * 4 - 1, '\x01'));
        const std::string shortPath = write("short.onnx", model.SerializeAsString());
        expectInputError([&] { (void)readGraphFileWithPlacement(shortPath); }, shortPath, "initializer 'big.weight'",
                         "holds 131079 bytes of raw data, but type float and dims [10, 3277] need 131080");
        // Cut inside the weight: the walk finds no whole message, the file is read whole, and
        // protobuf refuses it.
        const std::string cutPath = write("cut.onnx", bytes.substr(0, bytes.size() - 70000));
        expectInputError([&] { (void)readGraphFileWithPlacement(cutPath); }, cutPath, "", "does not parse");
    }

    // Read from a file, a damaged model gives what its bytes give read whole: the walk that
    // leaves large weights unread changes no outcome. Bytes flipped in the fields around the
    // weight (before it: the nodes; after it: the graph's inputs and outputs, the opsets) and
    // the file cut at many lengths (the weight's own bytes are never read from the file, and
    // flipping them changes nothing read whole either).
    void damagedFilesReadAsTheirBytesDo()
    {
        const std::string bytes = modelWithLargeWeight().SerializeAsString();
        const std::size_t weightAt = bytes.find(std::string(64, '\x01'));
        QVERIFY(weightAt != std::string::npos);
        QTemporaryDir dir;
        const std::string path = dir.filePath("damaged.onnx").toStdString();
        std::mt19937 rng(11);
        int cases = 0, refused = 0;
        auto check = [&](const std::string& damaged) {
            std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
            const std::string fromFile = importOutcome([&] { return readGraphFileWithPlacement(path); });
            const std::string whole = importOutcome([&] { return importOnnxGraph(damaged, path, {}); });
            QCOMPARE(QString::fromStdString(fromFile), QString::fromStdString(whole));
            ++cases;
            refused += fromFile.rfind("InputError", 0) == 0 ? 1 : 0;
        };
        const std::size_t tail = bytes.size() - 400; // the graph's inputs and outputs, the opsets
        for (std::size_t at = 0; at < bytes.size(); at += at < weightAt || at >= tail ? 3 : 4001) {
            std::string damaged = bytes;
            damaged[at] = static_cast<char>(damaged[at] ^ static_cast<char>(1 + rng() % 255));
            check(damaged);
        }
        for (std::size_t cut = 1; cut < bytes.size(); cut += bytes.size() / 37)
            check(bytes.substr(0, cut));
        QVERIFY(refused > 0);
        qInfo("%d damaged files, %d refused, each as its bytes read whole", cases, refused);
    }

    // Every data type, in its typed field and as raw bytes, fits its dims as written; one value
    // or byte fewer in any of them is refused, naming the initializer.
    void tensorDataOfEveryTypeIsChecked()
    {
        const std::string bytes = modelBytes("tensor_types.onnx");
        QCOMPARE(readOnnxShapedGraph(bytes, "types.onnx").ops.size(), std::size_t(2)); // the sparse Constant, Identity
        onnx::ModelProto model;
        QVERIFY(model.ParseFromString(bytes));
        QCOMPARE(model.graph().initializer_size(), 30);
        for (int i = 0; i < model.graph().initializer_size(); ++i) {
            onnx::ModelProto bad = model;
            onnx::TensorProto& t = *bad.mutable_graph()->mutable_initializer(i);
            if (t.has_raw_data())
                t.mutable_raw_data()->pop_back();
            else if (t.float_data_size() > 0)
                t.mutable_float_data()->RemoveLast();
            else if (t.double_data_size() > 0)
                t.mutable_double_data()->RemoveLast();
            else if (t.int64_data_size() > 0)
                t.mutable_int64_data()->RemoveLast();
            else if (t.uint64_data_size() > 0)
                t.mutable_uint64_data()->RemoveLast();
            else if (t.int32_data_size() > 0)
                t.mutable_int32_data()->RemoveLast();
            else
                t.mutable_string_data()->RemoveLast();
            const std::string name = t.name();
            expectInputError([&] { (void)readOnnxShapedGraph(bad.SerializeAsString(), "types.onnx"); }, "types.onnx",
                             QString::fromStdString("initializer '" + name + "'"), "but type ");
        }
        // The sparse initializer's values too.
        onnx::ModelProto bad = model;
        bad.mutable_graph()->mutable_sparse_initializer(0)->mutable_values()->mutable_float_data()->Add(5.0f);
        expectInputError([&] { (void)readOnnxShapedGraph(bad.SerializeAsString(), "types.onnx"); }, "types.onnx",
                         "sparse initializer 'sw' values",
                         "holds 2 values in float_data, but type float and dims [1] need 1");
    }

    // The guard inside shape inference on its own (the model check refuses the file first):
    // without the custom op, inference errors are fatal, and the short delta is refused
    // before libonnx's Range inference copies it.
    void inferenceGuardRefusesDataNotFittingDims()
    {
        onnx::ModelProto model;
        QVERIFY(model.ParseFromString(modelBytes("short_raw_data.onnx")));
        QCOMPARE(model.graph().node(0).op_type(), std::string("FancyOp"));
        model.mutable_graph()->mutable_node()->DeleteSubrange(0, 1);
        const std::vector<int> fileIndex{1, 2, 3, 4, 5};
        expectInputError([&] { inferOnnxShapes(model, "short.onnx", fileIndex); }, "short.onnx", "node 4 'range' (Range)",
                         "input 2 ('delta_v') holds 1 byte of raw data, but type int64 and dims [] need 8");
    }

    // A weight in an external file that does not exist: its bytes come from the dims, and
    // the checker is not asked to find the file (it would look in the working directory).
    void externalDataIsNeverOpened()
    {
        const ShapedGraph g = readShaped("external_data.onnx", 2);
        QCOMPARE(g.ops.size(), std::size_t(1));
        const ShapedTensor& w = tensorNamed(g, "w");
        QCOMPARE(w.shape, (Shape{16, 8}));
        QCOMPARE(w.elementBytes, 4);
        QVERIFY(w.isParameter);
        QCOMPARE(tensorNamed(g, "y").shape, (Shape{2, 8}));
    }

    // 400 ConstantOfShape nodes of 65,536 int64 each: the folder stops at its budget of
    // 2^20 computed elements (16 of them) instead of making 200 MB of int64 and more in
    // protobuf copies; the rest read only constants, so they are constant chains
    // (OnnxImportChecks), never computed and not ops either. Range and Slice folds near the
    // int64 limits end instead of overflowing (fuzz-regressions/onnx).
    void foldingStaysWithinItsBudget()
    {
        const std::string dir = testdata::sourceDir().toStdString() + "/tests/data/fuzz-regressions/onnx/";
        const ShapedGraph bomb = readOnnxShapedGraph(readFileText(dir + "fold-budget-400-constantofshape.onnx"),
                                                     "bomb.onnx");
        QCOMPARE(opNames(bomb), std::vector<std::string>{"relu"});

        const ShapedGraph limits = readOnnxShapedGraph(readFileText(dir + "fold-range-slice-int64-limits.onnx"),
                                                       "limits.onnx");
        // Range(9223372036854775000, INT64_MAX, 500) has 2 values, but its count computed in
        // double says 3 and the third overflows: it is not folded, and, made of constants, not
        // an op either. Slice([1, 2, 3, 4], 1:4:INT64_MAX) folds (to [2]) and leaves the graph.
        QCOMPARE(opNames(limits), std::vector<std::string>{"relu"});
    }

    void corruptedBytesNeverCrash()
    {
        // Flipped bytes all over a valid model: each import either works or throws
        // InputError; anything else (another exception, a crash) fails.
        const std::string bytes = modelBytes("transformer.onnx");
        std::mt19937 rng(5);
        int rejected = 0, accepted = 0;
        for (size_t at = 0; at < bytes.size(); at += 11) {
            std::string bad = bytes;
            bad[at] = static_cast<char>(bad[at] ^ static_cast<char>(1 + rng() % 255));
            try {
                (void)parseGraph(bad, "bad.onnx");
                ++accepted;
            } catch (const InputError& e) {
                QCOMPARE(QString::fromStdString(e.file()), QString("bad.onnx"));
                ++rejected;
            }
        }
        QVERIFY(rejected > 0);
        qInfo("corrupted copies: %d rejected, %d still imported (a flipped weight byte is harmless)", rejected, accepted);
    }
};

QTEST_APPLESS_MAIN(TestOnnxReader)
#include "test_onnx_reader.moc"
