// The reliability corpus of issue 20, below the CLI: names that are not UTF-8, figures past
// their documented bounds, ids that wrap, an edge-product bomb hidden in re-opened DOT
// subgraphs. Every case must end in an InputError naming the file and the line or field
// as the user wrote it; the CLI side (special files, outputs, exit codes, time and memory)
// is tests/cli/test_cli_malformed.cpp.
#include "tests/support/TestData.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/GraphFile.h"
#include "core/io/json/JsonOutput.h"
#include "core/io/native/ClusterFile.h"
#include "core/util/InputError.h"
#include "core/util/Utf8.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFile>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace post;

namespace {

const QByteArray kInput =
    "node1 -- Input -- forward_compute_time=5.0, backward_compute_time=0.0, activation_size=8.0, parameter_size=0.0\n";
const QByteArray kLinear = "node2 -- Linear(2, 2) -- forward_compute_time=1.0, backward_compute_time=2.0, "
                           "activation_size=4.0, parameter_size=24.0\n\tnode1 -- node2\n";

QByteArray linearWith(const char* from, const QByteArray& to) { return QByteArray(kLinear).replace(from, to); }

QByteArray msr(const QByteArray& node, const QByteArray& edge)
{
    return R"({"nodes": [)" + node + R"(, {"id": 2, "name": "b", "cpuLatency": 2.0, "fpgaLatency": 0.2}], "edges": [)"
        + edge + "]}";
}
const QByteArray kNodeA = R"({"id": 1, "name": "a", "cpuLatency": 1.0, "fpgaLatency": 0.1})";
const QByteArray kEdgeAB = R"({"sourceId": 1, "destId": 2, "cost": 0.5, "size": 16})";

QByteArray cluster(const QByteArray& field)
{
    return R"({"format": "post-cluster/1", "name": "c", "devices": [{"name": "/device:GPU:0", "kind": "gpu", )" + field
        + "}]}";
}

QByteArray fileData(const QString& relative)
{
    QFile file(testdata::sourceDir() + "/tests/data/" + relative);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

GraphFormat formatFromName(const QString& name) { return *parseGraphFormat(name.toStdString()); }

std::string_view view(const QByteArray& bytes) { return {bytes.constData(), static_cast<size_t>(bytes.size())}; }

} // namespace

class TestMalformedCorpus : public QObject {
    Q_OBJECT

private slots:
    void graphsRejectedNamingLineOrField_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("location"); // exact InputError::location()
        QTest::addColumn<QString>("message");  // a part of InputError::message()

        // Names that are not UTF-8: refused at import (once: only when the result was written).
        QTest::newRow("pipedream id not UTF-8")
            << "pipedream" << kInput + linearWith("node2 --", "node\xff --").replace("-- node2", "-- node\xff")
            << "line 2"
            << "node id 'node\\xFF' is not valid UTF-8 (byte 0xFF at offset 4)";
        QTest::newRow("pipedream description not UTF-8")
            << "pipedream" << kInput + linearWith("Linear(2, 2)", "Lin\xc3(2, 2)") << "line 2"
            << "node description 'Lin\\xC3(2, 2)' is not valid UTF-8";
        QTest::newRow("dot name not UTF-8")
            << "dot" << QByteArray("digraph { \"a\xc0\xaf\" -> b }") << "node 'a\\xC0\\xAF'"
            << "op name 'a\\xC0\\xAF' is not valid UTF-8";
        QTest::newRow("dot type not UTF-8")
            << "dot" << QByteArray("digraph { a [type=\"Mat\xed\xa0\x80Mul\"] }") << "node 'a'"
            << "op type 'Mat\\xED\\xA0\\x80Mul' is not valid UTF-8";
        QTest::newRow("pbtxt name not UTF-8 (octal escape)")
            << "pbtxt"
            << QByteArray("node { name: \"x\" op: \"Placeholder\" }\nnode { name: \"r\\377\" op: \"Relu\" "
                          "input: \"x\" }\n")
            << "line 2"
            << "is not valid UTF-8";
        QTest::newRow("onnx node name not UTF-8")
            << "onnx" << fileData("malformed/node-name-not-utf8.onnx") << "node 0 'relu\\xFF' (Relu)"
            << "op name 'relu\\xFF' is not valid UTF-8";

