// Sessions in the main window: save and reopen, bad files, autosave during a run and the
// restore after a crash.
#include "core/io/native/ClusterFile.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/session/SessionFile.h"
#include "core/sim/Simulator.h"
#include "core/zoo/ZooRegistry.h"
#include "tests/support/ScratchSettings.h"
#include "tests/ui/AnswerDialogs.h"
#include "tests/ui/UiTestWindows.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/SimulatedStep.h"
#include "ui/document/StepSimulation.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/session/RunRecorder.h"
#include "ui/session/SessionAutosave.h"
#include "ui/session/SessionController.h"
#include "ui/timeline/StepStatusLabel.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

using namespace post;
using uitest::answerDialogs;
using uitest::openWindow;
using uitest::sample;

namespace {

constexpr int kWaitMs = 60000;

bool runLearner(MainWindow& window, const char* algo, int samples, int seed)
{
    QSignalSpy finished(window.findChild<LearnerPanel*>(), &LearnerPanel::finished);
    window.findChild<LearnerPanel*>()->setAlgorithm(QLatin1String(algo));
    window.findChild<LearnerPanel*>()->setSamples(samples);
    window.findChild<LearnerPanel*>()->setSeed(static_cast<std::uint64_t>(seed));
    window.findChild<LearnerPanel*>()->start();
    return finished.wait(kWaitMs);
}

QStringList autosaves(const QString& dir)
{
    return QDir(dir).entryList({QStringLiteral("*.session.json")}, QDir::Files);
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        testsupport::useScratchSettings();
        QVERIFY(dir_.isValid());
        qputenv("POST_AUTOSAVE_DIR", dir_.filePath(QStringLiteral("autosave")).toUtf8());
        qunsetenv("POST_AUTOSAVE_RESTORE");
    }

    void cleanup()
    {
        qunsetenv("POST_AUTOSAVE_RESTORE");
        // Crash tests leave orphans on purpose; no test may leak one into the next.
        for (const QString& name : autosaves(SessionAutosave::directory()))
            QFile::remove(QDir(SessionAutosave::directory()).filePath(name));
    }

