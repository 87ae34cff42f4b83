// TensorFlow GraphDef text (.pbtxt): the text-format parser, the mapping to the cost
// model's ShapedGraph, the given placement from `device` fields, the export of a
// placement back into the same text, and malformed files with their line numbers.
#include "tests/support/TestData.h"

#include "core/classic/ListScheduler.h"
#include "core/cluster/Cluster.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/PlacementExport.h"
#include "core/io/tf/PbtxtExport.h"
#include "core/io/tf/TextProtoParser.h"
#include "core/io/tf/TfCpuOnlyOps.h"
#include "core/io/tf/TfDeviceName.h"
#include "core/io/tf/TfGraphDef.h"
#include "core/io/tf/TfShapedImport.h"
#include "core/run/PlacerRegistry.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <QtTest>

#include <algorithm>
#include <map>

using namespace post;

namespace {

std::string smallCnnPath() { return (testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt").toStdString(); }

int opIndex(const ShapedGraph& g, const std::string& name)
{
    for (std::size_t i = 0; i < g.ops.size(); ++i)
        if (g.ops[i].name == name)
            return static_cast<int>(i);
    return -1;
}

const ShapedTensor& outputOf(const ShapedGraph& g, const std::string& op)
{
    const int i = opIndex(g, op);
    if (i < 0 || g.ops[static_cast<std::size_t>(i)].outputs.empty())
        qFatal("no op %s with an output", op.c_str());
    return g.tensors[static_cast<std::size_t>(g.ops[static_cast<std::size_t>(i)].outputs[0])];
}

const ShapedTensor& inputOf(const ShapedGraph& g, const std::string& op, std::size_t k)
{
    return g.tensors[static_cast<std::size_t>(g.ops[static_cast<std::size_t>(opIndex(g, op))].inputs.at(k))];
}

using Shape = std::vector<std::int64_t>;

QString formatName(std::optional<GraphFormat> format)
{
    if (!format)
        return "none";
    const std::string_view name = post::toString(*format);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

int nodeIndex(const TfGraphDef& def, const std::string& name)
{
    for (std::size_t i = 0; i < def.nodes.size(); ++i)
        if (def.nodes[i].name == name)
            return static_cast<int>(i);
    return -1;
}

// A training graph as TensorFlow writes one after optimizer.minimize(): x * w, its
// gradient and the update, plus a convolution whose filter gradient mirrors it.
const char* kTrainingGraph = R"(node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 4 } dim { size: 8 } dim { size: 8 } dim { size: 3 } } } } }
node { name: "w" op: "VariableV2" attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 16 } } } } }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "conv" op: "Conv2D" input: "x" input: "w/read" device: "/gpu:0"
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } } }
node { name: "loss" op: "Sum" input: "conv" device: "/gpu:0" }
node { name: "gradients/Fill" op: "OnesLike" input: "conv" device: "/gpu:1" }
node { name: "gradients/conv_grad/Conv2DBackpropFilter" op: "Conv2DBackpropFilter"
  input: "x" input: "gradients/conv_grad/Shape" input: "gradients/Fill" device: "/gpu:1"
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } }
  attr { key: "_output_shapes" value { list { shape { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 16 } } } } } }
node { name: "gradients/conv_grad/Shape" op: "Const"
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } int_val: [3, 3, 3, 16] } } } }
node { name: "lr" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT } } } }
node { name: "update" op: "ApplyGradientDescent" input: "w" input: "lr"
  input: "gradients/conv_grad/Conv2DBackpropFilter" device: "/gpu:1"
  attr { key: "_class" value { list { s: "loc:@w" } } } }
)";

std::string trainPipelinePath()
{
    return (testdata::sourceDir() + "/tests/data/pbtxt/train_pipeline.pbtxt").toStdString();
}

// What TensorFlow without soft placement would refuse in a GraphDef: a node of a type
// without a GPU kernel off the CPU, a node not on the device of the node its
// `_class: "loc:@X"` names, a node without a device.
std::vector<std::string> tfPlacementRefusals(const TfGraphDef& def)
{
    std::map<std::string, std::string> device;
    for (const TfNode& n : def.nodes)
        device[n.name] = n.device;
    std::vector<std::string> refusals;
    for (const TfNode& n : def.nodes) {
        if (n.device.empty())
            refusals.push_back(n.name + ": no device");
        if (tfOpHasNoGpuKernel(n.op) && n.device.find("/device:CPU:") == std::string::npos)
            refusals.push_back(n.name + " (" + n.op + ") has no GPU kernel but is on " + n.device);
        if (const TextProtoField* cls = n.attr("_class"))
            for (const TextProtoField& s : cls->find("list")->fields)
                if (s.value.starts_with("loc:@") && device.at(s.value.substr(5)) != n.device)
                    refusals.push_back(n.name + " is on " + n.device + " but colocated with " + s.value.substr(5)
                                       + " on " + device.at(s.value.substr(5)));
    }
    return refusals;
}

} // namespace

class TestPbtxt : public QObject {
    Q_OBJECT

private slots:
    void textFormatSyntax()
    {
        const std::string text = "# comment\n"
                                 "a: 1, b: -2.5e-3; c: inf\n"
                                 "s: \"x\\\"y\\n\\101\\x42\" 'z'  # adjacent literals join\n"
                                 "m < k: [7, 8] >\n"
                                 "n: { }\n"
                                 "l: [ { v: 1 }, { v: 2 } ]\n"
                                 "[type.googleapis.com/tf.Foo] { q: 3 }\n";
        const TextProtoField root = parseTextProto(text, "t.pbtxt");
        QCOMPARE(root.fields.size(), std::size_t(9));
        QCOMPARE(root.fields[0].value, std::string("1"));
        QCOMPARE(root.fields[1].value, std::string("-2.5e-3"));
        QCOMPARE(root.fields[2].value, std::string("inf"));
        const TextProtoField& s = root.fields[3];
        QVERIFY(s.quoted);
        QCOMPARE(s.value, std::string("x\"y\nABz"));
        QCOMPARE(s.line, 3);
        QCOMPARE(text.substr(s.valueBegin, s.valueEnd - s.valueBegin), std::string("\"x\\\"y\\n\\101\\x42\" 'z'"));
        const TextProtoField& m = root.fields[4];
        QVERIFY(m.isMessage);
        QCOMPARE(m.fields.size(), std::size_t(2)); // k: [7, 8] is two fields
        QCOMPARE(m.fields[1].value, std::string("8"));
        QVERIFY(root.fields[5].isMessage && root.fields[5].fields.empty());
        QCOMPARE(root.fields[6].name, std::string("l"));
        QCOMPARE(root.fields[7].find("v")->value, std::string("2"));
        QCOMPARE(root.fields[8].name, std::string("[type.googleapis.com/tf.Foo]"));
        QCOMPARE(root.fields[8].line, 7);
    }