        // Figures past GraphBuilder's bounds, named as the file writes them (once: as the
        // CPU time derived from them, without a line).
        QTest::newRow("pipedream time past the bound")
            << "pipedream" << kInput + linearWith("forward_compute_time=1.0", "forward_compute_time=1e13") << "line 2"
            << "forward_compute_time must be at most 1e+12 (ms), got 1e13";
        QTest::newRow("pipedream size past the bound")
            << "pipedream" << kInput + linearWith("parameter_size=24.0", "parameter_size=2e24") << "line 2"
            << "parameter_size must be at most 1e+24, got 2e24";
        QTest::newRow("dot gpu time past the bound")
            << "dot" << QByteArray("digraph { a [time_us_gpu=\"2e15\"] }") << "node 'a' attribute time_us_gpu"
            << "must be at most 1e+15, got 2e15";
        QTest::newRow("dot edge bytes past the bound")
            << "dot" << QByteArray("digraph { a -> b [bytes=\"1e30\"] }") << "edge 'a' -> 'b' attribute bytes"
            << "must be at most 1e+24, got 1e30";
        QTest::newRow("msr latency past the bound")
            << "msr" << msr(QByteArray(kNodeA).replace("0.1", "1e13"), kEdgeAB) << "nodes[0].fpgaLatency"
            << "must be at most 1e+12, got 10000000000000.0";
        QTest::newRow("msr edge size past the bound: the edge, not nodes[0]")
            << "msr" << msr(kNodeA, QByteArray(kEdgeAB).replace("16", "1e30")) << "edges[0].size"
            << "must be at most 1e+24";
        QTest::newRow("msr edge cost past the bound")
            << "msr" << msr(kNodeA, R"({"sourceId": 1, "destId": 2, "cost": 1e300})") << "edges[0].cost"
            << "must be at most";
        QTest::newRow("msr key twice in one node (nlohmann kept the last)")
            << "msr" << msr(R"({"id": 1, "name": "a", "fpgaLatency": 0.1, "fpgaLatency": 9})", kEdgeAB)
            << "field nodes[0]"
            << "the key \"fpgaLatency\" appears twice";
        QTest::newRow("msr id past uint64")
            << "msr" << msr(R"({"id": 18446744073709551616, "fpgaLatency": 0.1})", "") << "nodes[0].id"
            << "must be an integer, got 1.8446744073709552e+19";
        QTest::newRow("post-graph gpu time past the bound (once named time_us.cpu)")
            << "post-graph"
            << QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": 2e15}}], "edges": []})")
            << "field ops[0]"
            << "time_us.gpu must be at most 1e+15, got 2e+15";
        QTest::newRow("onnx initializer of negative dimension")
            << "onnx" << fileData("fuzz-regressions/onnx/limit-initializer-negative-dim.onnx") << "initializer 'w'"
            << "dims[0] must be >= 0, got -3";

