// The reliability corpus of issue 31 (docs/testing.md, "Reliability corpus"): hostile inputs
// and paths, one class per slot group, each case as a hostile user would try it. The files
// are in tests/data/reliability/; the full and read-only disks are small tmpfs mounts, made
// when the test runs as root (skipped with a message otherwise).
#include "tests/support/RunProgram.h"
#include "tests/support/TestData.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

namespace {

using testsupport::runCli;
using Run = testsupport::ProgramRun;

QString corpus(const QString& name) { return testdata::sourceDir() + "/tests/data/reliability/" + name; }

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// ulimit -v leaves no room for an AddressSanitizer build's shadow memory (it reserves
// terabytes of address space at start), so the tests that run post-cli under a limit skip there
// and run in every other build.
#if defined(__SANITIZE_ADDRESS__)
#define SKIP_UNDER_ADDRESS_SANITIZER() QSKIP("ulimit -v cannot hold AddressSanitizer's shadow memory")
#else
#define SKIP_UNDER_ADDRESS_SANITIZER() static_cast<void>(0)
#endif

// post-cli under a virtual-memory limit (ulimit -v, KiB): a reader that allocates what a
// file claims runs out of memory there instead of taking gigabytes.
Run runCliLimited(const QStringList& args, int limitKiB)
{
    QStringList quoted;
    for (const QString& a : args)
        quoted << "'" + QString(a).replace("'", "'\\''") + "'";
    return testsupport::runProgram(
        "/bin/sh",
        {"-c", QString("ulimit -v %1; exec '%2' %3").arg(limitKiB).arg(testdata::cliPath(), quoted.join(' '))});
}

// A small tmpfs at `dir` (options e.g. "size=64k" or "size=64k,ro"); false (and `why`) when
// this process may not mount (not root, no CAP_SYS_ADMIN).
bool mountTmpfs(const QString& dir, const QString& options, QString* why)
{
    if (::geteuid() != 0) {
        *why = "not running as root: the full- and read-only-disk cases need a tmpfs mount";
        return false;
    }
    QDir().mkpath(dir);
    QProcess p;
    p.start("mount", {"-t", "tmpfs", "-o", options, "tmpfs", dir});
    if (!p.waitForFinished(10000) || p.exitCode() != 0) {
        *why = "mount -t tmpfs failed (" + QString::fromUtf8(p.readAllStandardError()).trimmed() + ")";
        return false;
    }
    return true;
}

void unmount(const QString& dir) { QProcess::execute("umount", {dir}); }

} // namespace

