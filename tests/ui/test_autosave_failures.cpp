// Issue 31 class 2: the autosave's failures are shown. With the autosave folder on a full
// or read-only disk, the window says so (the status bar's warning, a message) before a run
// starts and when a write fails; the interactive start asks first. After a crash on a full
// disk, the restart reports the autosave it cannot take over (its stale lock cannot be
// replaced without space) instead of ignoring it, and restores it once space is freed. The
// disks are small tmpfs mounts, made when the test runs as root (skipped otherwise).
#include "tests/support/ScratchSettings.h"
#include "tests/ui/AnswerDialogs.h"
#include "tests/ui/UiTestWindows.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/session/SessionAutosave.h"
#include "ui/session/SessionController.h"

#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>

#include <unistd.h>

using namespace post;
using uitest::answerDialogs;
using uitest::openWindow;
using uitest::sample;

namespace {

constexpr int kWaitMs = 60000;

LearnerPanel* learner(MainWindow& w) { return w.findChild<LearnerPanel*>(); }
SessionController* session(MainWindow& w) { return w.findChild<SessionController*>(); }

bool runLearner(MainWindow& window, const char* algo, int samples)
{
    QSignalSpy finished(learner(window), &LearnerPanel::finished);
    learner(window)->setAlgorithm(QLatin1String(algo));
    learner(window)->setSamples(samples);
    learner(window)->setSeed(3);
    learner(window)->start();
    return finished.wait(kWaitMs);
}

QStringList messages(const QSignalSpy& spy)
{
    QStringList out;
    for (const QList<QVariant>& call : spy)
        out << call.at(0).toString();
    return out;
}

// Fills the disk holding `dir` to the last block.
void fill(const QString& dir)
{
    QFile file(dir + QStringLiteral("/fill"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    const QByteArray block(4096, 'x');
    while (file.write(block) == block.size() && file.flush()) { }
    QFile small(dir + QStringLiteral("/fill-tail"));
    if (small.open(QIODevice::WriteOnly))
        while (small.write("x", 1) == 1 && small.flush()) { }
}

// The id of a process that has ended (a lock naming it is stale).
qint64 deadPid()
{
    QProcess p;
    p.start(QStringLiteral("true"), {});
    p.waitForStarted();
    const qint64 pid = p.processId();
    p.waitForFinished();
    return pid;
}

} // namespace

class TestAutosaveFailures : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString mount_;
    bool mounted_ = false;

    // A small tmpfs at mount_ (options e.g. "size=64k" or "size=64k,ro"); skips when this
    // process may not mount.
    bool mountTmpfs(const QString& options, QString* why)
    {
        if (::geteuid() != 0) {
            *why = QStringLiteral("not running as root: the full- and read-only-disk cases need a tmpfs mount");
            return false;
        }
        QDir().mkpath(mount_);
        QProcess p;
        p.start(QStringLiteral("mount"),
                {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"), options, QStringLiteral("tmpfs"),
                 mount_});
        if (!p.waitForFinished(10000) || p.exitCode() != 0) {
            *why = QStringLiteral("mount -t tmpfs failed (%1)").arg(QString::fromUtf8(p.readAllStandardError()).trimmed());
            return false;
        }
        mounted_ = true;
        return true;
    }

private slots:
    void initTestCase()
    {
        testsupport::useScratchSettings();
        QVERIFY(dir_.isValid());
        mount_ = dir_.filePath(QStringLiteral("disk"));
        qputenv("POST_AUTOSAVE_DIR", mount_.toUtf8());
        qunsetenv("POST_AUTOSAVE_RESTORE");
    }

    void cleanup()
    {
        qunsetenv("POST_AUTOSAVE_RESTORE");
        if (mounted_)
            QProcess::execute(QStringLiteral("umount"), {mount_});
        mounted_ = false;
    }

    // Nothing can be written: said before the run starts, and again when its writes fail;
    // the status bar keeps a warning in view. The run itself goes on.
    void failuresAreShown_data()
    {
        QTest::addColumn<QString>("options");
        QTest::addColumn<QString>("reason");
        QTest::newRow("read-only disk") << "size=64k,ro"
                                        << "read-only";
        QTest::newRow("full disk") << "size=64k"
                                   << "no space left";
    }
    void failuresAreShown()
    {
        QFETCH(QString, options);
        QFETCH(QString, reason);
        QString why;
        if (!mountTmpfs(options, &why))
            QSKIP(qPrintable(why));
        if (!options.contains(QStringLiteral("ro")))
            fill(mount_);
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(window->autosaveWarning().isEmpty());
        QSignalSpy failed(session(*window), &SessionController::autosaveFailed);
        QSignalSpy started(learner(*window), &LearnerPanel::runStarted);
        QSignalSpy finished(learner(*window), &LearnerPanel::finished);
        learner(*window)->setAlgorithm(QStringLiteral("post"));
        learner(*window)->setSamples(200);
        learner(*window)->start();
        // Before the run: the warning names the folder and why.
        QVERIFY(!failed.isEmpty());
        const QString before = failed.first().at(0).toString();
        QVERIFY2(before.startsWith(QStringLiteral("Nothing of this run can be autosaved")), qPrintable(before));
        QVERIFY2(before.contains(mount_) && before.contains(reason), qPrintable(before));
        QVERIFY2(window->autosaveWarning() == before, qPrintable(window->autosaveWarning()));
        QVERIFY(finished.wait(kWaitMs)); // started anyway: nobody was there to ask
        QCOMPARE(started.size(), 1);
        // Its writes fail and say so, naming the file.
        const QStringList said = messages(failed);
        const QString path = session(*window)->autosave()->path();
        QVERIFY2(std::any_of(said.begin(), said.end(),
                             [&](const QString& m) {
                                 return m.startsWith(QStringLiteral("Autosave failed: ")) && m.contains(path)
                                     && m.contains(reason);
                             }),
                 qPrintable(said.join(QLatin1Char('\n'))));
        QVERIFY(window->autosaveWarning().startsWith(QStringLiteral("Autosave failed")));
        QVERIFY(window->statusMessage().startsWith(QStringLiteral("Autosave failed")));
        QVERIFY(!QFile::exists(path));
        window.reset(); // before the disk goes
    }

    // With dialogs, Start asks first: Cancel starts nothing, Start Anyway runs (and the
    // status bar's warning stays while it does).
    void anInteractiveStartAsks()
    {
        QString why;
        if (!mountTmpfs(QStringLiteral("size=64k,ro"), &why))
            QSKIP(qPrintable(why));
        auto window = openWindow(sample("tiny-mlp.json"));
        window->setInteractiveErrors(true);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QSignalSpy started(learner(*window), &LearnerPanel::runStarted);
        learner(*window)->setAlgorithm(QStringLiteral("post"));
        learner(*window)->setSamples(100);
        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        learner(*window)->start();
        QVERIFY2(question->contains(QStringLiteral("Start without an autosave?")), qPrintable(*question));
        QVERIFY2(question->contains(QStringLiteral("read-only")), qPrintable(*question));
        QCOMPARE(started.size(), 0);
        QVERIFY(!learner(*window)->controller()->isActive());

        QSignalSpy finished(learner(*window), &LearnerPanel::finished);
        answerDialogs(QMessageBox::Yes);
        learner(*window)->start();
        QCOMPARE(started.size(), 1);
        QVERIFY(!window->autosaveWarning().isEmpty());
        QVERIFY(finished.wait(kWaitMs));
        window->setInteractiveErrors(false); // no question at close
        window.reset();
    }

    // kill -9 on a full disk: the restart cannot take the crashed run's stale lock over (a
    // new lock needs space). It says so, naming the autosave, instead of ignoring it; once
    // space is freed, the next start restores it.
    void aStaleLockOnAFullDiskIsReported()
    {
        QString why;
        if (!mountTmpfs(QStringLiteral("size=2m"), &why))
            QSKIP(qPrintable(why));
        QString orphan;
        {
            auto window = openWindow(sample("tiny-mlp.json"));
            QVERIFY(runLearner(*window, "ce", 100));
            session(*window)->autosave()->flush();
            orphan = session(*window)->autosave()->path();
            session(*window)->autosave()->simulateCrash(); // the process "dies" here
        }
        QVERIFY(QFile::exists(orphan));
        // What a killed process leaves: its lock, naming a process that is gone.
        const QString lockPath = orphan.left(orphan.size() - QStringLiteral(".session.json").size()) + ".lock";
        {
            const QString probe = dir_.filePath(QStringLiteral("probe.lock"));
            QLockFile lock(probe);
            QVERIFY(lock.tryLock(0));
            QFile made(probe);
            QVERIFY(made.open(QIODevice::ReadOnly));
            QList<QByteArray> lines = made.readAll().split('\n');
            made.close();
            lock.unlock();
            lines[0] = QByteArray::number(deadPid());
            QFile stale(lockPath);
            QVERIFY(stale.open(QIODevice::WriteOnly));
            stale.write(lines.join('\n'));
        }
        fill(mount_);

        qputenv("POST_AUTOSAVE_RESTORE", "restore");
        {
            MainWindow window;
            window.setInteractiveErrors(false);
            QSignalSpy failed(session(window), &SessionController::autosaveFailed);
            QSignalSpy restored(session(window), &SessionController::restored);
            QVERIFY(failed.wait(kWaitMs));
            const QString said = failed.first().at(0).toString();
            QVERIFY2(said.contains(orphan) && said.contains(QStringLiteral("cannot be restored"))
                         && said.contains(QStringLiteral("no space left")),
                     qPrintable(said));
            QCOMPARE(window.autosaveWarning(), said);
            QVERIFY(restored.isEmpty());
            QVERIFY(!window.hub()->document());
        }
        QVERIFY(QFile::exists(orphan)); // never removed

        QFile::remove(mount_ + QStringLiteral("/fill"));
        QFile::remove(mount_ + QStringLiteral("/fill-tail"));
        {
            MainWindow window;
            window.setInteractiveErrors(false);
            QSignalSpy restored(session(window), &SessionController::restored);
            QVERIFY(restored.wait(kWaitMs)); // space again: taken over and restored
            QCOMPARE(window.findChild<LearningChart*>()->sampleCount(), 100);
        }
    }
};

QTEST_MAIN(TestAutosaveFailures)
#include "test_autosave_failures.moc"
