// post-cli on execution and Chakra traces: --help lists the importer table, a wrong or
// truncated trace is exit 1 naming the file and the field, a Kineto trace given as the graph
// is refused naming --costs, a real trace is placed.
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include "core/io/ImporterTable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using testsupport::runCli;

namespace {

// The torch 1.13 recording of fixtures/record-torch-trace: an execution trace and the Kineto
// trace of the same step (CPU only, no ids: linked by operator order).
QString recorded(const char* name) { return qEnvironmentVariable("POST_TORCH_TRACE_DIR") + "/" + name; }

QJsonObject infoJson(const QString& text) { return QJsonDocument::fromJson(text.toUtf8()).object(); }

// How many ops info --json lists with a measured time of `kind` ("gpu_time", "cpu_time") by `file`.
int measuredOps(const QJsonObject& info, const char* kind, const QString& file)
{
    int n = 0;
    for (const QJsonValue& op : info["op_times"].toArray())
        n += op[kind].toString() == "measured" && op["measured_by"].toString() == file ? 1 : 0;
    return n;
}

} // namespace

class TestTraceCli : public QObject {
    Q_OBJECT

private slots:
    void helpListsEveryFormat()
    {
        const auto r = runCli({"--help"});
        QCOMPARE(r.exitCode, 0);
        for (const post::ImporterRow& row : post::importerTable()) {
            const QString name = QString::fromUtf8(post::toString(row.format).data());
            QVERIFY2(r.out.contains("\n  " + name + " "), qPrintable(name));
            QVERIFY2(
                r.out.contains("docs/importers.md#" + QString::fromUtf8(row.docsAnchor.data(), row.docsAnchor.size())),
                qPrintable(name));
        }
        const auto bad = runCli({"info", "x", "--format", "chakra"});
        QCOMPARE(bad.exitCode, 2);
        for (const char* name : {"pytorch-et", "chakra-json", "chakra-et", "onnx"})
            QVERIFY2(bad.err.contains(name), qPrintable(bad.err));
    }