    void saveAndReopenRestoresEverything()
    {
        auto first = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*first, "post", 300, 7));
        QVERIFY(first->hub()->document()->isPlaced());
        const QString path = dir_.filePath(QStringLiteral("mlp.session.json"));
        QVERIFY(first->findChild<SessionController*>()->save(path));

        auto second = std::make_unique<MainWindow>();
        second->setInteractiveErrors(false);
        QSignalSpy restored(second->findChild<SessionController*>(), &SessionController::restored);
        QSignalSpy shown(second.get(), &MainWindow::documentShown);
        second->openFile(path); // sniffed as a session, not a graph
        QVERIFY(restored.wait(kWaitMs));
        QVERIFY(shown.count() > 0 || shown.wait(kWaitMs));

        const DocumentPtr& a = first->hub()->document();
        const DocumentPtr& b = second->hub()->document();
        QCOMPARE(nativeGraphJson(*b->graph), nativeGraphJson(*a->graph));
        QCOMPARE(clusterJson(*b->cluster), clusterJson(*a->cluster));
        QCOMPARE(b->placement, a->placement);
        QCOMPARE(second->findChild<LearnerPanel*>()->algorithm(), QStringLiteral("post"));
        QCOMPARE(second->findChild<LearnerPanel*>()->plannedSamples(), 300);
        QCOMPARE(second->findChild<LearnerPanel*>()->seed(), std::uint64_t(7));
        QCOMPARE(second->findChild<LearnerPanel*>()->samplesDone(), 300);
        // The chart: every sample, and the same best-so-far steps (ms -> µs -> ms).
        QCOMPARE(second->findChild<LearningChart*>()->sampleCount(), 300);
        // The lower-bound line: the value the file kept, named by the bound computed with the
        // read (off the window's thread).
        QVERIFY(second->findChild<LearningChart*>()->lowerBoundMs() > 0.0);
        QCOMPARE(second->findChild<LearningChart*>()->lowerBoundMs(), first->findChild<LearningChart*>()->lowerBoundMs());
        QVERIFY(!first->findChild<LearningChart*>()->lowerBoundSource().isEmpty());
        QCOMPARE(second->findChild<LearningChart*>()->lowerBoundSource(),
                 first->findChild<LearningChart*>()->lowerBoundSource());
        const auto& bestA = first->findChild<LearningChart*>()->bestPoints();
        const auto& bestB = second->findChild<LearningChart*>()->bestPoints();
        QCOMPARE(bestB.size(), bestA.size());
        for (qsizetype i = 0; i < bestA.size(); ++i) {
            QCOMPARE(bestB[i].x(), bestA[i].x());
            QVERIFY(qAbs(bestB[i].y() - bestA[i].y()) <= 1e-9 * bestA[i].y());
        }
        QVERIFY(second->windowTitle().startsWith(QStringLiteral("mlp.session.json")));
        QCOMPARE(second->findChild<GraphPanel*>()->scene()->nodeItemCount(),
                 second->findChild<GraphPanel*>()->scene()->viewGraph().nodeCount());
        QVERIFY(second->findChild<GraphPanel*>()->scene()->nodeItemCount() > 0);

        // Saving the restored session again keeps the run and names the original graph.
        const Session again = second->findChild<SessionController*>()->currentSession();
        QCOMPARE(again.samples.size(), size_t(300));
        QCOMPARE(QString::fromStdString(again.source), a->path);
        QVERIFY(again.run.state == SessionRunState::Done);
    }

    // The learner panel's Precision re-times the shown placement in that mode (the status bar
    // and the inspector say which), and a saved session brings the mode back.
    void precisionRetimesAndIsSaved()
    {
        // A graph whose matrix products and convolutions have FLOPs: ResNet-50 at batch 2.
        const QString graph = dir_.filePath(QStringLiteral("r50.json"));
        {
            QFile f(graph);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(nativeGraphJson(ZooRegistry::generate("resnet-50", 2))));
        }
        auto first = std::make_unique<MainWindow>();
        first->setInteractiveErrors(false);
        QVERIFY(first->setClusterName(QStringLiteral("a100x8-nvlink")));
        QSignalSpy shown(first.get(), &MainWindow::documentShown);
        first->openFile(graph);
        QVERIFY(shown.wait(kWaitMs));
        const DocumentPtr doc = first->hub()->document();
        QVERIFY(doc->cluster->precision() == PrecisionMode::Tf32);
        const Placement onGpu(static_cast<size_t>(doc->opCount()), *doc->cluster->find("/device:GPU:0"));
        first->hub()->setPlacement(onGpu);
        auto* simulation = first->findChild<StepSimulation*>();
        QTRY_VERIFY_WITH_TIMEOUT(simulation->current() != nullptr, kWaitMs);
        const double tf32Us = simulation->current()->result.stepTimeUs;

        // The user picks amp: a new document on the same graph and devices, timed in amp.
        LearnerPanel* panel = first->findChild<LearnerPanel*>();
        QComboBox* picker = panel->precisionPicker();
        QCOMPARE(picker->currentText(), QStringLiteral("tf32"));
        const int amp = picker->findText(QStringLiteral("amp"));
        picker->setCurrentIndex(amp);
        emit picker->activated(amp);
        QVERIFY(first->hub()->document()->cluster->precision() == PrecisionMode::Amp);
        QCOMPARE(first->hub()->document()->graphId, doc->graphId);
        QCOMPARE(first->hub()->document()->placement, onGpu);
        QTRY_VERIFY_WITH_TIMEOUT(simulation->current() != nullptr
                                     && simulation->current()->document->cluster->precision() == PrecisionMode::Amp,
                                 kWaitMs);
        const double ampUs = simulation->current()->result.stepTimeUs;
        Cluster ampCluster = *doc->cluster;
        ampCluster.setPrecision(PrecisionMode::Amp);
        QCOMPARE(ampUs, Simulator(*doc->graph, ampCluster).run(onGpu).stepTimeUs);
        QVERIFY2(ampUs < 0.8 * tf32Us, qPrintable(QStringLiteral("%1 vs %2 µs").arg(ampUs).arg(tf32Us)));
        QTRY_VERIFY(first->findChild<StepStatusLabel*>()->text().contains(QStringLiteral(" · amp")));
        QVERIFY(first->findChild<InspectorPanel*>()->html().contains(QStringLiteral("FP16 tensor cores")));

        // Saved and reopened: the cluster comes back in amp, the picker shows it, the step is the same.
        const QString path = dir_.filePath(QStringLiteral("r50-amp.session.json"));
        QVERIFY(first->findChild<SessionController*>()->save(path));
        auto second = std::make_unique<MainWindow>();
        second->setInteractiveErrors(false);
        QSignalSpy restored(second->findChild<SessionController*>(), &SessionController::restored);
        second->openFile(path);
        QVERIFY(restored.wait(kWaitMs));
        QVERIFY(second->hub()->document()->cluster->precision() == PrecisionMode::Amp);
        QCOMPARE(second->findChild<LearnerPanel*>()->precisionPicker()->currentText(), QStringLiteral("amp"));
        auto* again = second->findChild<StepSimulation*>();
        QTRY_VERIFY_WITH_TIMEOUT(again->current() != nullptr, kWaitMs);
        QCOMPARE(again->current()->result.stepTimeUs, ampUs);
        // Back to tf32 in the restored window: the first step time again.
        second->setPrecision(PrecisionMode::Tf32);
        QTRY_VERIFY_WITH_TIMEOUT(again->current() != nullptr
                                     && again->current()->document->cluster->precision() == PrecisionMode::Tf32,
                                 kWaitMs);
        QCOMPARE(again->current()->result.stepTimeUs, tf32Us);
        QSettings().remove(QStringLiteral("precision"));
        QSettings().remove(QStringLiteral("cluster"));
    }

    // The dispatch rule (post-cli --dispatch) is the document's: the step, a run's samples and
    // the session are timed under it, and a session brings it back.
    void dispatchRuleTimesEverythingAndComesBack()
    {
        auto first = std::make_unique<MainWindow>();
        first->setInteractiveErrors(false);
        QVERIFY(first->setClusterName(QStringLiteral("k80x4")));
        QSignalSpy shown(first.get(), &MainWindow::documentShown);
        first->openFile(sample("inception-block.json"));
        QVERIFY(shown.wait(kWaitMs));
        const DocumentPtr doc = first->hub()->document();
        QVERIFY(doc->sim.dispatch == Dispatch::ReadyOrder);

        // A round-robin run (one sample) under critical-path dispatch, picked in the panel.
        LearnerPanel* panel = first->findChild<LearnerPanel*>();
        QComboBox* picker = panel->dispatchPicker();
        QCOMPARE(picker->currentText(), QStringLiteral("ready order"));
        const int criticalPath = picker->findData(static_cast<int>(Dispatch::CriticalPath));
        picker->setCurrentIndex(criticalPath);
        emit picker->activated(criticalPath);
        QVERIFY(first->hub()->document()->sim.dispatch == Dispatch::CriticalPath);
        QCOMPARE(first->hub()->document()->graphId, doc->graphId);
        QVERIFY(runLearner(*first, "round-robin", 1, 1));
        // The run's best reaches the window after it ends (the best feed).
        QTRY_VERIFY_WITH_TIMEOUT(first->hub()->document()->made.algorithm == "round-robin", kWaitMs);
        const DocumentPtr placed = first->hub()->document();
        QVERIFY(placed->isPlaced() && placed->sim.dispatch == Dispatch::CriticalPath);
        SimOptions byPath;
        byPath.dispatch = Dispatch::CriticalPath;
        const double pathUs = Simulator(*placed->graph, *placed->cluster, byPath).run(placed->placement).stepTimeUs;
        const double readyUs = Simulator(*placed->graph, *placed->cluster).run(placed->placement).stepTimeUs;
        QVERIFY2(std::abs(pathUs - readyUs) > 1.0, qPrintable(QStringLiteral("%1 vs %2 µs").arg(pathUs).arg(readyUs)));
        auto* simulation = first->findChild<StepSimulation*>();
        QTRY_VERIFY_WITH_TIMEOUT(simulation->current() != nullptr
                                     && simulation->current()->document->placement == placed->placement
                                     && simulation->current()->document->sim.dispatch == Dispatch::CriticalPath,
                                 kWaitMs);
        QCOMPARE(simulation->current()->result.stepTimeUs, pathUs);
        QTRY_VERIFY(first->findChild<StepStatusLabel*>()->text().contains(QStringLiteral("critical-path dispatch")));
        Session s = first->findChild<SessionController*>()->currentSession();
        QVERIFY(!s.samples.empty());
        QCOMPARE(s.samples.back().stepTimeUs, pathUs);
        QVERIFY(s.dispatch == Dispatch::CriticalPath);
        const QString title = first->findChild<LearningChart*>()->title();
        QVERIFY2(title.contains(QStringLiteral("critical-path dispatch")), qPrintable(title));

        QVERIFY(sessionJson(s).find("\"dispatch\": \"critical-path\"") != std::string::npos);
        const QString path = dir_.filePath(QStringLiteral("inception-cp.session.json"));
        QVERIFY(first->findChild<SessionController*>()->save(path));
        QVERIFY(readSessionFile(path.toStdString()).dispatch == Dispatch::CriticalPath);

        // Back to ready order: the step is timed again, and the run timed by the other rule
        // goes (its session file keeps it).
        first->setDispatch(Dispatch::ReadyOrder);
        QTRY_VERIFY_WITH_TIMEOUT(simulation->current() != nullptr
                                     && simulation->current()->document->sim.dispatch == Dispatch::ReadyOrder,
                                 kWaitMs);
        QCOMPARE(simulation->current()->result.stepTimeUs, readyUs);
        QVERIFY(!first->findChild<StepStatusLabel*>()->text().contains(QStringLiteral("dispatch")));
        s = first->findChild<SessionController*>()->currentSession();
        QVERIFY(s.samples.empty());
        QVERIFY(s.dispatch == Dispatch::ReadyOrder);
        QCOMPARE(first->findChild<LearningChart*>()->sampleCount(), 0);

        // Reopened: the window takes the run's rule, and times the step under it.
        auto second = std::make_unique<MainWindow>();
        second->setInteractiveErrors(false);
        QSignalSpy restored(second->findChild<SessionController*>(), &SessionController::restored);
        second->openFile(path);
        QVERIFY(restored.wait(kWaitMs));
        QVERIFY(second->hub()->document()->sim.dispatch == Dispatch::CriticalPath);
        QCOMPARE(second->findChild<LearnerPanel*>()->dispatchPicker()->currentText(), QStringLiteral("critical path"));
        auto* again = second->findChild<StepSimulation*>();
        QTRY_VERIFY_WITH_TIMEOUT(again->current() != nullptr, kWaitMs);
        QCOMPARE(again->current()->result.stepTimeUs, pathUs);
        const QString restoredTitle = second->findChild<LearningChart*>()->title();
        QVERIFY2(restoredTitle.contains(QStringLiteral("critical-path dispatch (restored)")), qPrintable(restoredTitle));
        QSettings().remove(QStringLiteral("dispatch"));
        QSettings().remove(QStringLiteral("cluster"));
    }

    // A run without a sample budget (a classical placer, milp) told the recorder 0 samples,
    // and the session it saved could not be read back (learner.samples must be >= 1).
    void aRunWithoutASampleBudgetSavesAReadableSession()
    {
        auto first = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*first, "m-etf", 300, 1));
        const QString path = dir_.filePath(QStringLiteral("m-etf.session.json"));
        QVERIFY(first->findChild<SessionController*>()->save(path));
        const Session read = readSessionFile(path.toStdString());
        QCOMPARE(read.learner.algorithm, std::string("m-etf"));
        QCOMPARE(read.learner.samples, 300);
        auto second = std::make_unique<MainWindow>();
        second->setInteractiveErrors(false);
        QSignalSpy restored(second->findChild<SessionController*>(), &SessionController::restored);
        second->openFile(path);
        QVERIFY(restored.wait(kWaitMs));
        QCOMPARE(second->findChild<LearnerPanel*>()->algorithm(), QStringLiteral("m-etf"));
    }

    void anotherGraphDropsTheRecordedRun()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*window, "post", 40, 1));
        QCOMPARE(window->findChild<SessionController*>()->currentSession().samples.size(), size_t(40));
        window->hub()->setPlacement(window->hub()->document()->placement); // same graph: the run stays
        QCOMPARE(window->findChild<SessionController*>()->currentSession().samples.size(), size_t(40));
        QSignalSpy shown(window.get(), &MainWindow::documentShown);
        window->openFile(sample("inception-block.json"));
        QVERIFY(shown.wait(kWaitMs));
        const Session s = window->findChild<SessionController*>()->currentSession();
        QVERIFY(s.samples.empty() && s.updates.empty());
        QVERIFY(s.run.state == SessionRunState::None);
        QCOMPARE(s.graph->opCount(), window->hub()->document()->opCount());
    }

    void badSessionNamesTheField()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*window, "post", 50, 1));
        std::string text = sessionJson(window->findChild<SessionController*>()->currentSession());
        const size_t at = text.find("\n    [3, ");
        QVERIFY(at != std::string::npos);
        text.replace(at, 9, "\n    [3, -");
        const QString path = dir_.filePath(QStringLiteral("bad.session.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.data(), static_cast<qint64>(text.size()));
        f.close();

        const DocumentPtr before = window->hub()->document();
        QSignalSpy failed(window.get(), &MainWindow::loadFailed);
        window->openFile(path);
        QVERIFY(failed.wait(kWaitMs));
        QCOMPARE(failed.first().at(0).toString(), path);
        QVERIFY2(failed.first().at(1).toString().startsWith(QStringLiteral("field samples[3][1]: must be >= 0")),
                 qPrintable(failed.first().at(1).toString()));
        QCOMPARE(window->hub()->document(), before); // nothing replaced
    }

    void autosavesDuringTheRunAndRemovesOnCleanExit()
    {
        const QString dir = SessionAutosave::directory();
        QString autosavePath;
        {
            auto window = openWindow(sample("inception-block.json"));
            SessionAutosave* autosave = window->findChild<SessionController*>()->autosave();
            autosave->setIntervalMs(100);
            autosavePath = autosave->path();
            QSignalSpy written(autosave, &SessionAutosave::written);
            QSignalSpy finished(window->findChild<LearnerPanel*>(), &LearnerPanel::finished);
            window->findChild<LearnerPanel*>()->setSamples(1000000);
            window->findChild<LearnerPanel*>()->start();
            QVERIFY(written.wait(kWaitMs));
            QVERIFY(window->findChild<LearnerPanel*>()->controller()->isActive());
            // A write during the run: a valid session with the samples so far.
            const Session mid = readSessionFile(autosavePath.toStdString());
            QVERIFY(mid.run.state == SessionRunState::Running);
            QVERIFY(!mid.samples.empty());
            QCOMPARE(mid.samples.front().index, 0);
            window->findChild<LearnerPanel*>()->controller()->stop();
            QVERIFY(finished.wait(kWaitMs));
            autosave->flush();
            // The last write holds the whole run.
            const Session last = readSessionFile(autosavePath.toStdString());
            QVERIFY(last.run.state == SessionRunState::Stopped);
            QCOMPARE(static_cast<int>(last.samples.size()), window->findChild<LearningChart*>()->sampleCount());
            QVERIFY(autosave->writesDone() >= 2);
            QVERIFY(SessionAutosave::orphans().isEmpty()); // alive: not an orphan
        }
        QVERIFY(!QFile::exists(autosavePath));
        QVERIFY(autosaves(dir).isEmpty());
    }

    void restoresAfterACrash()
    {
        const QString dir = SessionAutosave::directory();
        Placement placement;
        int samples = 0;
        {
            auto window = openWindow(sample("tiny-mlp.json"));
            QVERIFY(runLearner(*window, "ce", 400, 5));
            window->findChild<SessionController*>()->autosave()->simulateCrash(); // the process "dies" here
            placement = window->hub()->document()->placement;
            samples = window->findChild<LearningChart*>()->sampleCount();
        }
        QCOMPARE(samples, 400);
        QCOMPARE(autosaves(dir).size(), 1); // left behind
        QCOMPARE(SessionAutosave::orphans().size(), 1);

        qputenv("POST_AUTOSAVE_RESTORE", "restore");
        {
            MainWindow window;
            window.setInteractiveErrors(false);
            QSignalSpy restored(window.findChild<SessionController*>(), &SessionController::restored);
            QVERIFY(restored.wait(kWaitMs)); // offered and taken at start-up
            QCOMPARE(window.hub()->document()->placement, placement);
            QCOMPARE(window.findChild<LearningChart*>()->sampleCount(), 400);
            QCOMPARE(window.findChild<LearnerPanel*>()->algorithm(), QStringLiteral("ce"));
            // Taken over: this instance's own autosave now, no longer an orphan.
            QCOMPARE(restored.first().at(0).toString(), window.findChild<SessionController*>()->autosave()->path());
            QVERIFY(SessionAutosave::orphans().isEmpty());
        }
        QVERIFY(autosaves(dir).isEmpty()); // clean exit
    }

    // An autosave that cannot be restored (here a newer session version) was removed at
    // exit like any adopted autosave; it is set aside instead and the error says where.
    void unrestorableAutosaveIsSetAside()
    {
        const QString dir = SessionAutosave::directory();
        {
            auto window = openWindow(sample("tiny-mlp.json"));
            QVERIFY(runLearner(*window, "post", 30, 1));
            window->findChild<SessionController*>()->autosave()->simulateCrash();
        }
        QCOMPARE(autosaves(dir).size(), 1);
        const QString orphan = QDir(dir).filePath(autosaves(dir).first());
        QByteArray content;
        {
            QFile file(orphan);
            QVERIFY(file.open(QIODevice::ReadOnly));
            content = file.readAll().replace("post-session/1", "post-session/9");
        }
        {
            QFile file(orphan);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(content);
        }
        qputenv("POST_AUTOSAVE_RESTORE", "restore");
        {
            MainWindow window;
            window.setInteractiveErrors(false);
            QSignalSpy failed(window.findChild<SessionController*>(), &SessionController::failed);
            QVERIFY(failed.wait(kWaitMs));
            const QString message = failed.first().at(1).toString();
            QVERIFY2(message.contains("post-session/9") && message.contains("the autosave is kept as"),
                     qPrintable(message));
            QVERIFY2(message.contains(QDir(dir).filePath("unrestorable-")), qPrintable(message));
        }
        const QStringList left = autosaves(dir);
        QCOMPARE(left.size(), 1); // kept after the clean exit
        QVERIFY2(left.first().startsWith("unrestorable-"), qPrintable(left.first()));
        QFile kept(QDir(dir).filePath(left.first()));
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), content);
        QVERIFY(SessionAutosave::orphans().isEmpty()); // no longer offered
    }

    void discardOrKeepAnOrphan()
    {
        const QString dir = SessionAutosave::directory();
        {
            auto window = openWindow(sample("tiny-mlp.json"));
            QVERIFY(runLearner(*window, "post", 30, 1));
            window->findChild<SessionController*>()->autosave()->simulateCrash();
        }
        QCOMPARE(autosaves(dir).size(), 1);
        {
            // Not interactive and no instruction: the file is left for a later start.
            MainWindow window;
            window.setInteractiveErrors(false);
            QSignalSpy restored(window.findChild<SessionController*>(), &SessionController::restored);
            QVERIFY(!restored.wait(300));
            QVERIFY(!window.hub()->document());
        }
        QCOMPARE(autosaves(dir).size(), 1);
        qputenv("POST_AUTOSAVE_RESTORE", "discard");
        {
            MainWindow window;
            QTest::qWait(100);
            QVERIFY(!window.hub()->document());
        }
        QVERIFY(autosaves(dir).isEmpty());
    }

    // Closing with an unsaved run asks Save / Discard / Cancel; the autosave goes only after
    // Save or Discard.
    void closingWithAnUnsavedRunAsks()
    {
        qunsetenv("POST_AUTOSAVE_RESTORE");
        QVERIFY(SessionAutosave::orphans().isEmpty());
        auto window = openWindow(sample("tiny-mlp.json"));
        window->setInteractiveErrors(true); // dialogs from here on
        window->show();
        QVERIFY(runLearner(*window, "post", 60, 3));
        SessionController* session = window->findChild<SessionController*>();
        QVERIFY(session->hasUnsavedRun());
        session->autosave()->flush();
        const QString autosave = session->autosave()->path();
        QVERIFY(QFile::exists(autosave));

        answerDialogs(QMessageBox::Cancel); // the window stays, and so does the autosave
        QVERIFY(!window->close());
        QVERIFY(window->isVisible());
        QVERIFY(session->hasUnsavedRun());
        QVERIFY(QFile::exists(autosave));

        QSettings().setValue(QStringLiteral("lastDir"), dir_.path()); // where the file dialog opens
        QSignalSpy saved(session, &SessionController::saved);
        answerDialogs(QMessageBox::Save, dir_.filePath(QStringLiteral("closing.session.json"))); // then the file dialog
        QVERIFY(window->close());
        QVERIFY(!session->hasUnsavedRun());
        QCOMPARE(saved.count(), 1);
        const QString savedPath = saved.first().at(0).toString();
        QCOMPARE(QFileInfo(savedPath).fileName(), QStringLiteral("closing.session.json"));
        QCOMPARE(readSessionFile(savedPath.toStdString()).samples.size(), size_t(60));
        window.reset();
        QVERIFY(!QFile::exists(autosave));

        window = openWindow(sample("tiny-mlp.json"));
        window->setInteractiveErrors(true);
        window->show();
        QVERIFY(runLearner(*window, "post", 30, 4));
        const QString second = window->findChild<SessionController*>()->autosave()->path();
        window->findChild<SessionController*>()->autosave()->flush();
        QVERIFY(QFile::exists(second));
        answerDialogs(QMessageBox::Discard);
        QVERIFY(window->close());
        window.reset();
        QVERIFY(!QFile::exists(second)); // discarded: after the answer, not before
        QVERIFY(autosaves(SessionAutosave::directory()).isEmpty());
    }

    // A window that goes without the close question answered (the application quit, say)
    // keeps an unsaved run's autosave; the next start restores it, still unsaved.
    void aRunNobodyWasAskedAboutIsKept()
    {
        qunsetenv("POST_AUTOSAVE_RESTORE");
        const QString dir = SessionAutosave::directory();
        QString path;
        {
            auto window = openWindow(sample("tiny-mlp.json"));
            window->setInteractiveErrors(true);
            QVERIFY(runLearner(*window, "post", 40, 2));
            path = window->findChild<SessionController*>()->autosave()->path();
        }
        QVERIFY(QFile::exists(path));
        QCOMPARE(SessionAutosave::orphans(), QStringList{path});

        qputenv("POST_AUTOSAVE_RESTORE", "restore");
        {
            MainWindow window;
            window.setInteractiveErrors(false);
            SessionController* session = window.findChild<SessionController*>();
            QSignalSpy restored(session, &SessionController::restored);
            QVERIFY(restored.wait(kWaitMs));
            QCOMPARE(window.findChild<LearningChart*>()->sampleCount(), 40);
            QVERIFY(session->hasUnsavedRun()); // an autosave is no session file
        }
        qunsetenv("POST_AUTOSAVE_RESTORE");
        QVERIFY(autosaves(dir).isEmpty()); // without dialogs nobody can be asked: removed
    }

    // A restored autosave looks as the run did: the best-classical and warm-start lines (and
    // their legend entries), the Compare table, the document's own name; and Start goes on
    // from it, warm-started from its best.
    void aRestoredRunKeepsItsLinesAndGoesOn()
    {
        const QString dir = SessionAutosave::directory();
        const QString graph = sample("tiny-mlp.json");
        double classicalMs = 0.0;
        QString classicalName;
        QStringList legend;
        QVector<QPointF> best;
        std::vector<ComparisonRow> rows;
        double bestMs = 0.0;
        int done = 0; // post@m-etf's budget counts m-etf's evaluation: fewer samples than asked
        {
            auto window = openWindow(graph);
            auto* compare = window->findChild<ComparisonView*>();
            QVERIFY(compare->setAlgorithms(QStringLiteral("single,m-etf,random")));
            compare->setSamples(20);
            compare->setSeeds(1);
            QSignalSpy compared(compare, &ComparisonView::runFinished);
            compare->start();
            QVERIFY(compared.wait(kWaitMs));
            rows = compare->model()->rows();
            QCOMPARE(rows.size(), size_t(3));
            QVERIFY(runLearner(*window, "post@m-etf", 120, 3));
            auto* chart = window->findChild<LearningChart*>();
            chart->flush();
            classicalMs = chart->classicalMs();
            classicalName = chart->classicalName();
            legend = chart->legendNames();
            best = chart->bestPoints();
            bestMs = window->findChild<LearnerPanel*>()->bestMs();
            done = chart->sampleCount();
            QVERIFY(done > 100);
            QVERIFY(std::isfinite(classicalMs) && classicalMs > 0.0);
            QVERIFY(legend.contains(QStringLiteral("best so far (from the warm start)")));
            window->findChild<SessionController*>()->autosave()->simulateCrash();
        }
        QCOMPARE(autosaves(dir).size(), 1);

        qputenv("POST_AUTOSAVE_RESTORE", "restore");
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy restored(window.findChild<SessionController*>(), &SessionController::restored);
        QVERIFY(restored.wait(kWaitMs));
        qunsetenv("POST_AUTOSAVE_RESTORE");
        auto* chart = window.findChild<LearningChart*>();
        chart->flush();
        QCOMPARE(chart->classicalMs(), classicalMs);
        QCOMPARE(chart->classicalName(), classicalName);
        QCOMPARE(chart->legendNames(), legend);
        QCOMPARE(chart->bestPoints().size(), best.size());
        QCOMPARE(chart->bestPoints().front(), best.front()); // the warm start's point at sample 0
        QVERIFY(qAbs(chart->bestPoints().back().y() - best.back().y()) <= 1e-9 * best.back().y());
        // The document's name, not the autosave's.
        QVERIFY2(window.windowTitle().startsWith(QStringLiteral("tiny-mlp.json")), qPrintable(window.windowTitle()));
        QCOMPARE(QFileInfo(window.hub()->document()->path), QFileInfo(graph));
        // The Compare table, row for row, with its placements.
        auto* compare = window.findChild<ComparisonView*>();
        QCOMPARE(compare->model()->rows().size(), rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(compare->model()->rows()[i].algorithm, rows[i].algorithm);
            QCOMPARE(compare->model()->rows()[i].bestUs, rows[i].bestUs);
            QCOMPARE(compare->model()->rows()[i].best, rows[i].best);
        }
        QSignalSpy requested(compare, &ComparisonView::placementRequested);
        compare->showRow(1);
        QCOMPARE(requested.count(), 1);

        // Start goes on from the last sample: the restored points stay, the numbers continue.
        auto* panel = window.findChild<LearnerPanel*>();
        QVERIFY(panel->hasRestoredRun());
        QCOMPARE(panel->algorithm(), QStringLiteral("post@m-etf"));
        panel->setSamples(200);
        QSignalSpy snapshots(panel, &LearnerPanel::snapshot);
        QSignalSpy finished(panel, &LearnerPanel::finished);
        panel->start();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(panel->continuedFrom(), done);
        QVERIFY(!panel->hasRestoredRun());
        QVERIFY2(panel->continuationNote().contains(QStringLiteral("warm-started from the best")),
                 qPrintable(panel->continuationNote()));
        QVERIFY(!snapshots.isEmpty());
        const auto first = snapshots.first().at(0).value<LearnerSnapshot>();
        QVERIFY(!first.samples.empty());
        QCOMPARE(first.samples.front().index, done);
        chart->flush();
        // The restored run had ended (done): another whole budget of 200 (a stopped one gets the rest).
        QCOMPARE(chart->sampleCount(), done + 200);
        QCOMPARE(chart->classicalMs(), classicalMs);      // not run again, still drawn
        QVERIFY(panel->bestMs() <= bestMs * (1 + 1e-12)); // never worse than the restored best
        const Session again = window.findChild<SessionController*>()->currentSession();
        QCOMPARE(again.samples.size(), static_cast<size_t>(done + 200));
        QCOMPARE(again.samples[static_cast<size_t>(done)].index, done);
        QCOMPARE(again.learner.algorithm, std::string("post@m-etf"));
        QCOMPARE(again.studio.classicalPlacer, classicalName.toStdString());
        QVERIFY(again.studio.comparison.has_value());

        // Reset forgets it: the next Start is a run of its own.
        panel->reset();
        QVERIFY(!panel->hasRestoredRun());
        QVERIFY(runLearner(window, "random", 10, 1));
        QCOMPARE(panel->continuedFrom(), 0);
        QCOMPARE(chart->sampleCount(), 10);
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(TestSession)
#include "test_session.moc"
