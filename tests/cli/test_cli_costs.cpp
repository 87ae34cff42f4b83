// post-cli with --costs TRACE (docs/pytorch.md, "Measured costs"): the coverage note, the
// refusals (exit 1 with the figure) and --costs-partial, a trace given as the graph, `info`
// saying where each op's time comes from; then the real V100 traces replayed on the
// ResNet-50 training export (fixtures/export-torchvision-training).
#include "tests/support/KinetoTraces.h"
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using testdata::KinetoLayout;
using testdata::KinetoTraceWriter;
using testsupport::runCli;
using Run = testsupport::ProgramRun;

// conv -> relu -> fc and their backward ops, estimated GPU times 1000 / 2000 µs.
const char* kToyGraph = R"({"format": "post-graph/1", "name": "toy", "ops": [
 {"name": "/conv/Conv", "type": "Conv", "time_us": {"gpu": 1000, "cpu": 10000}, "flops": 1e6},
 {"name": "/relu/Relu", "type": "Relu", "time_us": {"gpu": 1000, "cpu": 10000}, "flops": 1e6},
 {"name": "/fc/Gemm", "type": "Gemm", "time_us": {"gpu": 1000, "cpu": 10000}, "flops": 1e6},
 {"name": "/fc/Gemm/grad", "type": "Gemm", "time_us": {"gpu": 2000, "cpu": 20000}, "flops": 2e6},
 {"name": "/relu/Relu/grad", "type": "Relu", "time_us": {"gpu": 2000, "cpu": 20000}, "flops": 2e6},
 {"name": "/conv/Conv/grad", "type": "Conv", "time_us": {"gpu": 2000, "cpu": 20000}, "flops": 2e6}],
 "edges": [{"from": "/conv/Conv", "to": "/relu/Relu"}, {"from": "/relu/Relu", "to": "/fc/Gemm"},
           {"from": "/fc/Gemm", "to": "/fc/Gemm/grad"}, {"from": "/fc/Gemm/grad", "to": "/relu/Relu/grad"},
           {"from": "/relu/Relu/grad", "to": "/conv/Conv/grad"}]})";

std::string toyTrace()
{
    KinetoTraceWriter w(KinetoLayout::PyTorch18);
    w.range("ProfilerStep#1", [](KinetoTraceWriter& s) {
        s.op("aten::to", 10)
            .op("aten::conv2d", 300, 1)
            .op("aten::relu_", 50, 2)
            .op("aten::linear", 40, 3)
            .backward("AddmmBackward", 80, 3)
            .backward("ReluBackward", 60, 2)
            .backward("CudnnConvolutionBackward", 600, 1);
    });
    return w.text();
}

QJsonObject parseObject(const QString& text) { return QJsonDocument::fromJson(text.toUtf8()).object(); }

const char* kV100Trace = "/traces/kineto/resnet50_num_workers_0_worker0.1623143089861.pt.trace.json.gz";

} // namespace

