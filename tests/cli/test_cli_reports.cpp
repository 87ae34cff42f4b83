// What post-cli's reports say about a run: compare's mean and best, a search that found
// nothing that fits, the wall time, an interrupted search, and where "-" is standard output.
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include <QFile>
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

QJsonObject parseObject(const QString& text) { return QJsonDocument::fromJson(text.toUtf8()).object(); }

// a (100 us) -> b (200 us) -> c (50 us), 1 MB tensors and 1 kB of parameters.
const char* kChain = R"({"format": "post-graph/1", "name": "chain",
 "ops": [{"name": "a", "type": "MatMul", "time_us": {"gpu": 100, "cpu": 1000}, "output_bytes": 1000000, "param_bytes": 1000},
         {"name": "b", "type": "Relu", "time_us": {"gpu": 200, "cpu": 2000}, "output_bytes": 1000000},
         {"name": "c", "type": "Add", "time_us": {"gpu": 50, "cpu": 500}, "output_bytes": 1000000}],
 "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]})";

// Two GPUs, speed 1 and 2 (MEMORY bytes each); 1 GB/s links with 10 us latency.
QByteArray pairCluster(const char* memory)
{
    return QByteArray(R"({"format": "post-cluster/1", "name": "pair",
 "devices": [{"name": "/device:GPU:0", "kind": "gpu", "speed": 1.0, "memory_bytes": )")
        + memory + R"(},
             {"name": "/device:GPU:1", "kind": "gpu", "speed": 2.0, "memory_bytes": )"
        + memory + R"(}],
 "default_link": {"bandwidth_GBps": 1, "latency_us": 10}})";
}

QString samplePath(const QString& name) { return testdata::sourceDir() + "/samples/graphs/" + name; }

} // namespace

class TestCliReports : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