class TestReliability : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }
    QString copy(const QString& from, const QString& name)
    {
        QFile::remove(path(name));
        if (!QFile::copy(from, path(name)))
            qFatal("cannot copy %s", qPrintable(from));
        QFile(path(name)).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return path(name);
    }
    QString graph(const QString& name = "g.json")
    {
        return copy(testdata::sourceDir() + "/samples/graphs/tiny-mlp.json", name);
    }
    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(testdata::cliPath()), "POST_CLI must point at the built post-cli");
        QVERIFY(dir_.isValid());
    }

    // ---- 1. Inputs overwritten: every output is checked against every input, the files read
    // without being named (--costs, MODEL.modules.json) included, by inode as well as by name.
    void outputsNeverReplaceAnInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("victim");
        QTest::newRow("place --out = --costs") << QStringList{"place",  "g.json",    "--cluster", "k80x2", "--costs",
                                                              "c.json", "--samples", "5",         "--out", "c.json"}
                                               << "c.json";
        QTest::newRow("simulate --trace = --costs")
            << QStringList{"simulate",      "g.json",  "--cluster", "k80x2",   "--all-on",
                           "/device:GPU:0", "--costs", "c.json",    "--trace", "c.json"}
            << "c.json";
        QTest::newRow("convert --out = --costs")
            << QStringList{"convert", "g.json", "--costs", "c.json", "--out", "c.json"} << "c.json";
        QTest::newRow("place --out = the sidecar read beside the graph")
            << QStringList{"place", "g.json", "--cluster", "k80x2", "--samples", "5", "--out", "g.json.modules.json"}
            << "g.json.modules.json";
        QTest::newRow("place --log = the sidecar")
            << QStringList{"place", "g.json", "--cluster", "k80x2", "--samples", "5", "--log", "g.json.modules.json"}
            << "g.json.modules.json";
        QTest::newRow("convert --out = a hard link to --costs")
            << QStringList{"convert", "g.json", "--costs", "c.json", "--out", "hard-link-to-c.json"} << "c.json";
        QTest::newRow("simulate --trace = a symlink to --costs")
            << QStringList{"simulate",      "g.json",  "--cluster", "k80x2",   "--all-on",
                           "/device:GPU:0", "--costs", "c.json",    "--trace", "link-to-c.json"}
            << "c.json";
    }
    void outputsNeverReplaceAnInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, victim);
        graph();
        const QByteArray costs = R"({"format": "post-torch-costs/1", "forward_us": {"fc1": 12.5}})";
        const QByteArray sidecar = R"({"format": "post-torch-modules/1", "modules": {"fc1": "layer1"}})";
        write("c.json", costs);
        write("g.json.modules.json", sidecar);
        QFile::remove(path("hard-link-to-c.json"));
        QFile::remove(path("link-to-c.json"));
        QVERIFY(::link(qPrintable(path("c.json")), qPrintable(path("hard-link-to-c.json"))) == 0);
        QVERIFY(QFile::link(path("c.json"), path("link-to-c.json")));
        const QByteArray before = readAll(path(victim));
        QStringList absolute;
        for (const QString& a : args)
            absolute << (a.endsWith(".json") ? path(a) : a);
        const Run r = runCli(absolute);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("is also an input (") && r.err.contains(victim), qPrintable(r.err));
        QCOMPARE(readAll(path(victim)), before);
    }

    // ---- 3. Sweeps: a job's identity is listed once; a result file is checked before it
    // counts as done.
    void manifestRepeatsAreRefusedNamingTheField_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("field");
        QTest::newRow("seeds [1, 1]") << "manifest-seeds-twice.json"
                                      << "field seeds[1]";
        QTest::newRow("an algorithm twice") << "manifest-algorithm-twice.json"
                                            << "field algorithms[2]";
        QTest::newRow("one graph by two names") << "manifest-graph-twice.json"
                                                << "field graphs[1]";
        QTest::newRow("a cluster twice") << "manifest-cluster-twice.json"
                                         << "field clusters[2]";
    }
    void manifestRepeatsAreRefusedNamingTheField()
    {
        QFETCH(QString, file);
        QFETCH(QString, field);
        graph("tiny-mlp.json");
        const QString m = copy(corpus(file), file);
        for (const QStringList& args :
             {QStringList{"sweep", m, "--dry-run"}, QStringList{"sweep", m, "--out", path("out-" + file)}}) {
            const Run r = runCli(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(m) && r.err.contains(field) && r.err.contains("listed twice"), qPrintable(r.err));
        }
        QVERIFY(!QFileInfo::exists(path("out-" + file) + "/job-000000.json"));
    }

    void truncatedJobFileIsRunAgain()
    {
        graph("tiny-mlp.json");
        const QString m = write("resume.json", R"({"format": "post-sweep/1", "graphs": ["tiny-mlp.json"],
            "clusters": ["k80x2"], "algorithms": ["single", "round-robin"]})");
        const QString out = path("resume-out");
        QCOMPARE(runCli({"sweep", m, "--out", out}).exitCode, 0);
        const QByteArray whole = readAll(out + "/job-000001.json");
        QVERIFY(!whole.isEmpty());
        write("resume-out/job-000001.json", whole.left(whole.size() / 2)); // a kill -9, a full disk
        Run r = runCli({"sweep", m, "--out", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("job-000001.json") && r.err.contains("running the job again"), qPrintable(r.err));
        QVERIFY2(r.err.contains("1 run, 1 already done"), qPrintable(r.err));
        QJsonObject redone = QJsonDocument::fromJson(readAll(out + "/job-000001.json")).object();
        QJsonObject first = QJsonDocument::fromJson(whole).object();
        redone.remove("wall_s");
        first.remove("wall_s");
        QCOMPARE(redone, first); // the same job's whole result again
        r = runCli({"sweep", "merge", out});
        QVERIFY2(r.exitCode == 0 && r.err.contains("2 of 2 jobs"), qPrintable(r.err));
    }

    // ---- 4. A job whose result file cannot be written (a folder or FIFO of its name) is not
    // run: it fails at once, and the shard's other jobs run.
    void jobWhoseResultCannotBeWrittenIsNotRun()
    {
        graph("tiny-mlp.json");
        const QString m = write("blocked.json", R"({"format": "post-sweep/1", "graphs": ["tiny-mlp.json"],
            "clusters": ["k80x2"], "algorithms": ["single", "round-robin"]})");
        const QString out = path("blocked-out");
        QVERIFY(QDir().mkpath(out + "/job-000000.json"));
        const Run r = runCli({"sweep", m, "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("job-000000.json") && r.err.contains("not a regular file"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("job-000000.json: tiny-mlp.json"), qPrintable(r.err)); // no run reported
        QVERIFY2(r.err.contains("1 run, 0 already done, 1 failed"), qPrintable(r.err));
        QVERIFY(QFileInfo(out + "/job-000000.json").isDir());
        QVERIFY(QFileInfo::exists(out + "/job-000001.json"));
    }

    void anotherManifestsResultIsNeitherSkippedNorReplaced()
    {
        graph("tiny-mlp.json");
        const QString m = write("other.json", R"({"format": "post-sweep/1", "graphs": ["tiny-mlp.json"],
            "clusters": ["k80x2"], "algorithms": ["single"]})");
        const QString out = path("other-out");
        QDir().mkpath(out);
        const QString foreign = copy(corpus("result-valid.json"), "other-out/job-000000.json"); // job 0 of 2
        const QByteArray before = readAll(foreign);
        const Run r = runCli({"sweep", m, "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(foreign) && r.err.contains("result of another job"), qPrintable(r.err));
        QCOMPARE(readAll(foreign), before);
    }

    void mergeRefusesTwoResultsOfOneSeed()
    {
        const QString out = path("dup-out");
        QDir().mkpath(out);
        const QByteArray valid = readAll(corpus("result-valid.json"));
        write("dup-out/job-000000.json", valid);
        write("dup-out/job-000001.json", QByteArray(valid).replace("\"job\": 0", "\"job\": 1"));
        const Run r = runCli({"sweep", "merge", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("field seed") && r.err.contains("two results"), qPrintable(r.err));
    }

    // ---- 4. Checks that can fail come before the work.
    void placeChecksTheSidecarBeforeTheSearch_data()
    {
        QTest::addColumn<QString>("modules"); // "" : the truncated sidecar beside the graph
        QTest::newRow("--modules missing.json") << "missing.json";
        QTest::newRow("a truncated sidecar beside the graph") << "";
    }
    void placeChecksTheSidecarBeforeTheSearch()
    {
        QFETCH(QString, modules);
        const QString g = graph("side.json");
        QFile::remove(path("missing.json"));
        if (modules.isEmpty())
            // Cut inside the "modules" object (a plain string: moc miscounts braces in raw strings).
            write("side.json.modules.json", "{\"format\": \"post-torch-modules/1\", \"modules\": {\"fc1\": \"la");
        else
            QFile::remove(path("side.json.modules.json"));
        QStringList args{"place", g, "--cluster", "k80x2", "--algo", "post", "--time", "60", "--out", path("p.json")};
        if (!modules.isEmpty())
            args << "--modules" << path(modules);
        QElapsedTimer clock;
        clock.start();
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(modules.isEmpty() ? "side.json.modules.json" : "missing.json"), qPrintable(r.err));
        // A 60 s budget not spent: the sidecar was read before the search.
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString("took %1 ms").arg(clock.elapsed())));
        QVERIFY(!QFileInfo::exists(path("p.json")));
    }

    void sweepProbesItsFolderBeforeTheFirstJob_data()
    {
        QTest::addColumn<QString>("options");
        QTest::newRow("read-only mount") << "size=64k,ro";
        QTest::newRow("full disk") << "size=64k";
    }
    void sweepProbesItsFolderBeforeTheFirstJob()
    {
        QFETCH(QString, options);
        graph("tiny-mlp.json");
        const QString m = write("probe.json", R"({"format": "post-sweep/1", "graphs": ["tiny-mlp.json"],
            "clusters": ["k80x2"], "algorithms": ["single", "round-robin", "m-topo"]})");
        const QString mount = path("mnt");
        QString why;
        if (!mountTmpfs(mount, options, &why))
            QSKIP(qPrintable(why));
        if (!options.contains("ro")) {
            QFile fill(mount + "/fill");
            QVERIFY(fill.open(QIODevice::WriteOnly));
            const QByteArray block(4096, 'x');
            while (fill.write(block) == block.size() && fill.flush()) { }
        }
        const Run r = runCli({"sweep", m, "--out", mount});
        unmount(mount);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(mount) && r.err.contains("cannot write results there"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("job-000000.json:"), qPrintable(r.err)); // no job ran
    }

    // ---- 6. Hangs: NaN and infinity are refused wherever a number is read.
    void nonFiniteNumbersAreRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        for (const char* value : {"nan", "NaN", "inf", "-inf", "1e999"}) {
            QTest::addRow("place --time %s", value)
                << QStringList{"place", "g.json", "--cluster", "k80x2", "--time", value};
            QTest::addRow("compare --time %s", value)
                << QStringList{"compare", "g.json", "--cluster", "k80x2", "--time", value};
            QTest::addRow("simulate --optimizer-factor %s", value) << QStringList{
                "simulate", "g.json", "--cluster", "k80x2", "--all-on", "/device:GPU:0", "--optimizer-factor", value};
            QTest::addRow("place --set lr=%s", value)
                << QStringList{"place", "g.json", "--cluster", "k80x2", "--set", QString("lr=") + value};
        }
    }
    void nonFiniteNumbersAreRefused()
    {
        QFETCH(QStringList, args);
        const QString g = graph();
        args.replace(1, g);
        QElapsedTimer clock;
        clock.start();
        const Run r = runCli(args); // the old `--time nan` never returned: runCli's time limit
        QCOMPARE(r.exitCode, 2);
        const QString value = args.last().section('=', -1);
        QVERIFY2(r.err.contains("'" + value + "'") && (r.err.contains("finite") || value == "1e999"), qPrintable(r.err));
        QVERIFY(clock.elapsed() < 30000);
    }

    // ---- 7. Memory: sizes are checked before anything is allocated for them.
    void manifestOfMillionsOfJobsIsRefusedUnexpanded()
    {
        SKIP_UNDER_ADDRESS_SANITIZER();
        const QString m = copy(corpus("manifest-8m-jobs.json"), "8m.json"); // 7 KB, 200 x 200 x 200 jobs
        for (const QStringList& args :
             {QStringList{"sweep", m, "--dry-run"}, QStringList{"sweep", m, "--out", path("8m")}}) {
            const Run r = runCliLimited(args, 400 * 1024);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(m) && r.err.contains("8000000 jobs") && r.err.contains("at most 100000"),
                     qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
    }

    void junkIsRefusedBeforeItIsReadWhole_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QString>("message");
        QTest::newRow("binary junk") << QByteArray("\x7f"
                                                   "ELF\x02\x01\x01\x00 junk",
                                                   12)
                                     << "unrecognized graph format";
        QTest::newRow("text junk") << QByteArray("hello, this is no graph\n") << "unrecognized graph format";
        QTest::newRow("JSON over the limit")
            << QByteArray("{\"format\": \"post-graph/1\", \"ops\": [") << "too large for a graph file";
    }
    void junkIsRefusedBeforeItIsReadWhole()
    {
        SKIP_UNDER_ADDRESS_SANITIZER();
        QFETCH(QByteArray, head);
        QFETCH(QString, message);
        // 1.5 GB, sparse: the old reader read (and held) all of it before refusing it.
        const QString junk = write("junk.json", head);
        QVERIFY(::truncate(qPrintable(junk), off_t(1536) << 20) == 0);
        for (const char* command : {"info", "convert"}) {
            QStringList args{command, junk};
            if (QString(command) == "convert")
                args << "--out" << path("junk-out.json");
            const Run r = runCliLimited(args, 700 * 1024);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(junk) && r.err.contains(message), qPrintable(r.err));
        }
        QFile::remove(junk);
    }

    // The JSON files of our own formats (cluster, placement, sidecar, session, manifest) are
    // judged by their first byte and size before they are read whole.
    void jsonInputsAreJudgedBeforeReading_data()
    {
        QTest::addColumn<QString>("option"); // where the file goes
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QString>("message");
        const QByteArray elf("\x7f"
                             "ELF\x02\x01\x01\x00 junk",
                             12);
        const QByteArray json("{\"format\": \"post-x/1\", \"x\": [");
        QTest::newRow("--cluster junk") << "--cluster" << elf << "does not start with '{'";
        QTest::newRow("--cluster too large") << "--cluster" << json << "at most 16 MiB";
        QTest::newRow("--placement junk") << "--placement" << elf << "does not start with '{'";
        QTest::newRow("--placement too large") << "--placement" << json << "at most 64 MiB";
        QTest::newRow("export-placement too large") << "export-placement" << json << "at most 64 MiB";
        QTest::newRow("sweep manifest junk") << "sweep" << elf << "does not start with '{'";
    }
    void jsonInputsAreJudgedBeforeReading()
    {
        SKIP_UNDER_ADDRESS_SANITIZER();
        QFETCH(QString, option);
        QFETCH(QByteArray, head);
        QFETCH(QString, message);
        const QString g = graph();
        const QString junk = write("junk-input.json", head);
        QVERIFY(::truncate(qPrintable(junk), off_t(1536) << 20) == 0); // 1.5 GB, sparse
        QStringList args;
        if (option == "export-placement")
            args = QStringList{"export-placement", junk};
        else if (option == "sweep")
            args = QStringList{"sweep", junk, "--dry-run"};
        else if (option == "--cluster")
            args = QStringList{"simulate", g, "--cluster", junk, "--all-on", "/device:GPU:0"};
        else
            args = QStringList{"simulate", g, "--cluster", "k80x2", "--placement", junk};
        const Run r = runCliLimited(args, 700 * 1024);
        QFile::remove(junk);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(junk) && r.err.contains(message), qPrintable(r.err));
    }

    // The other side of judging by the start: an ONNX model over 64 KiB whose name says
    // nothing (its start alone does not parse) is still read.
    void aLargeOnnxModelWithoutItsSuffixIsRead()
    {
        QByteArray model = readAll(testdata::sourceDir() + "/tests/data/onnx/cnn.onnx");
        QVERIFY(!model.isEmpty() && model.size() < 60000);
        // A 100,000-byte doc_string (field 6, tag 0x32, length as a varint) appended: still
        // one valid ModelProto, now over the 64 KiB the format is judged by.
        model.append("\x32\xa0\x8d\x06", 4).append(QByteArray(100000, 'x'));
        const QString file = write("model.bin", model);
        const Run r = runCli({"info", file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("ops"), qPrintable(r.out));
    }

    void mergeResultClaimingBillionsOfJobsIsRefused()
    {
        SKIP_UNDER_ADDRESS_SANITIZER();
        const QString out = path("huge-out");
        QDir().mkpath(out);
        const QString f = copy(corpus("result-jobs-2p31-minus-1.json"), "huge-out/job-000000.json");
        const Run r = runCliLimited({"sweep", "merge", out}, 400 * 1024);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(f) && r.err.contains("field jobs"), qPrintable(r.err));
    }

    // ---- 8. Wrong exit code or message.
    void mergeRefusesMalformedResultsNamingTheField_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("as"); // the name a cast would make of it: 2^32 + 1 and 1.5 read as 1
        QTest::newRow("job 2^32 + 1") << "result-job-2p32-plus-1.json"
                                      << "field job:"
                                      << "job-000001.json";
        QTest::newRow("jobs 2^32 + 3") << "result-jobs-2p32-plus-3.json"
                                       << "field jobs:"
                                       << "job-000000.json";
        QTest::newRow("job 1.5") << "result-job-fraction.json"
                                 << "field job:"
                                 << "job-000001.json";
        QTest::newRow("seed -1") << "result-seed-negative.json"
                                 << "field seed:"
                                 << "job-000000.json";
        QTest::newRow("an unknown key") << "result-unknown-key.json"
                                        << "field colour:"
                                        << "job-000000.json";
        QTest::newRow("best step 1e308") << "result-step-time-1e308.json"
                                         << "field best_step_time_ms:"
                                         << "job-000000.json";
        QTest::newRow("truncated") << "result-truncated.json"
                                   << "line "
                                   << "job-000000.json";
    }
    void mergeRefusesMalformedResultsNamingTheField()
    {
        QFETCH(QString, file);
        QFETCH(QString, field);
        QFETCH(QString, as);
        const QString out = path("bad-" + file);
        QDir().mkpath(out);
        const QString f = copy(corpus(file), "bad-" + file + "/" + as);
        for (const QStringList& args :
             {QStringList{"sweep", "merge", out}, QStringList{"sweep", "merge", out, "--json"}}) {
            const Run r = runCli(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(f) && r.err.contains(field), qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
    }

    void mergeJsonGivesEveryDeviationAsANumber()
    {
        const QByteArray valid = readAll(corpus("result-valid.json"));
        // Two seeds of 1e308 ms: their mean overflowed to infinity, written as "std_ms": null.
        const QString huge = path("huge-std-out");
        QDir().mkpath(huge);
        write("huge-std-out/job-000000.json", QByteArray(valid).replace("1.5", "1e308"));
        write("huge-std-out/job-000001.json",
              QByteArray(valid)
                  .replace("1.5", "1e308")
                  .replace("\"job\": 0", "\"job\": 1")
                  .replace("\"seed\": 1", "\"seed\": 2"));
        const Run refused = runCli({"sweep", "merge", huge, "--json"});
        QVERIFY2(!refused.out.contains("null"), qPrintable(refused.out));
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("field best_step_time_ms"), qPrintable(refused.err));

        const QString out = path("std-out");
        QDir().mkpath(out);
        write("std-out/job-000000.json", QByteArray(valid).replace("1.5", "1e15"));
        write("std-out/job-000001.json",
              QByteArray(valid).replace("\"job\": 0", "\"job\": 1").replace("\"seed\": 1", "\"seed\": 2"));
        const Run r = runCli({"sweep", "merge", out, "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(!r.out.contains("null"), qPrintable(r.out));
        const QJsonArray rows = QJsonDocument::fromJson(r.out.toUtf8()).object()["rows"].toArray();
        QCOMPARE(rows.size(), 1);
        QVERIFY(rows[0].toObject()["std_ms"].isDouble());
        QVERIFY(rows[0].toObject()["std_ms"].toDouble() > 1e14);
    }

    void learnerSettingsAreJudgedUnderTheirOwnNames_data()
    {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("message");
        QTest::newRow("ppo-clip=0") << "ppo-clip=0"
                                    << "'ppo-clip' must be in (0, 10]";
        QTest::newRow("reinforce-decay=1") << "reinforce-decay=1"
                                           << "'reinforce-decay' must be in [0, 1)";
    }
    void learnerSettingsAreJudgedUnderTheirOwnNames()
    {
        QFETCH(QString, setting);
        QFETCH(QString, message);
        const QString g = graph();
        const Run r = runCli(
            {"place", g, "--cluster", "k80x2", "--algo", "reinforce", "--samples", "40", "--set", setting});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(!r.err.contains("ppoClip") && !r.err.contains("reinforceBaselineDecay"), qPrintable(r.err));
        // The values next to the refused end run.
        const QString inside = setting.startsWith("ppo") ? "ppo-clip=0.001" : "reinforce-decay=0.999";
        const Run ok = runCli({"place", g, "--cluster", "k80x2", "--algo",
                               setting.startsWith("ppo") ? "ppo" : "reinforce", "--samples", "40", "--set", inside});
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
    }
};

QTEST_GUILESS_MAIN(TestReliability)
#include "test_reliability.moc"
