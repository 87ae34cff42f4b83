// One route for documents and runs (issue 28): nothing replaces a document holding an
// unsaved run without Save / Discard / Cancel (Open, a drop, Open Session, Close, Quit, Start
// or Reset over a restored run), the autosave goes only after the answer; every panel shows
// the current document or nothing; status messages go with what they describe; the Run menu
// follows the learner; exports name the run that made a placement, as post-cli does.
#include "core/io/native/PlacementFile.h"
#include "core/session/SessionFile.h"
#include "core/util/InputError.h"
#include "tests/support/ScratchSettings.h"
#include "tests/support/TestData.h"
#include "tests/ui/AnswerDialogs.h"
#include "tests/ui/UiTestWindows.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/cluster/ClusterDeviceModel.h"
#include "ui/cluster/ClusterEditor.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/export/GuiExporter.h"
#include "ui/learn/LearnerController.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/panels/OpTablePanel.h"
#include "ui/session/RunRecorder.h"
#include "ui/session/SessionAutosave.h"
#include "ui/session/SessionController.h"
#include "ui/util/Format.h"

#include <QAction>
#include <QChart>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QUrl>
#include <QtTest>

#include <memory>

using namespace post;
using uitest::answerDialogs;
using uitest::openWindow;
using uitest::sample;

namespace {

constexpr int kWaitMs = 60000;

LearnerPanel* learner(MainWindow& w) { return w.findChild<LearnerPanel*>(); }
SessionController* session(MainWindow& w) { return w.findChild<SessionController*>(); }
LearningChart* chart(MainWindow& w)
{
    auto* c = w.findChild<LearningChart*>();
    c->flush();
    return c;
}

// A post run of a million samples, started and past its first snapshot.
bool startLongRun(MainWindow& window)
{
    QSignalSpy snapshots(learner(window), &LearnerPanel::snapshot);
    learner(window)->setAlgorithm(QStringLiteral("post"));
    learner(window)->setSamples(1000000);
    learner(window)->start();
    return snapshots.wait(kWaitMs);
}

bool runLearner(MainWindow& window, const char* algo, int samples, int seed = 1)
{
    QSignalSpy finished(learner(window), &LearnerPanel::finished);
    learner(window)->setAlgorithm(QLatin1String(algo));
    learner(window)->setSamples(samples);
    learner(window)->setSeed(static_cast<std::uint64_t>(seed));
    learner(window)->start();
    return finished.wait(kWaitMs);
}

QString autosaveOf(MainWindow& window)
{
    session(window)->autosave()->flush();
    return session(window)->autosave()->path();
}

// A two-row Compare table (single, m-etf) of the window's document.
bool runCompare(MainWindow& window)
{
    auto* compare = window.findChild<ComparisonView*>();
    if (!compare->setAlgorithms(QStringLiteral("single,m-etf")))
        return false;
    compare->setSamples(10);
    compare->setSeeds(1);
    QSignalSpy compared(compare, &ComparisonView::runFinished);
    compare->start();
    return compared.wait(kWaitMs) && compare->model()->rowCount() == 2 && !compare->boundText().isEmpty();
}

// Nothing of a run or a comparison is on show: the chart, the learner's line, the table.
void checkResultsCleared(MainWindow& window)
{
    QCOMPARE(chart(window)->sampleCount(), 0);
    QCOMPARE(chart(window)->lowerBoundMs(), 0.0);
    QVERIFY2(chart(window)->chart()->title().contains(QStringLiteral("no run")),
             qPrintable(chart(window)->chart()->title()));
    QCOMPARE(learner(window)->statusText(), QStringLiteral("Ready."));
    auto* compare = window.findChild<ComparisonView*>();
    QCOMPARE(compare->model()->rowCount(), 0);
    QVERIFY(compare->boundText().isEmpty());
    QVERIFY(!session(window)->recorder()->hasRun());
}

QAction* action(MainWindow& window, const char* name) { return window.findChild<QAction*>(QLatin1String(name)); }

QByteArray contents(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestDocumentRoute : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        testsupport::useScratchSettings();
        QVERIFY(dir_.isValid());
        qputenv("POST_AUTOSAVE_DIR", dir_.filePath(QStringLiteral("autosave")).toUtf8());
        qunsetenv("POST_AUTOSAVE_RESTORE");
        QSettings().setValue(QStringLiteral("lastDir"), dir_.path()); // where Save's file dialog opens
    }

    void cleanup()
    {
        qunsetenv("POST_AUTOSAVE_RESTORE");
        // A test that picks a precision or dispatch rule keeps it in the settings: not for the next.
        QSettings().remove(QStringLiteral("precision"));
        QSettings().remove(QStringLiteral("dispatch"));
        QDir autosaves(SessionAutosave::directory());
        for (const QString& name : autosaves.entryList({QStringLiteral("*.session.json")}, QDir::Files))
            QFile::remove(autosaves.filePath(name));
    }