class TestCliCosts : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(testdata::cliPath()), "POST_CLI must point at the built post-cli");
    }

    // The note reports coverage as time; simulate uses the measured GPU times.
    void traceCostsAreReportedAsTime()
    {
        const QString graph = write("toy.json", kToyGraph);
        const QString trace = write("toy.pt.trace.json", QByteArray::fromStdString(toyTrace()));
        Run r = runCli({"info", graph, "--costs", trace});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("measured GPU times for 3 of 3 forward ops (Tesla V100-SXM2-16GB, PyTorch 1.8 trace)"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("99% of the step's GPU time (1.13 ms of 1.14 ms) mapped onto 6 of 6 ops"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("not in the graph: aten::to 0.01 ms"), qPrintable(r.err));
        QVERIFY2(
            r.out.contains(QRegularExpression("op times +GPU: 6 measured \\(.*toy.pt.trace.json\\); CPU: 6 estimated")),
            qPrintable(r.out));
        // The simulated step on one GPU is the measured one: 300 + 50 + 40 + 80 + 60 + 600.
        const QString cluster = write("one.json", R"({"format": "post-cluster/1", "name": "one",
            "devices": [{"name": "/device:GPU:0", "kind": "gpu", "speed": 1.0, "memory_bytes": 1e9}]})");
        r = runCli({"simulate", graph, "--cluster", cluster, "--all-on", "/device:GPU:0", "--costs", trace, "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 1.13);
    }

    // --costs TYPE=FILE: the trace's times go to the devices of that type only (issue 27 item
    // 3); the other type keeps the estimates, and the graph says which type was measured.
    void typedCostsGoToTheirDevicesOnly()
    {
        const QString graph = write("typed.json", kToyGraph);
        const QString trace = write("typed.pt.trace.json", QByteArray::fromStdString(toyTrace()));
        const QString cluster = write("two.json", R"({"format": "post-cluster/1", "name": "two",
            "devices": [{"name": "/device:GPU:0", "kind": "gpu", "type": "v100", "speed": 1.0, "memory_bytes": 1e9},
                        {"name": "/device:GPU:1", "kind": "gpu", "type": "t4", "speed": 1.0, "memory_bytes": 1e9}]})");
        Run r = runCli({"simulate", graph, "--cluster", cluster, "--all-on", "/device:GPU:0", "--costs",
                        "v100=" + trace, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("as the times of device type v100"), qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 1.13); // measured, on the v100
        r = runCli({"simulate", graph, "--cluster", cluster, "--all-on", "/device:GPU:1", "--costs", "v100=" + trace,
                    "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 9.0); // the estimates, on the t4
        const QString saved = dir_.filePath("typed-out.json");
        QCOMPARE(runCli({"convert", graph, "--costs", "v100=" + trace, "--out", saved}).exitCode, 0);
        QFile file(saved);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject conv = parseObject(QString::fromUtf8(file.readAll()))["ops"].toArray()[0].toObject();
        QCOMPARE(conv["time_us"].toObject()["v100"].toDouble(), 300.0);
        QCOMPARE(conv["time_us"].toObject()["gpu"].toDouble(), 1000.0);
        QVERIFY(conv["measured"].toArray().contains(QJsonValue("v100")));
        // A bad type name is a path like any other: "V100=x" names a file that is not there.
        QCOMPARE(runCli({"info", graph, "--costs", "V100=" + trace}).exitCode, 1);
    }

    // info --json and --ops name, for each op, where its times come from.
    void infoSaysWhatIsMeasured()
    {
        const QString graph = write("toy.json", kToyGraph);
        const QString trace = write("toy.pt.trace.json", QByteArray::fromStdString(toyTrace()));
        Run r = runCli({"info", graph, "--costs", trace, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray ops = parseObject(r.out)["op_times"].toArray();
        QCOMPARE(ops.size(), 6);
        const QJsonObject conv = ops[0].toObject();
        QCOMPARE(conv["name"].toString(), QString("/conv/Conv"));
        QCOMPARE(conv["gpu_us"].toDouble(), 300.0);
        QCOMPARE(conv["gpu_time"].toString(), QString("measured"));
        QCOMPARE(conv["cpu_time"].toString(), QString("estimated"));
        QCOMPARE(conv["measured_by"].toString(), trace);
        r = runCli({"info", graph, "--json"});
        QCOMPARE(parseObject(r.out)["op_times"].toArray()[0].toObject()["gpu_time"].toString(), QString("estimated"));
        QVERIFY(parseObject(r.out)["op_times"].toArray()[0].toObject()["measured_by"].isNull());
        r = runCli({"info", graph, "--costs", trace, "--ops"});
        QVERIFY2(r.out.contains("/conv/Conv/grad  Conv  GPU 0.600 ms measured, CPU 20.000 ms estimated (measured by "
                                + trace + ")"),
                 qPrintable(r.out));
        // Saved, the graph keeps the source (post-graph/1 measured_by).
        const QString saved = dir_.filePath("measured.json");
        QCOMPARE(runCli({"convert", graph, "--costs", trace, "--out", saved}).exitCode, 0);
        r = runCli({"info", saved, "--json"});
        QCOMPARE(parseObject(r.out)["op_times"].toArray()[5].toObject()["measured_by"].toString(), trace);
        // As the times of a device type: the kind's times stay estimates, the type's are measured.
        r = runCli({"info", graph, "--costs", "v100=" + trace, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject typed = parseObject(r.out)["op_times"].toArray()[0].toObject();
        QCOMPARE(typed["gpu_time"].toString(), QString("estimated"));
        QCOMPARE(typed["measured_by"].toString(), trace);
        QCOMPARE(typed["typed_times"].toObject()["v100"].toObject()["us"].toDouble(), 300.0);
        QCOMPARE(typed["typed_times"].toObject()["v100"].toObject()["time"].toString(), QString("measured"));
        r = runCli({"info", graph, "--costs", "v100=" + trace});
        QVERIFY2(r.out.contains("; v100: 6 measured (" + trace + ")"), qPrintable(r.out));
    }

    void wrongModelExitsOneUnlessPartial()
    {
        const QString graph = write("toy.json", kToyGraph);
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.op("aten::embedding_bag", 400, 1).op("aten::linear", 100, 2).op("aten::bmm", 30, 3);
        const QString trace = write("dlrm.json", QByteArray::fromStdString(w.text()));
        Run r = runCli({"simulate", graph, "--cluster", "k80x2", "--all-on", "/device:GPU:0", "--costs", trace});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("match only 1 of the 3 forward ops of graph \"toy\" (33%, at least 90% needed)"),
                 qPrintable(r.err));
        r = runCli({"simulate", graph, "--cluster", "k80x2", "--all-on", "/device:GPU:0", "--costs", trace,
                    "--costs-partial"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("taken under --costs-partial"), qPrintable(r.err));
    }

    void zeroMatchesNeverExitZero()
    {
        const QString graph = write("toy.json", kToyGraph);
        KinetoTraceWriter w(KinetoLayout::PyTorch18);
        w.op("aten::embedding_bag", 400, 1);
        const QString trace = write("none.json", QByteArray::fromStdString(w.text()));
        for (const QStringList& extra : {QStringList{}, QStringList{"--costs-partial"}}) {
            Run r = runCli(QStringList{"info", graph, "--costs", trace} + extra);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("no op of graph \"toy\" matches an operator"), qPrintable(r.err));
        }
        QCOMPARE(runCli({"info", graph, "--costs-partial"}).exitCode, 2); // nothing to be partial about
    }

    void traceGivenAsTheGraphSaysUseCosts()
    {
        const QString trace = write("resnet.pt.trace.json", QByteArray::fromStdString(toyTrace()));
        Run r = runCli({"info", trace});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("a torch.profiler (Chrome/Kineto) trace, not a graph")
                     && r.err.contains("--costs " + trace),
                 qPrintable(r.err));
    }

    // Standard input is decompressed like a file: a gzip graph piped in is read.
    void gzipOnStandardInputIsRead()
    {
        QProcess gzip;
        gzip.start("gzip", {"-c"});
        QVERIFY(gzip.waitForStarted());
        gzip.write(kToyGraph);
        gzip.closeWriteChannel();
        QVERIFY(gzip.waitForFinished());
        const QByteArray packed = gzip.readAllStandardOutput();
        QVERIFY(packed.startsWith("\x1f\x8b"));
        Run r = runCli({"info", "-"}, &packed);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("ops                6"), qPrintable(r.out));
        const QByteArray broken = packed.left(packed.size() / 2);
        r = runCli({"info", "-"}, &broken);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("<stdin>: gzip: the file is truncated"), qPrintable(r.err));
    }

    // The real V100 trace replayed: simulate on one V100 with the trace as --costs.
    void v100TraceReplaysTheMeasuredStep()
    {
        REQUIRE_SHARED_DATA(shared);
        const QString trace = shared + kV100Trace;
        if (!QFile::exists(trace))
            QSKIP("the V100 trace is absent: real-trace test skipped");
        const QString dir = qEnvironmentVariable("POST_TORCHVISION_TRAINING_DIR");
        if (dir.isEmpty() || !QFile::exists(dir + "/resnet50_train_b32.onnx"))
            QSKIP("resnet50_train_b32.onnx was not made (fixtures/export-torchvision-training)");
        const QString model = dir + "/resnet50_train_b32.onnx";
        // The file itself as a graph: refused, pointing at --costs (it used to fail on the gzip).
        Run r = runCli({"info", trace});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--costs"), qPrintable(r.err));

        r = runCli({"simulate", model, "--batch", "32", "--cluster", "v100x4-nvlink", "--all-on", "/device:GPU:0",
                    "--costs", trace, "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.err.contains("were recorded on"), qPrintable(r.err)); // a V100's trace on V100s
        const QRegularExpression note("(\\d+)% of the step's GPU time \\(([0-9.]+) ms of ([0-9.]+) ms\\)");
        const auto m = note.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(r.err));
        const double mapped = m.captured(2).toDouble(), step = m.captured(3).toDouble();
        const double replayed = parseObject(r.out)["step_time_ms"].toDouble();
        qInfo("V100 ResNet-50: measured %.1f ms of GPU work per step, %.1f ms mapped, replayed step %.1f ms", step,
              mapped, replayed);
        QVERIFY(step > 99.0 && step < 105.0);
        // The replay runs exactly what was mapped onto the graph (one GPU, no transfers) ...
        QVERIFY2(std::abs(replayed - mapped) < 0.02 * mapped, qPrintable(r.err));
        // ... which is within 5% of the measured step: the rest is the input copy, the loss,
        // BatchNorm's counters and the optimizer, which this graph has no ops for.
        QVERIFY2(std::abs(replayed - step) < 0.05 * step, qPrintable(r.err));
    }
};

QTEST_APPLESS_MAIN(TestCliCosts)
#include "test_cli_costs.moc"
