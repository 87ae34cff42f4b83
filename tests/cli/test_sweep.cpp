// post-cli sweep: shards of a manifest's jobs, one result file each, merged into one table;
// reruns resume; bad manifests name the file and the field.
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using testsupport::runCli;
using Run = testsupport::ProgramRun;

} // namespace

class TestSweep : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

    // tiny-mlp on two presets, four classical placers and a seeded learner over two seeds:
    // 2 x (4 + 2) = 12 jobs.
    QString manifest()
    {
        const QString graph = testdata::sourceDir() + "/samples/graphs/tiny-mlp.json";
        return write("sweep.json",
                     QString(R"({"format": "post-sweep/1", "graphs": ["%1"],
            "clusters": ["k80x2", "k80x4"], "algorithms": ["single", "round-robin", "m-etf", "m-topo", "random"],
            "seeds": [1, 2], "samples": 40})")
                         .arg(graph)
                         .toUtf8());
    }

    static int jobFiles(const QString& dir) { return QDir(dir).entryList({"job-*.json"}, QDir::Files).size(); }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(testdata::cliPath()), "POST_CLI must point at the built post-cli");
        QVERIFY(dir_.isValid());
    }

    // Two shards write disjoint halves whose merge is the one-shard table, text and JSON.
    void twoShardsMergeToTheOneShardTable()
    {
        const QString m = manifest();
        const QString one = dir_.filePath("one"), two = dir_.filePath("two");
        Run r = runCli({"sweep", m, "--out", one});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(jobFiles(one), 12);
        r = runCli({"sweep", m, "--shard", "0/2", "--out", two});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(jobFiles(two), 6);
        QVERIFY(QFileInfo::exists(two + "/job-000000.json") && !QFileInfo::exists(two + "/job-000001.json"));
        QCOMPARE(runCli({"sweep", m, "--shard", "1/2", "--out", two}).exitCode, 0);
        QCOMPARE(jobFiles(two), 12);

        const Run a = runCli({"sweep", "merge", one}), b = runCli({"sweep", "merge", two});
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(b.exitCode, 0);
        QCOMPARE(a.out, b.out);
        QCOMPARE(a.out.count('\n'), 1 + 2 * 5); // header, then (cluster, algorithm) rows
        QVERIFY2(a.err.contains("12 of 12 jobs"), qPrintable(a.err));
        const Run ja = runCli({"sweep", "merge", one, "--json"}), jb = runCli({"sweep", "merge", two, "--json"});
        QCOMPARE(ja.out, jb.out);
        const QJsonObject table = QJsonDocument::fromJson(ja.out.toUtf8()).object();
        QCOMPARE(table["jobs"].toInt(), 12);
        QVERIFY(table["missing"].toArray().isEmpty());
        const QJsonArray rows = table["rows"].toArray();
        QCOMPARE(rows.size(), 10);
        for (const QJsonValue& v : rows) {
            const QJsonObject row = v.toObject();
            QCOMPARE(row["runs"].toInt(), row["algo"].toString() == "random" ? 2 : 1);
            QVERIFY(row["mean_ms"].toDouble() > 0.0);
            QCOMPARE(row["feasible_runs"].toInt(), row["runs"].toInt());
        }
        // The same job gives the same figure as `post-cli place`.
        const QJsonObject job = QJsonDocument::fromJson([&] {
                                    QFile f(one + "/job-000002.json");
                                    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
                                }())
                                    .object();
        QCOMPARE(job["algo"].toString(), QString("m-etf"));
        const Run place = runCli({"place", testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", "--cluster",
                                  "k80x2", "--algo", "m-etf", "--json"});
        QCOMPARE(place.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(place.out.toUtf8()).object()["best_step_time_ms"].toDouble(),
                 job["best_step_time_ms"].toDouble());
    }

    // "precision" runs each cluster under each mode: the jobs give the step times of
    // `post-cli place --precision MODE`, the table has a row per mode, and the modes differ.
    void precisionPerManifest()
    {
        const QString graph = dir_.filePath("r50.json");
        QCOMPARE(runCli({"zoo", "generate", "resnet-50", "--batch", "2", "--out", graph}).exitCode, 0);
        const QString m = write("precision.json",
                                QString(R"({"format": "post-sweep/1", "graphs": ["%1"],
            "clusters": ["a100x8-nvlink"], "precision": ["fp32", "amp"], "algorithms": ["single", "m-etf"]})")
                                    .arg(graph)
                                    .toUtf8());
        const QString out = dir_.filePath("precision-out");
        const Run r = runCli({"sweep", m, "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(jobFiles(out), 4); // graph x cluster x 2 modes x 2 placers, mode before algorithm
        const char* modes[] = {"fp32", "fp32", "amp", "amp"};
        const char* algos[] = {"single", "m-etf", "single", "m-etf"};
        QHash<QString, double> perMode;
        for (int k = 0; k < 4; ++k) {
            QFile f(out + QString("/job-%1.json").arg(k, 6, 10, QChar('0')));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject job = QJsonDocument::fromJson(f.readAll()).object();
            QCOMPARE(job["precision"].toString(), QString(modes[k]));
            QCOMPARE(job["algo"].toString(), QString(algos[k]));
            const Run place = runCli(
                {"place", graph, "--cluster", "a100x8-nvlink", "--algo", algos[k], "--precision", modes[k], "--json"});
            QCOMPARE(place.exitCode, 0);
            QCOMPARE(job["best_step_time_ms"].toDouble(),
                     QJsonDocument::fromJson(place.out.toUtf8()).object()["best_step_time_ms"].toDouble());
            if (QString(algos[k]) == "single")
                perMode[modes[k]] = job["best_step_time_ms"].toDouble();
        }
        // FP16 tensor cores and halved traffic: a faster step than plain FP32 on one A100.
        QVERIFY2(perMode["amp"] < 0.7 * perMode["fp32"], qPrintable(QString::number(perMode["amp"])));
        const Run merged = runCli({"sweep", "merge", out, "--json"});
        QCOMPARE(merged.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(merged.out.toUtf8()).object()["rows"].toArray();
        QCOMPARE(rows.size(), 4);
        QCOMPARE(rows[0].toObject()["precision"].toString(), QString("fp32"));
        QCOMPARE(rows[3].toObject()["precision"].toString(), QString("amp"));
        const Run text = runCli({"sweep", "merge", out});
        QVERIFY2(text.out.contains("a100x8-nvlink:amp") && text.out.contains("a100x8-nvlink:fp32"), qPrintable(text.out));
        // One mode for every cluster is a plain string.
        const QString one = write("precision-one.json",
                                  QString(R"({"format": "post-sweep/1", "graphs": ["%1"],
            "clusters": ["a100x8-nvlink"], "precision": "amp", "algorithms": ["single"]})")
                                      .arg(graph)
                                      .toUtf8());
        const Run dry = runCli({"sweep", one, "--dry-run"});
        QCOMPARE(dry.exitCode, 0);
        QVERIFY2(dry.out.contains("a100x8-nvlink:amp") && dry.out.count('\n') == 1, qPrintable(dry.out));
    }

    // "dispatch" runs each job under each rule, as `post-cli place --dispatch`: result files carry
    // it, and the table keeps the rules apart. One GPU, so every placer gives the one placement,
    // 22 us in ready order and 12 us under critical-path dispatch (test_cli.cpp,
    // placementFileKeepsItsDispatchRule).
    void dispatchPerManifest()
    {
        write("overlap.json", R"({"format": "post-graph/1", "name": "overlap", "ops": [
            {"name": "big", "time_us": {"gpu": 10}}, {"name": "feed", "time_us": {"gpu": 1}},
            {"name": "reduce", "time_us": {"gpu": 10}, "measured": ["gpu"], "collective": {"kind": "all_reduce"}},
            {"name": "after", "time_us": {"gpu": 1}}],
            "edges": [{"from": "feed", "to": "reduce", "bytes": 0}, {"from": "reduce", "to": "after", "bytes": 0}]})");
        write("one-gpu.json", R"({"format": "post-cluster/1", "name": "one-gpu", "devices": [
            {"name": "/device:GPU:0", "kind": "gpu", "speed": 1, "memory_bytes": 1e9}]})");
        const QString m = write("dispatch.json", R"({"format": "post-sweep/1", "graphs": ["overlap.json"],
            "clusters": ["one-gpu.json"], "dispatch": ["ready", "critical-path"], "algorithms": ["single", "m-etf"]})");
        const Run dry = runCli({"sweep", m, "--dry-run"});
        QCOMPARE(dry.exitCode, 0);
        QVERIFY2(dry.out.count('\n') == 4 && dry.out.count("  dispatch ready  ") == 2
                     && dry.out.count("  dispatch critical-path  ") == 2,
                 qPrintable(dry.out));
        const QString out = dir_.filePath("dispatch-out");
        Run r = runCli({"sweep", m, "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(jobFiles(out), 4); // graph x cluster x 2 rules x 2 placers, rule before algorithm
        const char* rules[] = {"ready", "ready", "critical-path", "critical-path"};
        const char* algos[] = {"single", "m-etf", "single", "m-etf"};
        for (int k = 0; k < 4; ++k) {
            QFile f(out + QString("/job-%1.json").arg(k, 6, 10, QChar('0')));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject job = QJsonDocument::fromJson(f.readAll()).object();
            QCOMPARE(job["dispatch"].toString(), QString(rules[k]));
            QCOMPARE(job["algo"].toString(), QString(algos[k]));
            QCOMPARE(job["best_step_time_ms"].toDouble(), k < 2 ? 0.022 : 0.012);
        }
        const Run place = runCli({"place", dir_.filePath("overlap.json"), "--cluster", dir_.filePath("one-gpu.json"),
                                  "--algo", "m-etf", "--dispatch", "critical-path", "--json"});
        QCOMPARE(place.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(place.out.toUtf8()).object()["best_step_time_ms"].toDouble(), 0.012);

        // merge: a row per (rule, algorithm), never one of both rules.
        const Run merged = runCli({"sweep", "merge", out, "--json"});
        QCOMPARE(merged.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(merged.out.toUtf8()).object()["rows"].toArray();
        QCOMPARE(rows.size(), 4);
        for (int k = 0; k < 4; ++k) {
            const QJsonObject row = rows[k].toObject();
            QCOMPARE(row["dispatch"].toString(), QString(rules[k]));
            QCOMPARE(row["algo"].toString(), QString(algos[k]));
            QCOMPARE(row["runs"].toInt(), 1);
            QCOMPARE(row["min_ms"].toDouble(), k < 2 ? 0.022 : 0.012);
        }
        const Run text = runCli({"sweep", "merge", out});
        QCOMPARE(text.exitCode, 0);
        const QStringList lines = text.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY2(lines[0].contains(" dispatch ") && lines[1].contains(" ready ") && lines[3].contains(" critical-path "),
                 qPrintable(text.out));

        // One rule for every job is a plain string; the rule is part of the job, so a folder of
        // another rule's results is not taken for this manifest's.
        const QString one = write("dispatch-one.json", R"({"format": "post-sweep/1", "graphs": ["overlap.json"],
            "clusters": ["one-gpu.json"], "dispatch": "critical-path", "algorithms": ["single", "m-etf"]})");
        const QString none = write("dispatch-none.json", R"({"format": "post-sweep/1", "graphs": ["overlap.json"],
            "clusters": ["one-gpu.json"], "algorithms": ["single", "m-etf"]})");
        const QString shared = dir_.filePath("dispatch-shared");
        r = runCli({"sweep", one, "--out", shared});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runCli({"sweep", none, "--out", shared});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("job-000000.json") && r.err.contains("another job")
                     && r.err.contains("dispatch critical-path"),
                 qPrintable(r.err));
        // Without the key: ready order, and no "dispatch" in the files or the table.
        const QString plain = dir_.filePath("dispatch-plain");
        QCOMPARE(runCli({"sweep", none, "--out", plain}).exitCode, 0);
        QFile f(plain + "/job-000000.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject job = QJsonDocument::fromJson(f.readAll()).object();
        QVERIFY(!job.contains("dispatch"));
        QCOMPARE(job["best_step_time_ms"].toDouble(), 0.022);
        const Run plainTable = runCli({"sweep", "merge", plain});
        QVERIFY2(!plainTable.out.contains("dispatch"), qPrintable(plainTable.out));

        // merge refuses a result whose rule is not one.
        QVERIFY(QDir(dir_.path()).mkpath("bad-rule"));
        QVERIFY(QFile::copy(shared + "/job-000000.json", dir_.filePath("bad-rule/job-000000.json")));
        QFile bad(dir_.filePath("bad-rule/job-000000.json"));
        QVERIFY(bad.open(QIODevice::ReadOnly));
        QByteArray badText = bad.readAll().replace("\"critical-path\"", "\"fifo\"");
        bad.close();
        QVERIFY(bad.remove());
        write("bad-rule/job-000000.json", badText);
        const Run refused = runCli({"sweep", "merge", dir_.filePath("bad-rule")});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("job-000000.json") && refused.err.contains("dispatch"), qPrintable(refused.err));
    }

    // A rerun skips finished jobs; a lost result is reported missing and redone.
    void rerunResumes()
    {
        const QString m = manifest();
        const QString out = dir_.filePath("resume");
        QCOMPARE(runCli({"sweep", m, "--shard", "1/3", "--out", out}).exitCode, 0);
        QCOMPARE(jobFiles(out), 4);
        Run merged = runCli({"sweep", "merge", out, "--json"});
        QCOMPARE(QJsonDocument::fromJson(merged.out.toUtf8()).object()["missing"].toArray().size(), 8);
        QVERIFY(QFile::remove(out + "/job-000004.json"));
        Run r = runCli({"sweep", m, "--shard", "1/3", "--out", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("1 run, 3 already done"), qPrintable(r.err));
        QCOMPARE(jobFiles(out), 4);
        QVERIFY(QFileInfo::exists(out + "/job-000004.json"));
    }

    // A result records its inputs; when the graph file changes, a rerun redoes the jobs made
    // from the old one, and a merge of runs on both versions is refused rather than averaged.
    void changedGraphIsRunAgain()
    {
        const QString graph = dir_.filePath("changing.json");
        QFile::remove(graph);
        QVERIFY(QFile::copy(testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", graph));
        const QString m = write("changing-sweep.json",
                                QString(R"({"format": "post-sweep/1", "graphs": ["%1"],
            "clusters": ["k80x2"], "algorithms": ["random"], "seeds": [1, 2], "samples": 20})")
                                    .arg(graph)
                                    .toUtf8());
        const QString out = dir_.filePath("changing");
        QCOMPARE(runCli({"sweep", m, "--out", out}).exitCode, 0);
        QFile first(out + "/job-000000.json");
        QVERIFY(first.open(QIODevice::ReadOnly));
        const QJsonObject result = QJsonDocument::fromJson(first.readAll()).object();
        QVERIFY2(result["inputs"].toString().startsWith("fnv1a64:"), qPrintable(result["inputs"].toString()));
        first.close();
        QVERIFY2(runCli({"sweep", m, "--out", out}).err.contains("0 run, 2 already done"), "a rerun redid a job");

        // Another graph under the same name, with seed 2's old result kept aside.
        const QString kept = dir_.filePath("job-000001.old");
        QFile::remove(kept);
        QVERIFY(QFile::copy(out + "/job-000001.json", kept));
        QVERIFY(QFile::remove(graph));
        QVERIFY(QFile::copy(testdata::sourceDir() + "/samples/graphs/inception-block.json", graph));
        Run r = runCli({"sweep", m, "--out", out});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("made from another version of " + graph) && r.err.contains("2 run, 0 already done"),
                 qPrintable(r.err));
        QVERIFY(QFile::remove(out + "/job-000001.json"));
        QVERIFY(QFile::copy(kept, out + "/job-000001.json"));
        r = runCli({"sweep", "merge", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("job-000001.json: field inputs") && r.err.contains("two versions of the graph"),
                 qPrintable(r.err));
    }

    // Bad manifests exit 1 naming the file and the field; a bad --shard is a usage error.
    void badManifestsNameTheFileAndField_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("field");
        QTest::newRow("not JSON") << QByteArray("{\"format\": ") << "line 1";
        QTest::newRow("format") << QByteArray(R"({"format": "post-graph/1"})") << "format";
        QTest::newRow("no graphs") << QByteArray(R"({"format": "post-sweep/1", "clusters": ["k80x2"],
            "algorithms": ["m-etf"]})")
                                   << "graphs";
        QTest::newRow("unknown algorithm") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "algorithms": ["m-etf", "magic"]})")
                                           << "algorithms[1]";
        QTest::newRow("negative seed") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "algorithms": ["post"], "seeds": [1, -2]})")
                                       << "seeds[1]";
        QTest::newRow("samples") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "algorithms": ["post"], "samples": 0})")
                                 << "samples";
        QTest::newRow("typo") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "algorithms": ["post"], "seed": [1]})")
                              << "field seed";
        // One graph spelled relative to the manifest and absolute: listed twice.
        QTest::newRow("one graph two spellings")
            << (R"({"format": "post-sweep/1", "graphs": ["g.json", ")" + dir_.filePath("g.json").toUtf8()
                + R"("], "clusters": ["k80x2"], "algorithms": ["m-etf"]})")
            << "graphs[1]";
        QTest::newRow("precision mode") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "precision": ["fp32", "fp16"], "algorithms": ["post"]})")
                                        << "precision[1]";
        QTest::newRow("precision twice") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "precision": ["amp", "amp"], "algorithms": ["post"]})")
                                         << "precision[1]";
        QTest::newRow("precision type") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "precision": 32, "algorithms": ["post"]})")
                                        << "field precision";
        QTest::newRow("dispatch rule") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "dispatch": ["ready", "fifo"], "algorithms": ["post"]})")
                                       << "dispatch[1]";
        QTest::newRow("dispatch twice") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "dispatch": ["critical-path", "ready", "critical-path"], "algorithms": ["post"]})")
                                        << "dispatch[2]";
        QTest::newRow("dispatch type") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "dispatch": [], "algorithms": ["post"]})")
                                       << "field dispatch";
        QTest::newRow("one dispatch rule") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "clusters": ["k80x2"], "dispatch": "critical", "algorithms": ["post"]})")
                                           << "field dispatch:";
        QTest::newRow("repeated key") << QByteArray(R"({"format": "post-sweep/1", "graphs": ["g.json"],
            "graphs": ["h.json"], "clusters": ["k80x2"], "algorithms": ["post"]})")
                                      << "graphs";
    }
    void badManifestsNameTheFileAndField()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, field);
        const QString m = write("bad.json", text);
        const Run r = runCli({"sweep", m, "--out", dir_.filePath("bad-out")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("bad.json") && r.err.contains(field), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(dir_.filePath("bad-out")));
    }

    void badShardsAndMissingGraphs()
    {
        const QString m = manifest();
        for (const char* shard : {"2/2", "1", "a/b", "0/0", "-1/2"})
            QCOMPARE(runCli({"sweep", m, "--shard", shard, "--out", dir_.filePath("x")}).exitCode, 2);
        // A job whose graph cannot be read fails alone, names the file and writes nothing.
        const QString missing = write("missing.json", R"({"format": "post-sweep/1", "graphs": ["nowhere.json"],
            "clusters": ["k80x2"], "algorithms": ["single"]})");
        const Run r = runCli({"sweep", missing, "--out", dir_.filePath("missing-out")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("nowhere.json"), qPrintable(r.err));
        QCOMPARE(jobFiles(dir_.filePath("missing-out")), 0);
        // merge refuses a result file that is not one.
        QVERIFY(QDir(dir_.path()).mkpath("junk"));
        write("junk/job-000000.json", "{}");
        const Run j = runCli({"sweep", "merge", dir_.filePath("junk")});
        QCOMPARE(j.exitCode, 1);
        QVERIFY2(j.err.contains("job-000000.json") && j.err.contains("format"), qPrintable(j.err));
    }
};

QTEST_APPLESS_MAIN(TestSweep)
#include "test_sweep.moc"