    // File ▸ Open over an unsaved run: Cancel keeps everything; a read that fails after
    // Discard replaces nothing (and asks again); Discard then a good read replaces the run,
    // and only then is the autosave gone.
    void openingAnotherGraphAsksFirst()
    {
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "post", 40));
        const QString autosave = autosaveOf(*window);
        QVERIFY(QFile::exists(autosave));
        const DocumentPtr before = window->hub()->document();

        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        QVERIFY(!window->openFile(sample("inception-block.json")));
        QVERIFY2(question->contains(QStringLiteral("inception-block.json")), qPrintable(*question));
        QVERIFY2(question->contains(QStringLiteral("(40 samples)")), qPrintable(*question));
        QVERIFY(!window->hub()->isLoading());
        QCOMPARE(window->hub()->document(), before);
        QVERIFY(session(*window)->hasUnsavedRun());
        QVERIFY(QFile::exists(autosave));
        QCOMPARE(chart(*window)->sampleCount(), 40);

        const QString bad = dir_.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"post-graph/1\", \"ops\": [");
        f.close();
        window->setInteractiveErrors(false); // no error box; the question still comes
        session(*window)->setInteractive(true);
        QSignalSpy failed(window.get(), &MainWindow::loadFailed);
        answerDialogs(QMessageBox::Discard);
        QVERIFY(window->openFile(bad));
        QVERIFY(failed.wait(kWaitMs));
        QCOMPARE(window->hub()->document(), before); // nothing replaced: the run and its autosave stay
        QVERIFY(session(*window)->hasUnsavedRun());
        QVERIFY(QFile::exists(autosave));

        QSignalSpy shown(window.get(), &MainWindow::documentShown);
        answerDialogs(QMessageBox::Discard);
        QVERIFY(window->openFile(sample("inception-block.json")));
        QVERIFY(QFile::exists(autosave)); // the read is still going: nothing replaced yet
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(window->hub()->document()->opCount() > 40);
        QVERIFY(!session(*window)->hasUnsavedRun());
        QVERIFY(!QFile::exists(autosave));
        QCOMPARE(chart(*window)->sampleCount(), 0);
    }

    // Save: the run goes into a session file first, then the graph is replaced.
    void savingBeforeOpeningKeepsTheRun()
    {
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "post", 30));
        const QString saved = dir_.filePath(QStringLiteral("before-open.session.json"));
        QSignalSpy shown(window.get(), &MainWindow::documentShown);
        answerDialogs(QMessageBox::Save, saved);
        QVERIFY(window->openFile(sample("inception-block.json")));
        QVERIFY(shown.wait(kWaitMs));
        QCOMPARE(readSessionFile(saved.toStdString()).samples.size(), size_t(30));
        QVERIFY(!session(*window)->hasUnsavedRun());
    }

    // A dropped file takes the same route.
    void aDropAsksToo()
    {
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "random", 20));
        const DocumentPtr before = window->hub()->document();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(sample("inception-block.json"))});
        QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        // Straight to the window: QApplication delivers a drop only to the target of a real drag.
        static_cast<QObject*>(window.get())->event(&drop);
        QVERIFY2(question->contains(QStringLiteral("inception-block.json")), qPrintable(*question));
        QVERIFY(!window->hub()->isLoading());
        QCOMPARE(window->hub()->document(), before);
        QCOMPARE(chart(*window)->sampleCount(), 20);
    }

    // File ▸ Close (Ctrl+W) and File ▸ Quit (Ctrl+Q) ask; Close empties every panel.
    void closeAndQuitAsk()
    {
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "post", 30));
        const QString autosave = autosaveOf(*window);
        QAction* close = action(*window, "closeDocument");
        QAction* quit = action(*window, "quit");
        QVERIFY(close && quit);
        QCOMPARE(close->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_W));
        QCOMPARE(quit->shortcut(), QKeySequence(QKeySequence::Quit));
        QVERIFY(close->isEnabled());

        answerDialogs(QMessageBox::Cancel);
        quit->trigger();
        QVERIFY(window->isVisible());
        answerDialogs(QMessageBox::Cancel);
        close->trigger();
        QVERIFY(window->hub()->document());
        QVERIFY(session(*window)->hasUnsavedRun());
        QVERIFY(QFile::exists(autosave));

        answerDialogs(QMessageBox::Discard);
        close->trigger();
        QVERIFY(!window->hub()->document());
        QVERIFY(!QFile::exists(autosave));
        QCOMPARE(window->windowTitle(), QStringLiteral("Post Studio"));
        QCOMPARE(chart(*window)->sampleCount(), 0);
        QVERIFY(!close->isEnabled());
        QCOMPARE(window->statusMessage(), QStringLiteral("No graph open"));
        QVERIFY(!action(*window, "run-start")->isEnabled());
        quit->trigger(); // nothing unsaved: no question
        QVERIFY(!window->isVisible());
    }

    // File ▸ Quit closes every window, not only its own: each with an unsaved run asks, and
    // Cancel keeps that one open.
    void quitClosesEveryWindow()
    {
        auto running = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*running, "post", 30));
        auto idle = openWindow(sample("inception-block.json"));
        idle->show();
        MainWindow empty;
        empty.setInteractiveErrors(false);
        empty.show();
        QVERIFY(QTest::qWaitForWindowExposed(&empty));

        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        action(empty, "quit")->trigger();
        QVERIFY2(question->contains(QStringLiteral("Save the learning run before closing")), qPrintable(*question));
        QVERIFY(!empty.isVisible());
        QVERIFY(running->isVisible()); // Cancel: kept, with its run
        QVERIFY(session(*running)->hasUnsavedRun());

        empty.show();
        answerDialogs(QMessageBox::Discard);
        QVERIFY(empty.quit());
        QVERIFY(!empty.isVisible());
        QVERIFY(!running->isVisible());
        QVERIFY(!idle->isVisible());
    }

    // Opening a session over an unsaved run asks; Discard restores the session.
    void openingASessionAsks()
    {
        const QString path = dir_.filePath(QStringLiteral("other.session.json"));
        {
            auto other = openWindow(sample("inception-block.json"));
            QVERIFY(runLearner(*other, "random", 15));
            QVERIFY(session(*other)->save(path));
        }
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "post", 25));
        const DocumentPtr before = window->hub()->document();
        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        QVERIFY(!window->openFile(path));
        QVERIFY2(question->contains(QStringLiteral("other.session.json")), qPrintable(*question));
        QVERIFY(!session(*window)->isOpening());
        QCOMPARE(window->hub()->document(), before);

        // Reading it shows as work in progress, with Cancel (a long run's autosave is many MB).
        QSignalSpy restored(session(*window), &SessionController::restored);
        answerDialogs(QMessageBox::Discard);
        QVERIFY(window->openFile(path));
        QVERIFY2(window->statusMessage().startsWith(QStringLiteral("Reading session other.session.json (")),
                 qPrintable(window->statusMessage()));
        auto* cancel = window->findChild<QToolButton*>(QStringLiteral("statusCancel"));
        QVERIFY(cancel && cancel->isVisibleTo(window.get()));
        cancel->click();
        QTest::qWait(300);
        QVERIFY(restored.isEmpty());
        QCOMPARE(window->hub()->document(), before); // nothing replaced: the run stays
        QCOMPARE(window->statusMessage(), QStringLiteral("Reading cancelled"));
        QVERIFY(!cancel->isVisibleTo(window.get()));
        QVERIFY(session(*window)->hasUnsavedRun());

        answerDialogs(QMessageBox::Discard);
        QVERIFY(window->openFile(path));
        QVERIFY(restored.wait(kWaitMs));
        QCOMPARE(chart(*window)->sampleCount(), 15);
        QVERIFY(!session(*window)->hasUnsavedRun()); // it is in its file
        QCOMPARE(session(*window)->sessionPath(), QFileInfo(path).absoluteFilePath());
    }

    // A crashed instance's run, restored: Start with a placer that does not continue it,
    // Reset and Open ask; a learner continues it without a question.
    void startOverARestoredRunAsks()
    {
        {
            auto crashed = openWindow(sample("tiny-mlp.json"));
            QVERIFY(runLearner(*crashed, "post", 60, 2));
            session(*crashed)->autosave()->simulateCrash();
        }
        qputenv("POST_AUTOSAVE_RESTORE", "restore");
        MainWindow window;
        window.setInteractiveErrors(true);
        window.show();
        QSignalSpy restored(session(window), &SessionController::restored);
        QVERIFY(restored.wait(kWaitMs));
        qunsetenv("POST_AUTOSAVE_RESTORE");
        QVERIFY(session(window)->hasRestoredUnsavedRun());
        const QString autosave = autosaveOf(window);
        QVERIFY(QFile::exists(autosave));
        LearnerPanel* panel = learner(window);

        panel->setAlgorithm(QStringLiteral("m-etf")); // a classical placer starts afresh
        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        panel->start();
        QVERIFY2(question->contains(QStringLiteral("Start replaces it")), qPrintable(*question));
        QVERIFY(!panel->controller()->isActive());
        QCOMPARE(chart(window)->sampleCount(), 60);
        answerDialogs(QMessageBox::Cancel);
        panel->reset();
        QVERIFY(panel->hasRestoredRun());
        QCOMPARE(chart(window)->sampleCount(), 60);
        answerDialogs(QMessageBox::Cancel);
        QVERIFY(!window.openFile(sample("inception-block.json"))); // the 89 MB autosave of the issue
        QVERIFY(session(window)->hasRestoredUnsavedRun());
        QVERIFY(QFile::exists(autosave));

        // A learner goes on from it: nothing is replaced, nothing asked.
        QSignalSpy finished(panel, &LearnerPanel::finished);
        panel->setAlgorithm(QStringLiteral("post"));
        panel->setSamples(80);
        panel->start();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(panel->continuedFrom(), 60);
        QVERIFY(session(window)->hasRestoredUnsavedRun()); // still the restored run, longer

        panel->setAlgorithm(QStringLiteral("m-etf"));
        answerDialogs(QMessageBox::Discard);
        panel->start();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(panel->continuedFrom(), 0);
        QVERIFY(!session(window)->hasRestoredUnsavedRun());
        window.setInteractiveErrors(false); // closing asks nobody now
    }

    // After another graph opens, nothing of the previous graph's run is on show.
    void panelsShowTheCurrentGraphOnly()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*window, "post", 40));
        auto* compare = window->findChild<ComparisonView*>();
        QVERIFY(compare->setAlgorithms(QStringLiteral("single,m-etf")));
        compare->setSamples(10);
        compare->setSeeds(1);
        QSignalSpy compared(compare, &ComparisonView::runFinished);
        compare->start();
        QVERIFY(compared.wait(kWaitMs));
        QCOMPARE(compare->model()->rowCount(), 2);
        QVERIFY(!compare->boundText().isEmpty());
        auto* ops = window->findChild<OpTablePanel*>();
        ops->filter()->setText(QStringLiteral("dense"));
        emit chart(*window)->sampleClicked(3);
        QVERIFY2(window->statusMessage().contains(QStringLiteral("sample 3")), qPrintable(window->statusMessage()));
        QVERIFY(learner(*window)->statusText().contains(QStringLiteral("40 samples")));

        QSignalSpy shown(window.get(), &MainWindow::documentShown);
        window->openFile(sample("inception-block.json"));
        QVERIFY(shown.wait(kWaitMs));
        QCOMPARE(chart(*window)->sampleCount(), 0);
        QCOMPARE(chart(*window)->lowerBoundMs(), 0.0);
        QCOMPARE(chart(*window)->chart()->title(), QStringLiteral("Learning curve: no run on inception-block.json yet"));
        QCOMPARE(learner(*window)->statusText(), QStringLiteral("Ready."));
        QCOMPARE(compare->model()->rowCount(), 0);
        QVERIFY(compare->boundText().isEmpty());
        QSignalSpy requested(compare, &ComparisonView::placementRequested);
        compare->showRow(0);
        QCOMPARE(requested.count(), 0);
        QVERIFY(ops->filter()->text().isEmpty());
        QCOMPARE(ops->proxy()->rowCount(), window->hub()->document()->opCount());
        QVERIFY2(!window->statusMessage().contains(QStringLiteral("sample")), qPrintable(window->statusMessage()));
    }

    // Another precision or dispatch rule times the graph anew (issue: an amp run's 16.68 ms
    // stayed on the chart and in the Compare table after fp32 made the step 57.6 ms): the run,
    // its chart and line and the Compare table of the other setting go, after the question
    // (Cancel keeps them and the setting), as for a read on another cluster.
    void aPrecisionOrDispatchChangeClearsTheOtherSettingsResults()
    {
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "post", 40));
        QVERIFY(runCompare(*window));
        const QString autosave = autosaveOf(*window);
        QVERIFY(QFile::exists(autosave));
        const DocumentPtr before = window->hub()->document();
        const PrecisionMode mode = before->cluster->precision();
        const PrecisionMode other = mode == PrecisionMode::Fp32 ? PrecisionMode::Amp : PrecisionMode::Fp32;

        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        window->setPrecision(other);
        QVERIFY2(question->contains(QStringLiteral("changing the precision to ") + precisionName(other)),
                 qPrintable(*question));
        QCOMPARE(window->hub()->document(), before);
        QVERIFY(learner(*window)->precision() == mode);
        QCOMPARE(chart(*window)->sampleCount(), 40);
        QCOMPARE(window->findChild<ComparisonView*>()->model()->rowCount(), 2);
        QVERIFY(session(*window)->hasUnsavedRun());

        answerDialogs(QMessageBox::Discard);
        window->setPrecision(other);
        QVERIFY(window->hub()->document()->cluster->precision() == other);
        QCOMPARE(window->hub()->document()->graph, before->graph); // the same graph, timed anew
        checkResultsCleared(*window);
        QVERIFY(!QFile::exists(autosave));
        QVERIFY2(window->statusMessage().contains(QStringLiteral("cleared")), qPrintable(window->statusMessage()));

        // The dispatch rule likewise.
        QVERIFY(runLearner(*window, "post", 30));
        QVERIFY(runCompare(*window));
        answerDialogs(QMessageBox::Discard, {}, question);
        window->setDispatch(Dispatch::CriticalPath);
        QVERIFY2(question->contains(QStringLiteral("dispatch rule to critical-path")), qPrintable(*question));
        QVERIFY(window->hub()->document()->sim.dispatch == Dispatch::CriticalPath);
        checkResultsCleared(*window);
    }

    // A placement file timed in another precision is shown in it, which times the graph anew:
    // over an unsaved run that is asked first, as a change in the learner panel is (it used to
    // clear the run without a question).
    void aPlacementOfAnotherPrecisionAsksBeforeClearing()
    {
        auto window = openWindow(sample("tiny-mlp.json"), true);
        QVERIFY(runLearner(*window, "post", 40));
        const DocumentPtr before = window->hub()->document();
        const PrecisionMode mode = before->cluster->precision();
        const PrecisionMode other = mode == PrecisionMode::Fp32 ? PrecisionMode::Amp : PrecisionMode::Fp32;
        PlacementProvenance made;
        made.stepTimeUs = 1.0;
        made.precision = other;
        const Placement p(static_cast<size_t>(before->graph->opCount()), 1);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("other.placement.json"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(placementJson(*before->graph, *before->cluster, p, {}, made)));
        f.close();

        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        QVERIFY(!window->openPlacement(file));
        QVERIFY2(question->contains(QStringLiteral("the precision to ") + precisionName(other)), qPrintable(*question));
        QCOMPARE(window->hub()->document(), before); // nothing changed
        QCOMPARE(chart(*window)->sampleCount(), 40);
        QVERIFY(session(*window)->hasUnsavedRun());

        answerDialogs(QMessageBox::Discard);
        QVERIFY(window->openPlacement(file));
        QVERIFY(window->hub()->document()->cluster->precision() == other);
        QCOMPARE(window->hub()->document()->placement, p);
        checkResultsCleared(*window);
        QSettings().remove(QStringLiteral("precision"));
    }

    // An edit in the Cluster dock is another cluster too: the results timed on the one before
    // go (asked first; Cancel takes the edit back), and the edited cluster is named so.
    void aClusterEditClearsResultsAndNamesTheClusterEdited()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*window, "post", 40));
        QVERIFY(runCompare(*window));
        auto* editor = window->findChild<ClusterEditor*>();
        const std::string preset = window->hub()->document()->cluster->name();
        const QModelIndex speed = editor->deviceModel()->index(1, ClusterDeviceModel::Speed);
        QVERIFY(editor->deviceModel()->setData(speed, QStringLiteral("0.5")));
        checkResultsCleared(*window);
        QCOMPARE(window->hub()->document()->cluster->name(), preset + " (edited)");
        QVERIFY2(window->summaryText().contains(QString::fromStdString(preset + " (edited)")),
                 qPrintable(window->summaryText()));
        QCOMPARE(editor->findChild<QLineEdit*>(QStringLiteral("clusterName"))->text(),
                 QString::fromStdString(preset + " (edited)"));
        // A second edit keeps one mark.
        QVERIFY(editor->deviceModel()->setData(speed, QStringLiteral("2")));
        QCOMPARE(window->hub()->document()->cluster->name(), preset + " (edited)");

        // Asked when a run is unsaved; Cancel takes the edit back.
        window->setInteractiveErrors(true);
        window->show();
        QVERIFY(runLearner(*window, "post", 30));
        const DocumentPtr before = window->hub()->document();
        auto question = std::make_shared<QString>();
        answerDialogs(QMessageBox::Cancel, {}, question);
        QVERIFY(editor->deviceModel()->setData(speed, QStringLiteral("3")));
        QTRY_VERIFY_WITH_TIMEOUT(!question->isEmpty(), kWaitMs);
        QVERIFY2(question->contains(QStringLiteral("changing the cluster")), qPrintable(*question));
        QCOMPARE(window->hub()->document(), before);
        QCOMPARE(editor->draft().devices[1].speed, 2.0); // the window's cluster again
        QCOMPARE(chart(*window)->sampleCount(), 30);
        answerDialogs(QMessageBox::Discard);
        QVERIFY(editor->deviceModel()->setData(speed, QStringLiteral("3")));
        QTRY_COMPARE_WITH_TIMEOUT(window->hub()->document()->cluster->device(1).speed, 3.0, kWaitMs);
        checkResultsCleared(*window);
    }

    // While a run goes its cluster cannot change: the Cluster dock takes no edit until it ends.
    void theClusterIsNotEditedUnderARun()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        auto* editor = window->findChild<ClusterEditor*>();
        QSignalSpy finished(learner(*window), &LearnerPanel::finished);
        QVERIFY(startLongRun(*window));
        QCOMPARE(editor->deviceView()->editTriggers(), QAbstractItemView::NoEditTriggers);
        learner(*window)->controller()->stop();
        QVERIFY(finished.wait(kWaitMs) || !finished.isEmpty());
        QVERIFY(editor->deviceView()->editTriggers() != QAbstractItemView::NoEditTriggers);
    }

    // A run still going when another graph opens is stopped; its last snapshots and its end
    // land on no panel.
    void aLiveRunOfTheOldGraphLeavesNothing()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QSignalSpy finished(learner(*window), &LearnerPanel::finished);
        QVERIFY(startLongRun(*window));
        QSignalSpy shown(window.get(), &MainWindow::documentShown);
        window->openFile(sample("inception-block.json"));
        QVERIFY(finished.wait(kWaitMs) || !finished.isEmpty());
        if (shown.isEmpty())
            QVERIFY(shown.wait(kWaitMs));
        QTest::qWait(100); // anything still queued from the old run
        QCOMPARE(chart(*window)->sampleCount(), 0);
        QCOMPARE(learner(*window)->statusText(), QStringLiteral("Ready."));
        QVERIFY(!session(*window)->recorder()->hasRun());
    }

    // A bound proved elsewhere (a Compare row of milp publishes it through the hub) reaches
    // the chart when it is of the chart's run, its graph on its cluster, and only then.
    void aProvenBoundReachesTheChartOfItsRunOnly()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*window, "m-etf", 1));
        const double before = chart(*window)->lowerBoundMs();
        QVERIFY(before > 0.0);
        const QString source = chart(*window)->lowerBoundSource();
        QVERIFY(source != QStringLiteral("milp"));
        ProvenBound bound;
        bound.graphId = learner(*window)->runGraphId();
        bound.cluster = reinterpret_cast<quintptr>(learner(*window)->runCluster());
        bound.bounds.solverBoundUs = before * 1500.0;
        bound.bounds.solverBoundOpLevel = true;
        ProvenBound otherCluster = bound;
        otherCluster.cluster += 8;
        window->hub()->publishProvenBound(otherCluster);
        ProvenBound otherGraph = bound;
        otherGraph.graphId += 1;
        window->hub()->publishProvenBound(otherGraph);
        QCOMPARE(chart(*window)->lowerBoundMs(), before);
        QCOMPARE(chart(*window)->lowerBoundSource(), source);
        window->hub()->publishProvenBound(bound);
        QCOMPARE(chart(*window)->lowerBoundMs(), before * 1.5);
        QCOMPARE(chart(*window)->lowerBoundSource(), QStringLiteral("milp"));
    }

    // A message about a placement goes when the placement does; one about a graph with it.
    void statusMessagesBelongToWhatTheyDescribe()
    {
        auto window = openWindow(sample("tiny-mlp.json"));
        QVERIFY(runLearner(*window, "post", 30));
        emit chart(*window)->sampleClicked(2);
        QVERIFY(window->statusMessage().contains(QStringLiteral("sample 2")));
        Placement other = window->hub()->document()->placement;
        window->hub()->setPlacement(Placement(other.size(), other.front()));
        QVERIFY2(!window->statusMessage().contains(QStringLiteral("sample 2")), qPrintable(window->statusMessage()));

        QSignalSpy failed(window.get(), &MainWindow::loadFailed);
        window->openFile(dir_.filePath(QStringLiteral("missing.json")));
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY(window->statusMessage().startsWith(QStringLiteral("Could not open")));
        window->hub()->setPlacement(other); // the same graph: the message stays
        QVERIFY(window->statusMessage().startsWith(QStringLiteral("Could not open")));
        QSignalSpy shown(window.get(), &MainWindow::documentShown);
        window->openFile(sample("inception-block.json"));
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY2(!window->statusMessage().contains(QStringLiteral("Could not open")),
                 qPrintable(window->statusMessage()));
    }

    // Run ▸ Start, Pause, Resume, Stop are enabled exactly when their buttons are.
    void runMenuFollowsTheLearner()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QAction* start = action(window, "run-start");
        QAction* pause = action(window, "run-pause");
        QAction* resume = action(window, "run-resume");
        QAction* stop = action(window, "run-stop");
        QVERIFY(start && pause && resume && stop);
        QVERIFY(!start->isEnabled() && !pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled());
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(sample("tiny-mlp.json"));
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(start->isEnabled() && !pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled());
        QSignalSpy finished(learner(window), &LearnerPanel::finished);
        learner(window)->setSamples(1000000);
        start->trigger();
        QVERIFY(!start->isEnabled() && pause->isEnabled() && !resume->isEnabled() && stop->isEnabled());
        pause->trigger();
        QVERIFY(!pause->isEnabled() && resume->isEnabled() && stop->isEnabled());
        resume->trigger();
        QVERIFY(pause->isEnabled() && !resume->isEnabled());
        stop->trigger();
        QVERIFY(finished.wait(kWaitMs));
        QVERIFY(start->isEnabled() && !pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled());
    }

    // Help ▸ Keyboard Shortcuts lists every menu entry with a key, read from the menus.
    void keyboardShortcutsAreListed()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QAction* keys = action(window, "keyboardShortcuts");
        QVERIFY(keys);
        keys->trigger();
        auto* box = window.findChild<QMessageBox*>(QStringLiteral("shortcutsDialog"));
        QVERIFY(box);
        const QString text = box->text();
        for (const char* entry : {"File ▸ Close", "File ▸ Save Session As", "Run ▸ Start", "Run ▸ Stop",
                                  "View ▸ Show Critical Path", "Help ▸ Keyboard Shortcuts"})
            QVERIFY2(text.contains(QString::fromUtf8(entry)), entry);
        for (const QKeySequence& key : {QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence(Qt::Key_F5),
                                        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)})
            QVERIFY2(text.contains(key.toString(QKeySequence::NativeText).toHtmlEscaped()), qPrintable(key.toString()));
        box->close();
    }

    // Names every file of a kind has are told apart by their folder.
    void genericFileNamesShowTheirFolder()
    {
        QCOMPARE(MainWindow::displayName(QStringLiteral("/data/pipedream/resnet50/graph.txt")),
                 QStringLiteral("resnet50/graph.txt"));
        QCOMPARE(MainWindow::displayName(QStringLiteral("/data/models/bert/model.onnx")),
                 QStringLiteral("bert/model.onnx"));
        QCOMPARE(MainWindow::displayName(QStringLiteral("/data/tiny-mlp.json")), QStringLiteral("tiny-mlp.json"));
        // A real PipeDream profile: every one is a graph.txt.
        REQUIRE_SHARED_DATA(data);
        auto window = openWindow(data + QStringLiteral("/pipedream/resnet18/graph.txt"));
        QVERIFY2(window->windowTitle().startsWith(QStringLiteral("resnet18/graph.txt")),
                 qPrintable(window->windowTitle()));
    }

    // A session keeps the run's time limit (and "none").
    void aSessionKeepsItsTimeLimit()
    {
        const QString path = dir_.filePath(QStringLiteral("limit.session.json"));
        {
            auto window = openWindow(sample("tiny-mlp.json"));
            learner(*window)->setAlgorithm(QStringLiteral("random"));
            learner(*window)->setSamples(30);
            learner(*window)->setTimeLimit(30.0);
            QSignalSpy finished(learner(*window), &LearnerPanel::finished);
            learner(*window)->start();
            QVERIFY(finished.wait(kWaitMs));
            QVERIFY(session(*window)->save(path));
        }
        QCOMPARE(readSessionFile(path.toStdString()).learner.seconds, 30.0);
        auto window = openWindow(sample("inception-block.json"));
        learner(*window)->setTimeLimit(0.0);
        QSignalSpy restored(session(*window), &SessionController::restored);
        window->openFile(path);
        QVERIFY(restored.wait(kWaitMs));
        QCOMPARE(learner(*window)->timeLimit(), 30.0);
        QCOMPARE(learner(*window)->plannedSamples(), 30);
    }

    // The reference placers run before the placer's clock: the window says which is running,
    // and the run's end says how long they took.
    void theReferencePlacersAreShownWhileTheyRun()
    {
        auto window = openWindow(sample("inception-block.json"));
        QSignalSpy preparing(learner(*window), &LearnerPanel::preparing);
        QSignalSpy finished(learner(*window), &LearnerPanel::finished);
        QVERIFY(runLearner(*window, "post", 20));
        QStringList seen;
        for (const QList<QVariant>& args : preparing)
            seen << args.at(0).toString();
        QVERIFY2(seen.size() >= 3, qPrintable(seen.join(QLatin1Char('|'))));
        QVERIFY2(seen.filter(QStringLiteral("computing the reference placers: m-etf ")).size() == 1,
                 qPrintable(seen.join(QLatin1Char('|'))));
        QVERIFY(seen.last().isEmpty()); // the placer started
        const auto outcome = finished.first().at(0).value<LearnerOutcome>();
        QVERIFY(outcome.referenceSeconds > 0.0);
    }

    // File ▸ Export ▸ Placement as JSON names the run that made the placement, byte for byte
    // as post-cli place --out; the placed .pbtxt is post-cli place --pbtxt-out's.
    void exportsEqualTheCli()
    {
        const QString cli = testdata::cliPath();
        if (cli.isEmpty() || !QFileInfo::exists(cli))
            QSKIP("post-cli is not built (POST_CLI)");
        const QString pbtxt = qEnvironmentVariable("POST_SOURCE_DIR")
            + QStringLiteral("/tests/data/pbtxt/small_cnn.pbtxt");
        for (const QString& graph : {sample("inception-block.json"), pbtxt}) {
            auto window = openWindow(graph);
            QVERIFY(runLearner(*window, "m-etf", 10, 3));
            const DocumentPtr doc = window->hub()->document();
            QCOMPARE(doc->made.algorithm, std::string("m-etf"));
            const QString gui = dir_.filePath(QStringLiteral("gui-placement.json"));
            const QString byCli = dir_.filePath(QStringLiteral("cli-placement.json"));
            GuiExporter::placementJson(*doc, gui);
            QStringList args = {QStringLiteral("place"),     graph,
                                QStringLiteral("--cluster"), QString::fromStdString(doc->cluster->name()),
                                QStringLiteral("--algo"),    QStringLiteral("m-etf"),
                                QStringLiteral("--samples"), QStringLiteral("10"),
                                QStringLiteral("--seed"),    QStringLiteral("3"),
                                QStringLiteral("--out"),     byCli,
                                QStringLiteral("--force")};
            const bool isPbtxt = graph == pbtxt;
            const QString guiPbtxt = dir_.filePath(QStringLiteral("gui.pbtxt"));
            const QString cliPbtxt = dir_.filePath(QStringLiteral("cli.pbtxt"));
            if (isPbtxt) {
                args << QStringLiteral("--pbtxt-out") << cliPbtxt;
                GuiExporter::placementPbtxt(*doc, guiPbtxt);
            } else {
                QVERIFY_THROWS_EXCEPTION(InputError, GuiExporter::placementPbtxt(*doc, guiPbtxt));
            }
            QProcess process;
            process.start(cli, args);
            QVERIFY(process.waitForFinished(kWaitMs));
            QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
            const QByteArray text = contents(gui);
            QVERIFY(text.contains("\"algorithm\": \"m-etf\""));
            QVERIFY(text.contains("\"seed\": 3"));
            QVERIFY(text.contains("\"step_time_us\": "));
            QCOMPARE(text, contents(byCli));
            if (isPbtxt)
                QCOMPARE(contents(guiPbtxt), contents(cliPbtxt));
        }
    }

    // A run from the shown placement records that placement: the export names its step time
    // and fingerprint as post-cli place --start writes them (without the file, which the shown
    // placement does not have), and the session keeps the placement itself.
    void aRunFromTheShownPlacementRecordsItsStart()
    {
        const QString cli = testdata::cliPath();
        if (cli.isEmpty() || !QFileInfo::exists(cli))
            QSKIP("post-cli is not built (POST_CLI)");
        const QString graph = sample("inception-block.json");
        auto window = openWindow(graph);
        QVERIFY(runLearner(*window, "m-etf", 10, 3));
        QTRY_VERIFY_WITH_TIMEOUT(!window->hub()->steps()->isBusy() && window->hub()->steps()->current(), kWaitMs);
        const DocumentPtr shown = window->hub()->document();
        const double shownStepUs = window->hub()->steps()->current()->result.stepTimeUs;
        const QString startFile = dir_.filePath(QStringLiteral("start.json"));
        GuiExporter::placementJson(*shown, startFile);
        learner(*window)->setAlgorithm(QStringLiteral("local-search"));
        QVERIFY(learner(*window)->fromShownBox()->isEnabled());
        learner(*window)->fromShownBox()->setChecked(true);
        QVERIFY(runLearner(*window, "local-search", 10, 3));
        const DocumentPtr found = window->hub()->document();
        QVERIFY(found->made.start.has_value());
        QCOMPARE(found->made.start->fingerprint, placementFingerprint(*shown->graph, *shown->cluster, shown->placement));
        QVERIFY(found->made.start->file.empty());
        QCOMPARE(found->made.start->stepTimeUs, std::optional<double>(shownStepUs));
        const QString gui = dir_.filePath(QStringLiteral("gui-found.json"));
        const QString byCli = dir_.filePath(QStringLiteral("cli-found.json"));
        GuiExporter::placementJson(*found, gui);
        QProcess process;
        process.start(cli,
                      {QStringLiteral("place"), graph, QStringLiteral("--cluster"),
                       QString::fromStdString(found->cluster->name()), QStringLiteral("--algo"),
                       QStringLiteral("local-search"), QStringLiteral("--samples"), QStringLiteral("10"),
                       QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--start"), startFile,
                       QStringLiteral("--out"), byCli, QStringLiteral("--force")});
        QVERIFY(process.waitForFinished(kWaitMs));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QByteArray cliText = contents(byCli);
        const QByteArray named = "\"start\": {\"file\": \"" + startFile.toUtf8() + "\", ";
        QVERIFY2(cliText.contains(named), cliText.left(600).constData());
        cliText.replace(named, "\"start\": {");
        QCOMPARE(contents(gui), cliText);
        // The session keeps the start itself.
        const QString saved = autosaveOf(*window);
        QCOMPARE(readSessionFile(saved.toStdString()).studio.start, shown->placement);
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(TestDocumentRoute)
#include "test_document_route.moc"
