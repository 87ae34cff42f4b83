// Bad input to every importer: each case must end in an InputError that names the file
// and the line or field at fault, never a crash or a silently accepted graph. Plus
// format sniffing.
#include "tests/support/TestData.h"

#include "core/io/GraphFile.h"
#include "core/util/InputError.h"

#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace post;

namespace {

const QByteArray kInput =
    "node1 -- Input -- forward_compute_time=5.0, backward_compute_time=0.0, activation_size=8.0, parameter_size=0.0\n";
const QByteArray kLinear = "node2 -- Linear(2, 2) -- forward_compute_time=1.0, backward_compute_time=2.0, "
                           "activation_size=4.0, parameter_size=24.0\n";
const QByteArray kRelu =
    "node3 -- ReLU() -- forward_compute_time=1.0, backward_compute_time=1.0, activation_size=4.0, parameter_size=0.0\n";

QByteArray linearWith(const char* from, const char* to) { return QByteArray(kLinear).replace(from, to); }

QByteArray msr(const QByteArray& nodes, const QByteArray& edges)
{
    return R"({"maxSizePerFPGA": 1e9, "nodes": [)" + nodes + R"(], "edges": [)" + edges + "]}";
}

const QByteArray kNodeA =
    R"({"id": 1, "name": "a", "supportedOnFpga": 1, "cpuLatency": 1.0, "fpgaLatency": 0.1, "isBackwardNode": 0, "colorClass": 1, "size": 4})";
const QByteArray kNodeB =
    R"({"id": 2, "name": "b", "supportedOnFpga": 1, "cpuLatency": 2.0, "fpgaLatency": 0.2, "isBackwardNode": 0, "colorClass": 2, "size": 4})";
const QByteArray kEdgeAB = R"({"sourceId": 1, "destId": 2, "cost": 0.5, "size": 16})";

QByteArray nodeA(const char* from, const char* to) { return QByteArray(kNodeA).replace(from, to); }

const QByteArray kPipeDreamLabel =
    R"("Linear(2, 2)\n[forward_compute_time=1.0,backward_compute_time=2.0,activation_size=4.0,parameter_size=24.0]")";

// A hand-made input kept with the fuzzers' regressions (tests/data/fuzz-regressions/).
QByteArray regressionInput(const char* path)
{
    QFile file(testdata::sourceDir() + "/tests/data/fuzz-regressions/" + path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

GraphFormat formatFromName(const QString& name) { return *parseGraphFormat(name.toStdString()); }

QString formatName(GraphFormat format)
{
    const std::string_view name = post::toString(format);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

// `nodes` Relu nodes a0.., each read at port 65,535 by a node b0..: 65,536 outputs each, the
// most one node may have; the sixteenth passes the graph's million tensors. Line 2i + 2 reads a_i.
QByteArray widePorts(int nodes)
{
    QByteArray text;
    for (int i = 0; i < nodes; ++i) {
        const QByteArray n = QByteArray::number(i);
        text += "node { name: \"a" + n + "\" op: \"Relu\" }\nnode { name: \"b" + n + "\" op: \"Relu\" input: \"a" + n
            + ":65535\" }\n";
    }
    return text;
}

} // namespace

class TestImportersMalformed : public QObject {
    Q_OBJECT

private slots:
    void rejectsWithLocation_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("location"); // exact InputError::location()
        QTest::addColumn<QString>("message");  // a part of InputError::message()

        // PipeDream graph.txt
        QTest::newRow("pd truncated stats") << "pipedream" << kInput.left(60) << "line 1"
                                            << "expected key=value";
        QTest::newRow("pd truncated second line") << "pipedream" << kInput + kLinear.left(20) << "line 2"
                                                  << "malformed node line";
        QTest::newRow("pd bad number") << "pipedream" << kInput + linearWith("=1.0,", "=1.0x,") << "line 2"
                                       << "forward_compute_time: '1.0x' is not a number";
        QTest::newRow("pd negative time") << "pipedream" << kInput + linearWith("=2.0", "=-2.0") << "line 2"
                                          << "backward_compute_time must be >= 0, got -2.0";
        QTest::newRow("pd nan") << "pipedream" << kInput + linearWith("activation_size=4.0", "activation_size=nan")
                                << "line 2"
                                << "activation_size must be a finite number";
        QTest::newRow("pd inf") << "pipedream" << kInput + linearWith("parameter_size=24.0", "parameter_size=inf")
                                << "line 2"
                                << "parameter_size must be a finite number";
        QTest::newRow("pd open list") << "pipedream"
                                      << kInput + linearWith("activation_size=4.0", "activation_size=[1; 2") << "line 2"
                                      << "lacks its closing ']'";
        QTest::newRow("pd bad list item")
            << "pipedream" << kInput + linearWith("activation_size=4.0", "activation_size=[1; x]") << "line 2"
            << "activation_size: 'x' is not a number";
        QTest::newRow("pd missing key") << "pipedream" << kInput + linearWith(", parameter_size=24.0", "") << "line 2"
                                        << "missing parameter_size";
        QTest::newRow("pd repeated key") << "pipedream" << kInput + linearWith("parameter_size", "forward_compute_time")
                                         << "line 2"
                                         << "forward_compute_time is given twice";
        QTest::newRow("pd unknown node") << "pipedream" << kInput + kLinear + "\tnode1 -- node9\n"
                                         << "line 3"
                                         << "edge names unknown node 'node9'";
        QTest::newRow("pd duplicate node") << "pipedream" << kInput + kInput << "line 2"
                                           << "duplicate node 'node1' (first defined at line 1)";
        QTest::newRow("pd cycle") << "pipedream"
                                  << kInput + kLinear + kRelu + "\tnode1 -- node2\n\tnode2 -- node3\n\tnode3 -- node2\n"
                                  << "line 6" // the cycle's edge listed last, the one that closed it
                                  << "cycle: node";
        QTest::newRow("pd self loop") << "pipedream" << kInput + kLinear + "\tnode2 -- node2\n"
                                      << "line 3"
                                      << "cycle: node2 -> node2";
        QTest::newRow("pd malformed edge") << "pipedream" << kInput + kLinear + "\tnode1 node2\n"
                                           << "line 3"
                                           << "malformed edge line";
        QTest::newRow("pd bad stage") << "pipedream" << kInput + kLinear.trimmed() + " -- stage_id=x\n"
                                      << "line 2"
                                      << "stage_id must be an integer";
        QTest::newRow("pd grad name") << "pipedream" << kInput + linearWith("node2", "node1/grad") << "line 2"
                                      << "ends with '/grad'";
        QTest::newRow("pd garbage") << "pipedream" << QByteArray("hello world\n") << "line 1"
                                    << "malformed node line";
        QTest::newRow("pd binary") << "pipedream"
                                   << QByteArray("\x7f"
                                                 "ELF\x02\x01\x01\0\0\0",
                                                 10)
                                   << "line 1"
                                   << "malformed node line";
        QTest::newRow("pd edges only") << "pipedream" << QByteArray("\tnode1 -- node2\n") << "line 1"
                                       << "unknown node 'node1'";
        QTest::newRow("pd empty") << "pipedream" << QByteArray() << ""
                                  << "file is empty";
        QTest::newRow("pd blank") << "pipedream" << QByteArray("\n \t\n\n") << ""
                                  << "file is empty";

        // MSR JSON
        QTest::newRow("msr truncated") << "msr" << msr(kNodeA, kEdgeAB).left(40) << "line 1"
                                       << "invalid JSON";
        QTest::newRow("msr truncated lines")
            << "msr" << QByteArray("{\n\"nodes\": [\n{\"id\": 1,\n\"name\": ") << "line 4"
            << "invalid JSON";
        QTest::newRow("msr NaN") << "msr" << msr(nodeA("0.1", "NaN"), "") << "line 1"
                                 << "invalid JSON";
        QTest::newRow("msr overflow") << "msr" << msr(nodeA("0.1", "1e999"), "") << "line 1"
                                      << "number overflow";
        QTest::newRow("msr string latency") << "msr" << msr(nodeA("0.1", "\"fast\""), "") << "nodes[0].fpgaLatency"
                                            << "must be a number, got string";
        QTest::newRow("msr bool latency") << "msr" << msr(nodeA("1.0", "true"), "") << "nodes[0].cpuLatency"
                                          << "must be a number, got boolean";
        QTest::newRow("msr negative latency")
            << "msr" << msr(kNodeA + "," + QByteArray(kNodeB).replace("2.0", "-2.0"), "") << "nodes[1].cpuLatency"
            << "must be >= 0";
        QTest::newRow("msr missing latency")
            << "msr" << msr(nodeA(R"("fpgaLatency": 0.1, )", ""), "") << "nodes[0].fpgaLatency"
            << "missing";
        QTest::newRow("msr float id") << "msr" << msr(nodeA(R"("id": 1)", R"("id": 1.5)"), "") << "nodes[0].id"
                                      << "must be an integer";
        QTest::newRow("msr duplicate id")
            << "msr" << msr(kNodeA + "," + QByteArray(kNodeB).replace(R"("id": 2)", R"("id": 1)"), "") << "nodes[1].id"
            << "duplicate id 1 (also nodes[0])";
        QTest::newRow("msr bad flag") << "msr" << msr(nodeA(R"("supportedOnFpga": 1)", R"("supportedOnFpga": 2)"), "")
                                      << "nodes[0].supportedOnFpga"
                                      << "must be true/false or 1/0";
        QTest::newRow("msr string class")
            << "msr" << msr(nodeA(R"("colorClass": 1)", R"("colorClass": "red")"), "") << "nodes[0].colorClass"
            << "must be an integer";
        QTest::newRow("msr numeric name") << "msr" << msr(nodeA(R"("name": "a")", R"("name": 7)"), "") << "nodes[0].name"
                                          << "must be a string";
        QTest::newRow("msr node not object") << "msr" << msr("3", "") << "nodes[0]"
                                             << "must be an object";
        QTest::newRow("msr negative cost")
            << "msr" << msr(kNodeA + "," + kNodeB, QByteArray(kEdgeAB).replace("0.5", "-0.5")) << "edges[0].cost"
            << "must be >= 0";
        QTest::newRow("msr negative size")
            << "msr" << msr(kNodeA + "," + kNodeB, QByteArray(kEdgeAB).replace("16", "-16")) << "edges[0].size"
            << "must be >= 0";
        QTest::newRow("msr unknown node")
            << "msr" << msr(kNodeA + "," + kNodeB, QByteArray(kEdgeAB).replace("\"destId\": 2", "\"destId\": 99"))
            << "edges[0].destId"
            << "no node has id 99";
        QTest::newRow("msr self loop") << "msr"
                                       << msr(kNodeA + "," + kNodeB,
                                              QByteArray(kEdgeAB).replace("\"destId\": 2", "\"destId\": 1"))
                                       << "edges[0]"
                                       << "cycle";
        QTest::newRow("msr cycle") << "msr"
                                   << msr(kNodeA + "," + kNodeB,
                                          kEdgeAB + "," + R"({"sourceId": 2, "destId": 1, "cost": 0})")
                                   << "edges"
                                   << "cycle: 'b' -> 'a' -> 'b'";
        QTest::newRow("msr edge not object") << "msr" << msr(kNodeA, "[]") << "edges[0]"
                                             << "must be an object";
        QTest::newRow("msr nodes not array") << "msr" << QByteArray(R"({"nodes": {}, "edges": []})") << "nodes"
                                             << "must be an array";
        QTest::newRow("msr no nodes") << "msr" << msr("", "") << "nodes"
                                      << "is empty";
        QTest::newRow("msr missing edges") << "msr" << QByteArray("{\"nodes\": [" + kNodeA + "]}") << "edges"
                                           << "missing";
        QTest::newRow("msr top array") << "msr" << QByteArray("[1, 2]") << "(top level)"
                                       << "must be an object";
        QTest::newRow("msr garbage") << "msr" << QByteArray("hello") << "line 1"
                                     << "invalid JSON";

        // Graphviz DOT
        QTest::newRow("dot syntax") << "dot" << QByteArray("digraph {\n a -> b\n c -> \n}\n") << "line 4"
                                    << "syntax error";
        QTest::newRow("dot truncated") << "dot" << QByteArray("digraph {\n a -> b\n") << "line 2"
                                       << "syntax error";
        QTest::newRow("dot open string") << "dot" << QByteArray("digraph {\n a [label=\"abc]\n}") << "line 2"
                                         << "missing endquote";
        QTest::newRow("dot garbage") << "dot" << QByteArray("hello world") << "line 1"
                                     << "syntax error";
        QTest::newRow("dot junk after") << "dot" << QByteArray("digraph { a } junk") << "line 1"
                                        << "syntax error";
        QTest::newRow("dot junk next line") << "dot" << QByteArray("digraph { a }\n\n junk") << "line 3"
                                            << "syntax error";
        QTest::newRow("dot graph next line") << "dot" << QByteArray("digraph { a }\ndigraph { b }") << ""
                                             << "more than one graph";
        QTest::newRow("dot open string after") << "dot" << QByteArray("digraph { a } \"tail") << ""
                                               << "unclosed quoted string";
        QTest::newRow("dot open comment after") << "dot" << QByteArray("digraph { a }\n/* x") << ""
                                                << "unclosed quoted string, HTML string or /* comment";
        QTest::newRow("dot two graphs") << "dot" << QByteArray("digraph { a } digraph { b }") << ""
                                        << "more than one graph";
        QTest::newRow("dot nul") << "dot" << QByteArray("digraph { a }\0 junk", 19) << ""
                                 << "NUL bytes";
        QTest::newRow("dot no nodes") << "dot" << QByteArray("digraph G {}") << ""
                                      << "no nodes";
        QTest::newRow("dot undirected") << "dot" << QByteArray("graph { a -- b }") << ""
                                        << "undirected";
        QTest::newRow("dot bad time") << "dot" << QByteArray("digraph { a [time_us_gpu=\"fast\"] }")
                                      << "node 'a' attribute time_us_gpu"
                                      << "'fast' is not a number";
        QTest::newRow("dot nan time") << "dot" << QByteArray("digraph { a [time_us=nan] }")
                                      << "node 'a' attribute time_us"
                                      << "must be a finite number";
        QTest::newRow("dot negative params")
            << "dot" << QByteArray("digraph { a [param_bytes=-4] }") << "node 'a' attribute param_bytes"
            << "must be >= 0";
        QTest::newRow("dot negative bytes")
            << "dot" << QByteArray("digraph { a -> b [bytes=-1] }") << "edge 'a' -> 'b' attribute bytes"
            << "must be >= 0";
        QTest::newRow("dot self loop") << "dot" << QByteArray("digraph { a -> a }") << "edge 'a' -> 'a'"
                                       << "cycle";
        QTest::newRow("dot cycle") << "dot" << QByteArray("digraph { a -> b -> c -> b }") << ""
                                   << "cycle: 'c' -> 'b' -> 'c'";
        QTest::newRow("dot mixed labels")
            << "dot" << QByteArray("digraph { a [label=" + kPipeDreamLabel + "]; b; a -> b }") << "node 'b'"
            << "lacks PipeDream's";
        QTest::newRow("dot pipedream bad number")
            << "dot" << QByteArray("digraph { a [label=" + QByteArray(kPipeDreamLabel).replace("=2.0", "=x") + "] }")
            << "node 'a'"
            << "backward_compute_time: 'x' is not a number";
        QTest::newRow("dot pipedream cycle") << "dot"
                                             << QByteArray("digraph { a [label=" + kPipeDreamLabel
                                                           + "]; b [label=" + kPipeDreamLabel + "]; a -> b; b -> a }")
                                             << "edge 'b' -> 'a'" // the cycle's edge listed last
                                             << "cycle";

        // TensorFlow GraphDef text (more in test_pbtxt)
        QTest::newRow("pbtxt port beyond a node's output limit")
            << "pbtxt"
            << QByteArray(
                   "node { name: \"a\" op: \"Relu\" }\nnode { name: \"b\" op: \"Relu\"\n  input: \"a:1000000\" }\n")
            << "line 3"
            << "input 'a:1000000': node 'a' would have 1000001 outputs; a node may have at most 65536 outputs";
        QTest::newRow("pbtxt ports beyond the graph's tensor limit")
            << "pbtxt" << widePorts(16) << "line 32"
            << "input 'a15:65535': node 'a15' would have 65536 "
               "outputs; a graph may have at most 1000000 tensors";

        // ONNX (more in test_onnx_reader): what libonnx 1.12's shape inference would crash on
        QTest::newRow("onnx zero stride")
            << "onnx" << regressionInput("onnx/pool-zero-stride.onnx") << "node 0 'pool' (AveragePool)"
            << "attribute strides must hold values >= 1, got 0";
        QTest::newRow("onnx zero stride in a branch") << "onnx" << regressionInput("onnx/if-branch-zero-stride.onnx")
                                                      << "node 1 'branch' (If), then_branch node 0 'inner' (MaxPool)"
                                                      << "attribute strides must hold values >= 1, got 0";
        QTest::newRow("onnx rank-1 transposed-conv weight")
            << "onnx" << regressionInput("onnx/convtranspose-rank1-weight.onnx") << "node 1 'up' (ConvTranspose)"
            << "shape inference failed: the weight has rank 1";
        QTest::newRow("onnx conv weight rank above the input's")
            << "onnx" << regressionInput("onnx/conv-weight-rank-above-input.onnx") << "node 0 'conv' (Conv)"
            << "the input has rank 4 but the weight rank 6";
        // Once refused at the Expand (node 17: "the shape input has 7061644215716937728
        // elements"); the ConstantOfShape before it already infers a dimension that wrapped.
        QTest::newRow("onnx Expand shape of 7e18 elements (an out-of-memory kill)")
            << "onnx" << regressionInput("onnx/limit-expand-shape-from-huge-range.onnx")
            << "node 13 'ones' (ConstantOfShape)"
            << "output 0 has dimension 0 of -17179869182 (a size that wrapped)";
        // The fuzzer's original (the row above has it with dims [1]) has a Constant of dims [58]
        // holding 8 bytes, one element: data contradicting its dims, refused before inference reads it.
        QTest::newRow("onnx constant raw_data shorter than its dims")
            << "onnx" << regressionInput("onnx/expand-shape-from-huge-range.onnx")
            << "node 9 'two1' (Constant), attribute value (tensor 'two1_v')"
            << "holds 8 bytes of raw data, but type int64 and dims [58] need 464";
        // One byte for an int64 scalar: libonnx 1.12 wrote it through a null pointer.
        QTest::newRow("onnx constant raw_data shorter than one element")
            << "onnx" << regressionInput("onnx/raw-data-not-fitting-dims.onnx")
            << "node 16 'one' (Constant), attribute value (tensor 'one_v')"
            << "holds 1 byte of raw data, but type int64 and dims [] need 8";
        QTest::newRow("onnx ConstantOfShape of rank 1e8")
            << "onnx" << regressionInput("onnx/limit-constantofshape-rank.onnx") << "node 0 'fill' (ConstantOfShape)"
            << "the shape input has 100000000 elements";

        // Automatic format detection
        QTest::newRow("auto garbage") << "auto" << QByteArray("hello world\n") << ""
                                      << "unrecognized graph format; supported:";
        QTest::newRow("auto binary") << "auto" << QByteArray("\x89PNG\r\n\x1a\n\0\0", 10) << ""
                                     << "unrecognized graph format";
        QTest::newRow("auto empty") << "auto" << QByteArray() << ""
                                    << "file is empty";
        QTest::newRow("auto blank") << "auto" << QByteArray(" \n\t\r\n") << ""
                                    << "file is empty";
        QTest::newRow("auto other json") << "auto" << QByteArray(R"({"a": 1})") << ""
                                         << "neither a post-graph nor an MSR graph";
        QTest::newRow("auto truncated msr") << "auto" << QByteArray(R"({"maxSizePerFPGA": 1, "nodes": [)") << "line 1"
                                            << "invalid JSON";
        QTest::newRow("auto truncated pipedream") << "auto" << kInput + kLinear.left(30) << "line 2"
                                                  << "malformed node line";
    }

    void rejectsWithLocation()
    {
        QFETCH(QString, format);
        QFETCH(QByteArray, content);
        QFETCH(QString, location);
        QFETCH(QString, message);
        const std::string source = "bad/input.file";
        try {
            const Graph g = parseGraph(std::string_view(content.constData(), static_cast<size_t>(content.size())),
                                       source, formatFromName(format));
            QFAIL(qPrintable("accepted: " + QString::number(g.opCount()) + " ops"));
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(source));
            QCOMPARE(QString::fromStdString(e.location()), location);
            QVERIFY2(QString::fromStdString(e.message()).contains(message), e.what());
            QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(source) + ": "), e.what());
        }
    }

    void rejectsBadCpuSlowdown()
    {
        ImportOptions options;
        options.cpuSlowdown = 0.0;
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraph("digraph { a }", "g.dot", GraphFormat::Auto, options));
        options.cpuSlowdown = std::nan("");
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraph("digraph { a }", "g.dot", GraphFormat::Auto, options));
    }

    void fileErrorsNameTheFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string missing = (dir.path() + "/missing.txt").toStdString();
        try {
            readGraphFile(missing);
            QFAIL("read a missing file");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), missing);
            QVERIFY2(QString::fromStdString(e.message()).contains("cannot open"), e.what());
        }
        const QString emptyPath = dir.path() + "/empty.json";
        QFile empty(emptyPath);
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        try {
            readGraphFile(emptyPath.toStdString());
            QFAIL("read an empty file");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), emptyPath.toStdString());
            QCOMPARE(e.message(), std::string("file is empty"));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, readGraphFile(dir.path().toStdString()));
    }

    // cgraph's parser keeps state between calls: a failed or multi-graph read must not
    // leak into the next one.
    void dotParserRecoversBetweenReads()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraph("digraph { a -> ", "a.dot", GraphFormat::Dot));
        QCOMPARE(parseGraph("digraph { x -> y }", "b.dot", GraphFormat::Dot).opCount(), 2);
        QVERIFY_THROWS_EXCEPTION(InputError, parseGraph("digraph { a } digraph { b; c; d }", "c.dot", GraphFormat::Dot));
        const Graph g = parseGraph("digraph { p }", "d.dot", GraphFormat::Dot);
        QCOMPARE(g.opCount(), 1);
        QCOMPARE(g.op(0).name, std::string("p"));
        // An input ending inside a quoted string, an HTML string (nested) or a comment left
        // cgraph's scanner in that state, and the next valid file was "no graph found".
        for (const char* open : {"digraph { a [label=\"abc", "digraph { a [label=<<b>x", "digraph { a /* note",
                                 "digraph { a } \"tail", "digraph { a } /*", "\""}) {
            QVERIFY_THROWS_EXCEPTION(InputError, parseGraph(open, "open.dot", GraphFormat::Dot));
            const Graph next = parseGraph("digraph { x -> y }", "next.dot", GraphFormat::Dot);
            QCOMPARE(next.opCount(), 2);
            QCOMPARE(next.op(0).name, std::string("x"));
        }
        // Line numbers restart with each read.
        try {
            parseGraph("digraph {\n\n x -> }", "e.dot", GraphFormat::Dot);
            QFAIL("accepted a syntax error");
        } catch (const InputError& e) {
            QCOMPARE(e.location(), std::string("line 3"));
        }
    }

    void sniffing_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("format");
        QTest::newRow("post-graph") << QByteArray(R"({"format": "post-graph/1", "ops": []})") << "g.json"
                                    << "post-graph";
        QTest::newRow("post-graph any name") << QByteArray("\n  {\"format\":\"post-graph/1\"}") << "g.txt"
                                             << "post-graph";
        QTest::newRow("msr") << QByteArray(R"({"maxSizePerFPGA": 1, "nodes": [], "edges": []})") << "m.json"
                             << "msr";
        QTest::newRow("msr nodes first") << QByteArray(R"({"nodes": [{"id": 0, "fpgaLatency": 1}], "edges": []})") << "x"
                                         << "msr";
        QTest::newRow("dot") << QByteArray("digraph { a -> b }") << "g"
                             << "dot";
        QTest::newRow("dot named") << QByteArray("digraph G{}") << "g"
                                   << "dot";
        QTest::newRow("dot comments") << QByteArray("// c\n/* d\n e */\n# 1 \"x\"\nstrict digraph G {}") << "g"
                                      << "dot";
        QTest::newRow("dot case") << QByteArray("DiGraph { }") << "g"
                                  << "dot";
        QTest::newRow("dot undirected") << QByteArray("graph { a -- b }") << "g"
                                        << "dot";
        QTest::newRow("dot bom") << QByteArray("\xEF\xBB\xBF"
                                               "digraph {}")
                                 << "g"
                                 << "dot";
        QTest::newRow("dot broken by name") << QByteArray("digrph { a }") << "g.gv"
                                            << "dot";
        QTest::newRow("pipedream") << kInput + kLinear + "\tnode1 -- node2\n"
                                   << "graph.txt"
                                   << "pipedream";
        QTest::newRow("pipedream blank start") << "\n\n" + kLinear << "x"
                                               << "pipedream";
    }

    void sniffing()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, path);
        QFETCH(QString, format);
        QCOMPARE(formatName(sniffGraphFormat(content.toStdString(), path.toStdString())), format);
    }

    void sniffingRejects_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("path");
        QTest::newRow("digraph prefix of a word") << QByteArray("digraphs { a }") << "g.txt";
        QTest::newRow("plain text") << QByteArray("a -- b -- c") << "notes.txt";
        QTest::newRow("json array") << QByteArray("[1, 2]") << "x.json";
        QTest::newRow("empty") << QByteArray("") << "x.dot";
    }

    void sniffingRejects()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, path);
        try {
            sniffGraphFormat(content.toStdString(), path.toStdString());
            QFAIL("recognised");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), path.toStdString());
        }
    }

    // What a reader takes in but doubts is warned about, naming what: PipeDream nodes no edge
    // joins (a file cut short at a line's end), MSR keys the format does not have (a misspelled
    // "cpuLatency" left every CPU time derived without a word).
    void doubtfulInputIsWarned()
    {
        const auto warnings = [](const QByteArray& text, const char* source) {
            QStringList list;
            for (const std::string& w : parseGraphWithPlacement(text.toStdString(), source).warnings)
                list << QString::fromStdString(w);
            return list;
        };
        QCOMPARE(warnings(kInput + kLinear + kRelu + "\tnode1 -- node2\n\tnode2 -- node3\n", "p.txt"), QStringList());
        const QStringList alone = warnings(kInput + kLinear + kRelu + "\tnode1 -- node2\n", "p.txt");
        QCOMPARE(alone.size(), 1);
        QVERIFY2(alone[0].startsWith("1 of 3 nodes have no edge (node3)"), qPrintable(alone[0]));
        // One node alone, and no edges at all: nothing to doubt.
        QCOMPARE(warnings(kInput, "p.txt"), QStringList());

        QCOMPARE(warnings(msr(kNodeA + "," + kNodeB, kEdgeAB), "m.json"), QStringList());
        const QStringList typo = warnings(msr(nodeA("cpuLatency", "cpuLatncy") + "," + kNodeB, kEdgeAB), "m.json");
        QCOMPARE(typo.size(), 1);
        QVERIFY2(typo[0].startsWith(R"(nodes[0].cpuLatncy: "cpuLatncy" is not a key of MSR's nodes)"),
                 qPrintable(typo[0]));
        QVERIFY2(typo[0].contains("in the 1 that have it; a node without \"cpuLatency\" takes its fpgaLatency x 10"),
                 qPrintable(typo[0]));
        const Graph g = parseGraph(msr(nodeA("cpuLatency", "cpuLatncy") + "," + kNodeB, kEdgeAB).toStdString(), "m.json");
        QVERIFY(g.op(0).derived(DeviceKind::Cpu));
        QVERIFY(!g.op(1).derived(DeviceKind::Cpu));
        const QStringList edge = warnings(
            msr(kNodeA + "," + kNodeB, QByteArray(kEdgeAB).replace("\"cost\"", "\"bytes\": 16, \"cost\"")), "m.json");
        QCOMPARE(edge.size(), 1);
        QVERIFY2(edge[0].startsWith(R"(edges[0].bytes: "bytes" is not a key of MSR's edges)"), qPrintable(edge[0]));
    }

    // The real PipeDream and MSR files are read without a warning; the PipeDream profiles' CPU
    // times are derived and their GPU times given.
    void realFilesAreNotDoubted()
    {
        REQUIRE_SHARED_DATA(data);
        QDirIterator it(data, {"*.txt", "*.json"}, QDir::Files, QDirIterator::Subdirectories);
        int files = 0;
        while (it.hasNext()) {
            const QString path = it.next();
            if (!path.contains("/pipedream/") && !path.contains("/msr/"))
                continue;
            if (path.endsWith("LICENSE.txt"))
                continue;
            const ImportedGraph g = readGraphFileWithPlacement(path.toStdString());
            QVERIFY2(g.warnings.empty(),
                     qPrintable(path + ": " + QString::fromStdString(g.warnings.empty() ? "" : g.warnings.front())));
            if (path.contains("/pipedream/")) {
                QVERIFY(g.graph.op(0).derived(DeviceKind::Cpu));
                QVERIFY(!g.graph.op(0).derived(DeviceKind::Gpu));
            }
            ++files;
        }
        QVERIFY(files >= 20);
        // A real profile cut at the end of a line in its edges: read, but warned about.
        QFile file(data + "/pipedream/resnet18/graph.txt");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        const qsizetype cut = text.indexOf('\n', text.indexOf("\n\t") + (text.size() - text.indexOf("\n\t")) / 2) + 1;
        const ImportedGraph g = parseGraphWithPlacement(text.left(cut).toStdString(), "cut.txt");
        QCOMPARE(g.warnings.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(g.warnings[0]).contains("nodes have no edge"), g.warnings[0].c_str());
    }

    // Every prefix of every real file either imports or fails with InputError.
    void truncatedRealFiles()
    {
        REQUIRE_SHARED_DATA(data);
        QDirIterator it(data, {"*.txt", "*.dot", "*.json"}, QDir::Files, QDirIterator::Subdirectories);
        int files = 0, rejected = 0;
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.endsWith("LICENSE.txt"))
                continue;
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray text = file.readAll();
            ++files;
            for (int k = 0; k < 12; ++k) {
                const QByteArray prefix = text.left(static_cast<qsizetype>(text.size() * k / 12 + 7 * k));
                try {
                    parseGraph(prefix.toStdString(), path.toStdString());
                } catch (const InputError& e) {
                    QCOMPARE(e.file(), path.toStdString());
                    ++rejected;
                }
            }
        }
        QVERIFY(files >= 23);
        QVERIFY(rejected > files * 6); // most cuts land mid-line or mid-JSON
    }
};

QTEST_APPLESS_MAIN(TestImportersMalformed)
#include "test_importers_malformed.moc"