    void deviceNamesNormalise_data()
    {
        QTest::addColumn<QString>("written");
        QTest::addColumn<QString>("normal");
        QTest::newRow("full") << "/job:localhost/replica:0/task:0/device:GPU:0"
                              << "/device:GPU:0";
        QTest::newRow("legacy") << "/gpu:1"
                                << "/device:GPU:1";
        QTest::newRow("legacy cpu") << "/cpu:0"
                                    << "/device:CPU:0";
        QTest::newRow("lower-case device") << "/device:gpu:3"
                                           << "/device:GPU:3";
        QTest::newRow("no slash") << "GPU:2"
                                  << "/device:GPU:2";
        QTest::newRow("job and legacy") << "/job:localhost/replica:0/task:0/gpu:1"
                                        << "/device:GPU:1";
        QTest::newRow("task only") << "/task:0/device:CPU:0"
                                   << "/device:CPU:0";
        QTest::newRow("leading zero") << "/gpu:01"
                                      << "/device:GPU:1";
        QTest::newRow("other task") << "/job:worker/task:1/device:GPU:0"
                                    << "/job:worker/replica:0/task:1/device:GPU:0";
        QTest::newRow("job only") << "/job:ps"
                                  << "";
        QTest::newRow("wildcard") << "/device:GPU:*"
                                  << "";
        QTest::newRow("two devices") << "/gpu:0/cpu:0"
                                     << "";
        QTest::newRow("garbage") << "banana"
                                 << "";
    }

    void deviceNamesNormalise()
    {
        QFETCH(QString, written);
        QFETCH(QString, normal);
        const auto got = normalizeTfDeviceName(written.toStdString());
        QCOMPARE(QString::fromStdString(got.value_or("")), normal);
    }

    void sniffsPbtxt()
    {
        const std::string text = readFileText(smallCnnPath());
        QCOMPARE(formatName(sniffGraphFormat(text, "model.txt")), formatName(GraphFormat::TfPbtxt));
        QCOMPARE(formatName(sniffGraphFormat("\n  node{name: \"a\" op: \"NoOp\"}", "x")),
                 formatName(GraphFormat::TfPbtxt));
        QCOMPARE(formatName(sniffGraphFormat("graph_def { node { name: \"a\" op: \"NoOp\" } }", "x")),
                 formatName(GraphFormat::TfPbtxt));
        // Broken beyond recognition: the name decides, so the reader reports the line.
        QCOMPARE(formatName(sniffGraphFormat("}}}", "broken.pbtxt")), formatName(GraphFormat::TfPbtxt));
        QCOMPARE(formatName(sniffGraphFormat("digraph { node [shape=box]; a }", "x")), formatName(GraphFormat::Dot));
        QCOMPARE(formatName(parseGraphFormat("pbtxt")), formatName(GraphFormat::TfPbtxt));
        QCOMPARE(post::toString(GraphFormat::TfPbtxt), std::string_view("pbtxt"));
    }

    void smallCnnMapsToShapedGraph()
    {
        const std::string path = smallCnnPath();
        const TfGraphDef def = parseTfGraphDef(readFileText(path), path);
        QCOMPARE(def.nodes.size(), std::size_t(24));
        const TfShapedImport imp = importTfGraphDef(def, path, "small_cnn");
        const ShapedGraph& g = imp.shaped;
        QVERIFY(!imp.isTrainingGraph);
        // Variables, reads, constants, the placeholder and the initialiser are not ops.
        std::vector<std::string> names;
        for (const ShapedOp& op : g.ops)
            names.push_back(op.name);
        const std::vector<std::string> expected = {"conv1/Conv2D", "conv1/Relu",      "pool1",     "conv2/Conv2D",
                                                   "conv2/Relu",   "flatten/Reshape", "fc/MatMul", "fc/BiasAdd",
                                                   "sync",         "softmax"};
        QCOMPARE(names, expected);
        // Shapes: listed (conv1), inferred through Relu, VALID 2x2 pooling, a stride-2 SAME
        // convolution, Reshape with a constant [8, -1] and MatMul.
        QCOMPARE(outputOf(g, "conv1/Conv2D").shape, (Shape{8, 32, 32, 16}));
        QCOMPARE(outputOf(g, "conv1/Relu").shape, (Shape{8, 32, 32, 16}));
        QCOMPARE(outputOf(g, "pool1").shape, (Shape{8, 16, 16, 16}));
        QCOMPARE(outputOf(g, "conv2/Conv2D").shape, (Shape{8, 8, 8, 32}));
        QCOMPARE(outputOf(g, "flatten/Reshape").shape, (Shape{8, 2048}));
        QCOMPARE(outputOf(g, "fc/MatMul").shape, (Shape{8, 10}));
        QCOMPARE(outputOf(g, "softmax").shape, (Shape{8, 10}));
        QVERIFY(g.ops[static_cast<std::size_t>(opIndex(g, "sync"))].outputs.empty());
        // Inputs: the placeholder is a plain input, the weights a parameter (through the
        // read), the reshape target a constant.
        const ShapedTensor& x = inputOf(g, "conv1/Conv2D", 0);
        QVERIFY(!x.isParameter && !x.isConstant);
        QCOMPARE(x.shape, (Shape{8, 32, 32, 3}));
        const ShapedTensor& w = inputOf(g, "conv1/Conv2D", 1);
        QVERIFY(w.isParameter);
        QCOMPARE(w.shape, (Shape{3, 3, 3, 16}));
        QVERIFY(inputOf(g, "flatten/Reshape", 1).isConstant);
        QVERIFY(inputOf(g, "fc/BiasAdd", 1).isParameter);
        // Control edges.
        const ShapedOp& sync = g.ops[static_cast<std::size_t>(opIndex(g, "sync"))];
        QCOMPARE(sync.controlInputs, (std::vector<int>{opIndex(g, "conv1/Relu"), opIndex(g, "conv2/Relu")}));
        QCOMPARE(g.ops[static_cast<std::size_t>(opIndex(g, "softmax"))].controlInputs,
                 std::vector<int>{opIndex(g, "sync")});
        QCOMPARE(g.ops[static_cast<std::size_t>(opIndex(g, "conv2/Conv2D"))].intAttrs.at("strides"), (Shape{1, 2, 2, 1}));
        QCOMPARE(g.ops[static_cast<std::size_t>(opIndex(g, "pool1"))].intAttrs.at("ksize"), (Shape{1, 2, 2, 1}));
        QCOMPARE(g.ops[static_cast<std::size_t>(opIndex(g, "fc/MatMul"))].intAttrs.at("transpose_b"), Shape{0});
        QCOMPARE(g.ops[static_cast<std::size_t>(opIndex(g, "pool1"))].device,
                 std::string("/job:localhost/replica:0/task:0/device:GPU:1"));
        QCOMPARE(g.ops[static_cast<std::size_t>(opIndex(g, "conv1/Conv2D"))].location, std::string("line 148"));
        // Where non-ops go on export: a variable with its first reader, the initialiser
        // with its variable, the `init` NoOp with the Assign it waits for.
        const auto anchorName = [&](const char* node) {
            const int a = imp.anchorOfNode[static_cast<std::size_t>(nodeIndex(def, node))];
            return a < 0 ? std::string() : g.ops[static_cast<std::size_t>(a)].name;
        };
        QCOMPARE(anchorName("conv1/weights"), std::string("conv1/Conv2D"));
        QCOMPARE(anchorName("conv1/weights/read"), std::string("conv1/Conv2D"));
        QCOMPARE(anchorName("conv1/weights/Assign"), std::string("conv1/Conv2D"));
        QCOMPARE(anchorName("conv1/weights/Initializer/random_uniform/shape"), std::string("conv1/Conv2D"));
        QCOMPARE(anchorName("init"), std::string("conv1/Conv2D"));
        QCOMPARE(anchorName("input"), std::string("conv1/Conv2D"));
        QCOMPARE(anchorName("flatten/shape"), std::string("flatten/Reshape"));
        QCOMPARE(anchorName("fc/bias"), std::string("fc/BiasAdd"));
        QCOMPARE(anchorName("softmax"), std::string("softmax"));
    }

