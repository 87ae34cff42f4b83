// Runs the real post-studio executable ($POST_STUDIO) for what needs no window: --help and
// --version without any display, and the refusal of a cluster that cannot be read.
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>
#include <tuple>

#include <csignal>

namespace {

struct Run {
    int exitCode = -1; // -2: crashed (an abort without a display, say)
    QString out;
    QString err;
};

// `display` false: without DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM, as on a server
// or in a container; true: on the offscreen platform. Settings go under `configHome`.
Run runStudio(const QStringList& args, const QString& configHome, bool display)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QLatin1String(name));
    if (display)
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
    env.insert(QStringLiteral("POST_AUTOSAVE_DIR"), configHome + QStringLiteral("/autosave"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("POST_STUDIO"), args);
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QString tinyMlp() { return qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"); }

// tiny-mlp placed by post-cli (m-topo on k80x2) into `out`: whether it worked.
bool placeTinyMlp(const QString& out)
{
    QProcess cli;
    cli.start(qEnvironmentVariable("POST_CLI"),
              {QStringLiteral("place"), tinyMlp(), QStringLiteral("--cluster"), QStringLiteral("k80x2"),
               QStringLiteral("--algo"), QStringLiteral("m-topo"), QStringLiteral("--out"), out});
    return cli.waitForFinished(60000) && cli.exitCode() == 0;
}

} // namespace

class TestStudioCommandLine : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(qEnvironmentVariable("POST_STUDIO")), "POST_STUDIO must point at post-studio");
        QVERIFY(config_.isValid());
    }

    void helpAndVersionNeedNoDisplay()
    {
        const Run help = runStudio({QStringLiteral("--help")}, config_.path(), false);
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.contains(QStringLiteral("--cluster")), qPrintable(help.out + help.err));
        QVERIFY(help.out.contains(QStringLiteral("--screenshot")));
        const Run version = runStudio({QStringLiteral("--version")}, config_.path(), false);
        QCOMPARE(version.exitCode, 0);
        QVERIFY2(version.out.contains(QStringLiteral("post-studio")), qPrintable(version.out + version.err));
    }

    // A signal never removes the autosave: post-studio killed by SIGTERM or SIGINT in the
    // middle of a run leaves it complete on disk for the next start to offer.
    // Issue 31 class 9: also a run on a cluster of absurd (in-range) peaks, speeds and links,
    // whose step times are hours or nanoseconds, is autosaved (it once was not).
    void aSignalLeavesTheAutosave_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<QString>("peaks"); // empty: the default cluster and tiny-mlp
        QTest::newRow("SIGTERM") << SIGTERM << QString();
        QTest::newRow("SIGINT") << SIGINT << QString();
        QTest::newRow("SIGTERM, peaks 1e-6") << SIGTERM << QStringLiteral("1e-6");
        QTest::newRow("SIGTERM, peaks 1e9") << SIGTERM << QStringLiteral("1e9");
    }
    void aSignalLeavesTheAutosave()
    {
        QFETCH(int, signal);
        QFETCH(QString, peaks);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        QStringList extra;
        if (!peaks.isEmpty()) {
            const QString speed = peaks == QLatin1String("1e9") ? QStringLiteral("1e6") : QStringLiteral("1e-6");
            const QString device = QStringLiteral(
                R"({"name": "/device:%1:0", "kind": "%2", "speed": %3, )"
                R"("memory_bytes": 1e30, "peak_tflops": %4, "memory_bandwidth_GBps": %4})");
            QFile cluster(home.filePath(QStringLiteral("absurd.json")));
            QVERIFY(cluster.open(QIODevice::WriteOnly));
            cluster.write(
                (QStringLiteral(R"({"format": "post-cluster/1", "name": "absurd", "devices": [)")
                 + device.arg(QStringLiteral("CPU"), QStringLiteral("cpu"), speed, peaks) + QStringLiteral(", ")
                 + device.arg(QStringLiteral("GPU"), QStringLiteral("gpu"), speed, peaks)
                 + QStringLiteral(R"(], "default_link": {"bandwidth_GBps": %1, "latency_us": 1e12}})").arg(peaks))
                    .toUtf8());
            cluster.close();
            extra = {QStringLiteral("--cluster"), cluster.fileName()};
        }
        const QString autosaveDir = home.filePath(QStringLiteral("autosave"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.path());
        env.insert(QStringLiteral("POST_AUTOSAVE_DIR"), autosaveDir);
        env.insert(QStringLiteral("POST_AUTOSAVE_INTERVAL_MS"), QStringLiteral("100"));
        // An ONNX graph: its times come from the cluster's peaks.
        const QString graph = qEnvironmentVariable("POST_SOURCE_DIR")
            + (peaks.isEmpty() ? QStringLiteral("/samples/graphs/tiny-mlp.json")
                               : QStringLiteral("/tests/data/onnx/cnn.onnx"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(qEnvironmentVariable("POST_STUDIO"),
                QStringList{graph, QStringLiteral("--algo"), QStringLiteral("post"), QStringLiteral("--samples"),
                            QStringLiteral("100000000")}
                    + extra);
        QVERIFY(p.waitForStarted());
        // Wait for an autosave holding samples.
        QString autosave;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 60000 && autosave.isEmpty()) {
            QTest::qWait(100);
            for (const QString& name : QDir(autosaveDir).entryList({QStringLiteral("*.session.json")}, QDir::Files)) {
                QFile file(QDir(autosaveDir).filePath(name));
                if (file.open(QIODevice::ReadOnly) && file.readAll().contains("\n    [1, "))
                    autosave = file.fileName();
            }
        }
        QVERIFY2(!autosave.isEmpty(), "no autosave with samples appeared");
        QCOMPARE(p.state(), QProcess::Running); // the run is still going
        ::kill(static_cast<pid_t>(p.processId()), signal);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // ended by the signal, as it asks
        QVERIFY2(QFileInfo::exists(autosave), "the signal removed the autosave");
        QFile file(autosave);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.startsWith("{\n  \"format\": \"post-session/1\""));
        QVERIFY(text.trimmed().endsWith("}")); // complete: written atomically
        QVERIFY(text.contains("\"state\": \"running\""));
    }

    void aClusterThatCannotBeReadIsNamedAndNotKept()
    {
        const QString bad = config_.filePath(QStringLiteral("broken-cluster.json"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"post-cluster/1\", ");
        file.close();
        const QString graph = qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json");
        const QString shot = config_.filePath(QStringLiteral("x.png"));
        const Run run = runStudio({graph, QStringLiteral("--cluster"), bad, QStringLiteral("--screenshot"), shot},
                                  config_.path(), true);
        QCOMPARE(run.exitCode, 1);                            // bad input, as post-cli says it (2 is for usage)
        QVERIFY2(run.err.contains(bad), qPrintable(run.err)); // names the cluster file
        QVERIFY(!QFileInfo::exists(shot));
        QFile settings(config_.filePath(QStringLiteral("PostStudio/post-studio.conf")));
        if (settings.open(QIODevice::ReadOnly)) // absent: nothing was kept at all
            QVERIFY2(!settings.readAll().contains("broken-cluster"), "the bad cluster was kept in the settings");
    }

    // A session opens as it was saved: --cluster and the graph's options are refused, naming
    // them, not ignored without a word.
    void aSessionRefusesTheOptionsItWouldIgnore()
    {
        const QString session = config_.filePath(QStringLiteral("run.session.json"));
        QFile file(session);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"post-session/1\"}"); // told by its head, refused before it is read
        file.close();
        const Run run = runStudio({session, QStringLiteral("--cluster"), QStringLiteral("k80x2"),
                                   QStringLiteral("--precision"), QStringLiteral("amp")},
                                  config_.path(), true);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(session + QStringLiteral(" is a session: ")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("so --cluster, --precision would not apply")), qPrintable(run.err));
    }

    // --precision and --dispatch set the window's mode and rule (kept in the settings, as the
    // learner panel's pickers keep them); a value they do not take is a usage error.
    void precisionDispatchAndCostsAreOptions()
    {
        QTemporaryDir config;
        QVERIFY(config.isValid());
        const QString graph = qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json");
        const QString shot = config.filePath(QStringLiteral("cp.png"));
        const Run run = runStudio({graph, QStringLiteral("--precision"), QStringLiteral("amp"),
                                   QStringLiteral("--dispatch"), QStringLiteral("critical-path"),
                                   QStringLiteral("--screenshot"), shot},
                                  config.path(), true);
        QCOMPARE(run.exitCode, 0);
        QVERIFY(QFileInfo::exists(shot));
        QFile settings(config.filePath(QStringLiteral("PostStudio/post-studio.conf")));
        QVERIFY(settings.open(QIODevice::ReadOnly));
        const QByteArray kept = settings.readAll();
        QVERIFY2(kept.contains("dispatch=critical-path") && kept.contains("precision=amp"), kept.constData());
        for (const auto& [option, value, message] :
             {std::tuple{"--dispatch", "fifo", "--dispatch takes ready or critical-path"},
              std::tuple{"--precision", "fp8", "--precision takes fp32, tf32, pytorch or amp"}}) {
            const Run bad = runStudio({graph, QLatin1String(option), QLatin1String(value)}, config.path(), true);
            QCOMPARE(bad.exitCode, 2);
            QVERIFY2(bad.err.contains(QLatin1String(message)), qPrintable(bad.err));
        }
        const Run noFile = runStudio({QStringLiteral("--costs"), QStringLiteral("run.pt.trace.json")}, config.path(),
                                     true);
        QCOMPARE(noFile.exitCode, 2);
        QVERIFY2(noFile.err.contains(QStringLiteral("--costs needs a FILE to open")), qPrintable(noFile.err));
        // A costs file that cannot be read: named, exit 1, no screenshot.
        const QString missing = config.filePath(QStringLiteral("missing.pt.trace.json"));
        const QString none = config.filePath(QStringLiteral("none.png"));
        const Run bad = runStudio({graph, QStringLiteral("--costs"), missing, QStringLiteral("--screenshot"), none},
                                  config.path(), true);
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("missing.pt.trace.json")), qPrintable(bad.err));
        QVERIFY(!QFileInfo::exists(none));
    }

    // --time alone is a wall-time budget, as post-cli place --time: the run lasts it (the sample
    // budget becomes the panel's largest, which random search on 102 ops does not reach in
    // 2 s); with --samples the run ends at whichever comes first.
    void timeAloneIsTheBudget()
    {
        const QString graph = qEnvironmentVariable("POST_SOURCE_DIR")
            + QStringLiteral("/samples/graphs/inception-block.json");
        const QString shot = config_.filePath(QStringLiteral("timed.png"));
        QElapsedTimer clock;
        clock.start();
        Run run = runStudio({graph, QStringLiteral("--cluster"), QStringLiteral("k80x2"), QStringLiteral("--algo"),
                             QStringLiteral("random"), QStringLiteral("--time"), QStringLiteral("2"),
                             QStringLiteral("--screenshot"), shot},
                            config_.path(), true);
        const qint64 timeAlone = clock.restart();
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(timeAlone >= 2000, qPrintable(QString::number(timeAlone))); // before: 2,400 samples, 0.1 s
        run = runStudio({graph, QStringLiteral("--cluster"), QStringLiteral("k80x2"), QStringLiteral("--algo"),
                         QStringLiteral("random"), QStringLiteral("--time"), QStringLiteral("30"),
                         QStringLiteral("--samples"), QStringLiteral("50"), QStringLiteral("--screenshot"), shot},
                        config_.path(), true);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(clock.elapsed() < 25000, qPrintable(QString::number(clock.elapsed()))); // 50 samples end it
    }

    // Issue 31: a --diff with a file that cannot be read (truncated) ends non-zero, naming it,
    // although the screenshot is written.
    void aDiffThatCannotBeReadExitsNonZero()
    {
        const QString graph = tinyMlp();
        const QString placed = config_.filePath(QStringLiteral("placed.json"));
        QVERIFY(placeTinyMlp(placed));
        QFile whole(placed);
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray text = whole.readAll();
        const QString cut = config_.filePath(QStringLiteral("cut-placement.json"));
        QFile truncated(cut);
        QVERIFY(truncated.open(QIODevice::WriteOnly));
        truncated.write(text.left(text.size() / 2));
        truncated.close();
        const QString shot = config_.filePath(QStringLiteral("diff.png"));
        // With the placement shown, and without one (then nothing is read: still no diff).
        for (const bool withPlacement : {true, false}) {
            QStringList args{graph,
                             QStringLiteral("--cluster"),
                             QStringLiteral("k80x2"),
                             QStringLiteral("--diff"),
                             cut,
                             QStringLiteral("--screenshot"),
                             shot};
            if (withPlacement)
                args << QStringLiteral("--placement") << placed;
            const Run run = runStudio(args, config_.path(), true);
            QVERIFY2(run.exitCode == 1, qPrintable(QString::number(run.exitCode) + ": " + run.err));
            QVERIFY2(run.err.contains(cut), qPrintable(run.err));
        }
    }

    // --diff P diffs the placement shown when FILE opens; --algo's run replaces it. Together
    // they are refused before anything opens, naming both (they used to end in "--diff: no
    // diff with P" and nothing else). A FILE that opens unplaced says that is why.
    void aDiffWithoutAPlacementToDiffSaysWhy()
    {
        const QString graph = tinyMlp();
        const QString placed = config_.filePath(QStringLiteral("placed-for-diff.json"));
        QVERIFY(placeTinyMlp(placed));
        const QString shot = config_.filePath(QStringLiteral("diff-why.png"));
        const Run both = runStudio({graph, QStringLiteral("--cluster"), QStringLiteral("k80x2"),
                                    QStringLiteral("--diff"), placed, QStringLiteral("--algo"), QStringLiteral("m-etf"),
                                    QStringLiteral("--screenshot"), shot},
                                   config_.path(), true);
        QCOMPARE(both.exitCode, 2); // usage
        QVERIFY2(both.err.contains(QStringLiteral("--diff and --algo cannot be combined")), qPrintable(both.err));
        QVERIFY(!QFileInfo::exists(shot));
        const Run unplaced = runStudio({graph, QStringLiteral("--cluster"), QStringLiteral("k80x2"),
                                        QStringLiteral("--diff"), placed, QStringLiteral("--screenshot"), shot},
                                       config_.path(), true);
        QCOMPARE(unplaced.exitCode, 1);
        QVERIFY2(unplaced.err.contains(QStringLiteral("opened without a placement"))
                     && unplaced.err.contains(QStringLiteral("--placement")) && unplaced.err.contains(placed),
                 qPrintable(unplaced.err));
        // With the placement to diff it works.
        const Run diffed = runStudio({graph, QStringLiteral("--cluster"), QStringLiteral("k80x2"),
                                      QStringLiteral("--placement"), placed, QStringLiteral("--diff"), placed,
                                      QStringLiteral("--screenshot"), shot},
                                     config_.path(), true);
        QVERIFY2(diffed.exitCode == 0, qPrintable(diffed.err));
        QVERIFY(QFileInfo::exists(shot));
    }

private:
    QTemporaryDir config_;
};

QTEST_GUILESS_MAIN(TestStudioCommandLine)
#include "test_studio_command_line.moc"
