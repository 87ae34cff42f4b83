// Runs the real post-cli executable and checks exit codes, output and messages.
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

namespace {

using testsupport::runCli;
using Run = testsupport::ProgramRun;

QJsonObject parseObject(const QString& text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << error.errorString() << text.left(400);
    return doc.object();
}

QJsonObject readJsonObject(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qWarning() << "cannot read" << path;
    return parseObject(QString::fromUtf8(f.readAll()));
}

// a (100 us) -> b (200 us) -> c (50 us), 1 MB tensors.
const char* kChain = R"({"format": "post-graph/1", "name": "chain",
 "ops": [{"name": "a", "type": "MatMul", "time_us": {"gpu": 100, "cpu": 1000}, "output_bytes": 1000000, "param_bytes": 1000},
         {"name": "b", "type": "Relu", "time_us": {"gpu": 200, "cpu": 2000}, "output_bytes": 1000000},
         {"name": "c", "type": "Add", "time_us": {"gpu": 50, "cpu": 500}, "output_bytes": 1000000}],
 "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]})";

// Two GPUs, speed 1 and 2; 1 GB/s links (1 MB takes 1000 us) with 10 us latency.
const char* kCluster = R"({"format": "post-cluster/1", "name": "pair",
 "devices": [{"name": "/device:GPU:0", "kind": "gpu", "speed": 1.0, "memory_bytes": 1e9},
             {"name": "/device:GPU:1", "kind": "gpu", "speed": 2.0, "memory_bytes": 1e9}],
 "default_link": {"bandwidth_GBps": 1, "latency_us": 10}})";

} // namespace

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(testdata::cliPath()), "POST_CLI must point at the built post-cli");
        QVERIFY(dir_.isValid());
    }

    void versionAndHelp()
    {
        Run r = runCli({"--version"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("post-cli"));
        for (const char* sub : {"info", "simulate", "place", "compare"}) {
            r = runCli({sub, "--help"});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains("--json"), qPrintable(r.out));
        }
    }

    // "-" reads the graph from standard input, format sniffed, for every command that reads one.
    void standardInputIsAGraph()
    {
        const QByteArray chain(kChain);
        Run r = runCli({"info", "-", "--json"}, &chain);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["ops"].toInt(), 3);
        const QString c = write("pair.json", kCluster);
        r = runCli({"simulate", "-", "--cluster", c, "--all-on", "/device:GPU:1", "--json"}, &chain);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.175);
        r = runCli({"place", "-", "--cluster", c, "--algo", "m-etf", "--json"}, &chain);
        QCOMPARE(r.exitCode, 0);
        r = runCli({"compare", "-", "--cluster", c, "--algos", "single,m-etf", "--json"}, &chain);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["results"].toArray().size(), 2);
        // A DOT graph and a .pbtxt, sniffed; errors name <stdin>.
        const QByteArray dot("digraph { a [time_us_gpu=5] b [time_us_gpu=7] a -> b }");
        QCOMPARE(parseObject(runCli({"info", "-", "--json"}, &dot).out)["total_gpu_time_ms"].toDouble(), 0.012);
        QFile pbtxt(testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt");
        QVERIFY(pbtxt.open(QIODevice::ReadOnly));
        const QByteArray cnn = pbtxt.readAll();
        const QString placed = dir_.filePath("stdin-placed.pbtxt");
        r = runCli({"place", "-", "--cluster", "k80x4", "--algo", "m-etf", "--pbtxt-out", placed}, &cnn);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QFileInfo::exists(placed));
        const QByteArray broken("digraph { a -> }");
        r = runCli({"info", "-"}, &broken);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("<stdin>"), qPrintable(r.err));
        const QByteArray empty;
        r = runCli({"info", "-"}, &empty);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("<stdin>") && r.err.contains("empty"), qPrintable(r.err));
    }

    // A graph without costs: a warning naming the attributes at import, and place and
    // compare refuse it (exit 1) rather than report 0.000 ms.
    void zeroComputeIsRefused()
    {
        const QString g = write("nocost.dot", "digraph { a -> b -> c }");
        Run r = runCli({"info", g});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("warning") && r.err.contains("time_us_gpu"), qPrintable(r.err));
        r = runCli({"place", g, "--cluster", "k80x4", "--algo", "m-etf"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("nocost.dot") && r.err.contains("total compute is zero"), qPrintable(r.err));
        QVERIFY(!r.out.contains("0.000 ms"));
        r = runCli({"compare", g, "--cluster", "k80x4", "--algos", "single"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("total compute is zero"), qPrintable(r.err));
    }

    // Every --json object carries its format tag and version.
    void jsonOutputsCarryAFormatTag()
    {
        const QString g = write("chain.json", kChain);
        const QString c = write("pair.json", kCluster);
        const QList<QPair<QStringList, QString>> runs = {
            {{"info", g, "--json"}, "post-info/1"},
            {{"simulate", g, "--cluster", c, "--all-on", "/device:GPU:0", "--json"}, "post-simulate/1"},
            {{"place", g, "--cluster", c, "--algo", "m-etf", "--json"}, "post-place/1"},
            {{"compare", g, "--cluster", c, "--algos", "single", "--json"}, "post-compare/1"},
            {{"zoo", "list", "--json"}, "post-zoo-list/1"}};
        for (const auto& [args, tag] : runs) {
            const Run r = runCli(args);
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(parseObject(r.out)["format"].toString(), tag);
        }
    }

    // TensorFlow: --pbtxt-out keeps queues, readers and decoding on the CPU and each
    // ApplyMomentum with its variable, whatever the algorithm.
    void pbtxtOutRunsWithoutSoftPlacement()
    {
        const QString model = testdata::sourceDir() + "/tests/data/pbtxt/train_pipeline.pbtxt";
        for (const char* algo : {"single", "round-robin", "post"}) {
            const QString placed = dir_.filePath(QString("pipeline-%1.pbtxt").arg(algo));
            const Run r = runCli(
                {"place", model, "--cluster", "k80x4", "--algo", algo, "--samples", "50", "--pbtxt-out", placed});
            QCOMPARE(r.exitCode, 0);
            QFile f(placed);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll());
            // The device of each node, by name.
            QHash<QString, QString> device;
            QHash<QString, QString> op;
            const QRegularExpression node("^node \\{\\n  name: \"([^\"]+)\"\\n  op: \"([^\"]+)\"\\n(?:  input: "
                                          "[^\\n]*\\n)*  device: \"([^\"]+)\"",
                                          QRegularExpression::MultilineOption);
            for (auto it = node.globalMatch(text); it.hasNext();) {
                const auto m = it.next();
                device[m.captured(1)] = m.captured(3);
                op[m.captured(1)] = m.captured(2);
            }
            QCOMPARE(device.size(), text.count(QRegularExpression("^node \\{", QRegularExpression::MultilineOption)));
            for (const char* cpuOnly : {"DecodeJpeg", "batch", "ReaderReadV2", "save/RestoreV2", "save/SaveV2"})
                QVERIFY2(device[cpuOnly].endsWith("/device:CPU:0"), qPrintable(QString(algo) + " " + cpuOnly));
            QCOMPARE(device["Momentum/update_conv1/ApplyMomentum"], device["conv1/weights"]);
            QCOMPARE(device["Momentum/update_fc/ApplyMomentum"], device["fc/weights"]);
            QCOMPARE(device["fc/weights/Momentum"], device["fc/weights"]);
        }
    }

    void usageErrorsExitTwo()
    {
        QCOMPARE(runCli({}).exitCode, 2);
        QCOMPARE(runCli({"frobnicate"}).exitCode, 2);
        QCOMPARE(runCli({"info"}).exitCode, 2);
        const QString g = write("chain.json", kChain);
        const QString c = write("pair.json", kCluster);
        QCOMPARE(runCli({"simulate", g, "--cluster", c}).exitCode, 2); // neither --placement nor --all-on
        Run r = runCli({"simulate", g, "--cluster", c, "--all-on", "/device:GPU:7"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("/device:GPU:7"), qPrintable(r.err));
        QCOMPARE(runCli({"info", g, "--format", "nonsense"}).exitCode, 2);
    }

    void infoJson()
    {
        const QString g = write("chain.json", kChain);
        Run r = runCli({"info", g, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = parseObject(r.out);
        QCOMPARE(o["ops"].toInt(), 3);
        QCOMPARE(o["edges"].toInt(), 2);
        QCOMPARE(o["total_gpu_time_ms"].toDouble(), 0.35);
        QCOMPARE(o["critical_path_gpu_ms"].toDouble(), 0.35);
        QCOMPARE(o["param_bytes"].toDouble(), 1000.0);
        QVERIFY(o.contains("resident_bytes")); // always in JSON
        QCOMPARE(o["resident_bytes"].toDouble(), 0.0);
        r = runCli({"info", g});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("critical path"));
        QVERIFY(!r.out.contains("resident memory")); // text shows it only when there is some

        const QString resident = write("resident.json", R"({"format": "post-graph/1",
            "ops": [{"name": "a", "resident_bytes": 1500}, {"name": "b", "resident_bytes": 500}]})");
        QCOMPARE(parseObject(runCli({"info", resident, "--json"}).out)["resident_bytes"].toDouble(), 2000.0);
        r = runCli({"info", resident});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("resident memory"), qPrintable(r.out));
    }

    // An MSR training graph in the pipelined form: info says it joined the halves (stderr and
    // --json notes) and counts the join edge; --msr-pipelined keeps the file's edges.
    void msrTrainingGraphIsOneStep()
    {
        const QString g = write("two_layer_training.json", R"({"nodes": [
            {"id": 1, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1},
            {"id": 2, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 2},
            {"id": 3, "fpgaLatency": 2, "isBackwardNode": 1, "colorClass": 1},
            {"id": 4, "fpgaLatency": 2, "isBackwardNode": 1, "colorClass": 2}],
          "edges": [{"sourceId": 1, "destId": 2, "cost": 0, "size": 8}, {"sourceId": 3, "destId": 4, "cost": 0, "size": 8}]})");
        Run r = runCli({"info", g, "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject o = parseObject(r.out);
        QCOMPARE(o["edges"].toInt(), 3);
        QCOMPARE(o["critical_path_gpu_ms"].toDouble(), 6.0); // forward 2 ms, then backward 4 ms
        QCOMPARE(o["notes"].toArray().size(), 1);
        QVERIFY2(o["notes"].toArray()[0].toString().contains("1 edge(s) of 0 bytes"), qPrintable(r.out));
        QVERIFY2(r.err.contains("note:") && r.err.contains("--msr-pipelined"), qPrintable(r.err));
        r = runCli({"info", g, "--json", "--msr-pipelined"});
        QCOMPARE(r.exitCode, 0);
        o = parseObject(r.out);
        QCOMPARE(o["edges"].toInt(), 2);
        QCOMPARE(o["critical_path_gpu_ms"].toDouble(), 4.0); // the longer of the two halves
        QVERIFY2(o["notes"].toArray()[0].toString().contains("kept as is"), qPrintable(r.out));
    }

    void simulateAllOnFastDevice()
    {
        const QString g = write("chain.json", kChain);
        const QString c = write("pair.json", kCluster);
        Run r = runCli({"simulate", g, "--cluster", c, "--all-on", "/device:GPU:1", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = parseObject(r.out);
        // Speed 2 halves every op: (100 + 200 + 50) / 2 = 175 us.
        QCOMPARE(o["step_time_ms"].toDouble(), 0.175);
        QCOMPARE(o["feasible"].toBool(), true);
        QCOMPARE(o["devices"].toArray().size(), 2);
        QCOMPARE(o["peak_memory_bytes"].toArray().size(), 2);
        QCOMPARE(o["peak_memory_bytes"].toArray()[0].toDouble(), 0.0);
        // Lower bound: critical path on the fastest device = 175 us; work 350 / 3 speed = 116.7 us.
        QCOMPARE(o["lower_bound_ms"].toDouble(), 0.175);
        QCOMPARE(o["lower_bound_source"].toString(), QString("critical-path")); // a chain: no join or fork to price
        QCOMPARE(o["lower_bound_fork_join_ms"].toDouble(), 0.175);
        QCOMPARE(o["lower_bound_ancestry_ms"].toDouble(), 0.175);
        QCOMPARE(o["certified_gap"].toDouble(), 0.0); // the bound is this step: optimal
        // On the slow GPU: 350 us against the bound's 175, so at most 100 % above the optimum.
        r = runCli({"simulate", g, "--cluster", c, "--all-on", "/device:GPU:0", "--json"});
        QCOMPARE(parseObject(r.out)["certified_gap"].toDouble(), 1.0);
        r = runCli({"simulate", g, "--cluster", c, "--all-on", "/device:GPU:0"});
        QVERIFY2(r.out.contains("certified    within 100.0% of the optimum"), qPrintable(r.out));
    }

    // A graph timed per device type (docs/clusters.md, "Device types") on the mixed preset: each
    // device takes its type's times; on a cluster without those types a note says they go
    // unused, and a placer's result simulates to the time it reports.
    void deviceTypesOnTheMixedPreset()
    {
        const QString g = write("typed.json", R"({"format": "post-graph/1", "ops": [
            {"name": "a", "time_us": {"v100": 120, "t4": 310, "xeon-8380": 2400, "gpu": 150}},
            {"name": "b", "time_us": {"v100": 80, "t4": 100, "xeon-8380": 90, "gpu": 80}}],
            "edges": [{"from": "a", "to": "b", "bytes": 0}]})");
        Run r = runCli({"simulate", g, "--cluster", "mixed-v100-t4-cpu", "--all-on", "/device:GPU:2", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.41); // 310 + 100 on a T4
        QVERIFY2(!r.err.contains("note"), qPrintable(r.err));
        r = runCli({"simulate", g, "--cluster", "v100x4-nvlink", "--all-on", "/device:GPU:0", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.2); // the V100's own times
        QVERIFY2(r.err.contains("note: the graph's times for device types t4, xeon-8380 are unused"), qPrintable(r.err));
        r = runCli({"place", g, "--cluster", "mixed-v100-t4-cpu", "--algo", "m-etf", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["best_step_time_ms"].toDouble(), 0.2);
    }

    // place --time counts from the command's start: where reading (and, for milp, bounding: the
    // other placers get the bound beside the search) took most of it, a note says how long they
    // took and what the search got.
    void placeSaysWhenReadingTookTheBudget()
    {
        const QString g = testdata::sourceDir() + "/samples/graphs/rnnlm-2.json";
        Run r = runCli({"place", g, "--cluster", "k80x4", "--time", "0.001"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("reading the graph took") && r.err.contains("of --time 0.001 s")
                     && r.err.contains("a tenth of the budget, so the run takes longer"),
                 qPrintable(r.err));
        r = runCli({"place", g, "--cluster", "k80x4", "--time", "0.001", "--algo", "milp"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("reading the graph and bounding it took"), qPrintable(r.err));
        // m-ETF ends at once whatever the budget; 60 s leaves room for reading and bounding
        // even in the ThreadSanitizer build (2.55 s there, against 0.05 s in a release build).
        r = runCli({"place", g, "--cluster", "k80x4", "--time", "60", "--algo", "m-etf"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.err.contains("reading the graph and bounding it"), qPrintable(r.err));
    }

    // place --algo milp: its proven bound becomes lower_bound_ms when it is the largest, and
    // compare runs it only when named, with its bound in its row; on a bigger graph its
    // grouped bound is reported as such.
    void milpReportsItsBound()
    {
        const QString g = testdata::sourceDir() + "/samples/graphs/tiny-mlp.json";
        Run r = runCli({"place", g, "--cluster", "k80x4", "--algo", "milp", "--time", "5", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject o = parseObject(r.out);
        QCOMPARE(o["proven_optimal"].toBool(), true);
        QCOMPARE(o["solver_bound_scope"].toString(), QString("op-level"));
        QVERIFY(o["solver_bound_ms"].toDouble() <= o["best_step_time_ms"].toDouble());
        QVERIFY(o["lower_bound_ms"].toDouble() >= o["solver_bound_ms"].toDouble());
        QVERIFY(o["best_step_time_ms"].toDouble() <= o["lower_bound_ms"].toDouble() * (1 + 1e-5));
        QVERIFY(o["certified_gap"].toDouble() >= 0.0 && o["certified_gap"].toDouble() < 1e-5);
        r = runCli({"place", g, "--cluster", "k80x4", "--algo", "milp", "--time", "5"});
        QVERIFY2(r.out.contains("proven       optimal"), qPrintable(r.out));
        QVERIFY2(!r.out.contains("certified"), qPrintable(r.out)); // "proven optimal" says it
        r = runCli({"compare", g, "--cluster", "k80x4", "--algos", "milp,m-etf", "--time", "2", "--json"});
        QCOMPARE(r.exitCode, 0);
        o = parseObject(r.out);
        const QJsonArray rows = o["results"].toArray();
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].toObject()["algo"].toString(), QString("milp"));
        QCOMPARE(rows[0].toObject()["proven_optimal"].toBool(), true);
        QVERIFY(!rows[1].toObject().contains("solver_bound_ms"));
        // Too large for the op-level model (102 ops): grouped mode, whose bound is reported as a
        // bound of the grouping only, never as lower_bound_ms.
        const QString big = testdata::sourceDir() + "/samples/graphs/inception-block.json";
        r = runCli({"place", big, "--cluster", "k80x4", "--algo", "milp", "--time", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        o = parseObject(r.out);
        QVERIFY(o["grouped_bound_ms"].toDouble() > 0.0);
        QVERIFY(o["grouped_bound_groups"].toInt() >= 1 && o["grouped_bound_groups"].toInt() <= 60);
        QVERIFY(o.contains("grouped_optimal"));
        QVERIFY(o["lower_bound_source"].toString() != "milp");
        QVERIFY(!o.contains("solver_bound_ms"));
        r = runCli({"place", big, "--cluster", "k80x4", "--algo", "milp", "--time", "1", "--set", "milp-groups=8"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("grouped bound") && r.out.contains("a bound of that grouping only, not of this graph"),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains("(milp)"), qPrintable(r.out));
        r = runCli({"compare", big, "--cluster", "k80x4", "--algos", "milp,m-etf", "--time", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        o = parseObject(r.out);
        QVERIFY(o["results"].toArray()[0].toObject()["grouped_bound_ms"].toDouble() > 0.0);
        QVERIFY(o["lower_bound_source"].toString() != "milp");
        // The op-level model forced (more groups than ops): refused, naming the graph and the limit.
        r = runCli({"place", big, "--cluster", "k80x4", "--algo", "milp", "--set", "milp-groups=1000"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("inception-block") && r.err.contains("up to 60 ops"), qPrintable(r.err));
        // Not run unless named.
        r = runCli({"compare", g, "--cluster", "k80x2", "--samples", "20", "--seeds", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        for (const QJsonValue& row : parseObject(r.out)["results"].toArray())
            QVERIFY(row.toObject()["algo"].toString() != "milp");
    }

    void simulatePlacementFileAndTrace()
    {
        const QString g = write("chain.json", kChain);
        const QString c = write("pair.json", kCluster);
        const QString p = write("split.json", R"({"format": "post-placement/1", "graph": "chain", "cluster": "pair",
            "placement": {"a": "/device:GPU:0", "b": "/device:GPU:0", "c": "/device:GPU:1"}})");
        const QString trace = dir_.filePath("trace.json");
        Run r = runCli({"simulate", g, "--cluster", c, "--placement", p, "--json", "--trace", trace});
        QCOMPARE(r.exitCode, 0);
        // a, b on GPU:0 end at 300; b's 1 MB crosses: 10 + 1000 = 1010 -> 1310; c at speed 2: 25 -> 1335 us.
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 1.335);
        QFile f(trace);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        int complete = 0;
        for (const QJsonValue& e : t["traceEvents"].toArray())
            complete += e.toObject()["ph"].toString() == "X";
        QCOMPARE(complete, 4); // three ops and one transfer
    }

    // --dispatch critical-path: devices start the ready op with the longest path to the end
    // (tests/core/test_simulator.cpp criticalPathDispatch: 17 us in ready order, 16 us by path).
    void dispatchRuleIsAnOption()
    {
        const QString g = write("dispatch.json", R"({"format": "post-graph/1", "name": "dispatch", "ops": [
            {"name": "blocker", "time_us": {"gpu": 10}}, {"name": "early", "time_us": {"gpu": 1}},
            {"name": "late", "time_us": {"gpu": 1}}, {"name": "feedEarly", "time_us": {"gpu": 2}},
            {"name": "feedLate", "time_us": {"gpu": 4}}, {"name": "tail", "time_us": {"gpu": 5}}],
            "edges": [{"from": "feedEarly", "to": "early", "bytes": 0}, {"from": "feedLate", "to": "late", "bytes": 0},
                      {"from": "late", "to": "tail", "bytes": 0}]})");
        const QString c = write("three.json", R"({"format": "post-cluster/1", "name": "three", "devices": [
            {"name": "/device:GPU:0", "kind": "gpu", "speed": 1, "memory_bytes": 1e9},
            {"name": "/device:GPU:1", "kind": "gpu", "speed": 1, "memory_bytes": 1e9},
            {"name": "/device:GPU:2", "kind": "gpu", "speed": 1, "memory_bytes": 1e9}],
            "default_link": {"bandwidth_GBps": 0.1, "latency_us": 0}})");
        const QString p = write("dispatch-placement.json", R"({"format": "post-placement/1", "placement": {
            "blocker": "/device:GPU:0", "early": "/device:GPU:0", "late": "/device:GPU:0",
            "feedEarly": "/device:GPU:1", "feedLate": "/device:GPU:2", "tail": "/device:GPU:1"}})");
        Run r = runCli({"simulate", g, "--cluster", c, "--placement", p, "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["dispatch"].toString(), QString("ready"));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.017);
        QVERIFY(!r.err.contains("--dispatch"));
        r = runCli({"simulate", g, "--cluster", c, "--placement", p, "--dispatch", "critical-path", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject critical = parseObject(r.out);
        QCOMPARE(critical["dispatch"].toString(), QString("critical-path"));
        QCOMPARE(critical["step_time_ms"].toDouble(), 0.016);
        QVERIFY(critical["lower_bound_ms"].toDouble() <= 0.016);
        QVERIFY2(r.err.contains("--dispatch critical-path: every step time here assumes"), qPrintable(r.err));
        r = runCli({"simulate", g, "--cluster", c, "--placement", p, "--dispatch", "critical-path"});
        QVERIFY2(r.out.contains("step time    0.016 ms  (critical-path dispatch)"), qPrintable(r.out));
        QCOMPARE(runCli({"simulate", g, "--cluster", c, "--placement", p, "--dispatch", "fifo"}).exitCode, 2);

        // place and compare time every sample under the rule; the placement file records it.
        const QString out = dir_.filePath("dispatch-best.json");
        r = runCli({"place", g, "--cluster", c, "--algo", "post", "--samples", "200", "--dispatch", "critical-path",
                    "--out", out, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject placed = parseObject(r.out);
        QCOMPARE(placed["dispatch"].toString(), QString("critical-path"));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject file = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(file["dispatch"].toString(), QString("critical-path"));
        QCOMPARE(file["step_time_us"].toDouble() / 1000.0, placed["best_step_time_ms"].toDouble());
        r = runCli({"simulate", g, "--cluster", c, "--placement", out, "--dispatch", "critical-path", "--json"});
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), placed["best_step_time_ms"].toDouble());
        r = runCli({"compare", g, "--cluster", c, "--algos", "single,m-etf", "--dispatch", "critical-path", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["dispatch"].toString(), QString("critical-path"));

        // A placement file's "dispatch" is checked like its other informational fields.
        const QString bad = write("bad-dispatch.json", R"({"format": "post-placement/1", "dispatch": "fifo",
            "placement": {"blocker": "/device:GPU:0", "early": "/device:GPU:0", "late": "/device:GPU:0",
            "feedEarly": "/device:GPU:0", "feedLate": "/device:GPU:0", "tail": "/device:GPU:0"}})");
        r = runCli({"simulate", g, "--cluster", c, "--placement", bad});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bad-dispatch.json") && r.err.contains("dispatch"), qPrintable(r.err));
    }

    // simulate --placement FILE times FILE under the rule it was placed under unless --dispatch
    // says otherwise, which a note names. One GPU, so every placer gives the one placement: ready
    // order starts "big" first and the collective's input waits for it (22 us); critical-path
    // dispatch starts "feed" first and the collective overlaps "big" (12 us).
    void placementFileKeepsItsDispatchRule()
    {
        const QString g = write("overlap.json", R"({"format": "post-graph/1", "name": "overlap", "ops": [
            {"name": "big", "time_us": {"gpu": 10}}, {"name": "feed", "time_us": {"gpu": 1}},
            {"name": "reduce", "time_us": {"gpu": 10}, "measured": ["gpu"], "collective": {"kind": "all_reduce"}},
            {"name": "after", "time_us": {"gpu": 1}}],
            "edges": [{"from": "feed", "to": "reduce", "bytes": 0}, {"from": "reduce", "to": "after", "bytes": 0}]})");
        const QString c = write("one-gpu.json", R"({"format": "post-cluster/1", "name": "one-gpu", "devices": [
            {"name": "/device:GPU:0", "kind": "gpu", "speed": 1, "memory_bytes": 1e9}]})");
        const QString critical = dir_.filePath("placed-critical.json"), ready = dir_.filePath("placed-ready.json");
        Run r = runCli({"place", g, "--cluster", c, "--algo", "single", "--dispatch", "critical-path", "--out",
                        critical, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["best_step_time_ms"].toDouble(), 0.012);
        QFile f(critical);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject file = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(file["dispatch"].toString(), QString("critical-path"));
        QCOMPARE(file["step_time_us"].toDouble(), 12.0);

        // Without --dispatch: the file's rule and its step time, said on stderr.
        r = runCli({"simulate", g, "--cluster", c, "--placement", critical, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["dispatch"].toString(), QString("critical-path"));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), file["step_time_us"].toDouble() / 1000.0);
        QVERIFY2(r.err.contains("placed-critical.json was placed under critical-path dispatch")
                     && r.err.contains("--dispatch critical-path: every step time here assumes"),
                 qPrintable(r.err));
        r = runCli({"simulate", g, "--cluster", c, "--placement", critical});
        QVERIFY2(r.out.contains("step time    0.012 ms  (critical-path dispatch)"), qPrintable(r.out));
        // The same rule given: the same time, and no note of a mismatch.
        r = runCli({"simulate", g, "--cluster", c, "--placement", critical, "--dispatch", "critical-path", "--json"});
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.012);
        QVERIFY2(!r.err.contains("placed under"), qPrintable(r.err));
        // Another rule given: it is used, and a note names the file and both rules.
        r = runCli({"simulate", g, "--cluster", c, "--placement", critical, "--dispatch", "ready", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["dispatch"].toString(), QString("ready"));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.022);
        QVERIFY2(r.err.contains("placed-critical.json was placed under critical-path dispatch")
                     && r.err.contains("timing it under --dispatch ready"),
                 qPrintable(r.err));
        QVERIFY2(!r.err.contains("every step time here assumes"), qPrintable(r.err));

        // A file placed in ready order stays in ready order, silently; --dispatch critical-path
        // on it is noted the same way.
        r = runCli({"place", g, "--cluster", c, "--algo", "single", "--out", ready});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({"simulate", g, "--cluster", c, "--placement", ready, "--json"});
        QCOMPARE(parseObject(r.out)["dispatch"].toString(), QString("ready"));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.022);
        QVERIFY2(!r.err.contains("dispatch"), qPrintable(r.err));
        r = runCli({"simulate", g, "--cluster", c, "--placement", ready, "--dispatch", "critical-path", "--json"});
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), 0.012);
        QVERIFY2(r.err.contains("placed-ready.json was placed under ready dispatch")
                     && r.err.contains("timing it under --dispatch critical-path"),
                 qPrintable(r.err));
    }

    // A placement file records the precision mode its step_time_us was timed under; simulate
    // --placement and place --start without --precision take it (a note says so where the default
    // is another mode), with --precision of another mode a note names both; a file without the
    // field takes the default, silently. Two FP32 matrix products on an A100: 14.7 ms each at the
    // FP32 peak, 2.6 ms in TF32 (the preset's default), 1.3 ms under amp.
    void placementFileKeepsItsPrecision()
    {
        const QString g = write("matmuls.json", R"({"format": "post-graph/1", "name": "matmuls", "ops": [
            {"name": "a", "type": "MatMul", "time_us": {"gpu": 100}, "flops": 2e11, "memory_bytes": 1e8, "matrix": true,
             "output_bytes": 1e6},
            {"name": "b", "type": "MatMul", "time_us": {"gpu": 100}, "flops": 2e11, "memory_bytes": 1e8, "matrix": true}],
            "edges": [{"from": "a", "to": "b"}]})");
        const QString c = "a100x8-nvlink";
        const QString amp = dir_.filePath("matmuls.amp.json");
        Run r = runCli({"place", g, "--cluster", c, "--algo", "single", "--precision", "amp", "--out", amp, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("amp"));
        const QJsonObject file = readJsonObject(amp);
        QCOMPARE(file["precision"].toString(), QString("amp"));
        const double stepMs = file["step_time_us"].toDouble() / 1000.0;
        QCOMPARE(parseObject(r.out)["best_step_time_ms"].toDouble(), stepMs);

        // Without --precision: the file's mode and its step time, said on stderr.
        r = runCli({"simulate", g, "--cluster", c, "--placement", amp, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("amp"));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), stepMs);
        QVERIFY2(r.err.contains("matmuls.amp.json was timed under precision amp")
                     && r.err.contains("using that mode, not tf32"),
                 qPrintable(r.err));
        // The same mode given: the same time, no note of a mismatch.
        r = runCli({"simulate", g, "--cluster", c, "--placement", amp, "--precision", "amp", "--json"});
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), stepMs);
        QVERIFY2(!r.err.contains("timed under precision"), qPrintable(r.err));
        // Another mode given: it is used, and a note names the file's.
        r = runCli({"simulate", g, "--cluster", c, "--placement", amp, "--precision", "tf32", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("tf32"));
        const double tf32Ms = parseObject(r.out)["step_time_ms"].toDouble();
        QVERIFY2(tf32Ms > 1.5 * stepMs, qPrintable(QString("tf32 %1 ms, amp %2 ms").arg(tf32Ms).arg(stepMs)));
        QVERIFY2(r.err.contains("matmuls.amp.json was timed under precision amp")
                     && r.err.contains("using --precision tf32 as asked"),
                 qPrintable(r.err));

        // A file of before the field: the default mode, silently (it still loads).
        QJsonObject old = file;
        old.remove("precision");
        const QString oldFile = write("matmuls.old.json", QJsonDocument(old).toJson());
        r = runCli({"simulate", g, "--cluster", c, "--placement", oldFile, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("tf32"));
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), tf32Ms);
        QVERIFY2(!r.err.contains("precision"), qPrintable(r.err));

        // place --start searches under the start's mode and records it.
        const QString again = dir_.filePath("matmuls.again.json");
        r = runCli({"place", g, "--cluster", c, "--algo", "local-search", "--samples", "20", "--start", amp, "--out",
                    again, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("amp"));
        QCOMPARE(parseObject(r.out)["start_step_time_ms"].toDouble(), stepMs);
        QVERIFY2(r.err.contains("matmuls.amp.json was timed under precision amp"), qPrintable(r.err));
        QCOMPARE(readJsonObject(again)["precision"].toString(), QString("amp"));
        r = runCli({"place", g, "--cluster", c, "--algo", "local-search", "--samples", "20", "--start", amp,
                    "--precision", "fp32", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("fp32"));
        QVERIFY2(r.err.contains("using --precision fp32 as asked"), qPrintable(r.err));

        // Checked for its value, naming the field.
        QJsonObject bad = file;
        bad["precision"] = "fp16";
        const QString badFile = write("matmuls.bad.json", QJsonDocument(bad).toJson());
        r = runCli({"simulate", g, "--cluster", c, "--placement", badFile});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("matmuls.bad.json") && r.err.contains("field precision"), qPrintable(r.err));
    }

    // --precision changes only roofline times: where no op's time depends on it (times given by
    // the file, as PipeDream's, MSR's and DOT's; or a cluster without tensor-core peaks) one note
    // says it is ignored. Not without --precision, and not where it matters.
    void precisionWithoutEffectIsNoted()
    {
        const QString chain = write("chain-times.json", kChain);
        const QString note = "changes no op's time here";
        Run r = runCli(
            {"simulate", chain, "--cluster", "a100x8-nvlink", "--all-on", "/device:GPU:0", "--precision", "amp"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.err.count(note), 1);
        QVERIFY2(r.err.contains("--precision amp") && r.err.contains("are measured")
                     && r.err.contains("so the precision is ignored"),
                 qPrintable(r.err));
        r = runCli({"simulate", chain, "--cluster", "a100x8-nvlink", "--all-on", "/device:GPU:0"});
        QVERIFY2(r.exitCode == 0 && !r.err.contains(note), qPrintable(r.err));
        r = runCli({"place", chain, "--cluster", "a100x8-nvlink", "--algo", "m-etf", "--precision", "fp32"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.err.count(note), 1);
        r = runCli({"compare", chain, "--cluster", "a100x8-nvlink", "--algos", "single,m-etf", "--precision", "fp32"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.err.count(note), 1);

        const QString matmul = write("one-matmul.json", R"({"format": "post-graph/1", "name": "one-matmul", "ops": [
            {"name": "a", "type": "MatMul", "time_us": {"gpu": 100}, "flops": 2e11, "memory_bytes": 1e8, "matrix": true}]})");
        r = runCli({"simulate", matmul, "--cluster", "a100x8-nvlink", "--all-on", "/device:GPU:0", "--precision", "amp"});
        QVERIFY2(r.exitCode == 0 && !r.err.contains(note), qPrintable(r.err));
        // The K80 has no tensor cores: every mode times it alike.
        r = runCli({"simulate", matmul, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--precision", "amp"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(note) && r.err.contains("no device of cluster 'k80x4' has the tensor-core peaks"),
                 qPrintable(r.err));
    }

    // A placement file made for another cluster is read where that one has its devices, with a
    // note naming both clusters (simulate, place --start, export-placement --to tf); one made for
    // another graph is refused naming the graph the file records.
    void placementOfAnotherClusterOrGraphIsNamed()
    {
        const QString chain = write("chain-cluster.json", kChain);
        const QString k80 = dir_.filePath("chain.k80.json");
        Run r = runCli({"place", chain, "--cluster", "k80x4", "--algo", "m-etf", "--out", k80});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readJsonObject(k80)["cluster"].toString(), QString("k80x4"));
        const QString note = "chain.k80.json was made for cluster 'k80x4', not 'a100x8-nvlink'";
        r = runCli({"simulate", chain, "--cluster", "a100x8-nvlink", "--placement", k80});
        QVERIFY2(r.exitCode == 0 && r.err.contains(note), qPrintable(r.err));
        r = runCli({"simulate", chain, "--cluster", "k80x4", "--placement", k80});
        QVERIFY2(r.exitCode == 0 && !r.err.contains("was made for cluster"), qPrintable(r.err));
        r = runCli({"place", chain, "--cluster", "a100x8-nvlink", "--algo", "local-search", "--samples", "10",
                    "--start", k80});
        QVERIFY2(r.exitCode == 0 && r.err.contains(note), qPrintable(r.err));

        // Another graph whose op names partly match: the error names both graphs.
        const QString other = write("other.json", R"({"format": "post-graph/1", "name": "other", "ops": [
            {"name": "a", "time_us": {"gpu": 10}}, {"name": "b", "time_us": {"gpu": 10}},
            {"name": "z", "time_us": {"gpu": 10}}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "z"}]})");
        r = runCli({"simulate", other, "--cluster", "k80x4", "--placement", k80});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("the file was made for graph \"chain\", not \"other\""), qPrintable(r.err));

        const QString pbtxt = testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt";
        const QString placed = dir_.filePath("cnn.k80x2.json");
        r = runCli({"place", pbtxt, "--cluster", "k80x2", "--algo", "m-etf", "--out", placed});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({"export-placement", placed, "--to", "tf", "--graph", pbtxt, "--cluster", "k80x4"});
        QVERIFY2(r.exitCode == 0 && r.err.contains("cnn.k80x2.json was made for cluster 'k80x2', not 'k80x4'"),
                 qPrintable(r.err));
        r = runCli({"export-placement", placed, "--to", "tf", "--graph", pbtxt, "--cluster", "k80x2"});
        QVERIFY2(r.exitCode == 0 && !r.err.contains("was made for cluster"), qPrintable(r.err));
    }

    // convert keeps what decides a graph's defaults: an ONNX model converted to post-graph/1 still
    // runs in PyTorch's precision mode by default and info still gives its forward FLOPs and
    // kernel fusion; a post-graph/1 file without an "origin" reads as before.
    void convertKeepsTheGraphsOrigin()
    {
        const QString onnx = testdata::sourceDir() + "/tests/data/onnx/cnn.onnx";
        const QString converted = dir_.filePath("cnn.converted.json");
        Run r = runCli({"convert", onnx, "--out", converted});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject origin = readJsonObject(converted)["origin"].toObject();
        QCOMPARE(origin["format"].toString(), QString("onnx"));
        for (const QString& graph : {onnx, converted}) {
            r = runCli({"simulate", graph, "--cluster", "h100x8-nvlink", "--all-on", "/device:GPU:0", "--json"});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QCOMPARE(parseObject(r.out)["precision"].toString(), QString("pytorch"));
            QVERIFY2(r.err.contains("precision pytorch, the default for onnx graphs"), qPrintable(r.err));
        }
        const QJsonObject before = parseObject(runCli({"info", onnx, "--json"}).out);
        const QJsonObject after = parseObject(runCli({"info", converted, "--json"}).out);
        QVERIFY(before["forward_flops"].toDouble() > 0.0);
        QCOMPARE(after["forward_flops"].toDouble(), before["forward_flops"].toDouble());
        QCOMPARE(after["kernel_fusion"].toObject(), before["kernel_fusion"].toObject());
        r = runCli({"info", converted});
        QVERIFY2(r.out.contains("forward FLOPs") && r.out.contains("kernel fusion"), qPrintable(r.out));
        // Converted again: the same file.
        const QString twice = dir_.filePath("cnn.twice.json");
        QCOMPARE(runCli({"convert", converted, "--out", twice}).exitCode, 0);
        QFile a(converted), b(twice);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());
        // Without an origin: tf32, as before; a bad origin is refused naming the field.
        QJsonObject bare = readJsonObject(converted);
        bare.remove("origin");
        const QString bareFile = write("cnn.bare.json", QJsonDocument(bare).toJson());
        r = runCli({"simulate", bareFile, "--cluster", "h100x8-nvlink", "--all-on", "/device:GPU:0", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["precision"].toString(), QString("tf32"));
        bare["origin"] = QJsonObject{{"format", "post-graph"}};
        r = runCli({"info", write("cnn.badorigin.json", QJsonDocument(bare).toJson())});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("field origin.format"), qPrintable(r.err));
    }

    // The audit's repro: param's linear model, an execution trace, keeps its step time (PyTorch's
    // precision), its host-dispatch and forward-FLOPs lines through convert.
    void convertedExecutionTraceKeepsItsStep()
    {
        REQUIRE_SHARED_DATA(data);
        const QString et = data + "/traces/param/linear_et.json.gz";
        const QString converted = dir_.filePath("linear.json");
        Run r = runCli({"convert", et, "--out", converted});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList infos;
        double steps[2] = {};
        int i = 0;
        for (const QString& graph : {et, converted}) {
            r = runCli({"simulate", graph, "--cluster", "h100x8-nvlink", "--all-on", "/device:GPU:0", "--json"});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            steps[i++] = parseObject(r.out)["step_time_ms"].toDouble();
            QVERIFY2(r.err.contains("likely bound by the host"), qPrintable(r.err));
            infos << runCli({"info", graph}).out;
        }
        QCOMPARE(steps[1], steps[0]);
        for (const char* line : {"host dispatch      ", "forward FLOPs      ", "kernel fusion      "}) {
            const auto lineOf = [line](const QString& info) {
                const qsizetype at = info.indexOf(line);
                return at < 0 ? QString() : info.mid(at, info.indexOf('\n', at) - at);
            };
            QVERIFY2(!lineOf(infos[0]).isEmpty() && lineOf(infos[1]) == lineOf(infos[0]), qPrintable(infos[1]));
        }
    }

    // The exports carry the devices, not the order: one of a placement found under
    // critical-path dispatch says so on stderr, one of ready order does not.
    void exportsOfACriticalPathPlacementSaySo()
    {
        const QString placed = write("cp-modules.json", R"({"format": "post-placement/1", "dispatch": "critical-path",
            "step_time_us": 5, "placement": {"a": "/device:GPU:0", "b": "/device:GPU:1"},
            "modules": {"a": "fc", "b": "head"}})");
        Run r = runCli({"export-placement", placed});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("post-torch-map/1"));
        QVERIFY2(r.err.contains("cp-modules.json was placed under critical-path dispatch; PyTorch runs the ops in "
                                "program order"),
                 qPrintable(r.err));
        const QString ready = write("ready-modules.json", R"({"format": "post-placement/1", "step_time_us": 5,
            "placement": {"a": "/device:GPU:0", "b": "/device:GPU:1"}, "modules": {"a": "fc", "b": "head"}})");
        r = runCli({"export-placement", ready});
        QVERIFY2(r.exitCode == 0 && !r.err.contains("dispatch"), qPrintable(r.err));

        const QString pbtxt = testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt";
        const QString out = dir_.filePath("placed.pbtxt");
        r = runCli({"place", pbtxt, "--cluster", "k80x2", "--algo", "m-etf", "--dispatch", "critical-path",
                    "--pbtxt-out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("placed.pbtxt gives each node its device, not the order the search timed"),
                 qPrintable(r.err));
        r = runCli({"place", pbtxt, "--cluster", "k80x2", "--algo", "m-etf", "--pbtxt-out", out, "--force"});
        QVERIFY2(r.exitCode == 0 && !r.err.contains("not the order"), qPrintable(r.err));
    }

    // --start: the searches that start from the classical placers take the file as one more
    // start, a learner starts its policy on it; either way the result is never slower, and on
    // rnnlm-2 (k80x4) a 40-sample post@best from a 3,000-sample post run keeps that run's step
    // where it ends about 20 % slower on its own.
    void placeStartsFromAGivenPlacement()
    {
        const QString graph = testdata::sourceDir() + "/samples/graphs/rnnlm-2.json";
        const QString good = dir_.filePath("good.json");
        Run r = runCli(
            {"place", graph, "--cluster", "k80x4", "--algo", "post", "--samples", "3000", "--out", good, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const double goodMs = parseObject(r.out)["best_step_time_ms"].toDouble();
        r = runCli({"place", graph, "--cluster", "k80x4", "--algo", "post@best", "--samples", "40", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const double alone = parseObject(r.out)["best_step_time_ms"].toDouble();
        QVERIFY2(alone > goodMs * 1.05, qPrintable(QString("40 samples alone: %1 ms against %2").arg(alone).arg(goodMs)));
        for (const char* algo : {"post@best", "local-search", "post", "ce"}) {
            r = runCli(
                {"place", graph, "--cluster", "k80x4", "--algo", algo, "--samples", "40", "--start", good, "--json"});
            QVERIFY2(r.exitCode == 0, qPrintable(algo + (": " + r.err)));
            const double ms = parseObject(r.out)["best_step_time_ms"].toDouble();
            QVERIFY2(ms <= goodMs,
                     qPrintable(QString("%1 from the start: %2 ms, the start %3").arg(algo).arg(ms).arg(goodMs)));
            QVERIFY(std::abs(parseObject(r.out)["start_step_time_ms"].toDouble() - goodMs) <= 1e-9 * goodMs);
        }
        // The result records its start: the file as given, its step time and its fingerprint,
        // which simulate reports for the start file; simulate names the start of the result.
        const QString found = dir_.filePath("found.json");
        r = runCli({"place", graph, "--cluster", "k80x4", "--algo", "local-search", "--samples", "10", "--start", good,
                    "--out", found});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject start = readJsonObject(found)["start"].toObject();
        r = runCli({"simulate", graph, "--cluster", "k80x4", "--placement", good, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject simulated = parseObject(r.out);
        QCOMPARE(start["file"].toString(), good);
        QVERIFY(simulated["placement_fingerprint"].toString().startsWith("fnv1a64:"));
        QCOMPARE(start["fingerprint"].toString(), simulated["placement_fingerprint"].toString());
        QCOMPARE(start["step_time_us"].toDouble() / 1000.0, simulated["step_time_ms"].toDouble());
        QVERIFY(std::abs(start["step_time_us"].toDouble() / 1000.0 - goodMs) < 1e-9 * goodMs);
        r = runCli({"simulate", graph, "--cluster", "k80x4", "--placement", found});
        QVERIFY2(r.exitCode == 0 && r.out.contains("(searched from " + good + ", ")
                     && r.out.contains(start["fingerprint"].toString() + ")"),
                 qPrintable(r.out));
        QVERIFY(!readJsonObject(good).contains("start")); // a search of its own records none
        r = runCli({"place", graph, "--cluster", "k80x4", "--algo", "local-search", "--samples", "5", "--start", good});
        QVERIFY2(r.exitCode == 0 && r.out.contains("\nstart        ") && r.out.contains("(" + good + ")"),
                 qPrintable(r.out));
        // What cannot start from a placement says so before the search, and the file is an input.
        for (const char* algo : {"m-etf", "random", "post@m-sct", "milp"}) {
            r = runCli({"place", graph, "--cluster", "k80x4", "--algo", algo, "--start", good});
            QVERIFY2(r.exitCode == 2 && r.err.contains("does not start from a placement"), qPrintable(r.err));
        }
        r = runCli({"place", graph, "--cluster", "k80x4", "--algo", "local-search", "--samples", "5", "--start", good,
                    "--out", good});
        QVERIFY2(r.exitCode != 0 && r.err.contains("is also an input"), qPrintable(r.err));
        // A placement of another graph is refused naming the file.
        const QString other = dir_.filePath("other.json");
        r = runCli({"place", testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--cluster", "k80x4", "--algo",
                    "m-etf", "--out", other});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({"place", graph, "--cluster", "k80x4", "--algo", "local-search", "--start", other});
        QVERIFY2(r.exitCode == 1 && r.err.contains("other.json") && r.err.contains("unknown op"), qPrintable(r.err));
    }

    // export-placement --to tf writes, from a placement file, the .pbtxt place --pbtxt-out wrote
    // in the same run, byte for byte; what it needs is asked for before any reading.
    void exportToTfIsThePbtxtPlaceWrites()
    {
        const QString pbtxt = testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt";
        const QString placed = dir_.filePath("tf-placed.json");
        const QString direct = dir_.filePath("direct.pbtxt");
        Run r = runCli({"place", pbtxt, "--cluster", "k80x2", "--algo", "m-etf", "--out", placed, "--pbtxt-out", direct});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString later = dir_.filePath("later.pbtxt");
        r = runCli({"export-placement", placed, "--to", "tf", "--graph", pbtxt, "--cluster", "k80x2", "--out", later});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile a(direct), b(later);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray written = a.readAll();
        QVERIFY(written.contains("device:"));
        QCOMPARE(b.readAll(), written);
        r = runCli({"export-placement", placed, "--to", "tf", "--graph", pbtxt, "--cluster", "k80x2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.toUtf8(), written); // standard output without --out
        r = runCli({"export-placement", placed, "--to", "tf", "--graph", pbtxt});
        QVERIFY2(r.exitCode == 2 && r.err.contains("--cluster"), qPrintable(r.err));
        r = runCli({"export-placement", placed, "--to", "torch", "--cluster", "k80x2"});
        QVERIFY2(r.exitCode == 2 && r.err.contains("are for --to tf"), qPrintable(r.err));
        // A graph's reading options do nothing to a torch map: refused, not ignored.
        r = runCli({"export-placement", placed, "--to", "torch", "--batch", "7"});
        QVERIFY2(r.exitCode == 2 && r.err.contains("--batch is for --to tf's --graph"), qPrintable(r.err));
        r = runCli({"export-placement", placed, "--to", "tf", "--graph",
                    testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--cluster", "k80x2"});
        QVERIFY2(r.exitCode == 2 && r.err.contains("needs a TensorFlow GraphDef"), qPrintable(r.err));
        // A placement of another graph is refused naming the placement file.
        const QString other = dir_.filePath("mlp-placed.json");
        r = runCli({"place", testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--cluster", "k80x2", "--algo",
                    "m-etf", "--out", other});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({"export-placement", other, "--to", "tf", "--graph", pbtxt, "--cluster", "k80x2"});
        QVERIFY2(r.exitCode == 1 && r.err.contains("mlp-placed.json"), qPrintable(r.err));
    }

    void infoOnnxWithBatch()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/cnn.onnx";
        Run r = runCli({"info", model, "--batch", "8", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject eight = parseObject(r.out);
        QCOMPARE(eight["name"].toString(), QString("tiny_cnn"));
        QCOMPARE(eight["ops"].toInt(), 23); // nine forward ops, nine backward ops, four SGD updates, the input's copy
        // Initializers by hand: conv1 8x3x3x3 + 8, bn1 4 x 8, conv2 16x8x3x3, fc 10x16 + 10 floats.
        QCOMPARE(eight["param_bytes"].toDouble(), 4.0 * (224 + 32 + 1152 + 170));
        r = runCli({"info", model, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject one = parseObject(r.out);
        // Every activation and gradient has the batch as its leading dimension.
        QCOMPARE(eight["output_bytes"].toDouble(), 8.0 * one["output_bytes"].toDouble());
        QCOMPARE(eight["param_bytes"].toDouble(), one["param_bytes"].toDouble());

        QCOMPARE(runCli({"info", model, "--batch", "0"}).exitCode, 2);
        QCOMPARE(runCli({"info", model, "--format", "onnx", "--batch", "2"}).exitCode, 0);
        QFile original(model);
        QVERIFY(original.open(QIODevice::ReadOnly));
        const QString cut = write("cut.onnx", original.readAll().left(300));
        r = runCli({"info", cut});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cut.onnx") && r.err.contains("does not parse"), qPrintable(r.err));
        QVERIFY2(!runCli({"info", model}).err.contains("no cost formula"), "cnn.onnx has only known ops");

        // An op type without a cost formula is reported on stderr, naming the type; --json stays clean.
        r = runCli({"info", testdata::sourceDir() + "/tests/data/onnx/custom_op.onnx", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("no cost formula") && r.err.contains("custom_op.onnx"), qPrintable(r.err));
        QCOMPARE(parseObject(r.out)["name"].toString().isEmpty(), false);
    }

    // --no-fusion costs every element-wise op of an ONNX or pbtxt graph as its own kernel:
    // the transformer's layer norms, GELU and residual adds then take longer (their kernels
    // are not fused), the graph's FLOPs stay the same, and a post-graph file ignores it.
    void noFusionCostsEveryOpAlone()
    {
        // small_cnn.pbtxt without its device fields (a graph that gives devices is never fused).
        QFile cnn(testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt");
        QVERIFY(cnn.open(QIODevice::ReadOnly));
        const QString undevised = write(
            "undevised.pbtxt",
            QString::fromUtf8(cnn.readAll()).remove(QRegularExpression("device: \"[^\"]*\"")).toUtf8());
        const QStringList models = {testdata::sourceDir() + "/tests/data/onnx/transformer.onnx", undevised};
        for (const QString& model : models) {
            Run fused = runCli({"info", model, "--json"});
            Run alone = runCli({"info", model, "--json", "--no-fusion"});
            QCOMPARE(fused.exitCode, 0);
            QCOMPARE(alone.exitCode, 0);
            const QJsonObject a = parseObject(fused.out);
            const QJsonObject b = parseObject(alone.out);
            QVERIFY2(b["total_gpu_time_ms"].toDouble() > a["total_gpu_time_ms"].toDouble(), qPrintable(model));
            QCOMPARE(b["forward_flops"].toDouble(), a["forward_flops"].toDouble());
            QVERIFY2(b["colocation_groups"].toInt() > a["colocation_groups"].toInt(), qPrintable(model));
        }
        const QString native = testdata::sourceDir() + "/samples/graphs/tiny-mlp.json";
        QCOMPARE(runCli({"info", native, "--json", "--no-fusion"}).out, runCli({"info", native, "--json"}).out);
    }

    // Issue 27: kernel fusion follows the framework that runs the graph. An ONNX file exported
    // by PyTorch (producer_name "pytorch") runs eagerly, each op its own kernel, so it is not
    // fused unless --fusion says so; other producers are fused unless --no-fusion; a graph
    // given measured times (--costs) is not fused; info says which applied and why.
    void fusionFollowsTheFramework()
    {
        QFile file(testdata::sourceDir() + "/tests/data/onnx/transformer.onnx");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray original = file.readAll();
        // producer_name is ModelProto field 2 (tag 0x12), a top-level field: its length byte alone changes.
        QByteArray exported = original;
        const QByteArray producer = QByteArray("\x12\x1a", 2) + "post-studio make_models.py";
        QVERIFY(exported.contains(producer));
        exported.replace(producer, QByteArray("\x12\x07", 2) + "pytorch");
        const QString other = testdata::sourceDir() + "/tests/data/onnx/transformer.onnx";
        const QString torch = write("transformer_torch.onnx", exported);
        const auto fusion = [](const Run& r) { return parseObject(r.out)["kernel_fusion"].toObject(); };

        const Run otherDefault = runCli({"info", other, "--json"});
        const Run torchDefault = runCli({"info", torch, "--json"});
        const Run torchFused = runCli({"info", torch, "--json", "--fusion"});
        const Run otherUnfused = runCli({"info", other, "--json", "--no-fusion"});
        for (const Run* r : {&otherDefault, &torchDefault, &torchFused, &otherUnfused})
            QCOMPARE(r->exitCode, 0);
        QCOMPARE(fusion(otherDefault)["on"].toBool(), true);
        QVERIFY2(fusion(otherDefault)["why"].toString().contains("post-studio make_models.py"),
                 qPrintable(otherDefault.out));
        QCOMPARE(fusion(torchDefault)["on"].toBool(), false);
        QVERIFY2(fusion(torchDefault)["why"].toString().contains("PyTorch"), qPrintable(torchDefault.out));
        QCOMPARE(fusion(torchFused)["on"].toBool(), true);
        QCOMPARE(fusion(torchFused)["why"].toString(), QString("--fusion"));
        QCOMPARE(fusion(otherUnfused)["why"].toString(), QString("--no-fusion"));
        // The same model either way: the PyTorch export unfused costs what --no-fusion gave the
        // other, and fused what the other gave by default.
        const auto total = [](const Run& r) { return parseObject(r.out)["total_gpu_time_ms"].toDouble(); };
        QCOMPARE(total(torchDefault), total(otherUnfused));
        QCOMPARE(total(torchFused), total(otherDefault));
        QVERIFY(total(torchDefault) > total(torchFused));

        const Run text = runCli({"info", torch});
        QVERIFY2(text.out.contains("kernel fusion      off (exported by PyTorch"), qPrintable(text.out));
        const Run both = runCli({"info", torch, "--fusion", "--no-fusion"});
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains("excludes"), qPrintable(both.err));
        // post-graph files carry their own costs: no fusion to speak of.
        QVERIFY(parseObject(runCli({"info", testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--json"})
                                .out)["kernel_fusion"]
                    .isNull());
    }

    // Issue 27: an ONNX graph runs under PyTorch's precision unless told otherwise (matrix
    // products in FP32 on an A100: slower than tf32), its step carries one update op per
    // parameter owner (--optimizer), and simulate --ops-csv lists every op's simulated time.
    void onnxDefaultsToPytorchPrecisionAndOptimizer()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/transformer.onnx";
        // A GPU whose FP32 units are slow next to its TF32 tensor cores, so that the small
        // model's products are compute-bound and the precision shows.
        const char* gpu = R"([{"name": "/device:GPU:0", "kind": "gpu", "peak_tflops": 0.001, "peak_tf32_tflops": 100,
                               "memory_bandwidth_GBps": 100000}])";
        const QString plain = write("plain.json", QByteArray(R"({"format": "post-cluster/1", "devices": )") + gpu + "}");
        const QString tf32File = write(
            "tf32.json", QByteArray(R"({"format": "post-cluster/1", "precision": "tf32", "devices": )") + gpu + "}");
        auto step = [&](const QString& cluster, QStringList extra) {
            Run r = runCli(QStringList{"simulate", model, "--cluster", cluster, "--all-on", "/device:GPU:0", "--json"}
                           + extra);
            if (r.exitCode != 0)
                qWarning("%s", qPrintable(r.err));
            return std::pair{parseObject(r.out)["step_time_ms"].toDouble(), r.err};
        };
        const auto [byDefault, note] = step(plain, {});
        QVERIFY2(note.contains("precision pytorch"), qPrintable(note));
        QCOMPARE(step(plain, {"--precision", "pytorch"}).first, byDefault);
        const auto [tf32, quiet] = step(plain, {"--precision", "tf32"});
        QVERIFY(tf32 < byDefault);
        QVERIFY(!quiet.contains("precision pytorch"));
        // A cluster file that says "tf32" keeps it.
        const auto [own, ownNote] = step(tf32File, {});
        QCOMPARE(own, tf32);
        QVERIFY(!ownNote.contains("precision pytorch"));

        auto ops = [&](const QString& optimizer) {
            const QString csv = dir_.filePath("ops-" + optimizer + ".csv");
            Run r = runCli({"simulate", model, "--cluster", "v100x4-nvlink", "--all-on", "/device:GPU:0", "--optimizer",
                            optimizer, "--ops-csv", csv, "--force"});
            QFile f(csv);
            if (r.exitCode != 0 || !f.open(QIODevice::ReadOnly))
                return QStringList{};
            return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        };
        const QStringList sgd = ops("sgd"), adam = ops("adam"), none = ops("none");
        QCOMPARE(sgd.front(), QString("name,type,device,time_us,flops,memory_bytes,measured,fused_into"));
        const auto count = [](const QStringList& lines, const QString& type) {
            return static_cast<int>(lines.filter("," + type + ",/device:GPU:0,").size());
        };
        QVERIFY(count(sgd, "ApplyMomentum") > 0);
        QCOMPARE(count(sgd, "ApplyAdam"), 0);
        QCOMPARE(count(adam, "ApplyAdam"), count(sgd, "ApplyMomentum"));
        QCOMPARE(count(none, "ApplyMomentum") + count(none, "ApplyAdam"), 0);
        QCOMPARE(sgd.size(), none.size() + count(sgd, "ApplyMomentum"));
        QVERIFY(count(sgd, "MemcpyHtoD") >= 1);
        QCOMPARE(runCli({"info", model, "--optimizer", "lamb"}).exitCode, 2);
    }

    // --input-copy-GBps sets the rate of the batch's copy to the GPU (ONNX and the zoo); a rate
    // that is no finite number > 0 is refused as usage.
    void inputCopyRateIsAnOption()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/transformer.onnx";
        const auto copyUs = [&](const QStringList& extra) {
            const QString csv = dir_.filePath("copy.csv");
            Run r = runCli(QStringList{"simulate", model, "--cluster", "v100x4-nvlink", "--all-on", "/device:GPU:0",
                                       "--ops-csv", csv, "--force"}
                           + extra);
            QFile f(csv);
            if (r.exitCode != 0 || !f.open(QIODevice::ReadOnly))
                return -1.0;
            double us = 0.0;
            for (const QString& line : QString::fromUtf8(f.readAll()).split('\n'))
                if (line.contains(",MemcpyHtoD,"))
                    us += line.split(',')[3].toDouble();
            return us;
        };
        const double base = copyUs({});
        const double slow = copyUs({"--input-copy-GBps", "2.5"});
        QVERIFY2(base > 0.0, qPrintable(QString::number(base)));
        // Each copy is bytes / rate + a 2 us launch: a quarter of the rate, four times the transfer,
        // the same launches (one per graph input).
        const double transfer = (slow - base) / 3.0; // the inputs' bytes at 10 GB/s
        const double launches = (base - transfer) / 2.0;
        QVERIFY2(transfer > 0.0 && launches > 0.5 && std::abs(launches - std::round(launches)) < 1e-6,
                 qPrintable(QString("%1 %2").arg(base).arg(slow)));
        for (const char* bad : {"0", "-1", "nan", "inf", "fast"}) {
            Run r = runCli({"info", model, "--input-copy-GBps", bad});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("--input-copy-GBps"), qPrintable(r.err));
        }
        // The zoo: ResNet-50's images at batch 32 (19.3 MB) on its feed.
        const QString zoo = dir_.filePath("r50.json");
        QCOMPARE(
            runCli({"zoo", "generate", "resnet-50", "--batch", "32", "--input-copy-GBps", "5", "--out", zoo, "--force"}).exitCode,
            0);
        Run r = runCli({"info", zoo, "--json"});
        double feed = -1.0;
        for (const QJsonValue& op : parseObject(r.out)["op_times"].toArray())
            if (op.toObject()["name"].toString() == "input/images")
                feed = op.toObject()["gpu_us"].toDouble();
        QCOMPARE(feed, 4.0 * 32 * 224 * 224 * 3 / 5e3 + 2.0);
    }

    // Nothing is silently 1: info lists the input dimensions without a value, the commands
    // that time the graph refuse them naming the options, and --dim / --input-shape give them.
    void unresolvedDimensionsAreListedThenRefused()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/symbolic_dims.onnx";
        Run r = runCli({"info", model, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject open = parseObject(r.out);
        const QJsonArray dims = open["unresolved_dims"].toArray();
        QCOMPARE(dims.size(), 2);
        QCOMPARE(dims[0].toObject()["name"].toString(), QString("height"));
        QCOMPARE(dims[1].toObject()["axis"].toInt(), 3);
        QVERIFY(open["ops_without_formula"].toObject().isEmpty());
        r = runCli({"info", model});
        QVERIFY2(r.out.contains("unresolved         input 'images' dimension 2 ('height')"), qPrintable(r.out));

        for (const QString command : {"simulate", "place", "compare", "convert"}) {
            QStringList args{command, model, "--cluster", "k80x4"};
            if (command == "simulate")
                args << "--all-on"
                     << "/device:GPU:0";
            if (command == "convert")
                args = QStringList{command, model, "--out", dir_.filePath("refused.json")};
            r = runCli(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("--dim height=N") && r.err.contains("--dim width=N")
                         && r.err.contains("--input-shape images=d0,d1,N,d3"),
                     qPrintable(command + ": " + r.err));
        }
        QVERIFY(!QFile::exists(dir_.filePath("refused.json")));

        r = runCli({"info", model, "--dim", "height=960", "--dim", "width=960", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject given = parseObject(r.out);
        QVERIFY(given["unresolved_dims"].toArray().isEmpty());
        // Conv 3 -> 4 channels, 3x3, bias-free, over 960 x 960, plus the ReLU.
        QCOMPARE(given["forward_flops"].toDouble(), 2.0 * 4 * 27 * 960 * 960 + 4.0 * 960 * 960);
        r = runCli({"simulate", model, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--input-shape",
                    "images=2,3,64,64"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(runCli({"info", model, "--dim", "height"}).exitCode, 2);
        QCOMPARE(runCli({"info", model, "--input-shape", "images=1,3,x,4"}).exitCode, 2);
        r = runCli({"info", model, "--dim", "heigth=9"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no symbolic dimension 'heigth'"), qPrintable(r.err));
    }

    // Sizes that depend on the data (a NonZero's count): info lists them, the commands that
    // time the graph refuse naming --count and --count-max, and either gives them.
    void sizesThatDependOnTheDataAreAskedFor()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/data_sizes.onnx";
        Run r = runCli({"info", model, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray sizes = parseObject(r.out)["data_dependent_sizes"].toArray();
        QCOMPARE(sizes.size(), 2);
        QCOMPARE(sizes[0].toObject()["node"].toString(), QString("pick"));
        QCOMPARE(sizes[0].toObject()["largest"].toInt(), 16);
        QVERIFY(sizes[0].toObject()["value"].isNull());
        r = runCli({"simulate", model, "--cluster", "k80x4", "--all-on", "/device:GPU:0"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--count pick=N") && r.err.contains("--count keep=N") && r.err.contains("--count-max"),
                 qPrintable(r.err));
        r = runCli({"simulate", model, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--count-max"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("worst case"), qPrintable(r.err));
        r = runCli({"info", model, "--count", "pick=3", "--count", "keep=2", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject given = parseObject(r.out);
        QVERIFY(given["unshaped_tensors"].toArray().isEmpty());
        QCOMPARE(given["data_dependent_sizes"].toArray()[0].toObject()["value"].toInt(), 3);
        QCOMPARE(runCli({"info", model, "--count", "pick"}).exitCode, 2);
        QCOMPARE(runCli({"info", model, "--count", "pick=-1"}).exitCode, 2);
        r = runCli({"info", model, "--count", "pick=99"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("at most 16, not 99"), qPrintable(r.err));
    }

    // Tensors without an inferred shape are refused by every command that times the graph,
    // naming how many and the node that makes the first; info shows the graph with a warning.
    // A --batch the export's fixed batch cannot take is refused too, naming the input.
    void unshapedTensorsAndFixedBatchesAreRefused()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/unknown_new_op.onnx";
        Run r = runCli({"info", model, "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["unshaped_tensors"].toArray().size(), 2);
        QVERIFY2(r.err.contains("warning") && r.err.contains("node 0 'crop' (CenterCropPad)"), qPrintable(r.err));
        for (const QString command : {"simulate", "place", "compare", "convert"}) {
            QStringList args{command, model, "--cluster", "k80x4"};
            if (command == "simulate")
                args << "--all-on"
                     << "/device:GPU:0";
            if (command == "convert")
                args = QStringList{command, model, "--out", dir_.filePath("unshaped.json")};
            r = runCli(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("tensor shapes: 2 tensor(s) on the compute path have no inferred shape")
                         && r.err.contains("node 0 'crop' (CenterCropPad), tensor 'cropped'"),
                     qPrintable(command + ": " + r.err));
        }
        QVERIFY(!QFile::exists(dir_.filePath("unshaped.json")));

        r = runCli({"info", model, "--batch", "8"}); // x is [2, 3]: the batch goes nowhere
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("batch 8 changes nothing") && r.err.contains("'x' (2)")
                     && r.err.contains("--input-shape x=8,3"),
                 qPrintable(r.err));
    }

    void convertWritesPostGraph()
    {
        const QString model = testdata::sourceDir() + "/tests/data/onnx/cnn.onnx";
        const QString out = dir_.filePath("cnn.json");
        Run r = runCli({"convert", model, "--batch", "4", "--out", out});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject original = parseObject(runCli({"info", model, "--batch", "4", "--json"}).out);
        r = runCli({"info", out, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject converted = parseObject(r.out);
        QCOMPARE(converted["ops"].toInt(), original["ops"].toInt());
        QCOMPARE(converted["edges"].toInt(), original["edges"].toInt());
        QCOMPARE(converted["param_bytes"].toDouble(), original["param_bytes"].toDouble());
        QVERIFY(std::abs(converted["total_gpu_time_ms"].toDouble() - original["total_gpu_time_ms"].toDouble()) < 1e-6);
        // The forward FLOPs come along in the file's "origin" (convertKeepsTheGraphsOrigin).
        QVERIFY(original["forward_flops"].toDouble() > 0.0);
        QCOMPARE(converted["forward_flops"].toDouble(), original["forward_flops"].toDouble());
        QCOMPARE(runCli({"convert", model}).exitCode, 2); // --out is required
    }

    void badInputExitsOneAndNamesTheFile_data()
    {
        QTest::addColumn<QByteArray>("graph");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("truncated") << QByteArray(kChain).left(120) << "line";
        QTest::newRow("unknown op in edge")
            << QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": 1}}],
                "edges": [{"from": "a", "to": "ghost"}]})")
            << "ghost";
        QTest::newRow("cycle") << QByteArray(R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": 1}},
                {"name": "b", "time_us": {"gpu": 1}}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]})")
                               << "cycle";
        QTest::newRow("negative time") << QByteArray(
            R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": -5}}], "edges": []})")
                                       << "time_us";
        QTest::newRow("wrong type") << QByteArray(
            R"({"format": "post-graph/1", "ops": [{"name": "a", "time_us": {"gpu": "fast"}}], "edges": []})")
                                    << "time_us";
        QTest::newRow("garbage") << QByteArray("\x01\x02 this is not a graph") << "format";
        QTest::newRow("empty") << QByteArray() << "empty";
    }

    void badInputExitsOneAndNamesTheFile()
    {
        QFETCH(QByteArray, graph);
        QFETCH(QString, fragment);
        const QString path = write("bad.graph", graph);
        Run r = runCli({"info", path});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bad.graph"), qPrintable(r.err));
        QVERIFY2(r.err.contains(fragment, Qt::CaseInsensitive), qPrintable(r.err));
    }

    void badPlacementAndClusterExitOne()
    {
        const QString g = write("chain.json", kChain);
        const QString c = write("pair.json", kCluster);
        const QString p = write("ghost.json", R"({"format": "post-placement/1", "graph": "chain", "cluster": "pair",
            "placement": {"a": "/device:GPU:0", "b": "/device:TPU:9", "c": "/device:GPU:1"}})");
        Run r = runCli({"simulate", g, "--cluster", c, "--placement", p});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("ghost.json") && r.err.contains("/device:TPU:9"), qPrintable(r.err));
        r = runCli({"simulate", g, "--cluster", dir_.filePath("missing-cluster.json"), "--all-on", "x"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("missing-cluster.json"), qPrintable(r.err));
        r = runCli({"info", dir_.filePath("nope.json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("nope.json"), qPrintable(r.err));
    }

    void placeWritesAPlacementThatSimulatesToTheReportedTime()
    {
        const QString sample = testdata::sourceDir() + "/samples/graphs/inception-block.json";
        const QString out = dir_.filePath("best.json");
        const QString log = dir_.filePath("run.csv");
        Run r = runCli({"place", sample, "--cluster", "k80x4", "--algo", "post", "--samples", "300", "--seed", "7",
                        "--out", out, "--log", log, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject placed = parseObject(r.out);
        QCOMPARE(placed["samples"].toInt(), 300);
        QVERIFY(placed["best_step_time_ms"].toDouble() >= placed["lower_bound_ms"].toDouble());

        // The written placement re-simulates to exactly the reported best.
        r = runCli({"simulate", sample, "--cluster", "k80x4", "--placement", out, "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["step_time_ms"].toDouble(), placed["best_step_time_ms"].toDouble());

        // One CSV row per sample plus one per update, best-so-far never increasing.
        QFile f(log);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.first().startsWith("event,sample,step_time_ms"));
        int samples = 0, updates = 0;
        double lastBest = 1e300;
        for (const QString& line : lines.mid(1)) {
            const QStringList cells = line.split(',');
            if (cells[0] == "sample") {
                QCOMPARE(cells[1].toInt(), samples++);
            } else {
                QCOMPARE(cells[0], QString("update"));
                ++updates;
                const double best = cells[6].toDouble();
                QVERIFY(best <= lastBest);
                lastBest = best;
            }
        }
        QCOMPARE(samples, 300); // Post's samples and its local search's evaluations alike
        QVERIFY(updates >= 5);  // PPO after each batch of 20 samples, CE after each 100
        QVERIFY(qAbs(lastBest - placed["best_step_time_ms"].toDouble()) < 1e-6);

        // Same seed, same answer.
        r = runCli({"place", sample, "--cluster", "k80x4", "--algo", "post", "--samples", "300", "--seed", "7", "--json"});
        QCOMPARE(parseObject(r.out)["best_step_time_ms"].toDouble(), placed["best_step_time_ms"].toDouble());
    }

    // place says how far its best can be from the optimum: best / lower bound - 1, where the
    // best fits in memory.
    void placeStatesItsCertifiedGap()
    {
        const QString sample = testdata::sourceDir() + "/samples/graphs/inception-block.json";
        Run r = runCli({"place", sample, "--cluster", "k80x4", "--algo", "m-etf", "--json"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject o = parseObject(r.out);
        const double gap = o["best_step_time_ms"].toDouble() / o["lower_bound_ms"].toDouble() - 1.0;
        QVERIFY(gap > 0.001); // m-etf is not optimal there
        QVERIFY(std::abs(o["certified_gap"].toDouble() - gap) < 1e-12);
        r = runCli({"place", sample, "--cluster", "k80x4", "--algo", "m-etf"});
        const QString line = QString("certified    within %1% of the optimum").arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1);
        QVERIFY2(r.out.contains(line), qPrintable(r.out + "\nwanted: " + line));
        // Nothing fits (1 kB per device): no gap, as the bound holds only for placements that fit.
        const QString g = write("chain.json", kChain);
        QString tiny = QString(kCluster).replace("1e9", "1000");
        const QString c = write("tiny.json", tiny.toUtf8());
        r = runCli({"place", g, "--cluster", c, "--algo", "m-etf", "--json"});
        QCOMPARE(r.exitCode, 0);
        o = parseObject(r.out);
        QCOMPARE(o["feasible"].toBool(), false);
        QVERIFY(!o.contains("certified_gap"));
        r = runCli({"place", g, "--cluster", c, "--algo", "m-etf"});
        QVERIFY2(r.out.contains("INFEASIBLE") && !r.out.contains("certified"), qPrintable(r.out));
    }

    void compareStatesTheBudgetItRan()
    {
        const QString g = write("chain.json", kChain);
        const QString c = write("pair.json", kCluster);
        // Samples alone (the default budget), wall time alone (no sample limit), or both.
        Run r = runCli({"compare", g, "--cluster", c, "--algos", "random", "--samples", "30", "--seeds", "1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("; 30 samples, 1 seed\n"), qPrintable(r.out));
        r = runCli({"compare", g, "--cluster", c, "--algos", "random", "--time", "0.2", "--seeds", "1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("; 0.2 s a run, 1 seed\n") && !r.out.contains("2400"), qPrintable(r.out));
        r = runCli({"compare", g, "--cluster", c, "--algos", "random", "--time", "0.2", "--seeds", "1", "--json"});
        QJsonObject o = parseObject(r.out);
        QCOMPARE(o["time_s"].toDouble(), 0.2);
        QCOMPARE(o["samples"].toDouble(), 100000000.0);                             // no limit
        QVERIFY(o["results"].toArray()[0].toObject()["samples"].toDouble() > 2400); // it ran past the default
        r = runCli({"compare", g, "--cluster", c, "--algos", "random", "--samples", "30", "--time", "60", "--seeds",
                    "1", "--json"});
        o = parseObject(r.out);
        QCOMPARE(o["samples"].toInt(), 30);
        QCOMPARE(o["time_s"].toDouble(), 60.0);
        QCOMPARE(o["results"].toArray()[0].toObject()["samples"].toInt(), 30);
        r = runCli({"compare", g, "--cluster", c, "--algos", "random", "--samples", "30", "--seeds", "1", "--json"});
        QVERIFY(!parseObject(r.out).contains("time_s"));
    }

    void warmStartIsNeverWorseThanItsStart()
    {
        const QString sample = testdata::sourceDir() + "/samples/graphs/inception-block.json";
        Run r = runCli({"compare", sample, "--cluster", "k80x4", "--algos", "m-etf,post@m-etf,random", "--samples",
                        "200", "--seeds", "2", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = parseObject(r.out);
        const QJsonArray results = o["results"].toArray();
        QCOMPARE(results.size(), 3);
        QHash<QString, QJsonObject> byAlgo;
        for (const QJsonValue& v : results)
            byAlgo[v.toObject()["algo"].toString()] = v.toObject();
        // Every run of it, so their mean too.
        QVERIFY(byAlgo["post@m-etf"]["mean_step_time_ms"].toDouble() <= byAlgo["m-etf"]["mean_step_time_ms"].toDouble());
        QCOMPARE(byAlgo["post@m-etf"]["samples"].toDouble(), 200.0); // the start's evaluations count
        QCOMPARE(byAlgo["m-etf"]["runs"].toInt(), 1);                // deterministic placers run once
        QCOMPARE(byAlgo["random"]["runs"].toInt(), 2);
        QVERIFY(QStringList({"critical-path", "work", "fork-join", "ancestry", "device-windows", "memory-split",
                             "blocks", "ready-order"})
                    .contains(o["lower_bound_source"].toString()));
        for (const QJsonObject& a : byAlgo) {
            QVERIFY(a["best_step_time_ms"].toDouble() >= o["lower_bound_ms"].toDouble());
            // The mean's gap to the bound.
            QCOMPARE(a["gap_to_lower_bound"].toDouble(),
                     a["mean_step_time_ms"].toDouble() / o["lower_bound_ms"].toDouble() - 1.0);
            // The certified gap of the row's fastest feasible run, and the bound that certifies it.
            QVERIFY(!a["feasible"].toBool() || a.contains("certified_gap"));
            if (a["feasible"].toBool()) {
                QCOMPARE(a["certified_by"].toString(), o["lower_bound_source"].toString());
                QVERIFY(a["certified_gap"].toDouble() >= 0.0);
                QVERIFY(a["certified_gap"].toDouble() <= a["gap_to_lower_bound"].toDouble() + 1e-12);
            }
            QVERIFY(a.contains("wall_s"));
            QVERIFY(a.contains("speedup_vs_single"));
        }
    }

    void learnerOptionsFromTheCommandLine()
    {
        const QString sample = testdata::sourceDir() + "/samples/graphs/inception-block.json";
        const QString log = dir_.filePath("k50.csv");
        // K = 50, N = 100 over 300 samples: updates after 50 (PPO), 100 (CE), ..., 300 (CE).
        Run r = runCli({"place", sample, "--cluster", "k80x4", "--algo", "post-alg1", "--samples", "300", "--set",
                        "batch=50", "--set", "ce-interval=100", "--log", log});
        QCOMPARE(r.exitCode, 0);
        QFile f(log);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QCOMPARE(text.count("\nupdate,"), 6);
        QCOMPARE(text.count(",ce,"), 3);
        r = runCli({"place", sample, "--cluster", "k80x4", "--set", "batch=0"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("batch"), qPrintable(r.err));
        QCOMPARE(runCli({"compare", sample, "--cluster", "k80x4", "--set", "nonsense"}).exitCode, 2);
    }

    void unknownAlgorithmIsAUsageError()
    {
        const QString sample = testdata::sourceDir() + "/samples/graphs/tiny-mlp.json";
        for (const char* algo : {"magic", "post@magic", "m-etf@post"}) {
            Run r = runCli({"place", sample, "--cluster", "k80x2", "--algo", algo});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(algo), qPrintable(r.err));
        }
        QCOMPARE(runCli({"compare", sample, "--cluster", "k80x2", "--algos", "post,nope"}).exitCode, 2);
    }

    void zooListNamesEveryModel()
    {
        Run r = runCli({"zoo", "list"});
        QCOMPARE(r.exitCode, 0);
        for (const char* name : {"inception-v3", "resnet-50", "rnnlm-2", "nmt-2", "nmt-4", "nmt-8", "bert-base"})
            QVERIFY2(r.out.contains(name), name);
        r = runCli({"zoo", "list", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject zoo = parseObject(r.out);
        QCOMPARE(zoo["format"].toString(), QString("post-zoo-list/1"));
        const QJsonArray list = zoo["models"].toArray();
        QVERIFY(list.size() >= 7);
        QCOMPARE(list[1].toObject()["name"].toString(), QString("resnet-50"));
        QCOMPARE(list[1].toObject()["default_batch"].toInt(), 32);
    }

    void zooUnknownNameIsAUsageErrorListingTheModels()
    {
        Run r = runCli({"zoo", "generate", "resnet-51"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("resnet-51") && r.err.contains("inception-v3") && r.err.contains("bert-base"),
                 qPrintable(r.err));
        QCOMPARE(runCli({"zoo", "generate", "resnet-50", "--batch", "0"}).exitCode, 2);
        QCOMPARE(runCli({"zoo"}).exitCode, 2);
        // --steps belongs to the recurrent models and has a range.
        r = runCli({"zoo", "generate", "gpt2", "--steps", "40"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--steps") && r.err.contains("gpt2"), qPrintable(r.err));
        QCOMPARE(runCli({"zoo", "generate", "nmt-2", "--steps", "0"}).exitCode, 2);
        QCOMPARE(runCli({"zoo", "generate", "nmt-2", "--steps", "1001"}).exitCode, 2);
    }

    // A file and standard output carry the same post-graph/1 text; the batch changes the
    // activations (edge bytes) but not the parameters; `info` reads the file back.
    void zooGenerateWritesAReadableGraph()
    {
        const QString out = dir_.filePath("resnet.json");
        Run r = runCli({"zoo", "generate", "resnet-50", "--batch", "4", "--out", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        Run s = runCli({"zoo", "generate", "resnet-50", "--batch", "4"});
        QCOMPARE(s.exitCode, 0);
        QCOMPARE(s.out.toUtf8(), text);
        const QJsonObject graph = QJsonDocument::fromJson(text).object();
        QCOMPARE(graph["format"].toString(), QString("post-graph/1"));
        QCOMPARE(graph["name"].toString(), QString("resnet-50"));

        Run info4 = runCli({"info", out, "--json"});
        QCOMPARE(info4.exitCode, 0);
        const QString out8 = dir_.filePath("resnet8.json");
        QCOMPARE(runCli({"zoo", "generate", "resnet-50", "--batch", "8", "--out", out8}).exitCode, 0);
        Run info8 = runCli({"info", out8, "--json"});
        const QJsonObject a = parseObject(info4.out), b = parseObject(info8.out);
        QCOMPARE(a["ops"].toInt(), b["ops"].toInt());
        QVERIFY(a["ops"].toInt() > 700); // 786: the updates in, no backward ops for the moving averages
        QCOMPARE(a["param_bytes"].toDouble(), b["param_bytes"].toDouble());
        // 25,557,032 fp32 parameters.
        QCOMPARE(a["param_bytes"].toDouble(), 25557032.0 * 4);
        QVERIFY(b["output_bytes"].toDouble() > 1.9 * a["output_bytes"].toDouble());
        QVERIFY(b["total_gpu_time_ms"].toDouble() > a["total_gpu_time_ms"].toDouble());
    }

    // --steps reaches the graph: each more step of rnnlm-2 adds one 14-op cell per layer,
    // forward and backward, and no parameters.
    void zooGenerateUnrollsSteps()
    {
        const QString a = dir_.filePath("rnnlm5.json"), b = dir_.filePath("rnnlm6.json");
        Run r = runCli({"zoo", "generate", "rnnlm-2", "--batch", "2", "--steps", "5", "--out", a});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(runCli({"zoo", "generate", "rnnlm-2", "--batch", "2", "--steps", "6", "--out", b}).exitCode, 0);
        const QJsonObject five = parseObject(runCli({"info", a, "--json"}).out);
        const QJsonObject six = parseObject(runCli({"info", b, "--json"}).out);
        QCOMPARE(six["ops"].toInt() - five["ops"].toInt(), 2 * 2 * 14); // one step: 2 cells, forward + backward
        QCOMPARE(six["param_bytes"].toDouble(), five["param_bytes"].toDouble());
    }

    void pbtxtGivenPlacementAndExport()
    {
        const QString model = testdata::sourceDir() + "/tests/data/pbtxt/small_cnn.pbtxt";
        // The file's devices: CPU:0, GPU:0 and GPU:1 of k80x4 work, GPU:2 and GPU:3 idle.
        Run r = runCli({"simulate", model, "--cluster", "k80x4", "--given-placement", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QJsonObject o = parseObject(r.out);
        const double given = o["step_time_ms"].toDouble();
        QVERIFY(given > 0.0);
        const QJsonArray busy = o["busy_ms"].toArray();
        QCOMPARE(busy.size(), 5);
        for (int d : {0, 1, 2})
            QVERIFY(busy[d].toDouble() > 0.0);
        for (int d : {3, 4})
            QCOMPARE(busy[d].toDouble(), 0.0);

        // place --pbtxt-out writes the same graph with the chosen devices: simulating its
        // given placement reproduces the reported best time.
        const QString placed = dir_.filePath("placed.pbtxt");
        r = runCli({"place", model, "--cluster", "k80x4", "--algo", "m-etf", "--pbtxt-out", placed, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const double best = parseObject(r.out)["best_step_time_ms"].toDouble();
        r = runCli({"simulate", placed, "--cluster", "k80x4", "--given-placement", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(qFuzzyCompare(parseObject(r.out)["step_time_ms"].toDouble(), best));

        // compare adds the given placement as a reference row.
        r = runCli({"compare", model, "--cluster", "k80x4", "--algos", "single", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        bool found = false;
        for (const QJsonValue& row : parseObject(r.out)["results"].toArray())
            if (row["algo"].toString() == "given") {
                found = true;
                QVERIFY(qFuzzyCompare(row["best_step_time_ms"].toDouble(), given));
            }
        QVERIFY(found);

        // Misuse: export from a non-pbtxt graph (2), two placements at once (2), a graph
        // without devices (1, naming the file).
        const QString chain = write("chain.json", kChain);
        QCOMPARE(runCli({"place", chain, "--cluster", "k80x4", "--algo", "m-etf", "--pbtxt-out", placed}).exitCode, 2);
        QCOMPARE(
            runCli({"simulate", model, "--cluster", "k80x4", "--given-placement", "--all-on", "/device:GPU:0"}).exitCode,
            2);
        const QString bare = write("bare.pbtxt", "node { name: \"a\" op: \"Relu\" }\n");
        r = runCli({"simulate", bare, "--cluster", "k80x4", "--given-placement"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bare.pbtxt") && r.err.contains("device"), qPrintable(r.err));
    }

    void presetsAndRealGraph()
    {
        REQUIRE_SHARED_DATA(data);
        Run r = runCli({"simulate", data + "/pipedream/resnet50/graph.txt", "--cluster", "k80x4", "--all-on",
                        "/device:GPU:0", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = parseObject(r.out);
        QVERIFY(o["step_time_ms"].toDouble() > 0.0);
        QVERIFY(o["lower_bound_ms"].toDouble() <= o["step_time_ms"].toDouble());
        QCOMPARE(o["devices"].toArray().size(), 5);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