        // The DOT edge-product bomb through re-opened named subgraphs (2.25M edges from 16 KB).
        QTest::newRow("dot re-opened subgraphs")
            << "dot" << fileData("fuzz-regressions/dot/limit-reopened-subgraphs.dot") << "line 6"
            << "the edge statements make more than 100000 edges";
    }

    void graphsRejectedNamingLineOrField()
    {
        QFETCH(QString, format);
        QFETCH(QByteArray, content);
        QFETCH(QString, location);
        QFETCH(QString, message);
        QVERIFY2(!content.isEmpty(), "test input missing");
        const std::string source = "bad/input.file";
        QElapsedTimer clock;
        clock.start();
        try {
            const Graph g = parseGraph(view(content), source, formatFromName(format));
            QFAIL(qPrintable("accepted: " + QString::number(g.opCount()) + " ops"));
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(source));
            QCOMPARE(QString::fromStdString(e.location()), location);
            QVERIFY2(QString::fromStdString(e.message()).contains(message), e.what());
            // The message itself is valid UTF-8 whatever the input held (JSON, Qt strings).
            QVERIFY2(!invalidUtf8Offset(e.what()), e.what());
        }
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed()) + " ms"));
    }

    // A GPU time within the bound whose derived CPU time (x10) is past it: accepted, the CPU
    // time capped (it was refused as a "time_us.cpu" the file never wrote).
    void derivedCpuTimeIsCapped_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("dot") << "dot" << QByteArray("digraph { a [time_us_gpu=\"5e14\"] }");
        QTest::newRow("pipedream") << "pipedream"
                                   << kInput + linearWith("forward_compute_time=1.0", "forward_compute_time=5e11");
        QTest::newRow("msr") << "msr" << msr(R"({"id": 1, "name": "a", "fpgaLatency": 5e11})", kEdgeAB);
        QTest::newRow("post-graph") << "post-graph"
                                    << QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", )"
                                                  R"("time_us": {"gpu": 5e14}}], "edges": []})");
    }

    // MSR ids are JSON integers: 2^64-1 and -2^63 are ids like any other (2^64-1 was refused,
    // and before that wrapped to -1), distinct from each other and from 1.
    void msrIdsSpanTheIntegers()
    {
        const QByteArray text = R"({"nodes": [{"id": 18446744073709551615, "fpgaLatency": 0.1},
            {"id": -9223372036854775808, "fpgaLatency": 0.2}, {"id": 1, "fpgaLatency": 0.3}],
            "edges": [{"sourceId": 18446744073709551615, "destId": -9223372036854775808, "cost": 0.1},
                      {"sourceId": -9223372036854775808, "destId": 1, "cost": 0.1}]})";
        const Graph g = parseGraph(view(text), "ids.json", GraphFormat::Msr);
        QCOMPARE(g.opCount(), 3);
        QCOMPARE(g.op(0).name, std::string("node18446744073709551615"));
        QCOMPARE(g.op(1).name, std::string("node-9223372036854775808"));
        QCOMPARE(g.edges().size(), size_t(2));
    }

    void derivedCpuTimeIsCapped()
    {
        QFETCH(QString, format);
        QFETCH(QByteArray, content);
        const Graph g = parseGraph(view(content), "g", formatFromName(format));
        double gpuMax = 0.0, cpuMax = 0.0;
        for (const Op& op : g.ops()) {
            gpuMax = std::max(gpuMax, op.time(DeviceKind::Gpu));
            cpuMax = std::max(cpuMax, op.time(DeviceKind::Cpu));
        }
        QCOMPARE(gpuMax, 5e14);
        QCOMPARE(cpuMax, GraphBuilder::kMaxTimeUs);
    }

    void clusterFiguresBounded_data()
    {
        QTest::addColumn<QByteArray>("field");
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("message");
        QTest::newRow("peak_tflops tiny (step time inf)")
            << QByteArray(R"("peak_tflops": 1e-300)") << "field devices[0].peak_tflops"
            << "must be between 1e-06 and 1e+09, got 1e-300";
        QTest::newRow("peak_tflops huge") << QByteArray(R"("peak_tflops": 1e308)") << "field devices[0].peak_tflops"
                                          << "must be between";
        QTest::newRow("memory_bandwidth_GBps tiny")
            << QByteArray(R"("memory_bandwidth_GBps": 1e-300)") << "field devices[0].memory_bandwidth_GBps"
            << "must be between 1e-06 and 1e+09";
        QTest::newRow("memory_bytes huge (once written back as null)")
            << QByteArray(R"("memory_bytes": 1e308)") << "field devices[0].memory_bytes"
            << "must be between";
    }

    void clusterFiguresBounded()
    {
        QFETCH(QByteArray, field);
        QFETCH(QString, location);
        QFETCH(QString, message);
        try {
            parseCluster(view(cluster(field)), "c.json");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.file()), QStringLiteral("c.json"));
            QCOMPARE(QString::fromStdString(e.location()), location);
            QVERIFY2(QString::fromStdString(e.message()).contains(message), e.what());
        }
    }

    // Within the bounds every figure of a cluster file reads back as written.
    void clusterBoundsRoundTrip()
    {
        const Cluster c = parseCluster(
            view(cluster(R"("speed": 1e6, "memory_bytes": 1e30, "peak_tflops": 1e9, "memory_bandwidth_GBps": 1e-6)")),
            "c.json");
        const Cluster back = parseCluster(clusterJson(c), "back.json");
        QCOMPARE(back.device(0).peakFlops, c.device(0).peakFlops);
        QCOMPARE(back.device(0).memoryBandwidth, c.device(0).memoryBandwidth);
        QCOMPARE(back.device(0).memoryBytes, 1e30);
    }

    // No writer emits a non-finite number: JSON has none, and null reads back as an error.
    void writersRefuseNonFiniteNumbers()
    {
        QVERIFY_THROWS_EXCEPTION(std::domain_error, JsonOutput::number(std::numeric_limits<double>::infinity()));
        QVERIFY_THROWS_EXCEPTION(std::domain_error, JsonOutput::number(std::nan("")));
        QCOMPARE(JsonOutput::number(1e308).dump(), std::string("1e+308"));
    }

    void utf8Validation_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("offset"); // -1: valid
        QTest::newRow("ascii") << QByteArray("relu_1/x") << -1;
        QTest::newRow("two to four bytes") << QByteArray("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") << -1;
        QTest::newRow("stray continuation") << QByteArray("ab\x80") << 2;
        QTest::newRow("overlong slash") << QByteArray("a\xc0\xaf") << 1;
        QTest::newRow("overlong three bytes") << QByteArray("\xe0\x80\xaf") << 0;
        QTest::newRow("surrogate") << QByteArray("x\xed\xa0\x80") << 1;
        QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << 0;
        QTest::newRow("truncated") << QByteArray("ok\xe2\x82") << 2;
        QTest::newRow("latin-1") << QByteArray("caf\xe9") << 3;
    }

    void utf8Validation()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, offset);
        const auto at = invalidUtf8Offset(view(text));
        QCOMPARE(at ? static_cast<int>(*at) : -1, offset);
        const std::string escaped = escapeInvalidUtf8(view(text));
        QVERIFY(!invalidUtf8Offset(escaped));
        QCOMPARE(escaped == std::string(view(text)), offset < 0);
    }

    // One check where every graph is built, whatever reader fills the builder.
    void graphBuilderRefusesNonUtf8()
    {
        GraphBuilder builder("g");
        Op op;
        op.name = "a\xff";
        try {
            builder.addOp(op);
            QFAIL("accepted");
        } catch (const GraphError& e) {
            QCOMPARE(std::string(e.what()), std::string("op name 'a\\xFF' is not valid UTF-8 (byte 0xFF at offset 1)"));
        }
        op.name = "a";
        op.colocate = "\xfe";
        QVERIFY_THROWS_EXCEPTION(GraphError, builder.addOp(op));
        GraphBuilder named("graph\xff");
        op.colocate.clear();
        named.addOp(op);
        QVERIFY_THROWS_EXCEPTION(GraphError, std::move(named).build());
    }

    // The error itself stays UTF-8, so the CLI's JSON and the GUI can show it.
    void inputErrorEscapesBytes()
    {
        const InputError e("f\xff.txt", "node 'a\xfe'", "bad \xc3");
        QCOMPARE(std::string(e.what()), std::string("f\\xFF.txt: node 'a\\xFE': bad \\xC3"));
        QCOMPARE(e.file(), std::string("f\\xFF.txt"));
        QVERIFY(!nlohmann::json(std::string(e.what())).dump().empty()); // would throw type_error.316
    }
};

QTEST_APPLESS_MAIN(TestMalformedCorpus)
#include "test_malformed_corpus.moc"
