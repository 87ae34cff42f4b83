// The reliability corpus of issue 20 through the real post-cli: special files as inputs,
// hostile output paths, names that are not UTF-8, figures past their bounds, options that
// once took gigabytes, placers that do not fit the cluster. Every bad case must exit 1 with
// a message naming the file and the option, line or field, within a time and address-space
// limit (a hang or a memory bomb fails the test instead of stalling it).
#include "tests/support/TestData.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true; // ASan reserves terabytes of address space: no RLIMIT_AS
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

constexpr int kTimeLimitMs = 20000;               // a FIFO once blocked open() forever
constexpr rlim_t kAddressSpace = rlim_t(2) << 30; // 2 GiB: `--set ce-interval=1e8` once took 3.5 GB

struct Run {
    int exitCode = -1; // -2: crashed or killed, -3: ran past the time limit
    QString out;
    QString err;
    qint64 ms = 0;
};

Run runCli(const QStringList& args)
{
    QProcess p;
    if (!kSanitized)
        p.setChildProcessModifier([] {
            const rlimit limit{kAddressSpace, kAddressSpace};
            ::setrlimit(RLIMIT_AS, &limit);
        });
    QElapsedTimer clock;
    clock.start();
    p.start(testdata::cliPath(), args);
    if (!p.waitForFinished(kTimeLimitMs)) {
        p.kill();
        p.waitForFinished();
        return {-3, {}, QStringLiteral("timed out"), clock.elapsed()};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError()), clock.elapsed()};
}

QString describe(const Run& r)
{
    return QStringLiteral("exit %1 after %2 ms: %3").arg(r.exitCode).arg(r.ms).arg(r.err);
}

// a -> b -> c, 1 MB tensors.
const char* kChain = R"({"format": "post-graph/1", "name": "chain",
 "ops": [{"name": "a", "type": "MatMul", "time_us": {"gpu": 100, "cpu": 1000}, "output_bytes": 1000000},
         {"name": "b", "type": "Relu", "time_us": {"gpu": 200, "cpu": 2000}, "output_bytes": 1000000},
         {"name": "c", "type": "Add", "time_us": {"gpu": 50, "cpu": 500}, "output_bytes": 1000000}],
 "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]})";

// Two GPUs and no CPU.
const char* kGpus = R"({"format": "post-cluster/1", "name": "pair",
 "devices": [{"name": "/device:GPU:0", "kind": "gpu"}, {"name": "/device:GPU:1", "kind": "gpu"}]})";

} // namespace