    void wrongTracesExitOneNamingFileAndField()
    {
        QTemporaryDir dir;
        const QString cut = testdata::writeFile(dir, "cut_et.json",
                                                "{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1, \"na" /* cut off */);
        auto r = runCli({"info", cut});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(cut) && r.err.contains("line 1"), qPrintable(r.err));
        const QString noDeps = testdata::writeFile(
            dir, "c.json", R"({"workload_graph": [{"Id": 1, "Name": "a", "NodeType": 4, "runtime": 1}]})");
        r = runCli({"info", noDeps});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(noDeps) && r.err.contains("workload_graph[0].data_deps"), qPrintable(r.err));
        const QString kineto = testdata::writeFile(dir, "run.pt.trace.json",
                                                   R"({"schemaVersion": 1, "traceEvents": []})");
        r = runCli({"info", kineto});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(kineto) && r.err.contains("--costs"), qPrintable(r.err));
    }

    // Issue 29 item 1: an execution trace given the Kineto trace of the same run as --costs takes
    // its measured times op by op. torch 1.13's trace has no ids: the link is by operator order
    // (each record function's id counts those started before it); its ops are CPU times.
    void executionTraceTakesTheKinetoTraceOfItsRunByOrder()
    {
        const QString et = recorded("tiny_et.json"), kineto = recorded("tiny_kineto.json");
        if (!QFile::exists(et) || !QFile::exists(kineto))
            QSKIP("no trace recorded (python3-torch missing? see fixtures/record-torch-trace's output)");
        const auto r = runCli({"info", et, "--costs", kineto, "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("linked by operator order"), qPrintable(r.err));
        const QJsonObject info = infoJson(r.out);
        const int ops = info["ops"].toInt();
        QCOMPARE(measuredOps(info, "cpu_time", kineto), ops);
        QCOMPARE(measuredOps(info, "gpu_time", kineto), 0); // a CPU trace measures no GPU time
        QVERIFY2(r.err.contains("measured times for " + QString::number(ops) + " of " + QString::number(ops) + " ops"),
                 qPrintable(r.err));
        QCOMPARE(info["kernel_fusion"].toObject()["on"].toBool(), false);

        // A trace of another run (another model's operators) is refused, naming the file.
        QTemporaryDir dir;
        const QString other = testdata::writeFile(
            dir, "other.json",
            R"([{"name": "aten::lstm", "ph": "X", "ts": 1, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}},
                {"name": "aten::mm", "ph": "X", "ts": 9, "dur": 5, "tid": 1, "pid": "CPU functions", "args": {}}])");
        const auto refused = runCli({"info", et, "--costs", other});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(other) && refused.err.contains("not of the run"), qPrintable(refused.err));
    }

    // The PyTorch 2.1+ layout names each operator's "Record function id": the link is by id, and
    // a kernel's time goes to the op whose operator launched it. Written from the recorded
    // execution trace: one operator per node, a kernel launched inside aten::conv2d.
    void executionTraceTakesKernelTimesByRecordFunctionId()
    {
        const QString et = recorded("tiny_et.json");
        if (!QFile::exists(et))
            QSKIP("no trace recorded (python3-torch missing? see fixtures/record-torch-trace's output)");
        QFile file(et);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray nodes = QJsonDocument::fromJson(file.readAll()).object()["nodes"].toArray();
        const auto traceOf = [&](qint64 shift) {
            QJsonArray events;
            for (const QJsonValue& node : nodes) {
                const qint64 rf = node["rf_id"].toInteger();
                if (rf <= 0)
                    continue;
                const qint64 ts = 1000 + 10 * rf;
                events.append(QJsonObject{{"ph", "X"},
                                          {"cat", "cpu_op"},
                                          {"name", node["name"]},
                                          {"pid", 1},
                                          {"tid", 1},
                                          {"ts", ts},
                                          {"dur", 5},
                                          {"args", QJsonObject{{"Record function id", rf + shift}}}});
                if (node["name"].toString() == "aten::conv2d") {
                    events.append(QJsonObject{{"ph", "X"},
                                              {"cat", "cuda_runtime"},
                                              {"name", "cudaLaunchKernel"},
                                              {"pid", 1},
                                              {"tid", 1},
                                              {"ts", ts + 1},
                                              {"dur", 1},
                                              {"args", QJsonObject{{"correlation", 7}}}});
                    events.append(QJsonObject{{"ph", "X"},
                                              {"cat", "kernel"},
                                              {"name", "implicit_gemm"},
                                              {"pid", 0},
                                              {"tid", 7},
                                              {"ts", ts + 2},
                                              {"dur", 123},
                                              {"args", QJsonObject{{"correlation", 7}, {"device", 0}}}});
                }
            }
            return QJsonDocument(QJsonObject{{"schemaVersion", 1}, {"traceEvents", events}}).toJson();
        };
        QTemporaryDir dir;
        const QString same = testdata::writeFile(dir, "same_run.json", traceOf(0));
        const auto r = runCli({"info", et, "--costs", same, "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("linked by record-function ids"), qPrintable(r.err));
        const QJsonObject info = infoJson(r.out);
        QCOMPARE(measuredOps(info, "gpu_time", same), 1);
        for (const QJsonValue& op : info["op_times"].toArray())
            if (op["gpu_time"].toString() == "measured") {
                QCOMPARE(op["type"].toString(), QString("aten::conv2d"));
                QCOMPARE(op["gpu_us"].toDouble(), 123.0);
            }
        QCOMPARE(measuredOps(info, "cpu_time", same), info["ops"].toInt());
        // The ids of another run: refused, also under --costs-partial (nothing links).
        const QString another = testdata::writeFile(dir, "another_run.json", traceOf(100000));
        for (const QStringList& extra : {QStringList{}, QStringList{"--costs-partial"}}) {
            const auto refused = runCli(QStringList{"info", et, "--costs", another} + extra);
            QCOMPARE(refused.exitCode, 1);
            QVERIFY2(refused.err.contains(another) && refused.err.contains("rf_ids"), qPrintable(refused.err));
        }
    }

    // Real data: param's linear model, execution trace and Kineto trace of one run (PyTorch 2.0,
    // an RTX 2080 Ti; no record-function ids): the step is found in the trace by its operator
    // sequence, and its kernels land on the graph's ops.
    void realExecutionTraceTakesItsKinetoTrace()
    {
        REQUIRE_SHARED_DATA(data);
        const QString kineto = data + "/traces/param/linear_kineto.json.gz";
        const auto r = runCli({"info", data + "/traces/param/linear_et.json.gz", "--costs", kineto, "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("linked by operator order") && r.err.contains("GeForce RTX 2080 Ti"), qPrintable(r.err));
        const QJsonObject info = infoJson(r.out);
        QVERIFY2(measuredOps(info, "gpu_time", kineto) > info["ops"].toInt() / 2, qPrintable(r.err));
        // The other model's Kineto trace (param's ResNet) is not this run's.
        const auto refused = runCli({"info", data + "/traces/param/linear_et.json.gz", "--costs",
                                     data + "/traces/param/resnet_kineto.json.gz"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("not of the run"), qPrintable(refused.err));
    }

    void aRealTraceIsPlaced()
    {
        REQUIRE_SHARED_DATA(data);
        const auto r = runCli({"place", data + "/traces/param/linear_et.json.gz", "--cluster", "v100x4-nvlink",
                               "--algo", "m-etf", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\"best_step_time_ms\""), qPrintable(r.out.left(400)));
        QVERIFY2(r.err.contains("execution trace, schema 1.0.1"), qPrintable(r.err));
    }
};

QTEST_APPLESS_MAIN(TestTraceCli)
#include "test_trace_cli.moc"