    void smallCnnGivenPlacement()
    {
        const ImportedGraph imp = readGraphFileWithPlacement(smallCnnPath());
        const Graph& g = imp.graph;
        QVERIFY(imp.hasGivenPlacement());
        // A training step: every forward op and its backward op, an SGD update per parameter
        // owner and a copy per graph input that no Placeholder op writes.
        int updates = 0, copies = 0;
        for (const Op& op : g.ops()) {
            updates += op.type == "ApplyMomentum" ? 1 : 0;
            copies += op.type == "MemcpyHtoD" ? 1 : 0;
        }
        QVERIFY(updates > 0);
        QCOMPARE(g.opCount(), 20 + updates + copies);
        QVERIFY(g.find("conv1/Conv2D/grad").has_value());
        const Cluster c = loadCluster("k80x4"); // CPU:0, GPU:0..3 = devices 0..4
        const Placement p = givenPlacement(imp, c);
        const std::map<std::string, DeviceId> expected = {
            {"conv1/Conv2D", 1},    {"conv1/Relu", 1}, {"pool1", 2},      {"conv2/Conv2D", 2},
            {"conv2/Relu", 1}, // no device: TensorFlow's default, the first GPU
            {"flatten/Reshape", 2}, {"fc/MatMul", 2},  {"fc/BiasAdd", 2}, {"sync", 0},
            {"softmax", 0}};
        for (const auto& [name, device] : expected) {
            QCOMPARE(p[static_cast<std::size_t>(*g.find(name))], device);
            if (const auto grad = g.find(name + "/grad"))
                QCOMPARE(p[static_cast<std::size_t>(*grad)], device);
        }
        QVERIFY(!placementProblem(g, c, p).has_value());
        // The same file through the plain reader gives the same graph.
        QCOMPARE(readGraphFile(smallCnnPath()).opCount(), g.opCount());
    }