private slots:
    // Each row's mean and its fastest run are two columns, and the certified gap is the
    // fastest feasible run's, not the mean's.
    void compareGivesMeanAndBest()
    {
        const QString g = samplePath("inception-block.json");
        Run r = runCli({"compare", g, "--cluster", "k80x4", "--algos", "random,m-etf", "--samples", "40", "--seeds",
                        "3", "--threads", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = parseObject(r.out);
        QVERIFY(!o["single_device"].toString().isEmpty());
        const double lb = o["lower_bound_ms"].toDouble();
        bool sawSpread = false;
        for (const QJsonValue& v : o["results"].toArray()) {
            const QJsonObject row = v.toObject();
            const double mean = row["mean_step_time_ms"].toDouble(), best = row["best_step_time_ms"].toDouble();
            QVERIFY2(best > 0 && best <= mean * (1 + 1e-12), qPrintable(row["algo"].toString()));
            QVERIFY(!row.contains("best_step_time_ms_std"));
            QCOMPARE(row["certified_gap"].toDouble(), best / lb - 1.0);
            QCOMPARE(row["gap_to_lower_bound"].toDouble(), mean / lb - 1.0);
            if (row["algo"] == "random") {
                QCOMPARE(row["runs"].toInt(), 3);
                sawSpread = best < mean; // three random runs of 40 samples do not all end alike
            } else {
                QCOMPARE(row["runs"].toInt(), 1);
                QCOMPARE(best, mean);
            }
        }
        QVERIFY(sawSpread);
        r = runCli({"compare", g, "--cluster", "k80x4", "--algos", "m-etf", "--seeds", "1", "--threads", "1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("1 seed\n") && r.out.contains("mean (ms)") && r.out.contains("best (ms)"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("speed-up: the mean against single (every op on /device:"), qPrintable(r.out));
        // One run has no standard deviation: "-", not 0.000.
        const QString row = r.out.section('\n', -2, -2);
        QVERIFY2(row.startsWith("m-etf") && row.split(' ', Qt::SkipEmptyParts).at(2) == "-", qPrintable(row));
    }

    // Nothing found fits: the report says which device is over by how much, and that the
    // bound holds only for placements that fit; the sweep's line says so too.
    void placeSaysWhyNothingFits()
    {
        const QString g = write("chain.json", kChain);
        const QString c = write("tiny.json", pairCluster("1000"));
        Run r = runCli({"place", g, "--cluster", c, "--algo", "m-etf"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QRegularExpression(
                     "memory       no placement found fits: /device:GPU:[01] needs [0-9.]+ MB of 1.00 KB \\(the lower "
                     "bound holds for placements that fit\\)")),
                 qPrintable(r.out));
        const QString fits = write("pair.json", pairCluster("1e9"));
        r = runCli({"place", g, "--cluster", fits, "--algo", "m-etf"});
        QVERIFY2(!r.out.contains("no placement found fits"), qPrintable(r.out));
    }

    // The wall time is the command's, as --time counts it, with the search's beside it.
    void placeReportsTheCommandsTime()
    {
        const QString g = samplePath("resnet-50.json");
        Run r = runCli({"place", g, "--cluster", "k80x4", "--time", "0.5", "--threads", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = parseObject(r.out);
        QVERIFY(o["command_s"].toDouble() >= o["wall_s"].toDouble());
        QVERIFY(o["command_s"].toDouble() < 0.5 * 1.5);
        r = runCli({"place", g, "--cluster", "k80x4", "--time", "0.5", "--threads", "1"});
        QVERIFY2(r.out.contains(QRegularExpression("wall time    0\\.[0-9]{2} s \\(the search 0\\.[0-9]{2} s\\)")),
                 qPrintable(r.out));
    }

    // SIGTERM (as Ctrl-C) during the search ends it as its time limit would: the best so far
    // is reported and written, and the exit status says it was interrupted.
    void interruptedSearchKeepsItsBest()
    {
        const QString out = dir_.filePath("interrupted.json"), log = dir_.filePath("interrupted.csv");
        QProcess p;
        p.start(testdata::cliPath(),
                {"place", samplePath("resnet-50.json"), "--cluster", "k80x4", "--time", "60", "--threads", "1", "--out",
                 out, "--log", log});
        QVERIFY(p.waitForStarted());
        QTest::qWait(1500); // past reading and bounding: the search is running
        p.terminate();
        QVERIFY(p.waitForFinished(20000)); // not the 60 s of --time
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + 15);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("interrupted (SIGTERM)"), qPrintable(err));
        QVERIFY2(QString::fromUtf8(p.readAllStandardOutput()).contains("wrote        " + out), qPrintable(err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject placement = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(placement["format"].toString(), QString("post-placement/1"));
        QVERIFY(QFile::exists(log));
        // The file is a placement of the graph: simulate takes it.
        const Run r = runCli({"simulate", samplePath("resnet-50.json"), "--cluster", "k80x4", "--placement", out});
        QCOMPARE(r.exitCode, 0);
    }

    // "-" is standard output where the output is the command's only document (zoo generate,
    // convert); elsewhere standard output carries the report, and "-" is refused, not taken
    // as a file named "-".
    void dashIsStandardOutputOnlyWhereItCanBe()
    {
        const QString g = write("chain.json", kChain);
        QDir::setCurrent(dir_.path());
        Run r = runCli({"place", g, "--cluster", "k80x4", "--algo", "m-etf", "--out", "-"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("standard output is not an output of --out"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("-")));
        r = runCli({"convert", g, "--out", "-"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["format"].toString(), QString("post-graph/1"));
        r = runCli({"zoo", "generate", "resnet-50", "--out", "-"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(parseObject(r.out)["format"].toString(), QString("post-graph/1"));
        QVERIFY(!QFile::exists(dir_.filePath("-")));
    }

    // --all-on takes TensorFlow's full device names, as placement files do.
    void allOnTakesTensorFlowNames()
    {
        const QString g = write("chain.json", kChain);
        const Run full = runCli({"simulate", g, "--cluster", "k80x4", "--all-on",
                                 "/job:localhost/replica:0/task:0/device:GPU:1", "--json"});
        const Run shortName = runCli({"simulate", g, "--cluster", "k80x4", "--all-on", "/device:GPU:1", "--json"});
        QCOMPARE(full.exitCode, 0);
        QCOMPARE(parseObject(full.out)["placement_fingerprint"], parseObject(shortName.out)["placement_fingerprint"]);
        const Run bad = runCli({"simulate", g, "--cluster", "k80x4", "--all-on", "/job:localhost/device:GPU:9"});
        QCOMPARE(bad.exitCode, 2);
    }

    // --set on a classical placer is said to do nothing, not silently dropped.
    void setOnAClassicalPlacerIsNoted()
    {
        const QString g = write("chain.json", kChain);
        Run r = runCli({"place", g, "--cluster", "k80x4", "--algo", "m-etf", "--set", "lr=0.3"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("m-etf is a classical placer and has none, so it ignores them"), qPrintable(r.err));
        r = runCli({"place", g, "--cluster", "k80x4", "--algo", "post", "--samples", "20", "--set", "lr=0.3"});
        QVERIFY2(!r.err.contains("ignores them"), qPrintable(r.err));
    }

    // A graph without a byte anywhere (a Chakra trace gives no tensor sizes): its peak memory is
    // unknown, not 0 B; a graph with sizes says its peaks.
    void memoryWithoutSizesIsUnknown()
    {
        const QString bare = write("bare.json", R"({"format": "post-graph/1", "name": "bare",
 "ops": [{"name": "a", "time_us": {"gpu": 100, "cpu": 1000}}, {"name": "b", "time_us": {"gpu": 50, "cpu": 500}}],
 "edges": [{"from": "a", "to": "b"}]})");
        Run r = runCli({"simulate", bare, "--cluster", "k80x4", "--all-on", "/device:GPU:0"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QRegularExpression("/device:GPU:0 +[0-9.]+ ms +[0-9.]+% +unknown ")), qPrintable(r.out));
        QVERIFY2(r.out.contains("peak memory is unknown: the graph gives no tensor or parameter sizes"),
                 qPrintable(r.out));
        r = runCli({"simulate", bare, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--json"});
        QCOMPARE(parseObject(r.out)["memory_known"].toBool(true), false);
        r = runCli({"simulate", write("chain.json", kChain), "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--json"});
        QCOMPARE(parseObject(r.out)["memory_known"].toBool(false), true);
    }

    // A graph without costs: the refusal says why there is nothing to search.
    void zeroComputeSaysWhy()
    {
        const QString g = write("free.json", R"({"format": "post-graph/1", "name": "free",
 "ops": [{"name": "a", "type": "Identity"}, {"name": "b", "type": "Identity"}],
 "edges": [{"from": "a", "to": "b", "bytes": 1e9}]})");
        const Run r = runCli({"place", g, "--cluster", "k80x4"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("every op on one device (0 ms) is already the best placement"), qPrintable(r.err));
    }

    // Whatever the budget, the default placer is never slower than every op on one device: with
    // no time for its starts beyond the first (m-ETF, 1.5x single's step on rnnlm-2 on k80x4),
    // `single` still runs; and a run given fewer samples than its starts take says so.
    void defaultPlacerKeepsItsFloor()
    {
        const QString g = samplePath("rnnlm-2.json");
        const Run single = runCli({"place", g, "--cluster", "k80x4", "--algo", "single", "--json"});
        QCOMPARE(single.exitCode, 0);
        const double floor = parseObject(single.out)["best_step_time_ms"].toDouble();
        const Run metf = runCli({"place", g, "--cluster", "k80x4", "--algo", "m-etf", "--json"});
        QVERIFY(parseObject(metf.out)["best_step_time_ms"].toDouble() > 1.2 * floor); // what the floor is for
        Run r = runCli({"place", g, "--cluster", "k80x4", "--time", "0.001", "--threads", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(parseObject(r.out)["best_step_time_ms"].toDouble() <= floor, qPrintable(r.out.left(300)));

        r = runCli({"place", g, "--cluster", "k80x4", "--samples", "3", "--threads", "1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QRegularExpression("samples +\\d+ \\(more than the 3 asked: the placements made "
                                                   "before any search")),
                 qPrintable(r.out));
        r = runCli({"compare", g, "--cluster", "k80x4", "--algos", "post@best,m-etf", "--samples", "3", "--seeds", "1",
                    "--threads", "1"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QRegularExpression("post@best: \\d+ samples a run, more than the 3 asked")),
                 qPrintable(r.out));
        QVERIFY2(!r.out.contains("m-etf: "), qPrintable(r.out)); // one simulation: within the budget
    }

    // `info` tells a time the file gives from one derived from the other kind's (a PipeDream
    // profile's CPU times are its GPU times x 10), in its text, its per-op JSON and after convert;
    // a cut-short profile is read with a warning naming the nodes no edge joins.
    void infoNamesDerivedTimes()
    {
        const QByteArray profile =
            "node1 -- Input -- forward_compute_time=0.0, backward_compute_time=0.0, activation_size=8.0, "
            "parameter_size=0.0\n"
            "node2 -- Linear(2, 2) -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=4.0, "
            "parameter_size=24.0\n"
            "node3 -- ReLU() -- forward_compute_time=0.5, backward_compute_time=0.5, activation_size=4.0, "
            "parameter_size=0.0\n";
        const QString g = write("profile.txt", profile + "\tnode1 -- node2\n\tnode2 -- node3\n");
        Run r = runCli({"info", g});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("op times           GPU: 5 given; CPU: 5 derived from the GPU times x 10"),
                 qPrintable(r.out));
        QVERIFY2(!r.err.contains("warning"), qPrintable(r.err));
        r = runCli({"info", g, "--ops", "--json"});
        const QJsonObject op = parseObject(r.out)["op_times"].toArray().at(1).toObject();
        QCOMPARE(op["gpu_time"].toString(), QString("given"));
        QCOMPARE(op["cpu_time"].toString(), QString("derived"));
        const QString converted = dir_.filePath("profile.graph.json");
        QCOMPARE(runCli({"convert", g, "--out", converted}).exitCode, 0);
        r = runCli({"info", converted});
        QVERIFY2(r.out.contains("CPU: 5 derived from the GPU times x 10"), qPrintable(r.out));

        const QString cut = write("cut.txt", profile + "\tnode1 -- node2\n");
        r = runCli({"info", cut});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("1 of 3 nodes have no edge (node3): the file may be cut short"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliReports)
#include "test_cli_reports.moc"