class TestCliMalformed : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString graph_;
    QString cluster_;

    QString write(const QString& name, const QByteArray& content) { return testdata::writeFile(dir_, name, content); }

    static QByteArray read(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    QString fifo(const QString& name)
    {
        const QString path = dir_.filePath(name);
        ::unlink(path.toLocal8Bit().constData());
        if (::mkfifo(path.toLocal8Bit().constData(), 0600) != 0)
            qFatal("mkfifo %s failed", qPrintable(path));
        return path;
    }

    static bool isFifo(const QString& path)
    {
        struct stat st { };
        return ::lstat(path.toLocal8Bit().constData(), &st) == 0 && S_ISFIFO(st.st_mode);
    }

    // Exit 1 with every one of `parts` in the message.
    static void expectRefused(const Run& r, const QStringList& parts)
    {
        QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
        for (const QString& part : parts)
            QVERIFY2(r.err.contains(part), qPrintable("'" + part + "' missing: " + describe(r)));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(testdata::cliPath()), "POST_CLI must point at the built post-cli");
        QVERIFY(dir_.isValid());
        graph_ = write("chain.json", kChain);
        cluster_ = write("gpus.json", kGpus);
    }

    // Refused before an open() that blocks (a FIFO waits for a writer forever) or reads
    // without end (/dev/zero).
    void specialFilesAsInputs_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kind");
        const QString pipe = fifo("input.fifo");
        QTest::newRow("info graph FIFO") << QStringList{"info", pipe} << pipe << "is a FIFO (named pipe)";
        QTest::newRow("place graph FIFO") << QStringList{"place", pipe, "--cluster", "k80x4"} << pipe << "FIFO";
        QTest::newRow("simulate --cluster FIFO")
            << QStringList{"simulate", graph_, "--cluster", pipe, "--all-on", "/device:GPU:0"} << pipe << "FIFO";
        QTest::newRow("simulate --placement FIFO")
            << QStringList{"simulate", graph_, "--cluster", "k80x4", "--placement", pipe} << pipe << "FIFO";
        QTest::newRow("compare --cluster FIFO")
            << QStringList{"compare", graph_, "--cluster", pipe, "--algos", "single"} << pipe << "FIFO";
        QTest::newRow("info character device") << QStringList{"info", "/dev/zero"} << "/dev/zero"
                                               << "is a character device, not a regular file";
        QTest::newRow("info directory") << QStringList{"info", dir_.path()} << dir_.path() << "is a directory";
    }

    void specialFilesAsInputs()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, path);
        QFETCH(QString, kind);
        expectRefused(runCli(args), {path, kind});
    }

    // Checked before the search: a result that cannot be written is not computed (and lost).
    void outputsRefusedBeforeTheRun()
    {
        const QString pipe = fifo("out.fifo");
        const QStringList place = {"place", graph_, "--cluster", "k80x4", "--algo", "post", "--samples", "1000000"};
        // Onto a FIFO (once replaced by a regular file, as /dev/null was for root).
        Run r = runCli(place + QStringList{"--out", pipe});
        expectRefused(r, {pipe, "--out", "is a FIFO (named pipe), not a regular file: refusing to replace it"});
        QVERIFY(isFifo(pipe));
        QVERIFY2(r.ms < 10000, qPrintable(describe(r))); // a million samples were never drawn
        // Onto the input.
        const QByteArray before = read(graph_);
        expectRefused(runCli(place + QStringList{"--out", graph_}), {graph_, "--out", "is also an input"});
        QCOMPARE(read(graph_), before);
        // Onto the input through another spelling of its path.
        expectRefused(runCli(place + QStringList{"--log", dir_.path() + "/./chain.json"}), {"--log", "is also an input"});
        // Two outputs into one file.
        const QString out = dir_.filePath("both.json");
        expectRefused(runCli(place + QStringList{"--out", out, "--log", out}),
                      {out, "--log", "is also the --out output"});
        QVERIFY(!QFileInfo::exists(out));
        // Into a folder that does not exist.
        expectRefused(runCli(place + QStringList{"--out", dir_.filePath("none/p.json")}),
                      {"none/p.json", "--out", "does not exist"});
        // simulate --trace and zoo generate --out check theirs too.
        expectRefused(runCli({"simulate", graph_, "--cluster", "k80x4", "--all-on", "/device:GPU:0", "--trace", graph_}),
                      {graph_, "--trace", "is also an input"});
        expectRefused(runCli({"zoo", "generate", "rnnlm-2", "--out", pipe}), {pipe, "--out", "FIFO"});
        QVERIFY(isFifo(pipe));
    }

    void readOnlyNeedsForce()
    {
        const QString out = write("readonly.json", "old\n");
        QVERIFY(QFile::setPermissions(out, QFileDevice::ReadOwner | QFileDevice::ReadGroup));
        const QStringList place = {"place", graph_, "--cluster", "k80x4", "--algo", "single", "--out", out};
        expectRefused(runCli(place), {out, "--out", "is read-only", "--force"});
        QCOMPARE(read(out), QByteArray("old\n"));
        const Run r = runCli(place + QStringList{"--force"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY(read(out).contains("post-placement/1"));
        QCOMPARE(QFileInfo(out).permissions() & QFileDevice::WriteOwner, QFileDevice::Permissions());
    }

    // A symlink is written through (the link stays, its target gets the placement); a link
    // to nothing is refused.
    void symlinksWrittenThrough()
    {
        const QString target = write("target.json", "old\n");
        const QString link = dir_.filePath("link.json");
        QVERIFY(QFile::link(target, link));
        const Run r = runCli({"place", graph_, "--cluster", "k80x4", "--algo", "single", "--out", link});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY(QFileInfo(link).isSymLink());
        QVERIFY(read(target).contains("post-placement/1"));
        const QString dangling = dir_.filePath("dangling.json");
        QVERIFY(QFile::link(dir_.filePath("missing/x.json"), dangling));
        expectRefused(runCli({"place", graph_, "--cluster", "k80x4", "--algo", "single", "--out", dangling}),
                      {dangling, "--out", "which does not exist"});
        QVERIFY(QFileInfo(dangling).isSymLink());
        // /dev/stdout into a pipe leads to "pipe:[N]": said so, not "does not exist".
        const QString piped = dir_.filePath("piped.json");
        QVERIFY(QFile::link(QStringLiteral("pipe:[4026531]"), piped));
        expectRefused(runCli({"place", graph_, "--cluster", "k80x4", "--algo", "single", "--out", piped}),
                      {piped, "--out", "leads to an open pipe or socket (pipe:[4026531]), not a file"});
    }

    // Names that are not UTF-8 once ran the whole search and then lost the result to a JSON
    // error naming no file; now the import fails at the line.
    void namesNotUtf8RefusedAtImport_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("where");
        QTest::newRow("pipedream") << "bad.txt"
                                   << QByteArray(
                                          "node1 -- Input -- forward_compute_time=5.0, backward_compute_time=0.0, "
                                          "activation_size=8.0, parameter_size=0.0\n"
                                          "n\xff -- ReLU() -- forward_compute_time=1.0, backward_compute_time=1.0, "
                                          "activation_size=4.0, parameter_size=0.0\n\tnode1 -- n\xff\n")
                                   << "line 2: node id 'n\\xFF' is not valid UTF-8";
        QTest::newRow("dot") << "bad.dot" << QByteArray("digraph { a -> \"b\xfe\" }")
                             << "node 'b\\xFE': op name 'b\\xFE' is not valid UTF-8";
        QTest::newRow("pbtxt") << "bad.pbtxt"
                               << QByteArray("node { name: \"a\" op: \"Placeholder\" }\n"
                                             "node { name: \"b\\300\\257\" op: \"Relu\" input: \"a\" }\n")
                               << "is not valid UTF-8";
    }

    void namesNotUtf8RefusedAtImport()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, where);
        const QString path = write(name, content);
        const Run r = runCli({"place", path, "--cluster", "k80x4", "--algo", "single", "--json"});
        expectRefused(r, {path, where});
        QVERIFY(r.out.isEmpty());
    }

    // Figures past their documented bounds, named with the value as written.
    void figuresPastTheirBounds()
    {
        const QString peak = write(
            "peak.json",
            R"({"format": "post-cluster/1", "devices": [{"name": "/device:GPU:0", "kind": "gpu", "peak_tflops": 1e-300}]})");
        expectRefused(runCli({"simulate", graph_, "--cluster", peak, "--all-on", "/device:GPU:0"}),
                      {peak, "field devices[0].peak_tflops", "must be between 1e-06 and 1e+09, got 1e-300"});
        const QString msr = write(
            "ids.json", R"({"nodes": [{"id": 18446744073709551615, "name": "a", "fpgaLatency": 1}], "edges": []})");
        const Run ids = runCli({"info", msr}); // an MSR id of 2^64-1 is an id like any other
        QVERIFY2(ids.exitCode == 0, qPrintable(ids.err));
        const QString dot = write("gpu.dot", "digraph { a [time_us_gpu=\"1e16\"] }");
        expectRefused(runCli({"info", dot}), {dot, "node 'a' attribute time_us_gpu", "got 1e16"});
        const QString bomb = testdata::sourceDir() + "/tests/data/fuzz-regressions/dot/limit-reopened-subgraphs.dot";
        expectRefused(runCli({"info", bomb}), {bomb, "line 6", "more than 100000 edges"});
    }

    // `--set ce-interval=100000000` once allocated its whole window up front (3.5 GB for
    // three ops): the window is now at most the sample budget. Runs under the 2 GiB limit.
    void setOptionsStayWithinMemory()
    {
        const Run r = runCli({"place", graph_, "--cluster", "k80x4", "--algo", "post", "--samples", "200", "--threads",
                              "1", "--set", "ce-interval=100000000", "--set", "batch=1000000", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    }

    // compare leaves out what cannot run on the cluster, with a note, and keeps the table.
    void compareSkipsPlacersThatDoNotApply()
    {
        Run r = runCli({"compare", graph_, "--cluster", cluster_, "--algos", "single,cpu,m-topo", "--seeds", "1"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains("m-topo"), qPrintable(r.out));
        QVERIFY2(r.out.contains("cpu          skipped: the cluster has no CPU device (" + cluster_ + ")"),
                 qPrintable(r.out));
        r = runCli({"compare", graph_, "--cluster", cluster_, "--algos", "single,cpu", "--seeds", "1", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["results"].toArray().size(), 1);
        QCOMPARE(o["skipped"].toArray().at(0).toObject()["algo"].toString(), QStringLiteral("cpu"));
        // place with it fails, naming the cluster's file rather than its name.
        expectRefused(runCli({"place", graph_, "--cluster", cluster_, "--algo", "cpu"}),
                      {cluster_ + ": devices: the cpu placer needs a CPU device", "(cluster 'pair')"});
    }
};

QTEST_GUILESS_MAIN(TestCliMalformed)
#include "test_cli_malformed.moc"