    void givenDeviceMissingFromClusterNamesTheLine()
    {
        const std::string text = readFileText(smallCnnPath());
        const ImportedGraph imp = parseGraphWithPlacement(text, "cnn.pbtxt");
        const Cluster two = loadCluster("k80x2"); // CPU:0, GPU:0, GPU:1
        QVERIFY(!placementProblem(imp.graph, two, givenPlacement(imp, two)).has_value());
        std::string moved = text;
        const std::size_t biasAdd = moved.find("name: \"fc/BiasAdd\"");
        moved.replace(moved.find("\"/gpu:1\"", biasAdd), 8, "\"/gpu:3\"");
        const ImportedGraph bad = parseGraphWithPlacement(moved, "cnn.pbtxt");
        try {
            givenPlacement(bad, two);
            QFAIL("no error for a device the cluster lacks");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), std::string("cnn.pbtxt"));
            QCOMPARE(e.location(), std::string("line 551")); // the fc/BiasAdd node
            QVERIFY2(std::string(e.what()).find("/device:GPU:3") != std::string::npos, e.what());
        }
        // A graph without devices has no given placement.
        const ImportedGraph none = parseGraphWithPlacement("node { name: \"a\" op: \"Relu\" }", "a.pbtxt");
        QVERIFY(!none.hasGivenPlacement());
    }

    void exportRoundTrip()
    {
        const std::string text = readFileText(smallCnnPath());
        const ImportedGraph imp = parseGraphWithPlacement(text, "cnn.pbtxt");
        const Graph& g = imp.graph;
        const Cluster c = loadCluster("k80x4");
        // Forward op k on device k mod 5, its backward op with it.
        Placement placement(static_cast<std::size_t>(g.opCount()));
        int k = 0;
        std::map<std::string, DeviceId> forward;
        const std::string update = "/ApplyMomentum"; // colocated with its op, as the backward op
        for (OpId id = 0; id < g.opCount(); ++id)
            if (!g.op(id).name.ends_with("/grad") && !g.op(id).name.ends_with(update))
                forward[g.op(id).name] = placement[static_cast<std::size_t>(id)] = k++ % 5;
        for (OpId id = 0; id < g.opCount(); ++id)
            if (const std::string& n = g.op(id).name; n.ends_with("/grad"))
                placement[static_cast<std::size_t>(id)] = forward.at(n.substr(0, n.size() - 5));
            else if (n.ends_with(update))
                placement[static_cast<std::size_t>(id)] = forward.at(n.substr(0, n.size() - update.size()));
            else if (g.op(id).type == "MemcpyHtoD") // not a node of the file: read back on the first GPU
                placement[static_cast<std::size_t>(id)] = 1;
        QVERIFY(!placementProblem(g, c, placement).has_value());

        const std::string exported = pbtxtWithPlacement(text, "cnn.pbtxt", g, c, placement);
        const ImportedGraph again = parseGraphWithPlacement(exported, "out.pbtxt");
        QCOMPARE(again.graph.opCount(), g.opCount());
        QCOMPARE(givenPlacement(again, c), placement);

        // Only device lines differ; nodes that had none got one after their `op` line.
        QStringList before = QString::fromStdString(text).split('\n');
        QStringList after = QString::fromStdString(exported).split('\n');
        const auto withoutDevices = [](QStringList lines) {
            lines.removeIf([](const QString& l) { return l.trimmed().startsWith("device:"); });
            return lines;
        };
        QCOMPARE(withoutDevices(after), withoutDevices(before));
        QCOMPARE(
            after.filter(QRegularExpression("^  device: \"/job:localhost/replica:0/task:0/device:(CPU|GPU):\\d\"$")).size(),
            24);
        // A variable goes with its first reader, the initialiser with its variable.
        const TfGraphDef def = parseTfGraphDef(exported, "out.pbtxt");
        const auto deviceOf = [&](const char* node) {
            return def.nodes[static_cast<std::size_t>(nodeIndex(def, node))].device;
        };
        const std::string conv1 = tensorFlowDeviceName(c, placement[static_cast<std::size_t>(*g.find("conv1/Conv2D"))]);
        QCOMPARE(deviceOf("conv1/weights"), conv1);
        QCOMPARE(deviceOf("conv1/weights/Initializer/random_uniform"), conv1);
        QCOMPARE(deviceOf("fc/bias/read"),
                 tensorFlowDeviceName(c, placement[static_cast<std::size_t>(*g.find("fc/BiasAdd"))]));
        QCOMPARE(deviceOf("pool1"), tensorFlowDeviceName(c, placement[static_cast<std::size_t>(*g.find("pool1"))]));
    }

    void exportInsertsIntoOneLineNodes()
    {
        const std::string text =
            "node { name: \"a\" op: \"Placeholder\" attr { key: \"shape\" value { shape { dim { size: 4 } } } } }\n"
            "node { name: \"b\" op: \"Relu\" input: \"a\" }\n"
            "node { name: \"c\" op: \"Relu\" input: \"b\" device: \"/gpu:0\" }\n";
        const ImportedGraph imp = parseGraphWithPlacement(text, "t.pbtxt");
        const Cluster c = loadCluster("k80x2");
        Placement p(static_cast<std::size_t>(imp.graph.opCount()));
        for (OpId id = 0; id < imp.graph.opCount(); ++id)
            p[static_cast<std::size_t>(id)] = imp.graph.op(id).name.starts_with("b") ? 2 : 0;
        const std::string out = pbtxtWithPlacement(text, "t.pbtxt", imp.graph, c, p);
        QCOMPARE(out,
                 std::string(
                     "node { name: \"a\" op: \"Placeholder\" device: \"/job:localhost/replica:0/task:0/device:GPU:1\" "
                     "attr { key: \"shape\" value { shape { dim { size: 4 } } } } }\n"
                     "node { name: \"b\" op: \"Relu\" device: \"/job:localhost/replica:0/task:0/device:GPU:1\" input: "
                     "\"a\" }\n"
                     "node { name: \"c\" op: \"Relu\" input: \"b\" device: "
                     "\"/job:localhost/replica:0/task:0/device:CPU:0\" }\n"));
    }

    void trainingGraphIsImportedAsIs()
    {
        const TfGraphDef def = parseTfGraphDef(kTrainingGraph, "train.pbtxt");
        const TfShapedImport shaped = importTfGraphDef(def, "train.pbtxt", "train");
        QVERIFY(shaped.isTrainingGraph);
        QVERIFY2(shaped.trainingEvidence.find("gradients/Fill") != std::string::npos, shaped.trainingEvidence.c_str());
        const ImportedGraph imp = parseGraphWithPlacement(kTrainingGraph, "train.pbtxt");
        const Graph& g = imp.graph;
        // Op for op: conv, loss, the two gradient ops and the update; no "/grad" ops added.
        QCOMPARE(g.opCount(), 5);
        for (const Op& op : g.ops())
            QVERIFY(!op.name.ends_with("/grad"));
        // The filter gradient is costed as the convolution it mirrors (same tensors).
        const Op& conv = g.op(*g.find("conv"));
        const Op& filterGrad = g.op(*g.find("gradients/conv_grad/Conv2DBackpropFilter"));
        QVERIFY(conv.time(DeviceKind::Gpu) > 0.0);
        QCOMPARE(filterGrad.time(DeviceKind::Gpu), conv.time(DeviceKind::Gpu));
        // The weights' bytes are counted once, on the update colocated with them (TensorFlow
        // keeps the variable there), not on the first op reading them.
        QCOMPARE(conv.paramBytes, 0.0);
        QCOMPARE(g.op(*g.find("update")).paramBytes, 3.0 * 3 * 3 * 16 * 4);
        QCOMPARE(g.colocationGroupName(g.colocationGroup(*g.find("update"))), std::string("w"));
        // Given devices map one to one.
        const Placement p = givenPlacement(imp, loadCluster("k80x4"));
        QCOMPARE(p[static_cast<std::size_t>(*g.find("conv"))], 1);
        QCOMPARE(p[static_cast<std::size_t>(*g.find("update"))], 2);
    }

    // A TF1 training graph with an input pipeline, Momentum and a Saver: queues, readers
    // and decoding are pinned to the CPU, each ApplyMomentum is colocated with its variable
    // and owns its bytes; initialisation and checkpointing are not part of the step.
    void trainPipelinePinsAndColocates()
    {
        const std::string text = readFileText(trainPipelinePath());
        const ImportedGraph imp = parseGraphWithPlacement(text, "train_pipeline.pbtxt");
        const Graph& g = imp.graph;
        std::vector<std::string> pinned;
        for (OpId id : g.cpuPinnedOps())
            pinned.push_back(g.op(id).name);
        std::sort(pinned.begin(), pinned.end());
        QCOMPARE(pinned,
                 (std::vector<std::string>{"DecodeJpeg", "ReaderReadV2", "WholeFileReaderV2", "batch",
                                           "batch/fifo_queue", "batch/fifo_queue_enqueue", "input_producer",
                                           "input_producer/input_producer_EnqueueMany"}));
        for (const char* name : {"save/SaveV2", "save/RestoreV2", "save/Assign_0", "conv1/weights/Assign"})
            QVERIFY2(!g.find(name), name);
        const OpId update = *g.find("Momentum/update_conv1/ApplyMomentum");
        QCOMPARE(g.colocationGroupName(g.colocationGroup(update)), std::string("conv1/weights"));
        QCOMPARE(g.op(update).paramBytes, 2 * 3.0 * 3 * 3 * 16 * 4); // the weights and their Momentum slot
        QCOMPARE(g.op(*g.find("conv1/Conv2D")).paramBytes, 0.0);
        QVERIFY(!g.isCpuPinned(update));
    }

    // Every placer and learner keeps the pinned ops on the CPU, and the .pbtxt written back
    // is one TensorFlow runs without soft placement.
    void everyPlacerWritesWhatTensorFlowRuns()
    {
        const std::string text = readFileText(trainPipelinePath());
        const ImportedGraph imp = parseGraphWithPlacement(text, "train_pipeline.pbtxt");
        const Graph& g = imp.graph;
        const Cluster c = loadCluster("k80x4");
        QVERIFY(!tfPlacementRefusals(parseTfGraphDef(text, "in.pbtxt")).empty()); // the input has no devices
        for (const std::string& name : placerNames()) {
            for (const std::string& algo : {name, name + "@m-etf"}) {
                auto placer = makePlacer(algo);
                if (!placer)
                    continue; // "single@m-etf": only learners take a warm start
                PlaceContext ctx{g, c, SimOptions{}};
                ctx.samples = 60;
                ctx.threads = 1;
                ctx.seconds = 1.0; // milp's budget (learners stop at 60 samples first)
                const PlaceResult r = placer->place(ctx);
                QVERIFY2(!placementProblem(g, c, r.best), algo.c_str());
                for (OpId id : g.cpuPinnedOps())
                    QVERIFY2(c.device(r.best[static_cast<std::size_t>(id)]).kind == DeviceKind::Cpu,
                             (algo + ": " + g.op(id).name).c_str());
                const std::string out = pbtxtWithPlacement(text, "in.pbtxt", g, c, r.best);
                const std::vector<std::string> refusals = tfPlacementRefusals(parseTfGraphDef(out, "out.pbtxt"));
                QVERIFY2(refusals.empty(), (algo + ": " + (refusals.empty() ? "" : refusals.front())).c_str());
            }
        }
    }

    // A resource variable's update without `_class` still runs on the variable's device.
    void updatesAreColocatedWithTheirVariables()
    {
        const std::string text =
            "node { name: \"x\" op: \"Placeholder\" attr { key: \"shape\" value { shape { dim { size: 8 } dim { size: "
            "4 } } } } }\n"
            "node { name: \"v\" op: \"VarHandleOp\" attr { key: \"shape\" value { shape { dim { size: 4 } dim { size: "
            "2 } } } } }\n"
            "node { name: \"v/read\" op: \"ReadVariableOp\" input: \"v\" }\n"
            "node { name: \"mm\" op: \"MatMul\" input: \"x\" input: \"v/read\" }\n"
            "node { name: \"gradients/mm_grad\" op: \"MatMul\" input: \"x\" input: \"mm\" attr { key: \"transpose_a\" "
            "value { b: true } } }\n"
            "node { name: \"lr\" op: \"Const\" }\n"
            "node { name: \"update\" op: \"ResourceApplyGradientDescent\" input: \"v\" input: \"lr\" input: "
            "\"gradients/mm_grad\" }\n";
        const ImportedGraph imp = parseGraphWithPlacement(text, "r.pbtxt");
        const Graph& g = imp.graph;
        const OpId update = *g.find("update");
        QVERIFY(g.colocationGroup(update) >= 0);
        QCOMPARE(g.colocationGroupName(g.colocationGroup(update)), std::string("v"));
        QCOMPARE(g.op(update).paramBytes, 4.0 * 2 * 4);
        const Cluster c = loadCluster("k80x4");
        Placement p(static_cast<std::size_t>(g.opCount()), 1);
        p[static_cast<std::size_t>(update)] = 3;
        const TfGraphDef out = parseTfGraphDef(pbtxtWithPlacement(text, "r.pbtxt", g, c, p), "out.pbtxt");
        const std::string gpu2 = tensorFlowDeviceName(c, 3);
        QCOMPARE(out.nodes[static_cast<std::size_t>(nodeIndex(out, "v"))].device, gpu2);
        QCOMPARE(out.nodes[static_cast<std::size_t>(nodeIndex(out, "update"))].device, gpu2);
        QCOMPARE(out.nodes[static_cast<std::size_t>(nodeIndex(out, "v/read"))].device, gpu2); // reads where v lives
        QCOMPARE(out.nodes[static_cast<std::size_t>(nodeIndex(out, "mm"))].device, tensorFlowDeviceName(c, 1));
    }

    // m-ETF's list scheduler puts the pinned ops on the CPU itself (so its schedule times
    // them there), rather than leaving it to the fix-up after it.
    void listSchedulerSchedulesPinnedOpsOnTheCpu()
    {
        const ImportedGraph imp = parseGraphWithPlacement(readFileText(trainPipelinePath()), "train_pipeline.pbtxt");
        const Cluster c = loadCluster("k80x4");
        const ListSchedule schedule = ListScheduler(imp.graph, c, SimOptions{}).run();
        QVERIFY(!imp.graph.cpuPinnedOps().empty());
        for (OpId id : imp.graph.cpuPinnedOps())
            QCOMPARE(schedule.placement[static_cast<std::size_t>(id)], DeviceId(0));
        QVERIFY(!placementProblem(imp.graph, c, schedule.placement));
    }

    // TensorFlow's soft placement: an op without a GPU kernel written on a GPU runs on the CPU.
    void givenPlacementKeepsPinnedOpsOnTheCpu()
    {
        const std::string text = "node { name: \"f\" op: \"ReadFile\" device: \"/gpu:1\" }\n"
                                 "node { name: \"d\" op: \"DecodeJpeg\" input: \"f\" device: \"/gpu:1\" }\n"
                                 "node { name: \"r\" op: \"Relu\" input: \"d\" device: \"/gpu:1\" }\n";
        const ImportedGraph imp = parseGraphWithPlacement(text, "t.pbtxt");
        const Cluster c = loadCluster("k80x4");
        const Placement p = givenPlacement(imp, c);
        QCOMPARE(p[static_cast<std::size_t>(*imp.graph.find("d"))], DeviceId(0));
        QCOMPARE(p[static_cast<std::size_t>(*imp.graph.find("r"))], DeviceId(2));
        QVERIFY(!placementProblem(imp.graph, c, p));
        QVERIFY(tfOpHasNoGpuKernel("TFRecordDataset") && tfOpHasNoGpuKernel("RestoreV2"));
        QVERIFY(!tfOpHasNoGpuKernel("Conv2D") && !tfOpHasNoGpuKernel("ApplyMomentum"));
    }

    // A TF2 saved_model.pbtxt: the first meta graph's GraphDef; the call into the library is
    // one opaque op with a warning naming the functions; the save/restore calls are left out.
    void savedModelReadsTheMetaGraph()
    {
        const std::string path = (testdata::sourceDir() + "/tests/data/pbtxt/saved_model.pbtxt").toStdString();
        const std::string text = readFileText(path);
        QCOMPARE(formatName(sniffGraphFormat(text, "saved_model.txt")), formatName(GraphFormat::TfPbtxt));
        const TfGraphDef def = parseTfGraphDef(text, path);
        QCOMPARE(def.metaGraphCount, 1);
        QCOMPARE(def.libraryFunctions.size(), std::size_t(4));
        const ImportedGraph imp = parseGraphWithPlacement(text, "saved_model.pbtxt");
        // The call, its backward op and what the step adds (an update where it owns parameters).
        int added = 0;
        for (const Op& op : imp.graph.ops())
            added += op.type == "ApplyMomentum" || op.type == "MemcpyHtoD" ? 1 : 0;
        QCOMPARE(imp.graph.opCount(), 2 + added);
        QVERIFY(imp.graph.find("StatefulPartitionedCall"));
        QVERIFY(!imp.graph.find("StatefulPartitionedCall_1"));
        QCOMPARE(imp.graph.totalParamBytes(), (784.0 * 128 + 128) * 4);
        QCOMPARE(imp.warnings.size(), std::size_t(1));
        const std::string& w = imp.warnings[0];
        QVERIFY2(w.find("__inference_signature_wrapper_95") != std::string::npos
                     && w.find("'StatefulPartitionedCall'") != std::string::npos && w.find("opaque") != std::string::npos,
                 w.c_str());
        try {
            parseGraphWithPlacement(
                "saved_model_schema_version: 1\nmeta_graphs { graph_def { versions { producer: 1 } } }", "empty.pbtxt",
                GraphFormat::TfPbtxt);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("meta graph") != std::string::npos, e.what());
        }
    }

    void malformedNamesTheLine_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unterminated brace") << QByteArray("node {\n  name: \"a\"\n  op: \"NoOp\"\n") << "line 1"
                                            << "never closed";
        QTest::newRow("unterminated inner brace")
            << QByteArray("node {\n  name: \"a\"\n  op: \"NoOp\"\n  attr {\n    key: \"T\"\n}\n") << "line 1"
            << "never closed";
        QTest::newRow("stray brace") << QByteArray("node { name: \"a\" op: \"NoOp\" }\n}\n") << "line 2"
                                     << "'}'";
        QTest::newRow("unknown input node")
            << QByteArray("node {\n  name: \"a\"\n  op: \"Relu\"\n  input: \"ghost:0\"\n}\n") << "line 4"
            << "ghost";
        QTest::newRow("bad port") << QByteArray(
            "node { name: \"a\" op: \"NoOp\" }\nnode { name: \"b\" op: \"Relu\"\n input: \"a:x\" }\n")
                                  << "line 3"
                                  << "port";
        QTest::newRow("bad shape") << QByteArray(
            "node {\n  name: \"x\"\n  op: \"Placeholder\"\n  attr { key: \"shape\" value { shape {\n"
            "    dim { size: 2 }\n    dim { size: -5 }\n  } } }\n}\n")
                                   << "line 6"
                                   << "bad shape";
        QTest::newRow("non-integer size") << QByteArray("node { name: \"x\" op: \"Placeholder\"\n  attr { key: "
                                                        "\"shape\" value { shape { dim { size: 2.5 } } } } }\n")
                                          << "line 2"
                                          << "integer";
        QTest::newRow("no op") << QByteArray("\n\nnode {\n  name: \"a\"\n}\n") << "line 3"
                               << "no op";
        QTest::newRow("duplicate name") << QByteArray(
            "node { name: \"a\" op: \"NoOp\" }\nnode {\n name: \"a\" op: \"NoOp\" }\n")
                                        << "line 3"
                                        << "duplicate";
        QTest::newRow("cycle") << QByteArray(
            "node { name: \"a\" op: \"Relu\" input: \"b\" }\nnode { name: \"b\" op: \"Relu\" input: \"a\" }\n")
                               << "line 1"
                               << "cycle";
        QTest::newRow("open string") << QByteArray("node {\n  name: \"a\n  op: \"NoOp\"\n}\n") << "line 2"
                                     << "string";
        QTest::newRow("missing colon") << QByteArray("node {\n  name \"a\"\n}\n") << "line 2"
                                       << "expected ':'";
        QTest::newRow("bad device") << QByteArray(
            "node { name: \"a\" op: \"NoOp\" }\nnode { name: \"b\" op: \"NoOp\" device: \"/job:ps\" }\n")
                                    << "line 2"
                                    << "/job:ps";
        QTest::newRow("port beyond outputs")
            << QByteArray("node { name: \"a\" op: \"Split\" attr { key: \"_output_shapes\" value { list { shape { } "
                          "shape { } } } } }\n"
                          "node { name: \"b\" op: \"Relu\"\n input: \"a:2\" }\n")
            << "line 3"
            << "2 outputs";
        QTest::newRow("no nodes") << QByteArray("versions { producer: 27 }\n") << ""
                                  << "no 'node";
    }

    void malformedNamesTheLine()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, location);
        QFETCH(QString, fragment);
        try {
            parseGraphWithPlacement(text.toStdString(), "bad.pbtxt", GraphFormat::TfPbtxt);
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), std::string("bad.pbtxt"));
            QCOMPARE(QString::fromStdString(e.location()), location);
            QVERIFY2(QString::fromStdString(e.message()).contains(fragment), e.what());
        }
    }

    void truncatedAndMutatedFilesFailCleanly()
    {
        // Every prefix and many one-byte corruptions of a valid file either import or
        // raise InputError with a line; nothing else escapes.
        const std::string text = readFileText(smallCnnPath());
        int errors = 0, imported = 0;
        const auto attempt = [&](const std::string& bytes) {
            try {
                parseGraphWithPlacement(bytes, "t.pbtxt", GraphFormat::TfPbtxt);
                ++imported;
            } catch (const InputError& e) {
                ++errors;
                if (!e.location().empty() && !e.location().starts_with("line "))
                    QFAIL(e.what());
            }
        };
        for (std::size_t n = 0; n < text.size(); n += 13)
            attempt(text.substr(0, n));
        const char replacements[] = {'{', '}', '"', ':', '\\', '#', '<', '[', 'x', '-', '\0'};
        for (std::size_t i = 0, k = 0; i < text.size(); i += 17, ++k) {
            std::string bytes = text;
            bytes[i] = replacements[k % sizeof replacements];
            attempt(bytes);
        }
        QVERIFY(errors > 0 && imported > 0);
    }

    // Sizes up to 2^63 - 1 are read as written; arithmetic on them that would overflow gives
    // an unknown size (-1), and a Const splat too big for shape arithmetic stays unknown
    // instead of being expanded (fuzz-regressions/pbtxt).
    void dimensionArithmeticNeverOverflows()
    {
        const char* text =
            R"(node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 9000000000000000000 } } } } }
node { name: "axis" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 0 } } } }
node { name: "cat" op: "ConcatV2" input: "x" input: "x" input: "axis" }
node { name: "y" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 6 } } } } }
node { name: "big" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT64 int64_val: 4000000000000000000 int64_val: 4000000000000000000 int64_val: -1 } } } }
node { name: "r" op: "Reshape" input: "y" input: "big" }
node { name: "splat" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4000000000 } } int_val: 2 } } } }
node { name: "s" op: "Reshape" input: "y" input: "splat" }
node { name: "small" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 3 } } } }
node { name: "t" op: "Reshape" input: "y" input: "small" }
node { name: "p" op: "MaxPool" input: "q"
  attr { key: "ksize" value { list { i: 1 i: 9223372036854775807 i: 1 i: 1 } } } attr { key: "dilations" value { list { i: 1 i: 3 i: 1 i: 1 } } } }
node { name: "q" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 1 } dim { size: 9223372036854775807 } dim { size: 8 } dim { size: 3 } } } } }
node { name: "m" op: "MaxPool" input: "q" attr { key: "padding" value { s: "SAME" } }
  attr { key: "ksize" value { list { i: 1 i: 2 i: 1 i: 1 } } } attr { key: "strides" value { list { i: 1 i: 5 i: 1 i: 1 } } } }
node { name: "use" op: "NoOp" input: "s" }
)";
        const TfShapedImport imp = importTfGraphDef(parseTfGraphDef(text, "big.pbtxt"), "big.pbtxt", "big");
        QCOMPARE(outputOf(imp.shaped, "cat").shape, Shape{-1});                                           // 9e18 + 9e18
        QCOMPARE(outputOf(imp.shaped, "r").shape, (Shape{4000000000000000000, 4000000000000000000, -1})); // 16e36 unknown
        QCOMPARE(outputOf(imp.shaped, "s").shape, Shape{});       // the 4e9-value splat: unknown values, unknown rank
        QCOMPARE(outputOf(imp.shaped, "t").shape, (Shape{3, 3})); // a small splat is expanded
        QCOMPARE(outputOf(imp.shaped, "p").shape, (Shape{1, 0, 8, 3})); // a window wider than any input
        QCOMPARE(outputOf(imp.shaped, "m").shape, (Shape{1, 1844674407370955162, 8, 3})); // ceil((2^63 - 1) / 5)
    }

    // Placeholders with -1 dimensions: the leading one takes the batch, the others are
    // listed until --input-shape gives them (nothing is silently 1).
    void placeholderDimensionsAreGivenOrListed()
    {
        const std::string text = R"(node { name: "images" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 3 } } } } }
node { name: "w" op: "VariableV2" attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 8 } } } } }
node { name: "conv" op: "Conv2D" input: "images" input: "w"
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } } }
)";
        ImportOptions batch;
        batch.batch = 4;
        const ImportedGraph open = parseGraphWithPlacement(text, "det.pbtxt", GraphFormat::TfPbtxt, batch);
        QCOMPARE(open.unresolvedDims.size(), size_t(2));
        QCOMPARE(open.unresolvedDims[0].tensor, std::string("images"));
        QCOMPARE(open.unresolvedDims[0].axis, 1);
        QCOMPARE(open.unresolvedDims[1].axis, 2);
        QVERIFY(open.unresolvedDims[0].symbol.empty());
        QCOMPARE(open.unresolvedDims[1].shape, (std::vector<std::int64_t>{4, -1, -1, 3})); // batch and channels known

        ImportOptions given;
        given.inputShapes = {{"images", {2, 64, 32, 3}}};
        const ImportedGraph resolved = parseGraphWithPlacement(text, "det.pbtxt", GraphFormat::TfPbtxt, given);
        QVERIFY(resolved.unresolvedDims.empty());
        // SAME padding, stride 1: out [2, 64, 32, 8], 2 x 27 FLOPs per output element.
        QCOMPARE(resolved.forwardFlops, 2.0 * 27 * 2 * 64 * 32 * 8);

        ImportOptions wrongRank;
        wrongRank.inputShapes = {{"images", {2, 64, 32}}};
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraphWithPlacement(text, "det.pbtxt", GraphFormat::TfPbtxt, wrongRank));
        ImportOptions ghost;
        ghost.inputShapes = {{"pixels", {1, 2, 3, 4}}};
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraphWithPlacement(text, "det.pbtxt", GraphFormat::TfPbtxt, ghost));
        ImportOptions named;
        named.dims = {{"height", 5}};
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraphWithPlacement(text, "det.pbtxt", GraphFormat::TfPbtxt, named));
    }

    // A TF1 training step whose placeholder and every op's _output_shapes keep -1 (a
    // VGG-style graph written with an unknown batch and image size): its dimensions are
    // listed as unresolved (info, the Input Dimensions dialog) and, once given, reach every
    // op through the forward and gradient ops, not only the placeholder (issue 28 item 5).
    void trainingGraphUnknownSizesAreResolvedThroughEveryOp()
    {
        const std::string text = R"(node { name: "images" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 3 } } } }
  attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 3 } } } } } }
node { name: "w" op: "VariableV2" attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 8 } } } } }
node { name: "conv" op: "Conv2D" input: "images" input: "w"
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } }
  attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 8 } } } } } }
node { name: "relu" op: "Relu" input: "conv"
  attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 8 } } } } } }
node { name: "gradients/relu_grad/ReluGrad" op: "ReluGrad" input: "relu" input: "relu"
  attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 8 } } } } } }
node { name: "gradients/conv_grad/Shape" op: "Shape" input: "w"
  attr { key: "_output_shapes" value { list { shape { dim { size: 4 } } } } } }
node { name: "gradients/conv_grad/Conv2DBackpropFilter" op: "Conv2DBackpropFilter"
  input: "images" input: "gradients/conv_grad/Shape" input: "gradients/relu_grad/ReluGrad"
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } }
  attr { key: "_output_shapes" value { list { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: -1 } } } } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "update" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/conv_grad/Conv2DBackpropFilter" }
)";
        ImportOptions batch;
        batch.batch = 4;
        const ImportedGraph open = parseGraphWithPlacement(text, "dyn.pbtxt", GraphFormat::TfPbtxt, batch);
        QCOMPARE(open.unresolvedDims.size(), size_t(2));
        QCOMPARE(open.unresolvedDims[0].axis, 1);
        QCOMPARE(open.unresolvedDims[1].axis, 2);
        QVERIFY(!open.unshapedTensors.empty()); // conv's height and width wait for them

        ImportOptions given;
        given.inputShapes = {{"images", {2, 64, 32, 3}}};
        const ImportedGraph resolved = parseGraphWithPlacement(text, "dyn.pbtxt", GraphFormat::TfPbtxt, given);
        QVERIFY(resolved.unresolvedDims.empty());
        QCOMPARE(resolved.unshapedTensors, std::vector<std::string>{});
        const Graph& g = resolved.graph;
        // Every op sees the given size: conv's output [2, 64, 32, 8] (2 x 27 FLOPs an element),
        // the ReLU gradient as large as the ReLU, the filter gradient [3, 3, 3, 8] from Shape.
        const Op& conv = g.op(*g.find("conv"));
        QCOMPARE(conv.flops, 2.0 * 27 * 2 * 64 * 32 * 8);
        QCOMPARE(conv.outputBytes, 2.0 * 64 * 32 * 8 * 4);
        QCOMPARE(g.op(*g.find("gradients/relu_grad/ReluGrad")).outputBytes, 2.0 * 64 * 32 * 8 * 4);
        QCOMPARE(g.op(*g.find("gradients/conv_grad/Conv2DBackpropFilter")).outputBytes, 3.0 * 3 * 3 * 8 * 4);
        // Before, the -1 sizes counted as 1: the step was a few hundred FLOPs.
        const Op& openConv = open.graph.op(*open.graph.find("conv"));
        QVERIFY(conv.flops > 1000.0 * openConv.flops);
    }

    void cyclesAreNamed()
    {
        const std::string text = "node { name: \"a\" op: \"Relu\" input: \"c\" }\n"
                                 "node { name: \"b\" op: \"Relu\" input: \"a\" }\n"
                                 "node { name: \"c\" op: \"Relu\" input: \"b\" }\n";
        try {
            (void)importTfGraphDef(parseTfGraphDef(text, "cycle.pbtxt"), "cycle.pbtxt", "cycle");
            QFAIL("no InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.location()), QString("line 1"));
            QCOMPARE(QString::fromStdString(e.message()),
                     QString("the graph has a cycle: 'a' (line 1) <- 'c' (line 3) <- 'b' (line 2)"));
        }
    }

    void loopBackEdgesAreDropped()
    {
        // A TF1 while loop: Merge <- NextIteration is a back edge, not a cycle.
        const char* loop = R"(node { name: "x" op: "Placeholder" }
node { name: "enter" op: "Enter" input: "x" }
node { name: "merge" op: "Merge" input: "enter" input: "next" }
node { name: "body" op: "Relu" input: "merge" }
node { name: "next" op: "NextIteration" input: "body" }
)";
        const TfShapedImport imp = importTfGraphDef(parseTfGraphDef(loop, "loop.pbtxt"), "loop.pbtxt", "loop");
        QCOMPARE(imp.shaped.ops.size(), std::size_t(4));
        QCOMPARE(imp.shaped.ops[1].inputs.size(), std::size_t(1)); // merge reads enter only
    }
};

QTEST_APPLESS_MAIN(TestPbtxt)
#include "test_pbtxt.moc"
