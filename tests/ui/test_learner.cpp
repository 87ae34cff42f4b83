// The learner panel, its controller and thread, and the learning chart.
#include "core/classic/ClassicalPlacers.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/LearnerOptionSetter.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/learn/LearnerController.h"
#include "ui/learn/LearnerOptionsEditor.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/learn/LearnerWorker.h"
#include "ui/learn/SamplePlacements.h"
#include "ui/theme/ViewTheme.h"
#include "ui/util/BackgroundJobs.h"
#include "ui/util/BackgroundPriority.h"

#include <QAction>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>

#include <QFutureWatcher>
#include <QPushButton>
#include <QScopeGuard>
#include <QSemaphore>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

using namespace post;

namespace {

// A chain of 12 ops on the test cluster: big enough that learners take a few ms per sample batch.
DocumentPtr learnerDocument() { return uitest::chainDocument(12); }

LearnerRequest request(const DocumentPtr& doc, int samples, const char* algo = "post")
{
    LearnerRequest r;
    r.document = doc;
    r.algorithm = algo;
    r.samples = samples;
    r.seed = 3;
    return r;
}

int samplesIn(const QSignalSpy& spy)
{
    int n = 0;
    for (const auto& args : spy)
        n += static_cast<int>(args.at(0).value<LearnerSnapshot>().samples.size());
    return n;
}

// The inception block on the default cluster: ~1 s for 2,000 samples of post.
DocumentPtr inceptionDocument()
{
    auto doc = std::make_shared<GraphDocument>();
    doc->path = qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/inception-block.json");
    doc->graph = std::make_shared<const Graph>(readGraphFile(doc->path.toStdString()));
    doc->cluster = std::make_shared<const Cluster>(loadCluster("k80x4"));
    return doc;
}

// Name and nice value of each thread of this process (Linux /proc), by thread id.
QMap<QString, std::pair<QString, int>> threadNices()
{
    QMap<QString, std::pair<QString, int>> out;
    for (const QString& tid : QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(QStringLiteral("/proc/self/task/%1/stat").arg(tid));
        if (!stat.open(QIODevice::ReadOnly))
            continue; // the thread ended meanwhile
        const QString line = QString::fromLatin1(stat.readAll());
        const qsizetype open = line.indexOf(QLatin1Char('('));
        const qsizetype close = line.lastIndexOf(QLatin1Char(')'));
        // Fields after the name start with the state (field 3); nice is field 19.
        const QStringList fields = line.mid(close + 2).split(QLatin1Char(' '));
        out.insert(tid, {line.mid(open + 1, close - open - 1), fields.value(16).toInt()});
    }
    return out;
}

} // namespace

class TestLearner : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }
    void runFillsChartAndRecolours();
    void latencyDuringLongRun();
    void stopEndsRunEarly();
    void pauseHaltsAndResumeContinues();
    void snapshotsAreThrottled();
    void lowerBoundArrivesBesideThePlacer();
    void destroyingDuringRunJoins();
    void runsAtBackgroundPriority();
    void backgroundJobsKeepOffTheGlobalPool();
    void chartFollowsPalette();
    void chartRefillWaitsForTheNextPass();
    void chartZoomHoldsUntilReset();
    void buttonStates();
    void keysStartPauseResumeStop();
    void darkPaletteIsAViewChoice();
    void csvExport();
    void classicalReferenceLine();
    void legendListsOnlyDrawnSeries();
    void warmStartedBestLineEndsAtThePanelsBest();
    void chartClickShowsSample();
    void samplePlacementsThinUnderBudget();
    void optionsEditorCoversEveryKey();
    void optionsReachTheLearner();
    void algorithmListAndClusterPicker();
};

void TestLearner::runFillsChartAndRecolours()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    QVERIFY(!window.hub()->document()->isPlaced());

    QSignalSpy changed(window.hub(), &DocumentHub::documentChanged);
    QSignalSpy finished(window.findChild<LearnerPanel*>(), &LearnerPanel::finished);
    // Event-loop latency while the learner runs: the largest gap between 10 ms ticks.
    QTimer tick;
    auto last = std::chrono::steady_clock::now();
    double maxGapMs = 0.0;
    connect(&tick, &QTimer::timeout, [&] {
        const auto now = std::chrono::steady_clock::now();
        maxGapMs = std::max(maxGapMs, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    });
    tick.start(10);
    window.findChild<LearnerPanel*>()->setAlgorithm(QStringLiteral("post"));
    window.findChild<LearnerPanel*>()->setSamples(200);
    window.findChild<LearnerPanel*>()->start();
    QVERIFY(finished.wait(60000));
    tick.stop();
    qInfo("event-loop max gap during a 200-sample post run: %.1f ms", maxGapMs);

    const auto outcome = finished.first().at(0).value<LearnerOutcome>();
    QVERIFY(outcome.error.isEmpty());
    QCOMPARE(outcome.result.samplesUsed, 200);
    QCOMPARE(window.findChild<LearningChart*>()->sampleCount(), 200);
    QCOMPARE(window.findChild<LearnerPanel*>()->samplesDone(), 200);
    // The window now shows the learner's best placement.
    QVERIFY(!changed.isEmpty());
    QVERIFY(window.hub()->document()->isPlaced());
    QCOMPARE(window.hub()->document()->placement, outcome.result.best);
    // The best-so-far line never beats the result (which may also come from a final greedy pick).
    QVERIFY(!window.findChild<LearningChart*>()->bestPoints().isEmpty());
    QVERIFY(window.findChild<LearningChart*>()->bestPoints().back().y()
            >= outcome.result.bestStepTimeUs / 1000.0 * (1 - 1e-12));
}

// Prints (does not assert) how long the GUI thread goes without serving a 10 ms timer while
// a 20,000-sample run fills the chart and recolours the inception block.
void TestLearner::latencyDuringLongRun()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    window.resize(1400, 880);
    window.show();
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/inception-block.json"));
    QVERIFY(shown.wait(60000));
    QSignalSpy finished(window.findChild<LearnerPanel*>(), &LearnerPanel::finished);
    QTimer tick;
    auto last = std::chrono::steady_clock::now();
    double maxGapMs = 0.0;
    double maxGapEndMs = 0.0; // when the longest gap ended, after Start
    const auto started = std::chrono::steady_clock::now();
    connect(&tick, &QTimer::timeout, [&] {
        const auto now = std::chrono::steady_clock::now();
        const double gap = std::chrono::duration<double, std::milli>(now - last).count();
        if (gap > maxGapMs) {
            maxGapMs = gap;
            maxGapEndMs = std::chrono::duration<double, std::milli>(now - started).count();
        }
        last = now;
    });
    window.findChild<LearnerPanel*>()->setSamples(20000);
    tick.start(10);
    window.findChild<LearnerPanel*>()->start();
    QVERIFY(finished.wait(120000));
    tick.stop();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    QCOMPARE(window.findChild<LearningChart*>()->sampleCount(), 20000);
    qInfo("event-loop max gap during a 20000-sample post run on inception-block (%.2f s, chart shown): %.1f ms, "
          "ending %.0f ms after Start",
          seconds, maxGapMs, maxGapEndMs);
}

void TestLearner::stopEndsRunEarly()
{
    LearnerController controller;
    QSignalSpy snapshots(&controller, &LearnerController::snapshot);
    QSignalSpy finished(&controller, &LearnerController::finished);
    controller.start(request(learnerDocument(), 1000000));
    QTRY_VERIFY_WITH_TIMEOUT(!snapshots.isEmpty(), 20000);
    controller.stop();
    QVERIFY(finished.wait(20000));
    const auto outcome = finished.first().at(0).value<LearnerOutcome>();
    QVERIFY(outcome.result.stopped);
    QVERIFY(outcome.result.samplesUsed < 1000000);
    QVERIFY(!outcome.result.best.empty());
    QCOMPARE(controller.state(), LearnerController::State::Idle);
}

void TestLearner::pauseHaltsAndResumeContinues()
{
    LearnerController controller;
    QSignalSpy snapshots(&controller, &LearnerController::snapshot);
    QSignalSpy finished(&controller, &LearnerController::finished);
    controller.start(request(learnerDocument(), 1000000));
    QTRY_VERIFY_WITH_TIMEOUT(!snapshots.isEmpty(), 20000);
    controller.pause();
    // The pause takes effect at the next sample, which flushes once more; then nothing.
    QTest::qWait(200);
    const int paused = samplesIn(snapshots);
    QTest::qWait(250);
    QCOMPARE(samplesIn(snapshots), paused);
    controller.resume();
    QTRY_VERIFY_WITH_TIMEOUT(samplesIn(snapshots) > paused, 20000);
    // Stop releases a pause too.
    controller.pause();
    controller.stop();
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.first().at(0).value<LearnerOutcome>().result.stopped);
}

void TestLearner::snapshotsAreThrottled()
{
    // Learners sample tens of thousands of placements a second here: run for ~1 s.
    LearnerController controller;
    QSignalSpy snapshots(&controller, &LearnerController::snapshot);
    QSignalSpy finished(&controller, &LearnerController::finished);
    const auto started = std::chrono::steady_clock::now();
    controller.start(request(inceptionDocument(), 100000000));
    QTest::qWait(1000);
    controller.stop();
    QVERIFY(finished.wait(20000));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const int samples = samplesIn(snapshots);
    QCOMPARE(samples, finished.first().at(0).value<LearnerOutcome>().result.samplesUsed);
    qInfo("%d samples in %.2f s arrived in %d snapshots", samples, seconds, static_cast<int>(snapshots.size()));
    // At most one per 50 ms plus the final flush (and the slack of the queued delivery).
    QVERIFY(snapshots.size() <= static_cast<int>(seconds * 1000 / LearnerWorker::kSnapshotIntervalMs) + 2);
    QVERIFY(snapshots.size() > 1); // batches arrive during the run, not only at the end
#if !defined(__SANITIZE_ADDRESS__) // a sanitized debug build samples too slowly to bundle 20
    QVERIFY(samples > 20 * snapshots.size());
#endif
}

// The lower bound is computed beside the placer (milp aside, which builds it into its model):
// the snapshots carry it once it is ready, and the run's last one has it even where the placer
// ends first, and alone where it comes after the last sample.
void TestLearner::lowerBoundArrivesBesideThePlacer()
{
    const DocumentPtr doc = inceptionDocument();
    const LowerBound expected = lowerBound(*doc->graph, *doc->cluster, doc->sim);
    for (const char* algo : {"random", "m-etf", "post"}) {
        LearnerController controller;
        QSignalSpy snapshots(&controller, &LearnerController::snapshot);
        QSignalSpy finished(&controller, &LearnerController::finished);
        controller.start(request(doc, std::string(algo) == "post" ? 400 : 1, algo));
        QVERIFY(finished.wait(20000));
        QVERIFY(!snapshots.isEmpty());
        const auto last = snapshots.last().at(0).value<LearnerSnapshot>();
        QCOMPARE(last.lowerBoundMs, expected.valueUs() / 1000.0);
        QCOMPARE(last.lowerBoundSource, QString::fromLatin1(expected.source()));
        // Once there, it stays in every later snapshot.
        bool seen = false;
        for (const auto& args : snapshots) {
            const auto s = args.at(0).value<LearnerSnapshot>();
            QVERIFY(!seen || s.lowerBoundMs == last.lowerBoundMs);
            seen = seen || s.lowerBoundMs > 0.0;
        }
    }
}

void TestLearner::destroyingDuringRunJoins()
{
    auto controller = std::make_unique<LearnerController>();
    QSignalSpy snapshots(controller.get(), &LearnerController::snapshot);
    DocumentPtr doc = learnerDocument();
    std::weak_ptr<const Graph> graph = doc->graph;
    controller->start(request(doc, 1000000));
    doc.reset(); // the run keeps its own reference
    QTRY_VERIFY_WITH_TIMEOUT(!snapshots.isEmpty(), 20000);
    controller->pause();
    controller.reset();           // stops, releases the pause and joins the thread
    QTRY_VERIFY(graph.expired()); // the worker let go of the document
}

// The learner's thread and the evaluation pool it starts run at a lower priority than the
// GUI thread, so the window stays responsive while the search uses every core.
void TestLearner::runsAtBackgroundPriority()
{
#if !defined(Q_OS_LINUX)
    QSKIP("per-thread nice values are Linux-only");
#endif
    const int guiNice = currentThreadNice();
    const int expected = std::min(guiNice + kBackgroundNice, 19);
    LearnerController controller;
    QSignalSpy snapshots(&controller, &LearnerController::snapshot);
    QSignalSpy finished(&controller, &LearnerController::finished);
    controller.start(request(inceptionDocument(), 100000000));
    QTRY_VERIFY_WITH_TIMEOUT(!snapshots.isEmpty(), 20000);
    const auto threads = threadNices();
    controller.stop();
    QVERIFY(finished.wait(20000));

    int learnerThreads = 0;
    for (const auto& [name, nice] : threads) {
        if (name == QLatin1String("learner")) { // pool threads inherit the Qt thread's name
            ++learnerThreads;
            QCOMPARE(nice, expected);
        }
    }
    // The run's own thread plus one evaluation thread per further core.
    const int minimum = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    QVERIFY2(learnerThreads >= minimum, qPrintable(QStringLiteral("%1 learner threads").arg(learnerThreads)));
    QCOMPARE(currentThreadNice(), guiNice); // the GUI thread itself is untouched
}

// The app's background jobs (here a step simulation, as each new best sets off) run on a
// pool of their own at background priority: Qt's raster engine hands parts of large fills
// to the global pool and waits for them on the GUI thread, so our jobs must never queue
// there (docs/performance.md, "Event-loop gaps during a run"). With every thread of the
// global pool blocked, a step is still simulated.
void TestLearner::backgroundJobsKeepOffTheGlobalPool()
{
    const int guiNice = currentThreadNice();
    QThreadPool* global = QThreadPool::globalInstance();
    QSemaphore release;
    const int blocked = global->maxThreadCount();
    for (int i = 0; i < blocked; ++i)
        global->start([&release] { release.acquire(); });
    auto unblock = qScopeGuard([&] {
        release.release(blocked);
        global->waitForDone();
    });
    QVERIFY(&backgroundPool() != global);

    const DocumentPtr small = uitest::smallDocument(); // kept: it owns the graph
    const Graph& g = *small->graph;
    StepSimulation simulation;
    simulation.setSynchronousMaxOps(0); // off the GUI thread even for a small graph
    QSignalSpy simulated(&simulation, &StepSimulation::simulated);
    simulation.setDocument(uitest::smallDocument(Placement(static_cast<size_t>(g.opCount()), 0)));
    QVERIFY(simulated.wait(10000));
    QVERIFY(simulated.takeFirst().at(0).value<StepPtr>() != nullptr);

#if defined(Q_OS_LINUX)
    QFutureWatcher<int> watcher;
    QSignalSpy done(&watcher, &QFutureWatcher<int>::finished);
    watcher.setFuture(runInBackground([] { return currentThreadNice(); }));
    QVERIFY(done.wait(10000));
    QCOMPARE(watcher.result(), std::min(guiNice + kBackgroundNice, 19));
    // Waiting for a job that has not started may run it on the waiting thread, which keeps
    // its priority.
    QFuture<int> waited = runInBackground([] { return currentThreadNice(); });
    waited.waitForFinished();
    QVERIFY(waited.result() == guiNice || waited.result() == std::min(guiNice + kBackgroundNice, 19));
    QCOMPARE(currentThreadNice(), guiNice);
#endif
}

// A dark palette switches the chart to its dark theme, and back; the series keep the
// chart's own colours through the theme change (a theme resets every series' pen).
void TestLearner::chartFollowsPalette()
{
    LearningChart chart;
    QVERIFY(!chart.isDarkTheme());
    const QColor lightSampled = chart.chart()->series().at(0)->property("color").value<QColor>();
    QCOMPARE(lightSampled, QColor(40, 80, 220, 120)); // ChartColours, translucent

    QPalette dark(QColor(45, 45, 48), QColor(30, 30, 32));
    dark.setColor(QPalette::Base, QColor(30, 30, 32));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
    chart.setPalette(dark);
    QVERIFY(chart.isDarkTheme());
    QCOMPARE(chart.chart()->theme(), QChart::ChartThemeDark);
    QCOMPARE(chart.chart()->backgroundBrush().color(), QColor(30, 30, 32));
    QVERIFY(chart.chart()->titleBrush().color().lightness() > 128); // light text on dark
    const auto* sampled = qobject_cast<QLineSeries*>(chart.chart()->series().at(0));
    QCOMPARE(sampled->pen().style(), Qt::NoPen); // still points only
    QCOMPARE(sampled->color(), QColor(120, 170, 255, 140));
    QCOMPARE(sampled->lightMarker().size(), QSize(3, 3));

    chart.setPalette(QPalette(QColor(240, 240, 240)));
    QVERIFY(!chart.isDarkTheme());
    QCOMPARE(chart.chart()->theme(), QChart::ChartThemeLight);
    QCOMPARE(sampled->color(), lightSampled);
}

// A snapshot fills the chart's buffers at once but its series only in a later pass of the
// event loop (or on flush), so handling a snapshot and redrawing never make one long stall.
void TestLearner::chartRefillWaitsForTheNextPass()
{
    LearningChart chart;
    chart.reset(10);
    LearnerSnapshot snapshot;
    for (int i = 0; i < 4; ++i)
        snapshot.samples.push_back(LearnerSample{i, 10.0 - i, true});
    chart.addSnapshot(snapshot);
    const auto* sampled = qobject_cast<QLineSeries*>(chart.chart()->series().at(0));
    QCOMPARE(chart.sampleCount(), 4);
    QCOMPARE(sampled->count(), 0);
    QTRY_COMPARE(sampled->count(), 4);
    snapshot.samples = {LearnerSample{4, 5.0, true}};
    chart.addSnapshot(snapshot);
    chart.flush();
    QCOMPARE(sampled->count(), 5);
    QCOMPARE(chart.bestPoints().back(), QPointF(4, 5.0));
}

// Zooming (rubber band, wheel or zoomTo) freezes the axes while samples keep arriving;
// Escape or Reset Zoom goes back to following the run.
void TestLearner::chartZoomHoldsUntilReset()
{
    LearningChart chart;
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.reset(0);
    auto addSamples = [&chart](int from, int to, double (*ms)(int)) {
        LearnerSnapshot snapshot;
        for (int i = from; i < to; ++i)
            snapshot.samples.push_back(LearnerSample{i, ms(i), true});
        chart.addSnapshot(snapshot);
        chart.flush();
    };
    addSamples(0, 100, [](int i) { return 100.0 - i * 0.5; }); // 100 ms down to 50.5 ms
    auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).at(0));
    auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).at(0));
    QCOMPARE(x->max(), 100.0);
    QVERIFY(y->min() <= 50.5 && y->max() >= 100.0);

    chart.zoomTo(10, 30, 60, 80);
    QVERIFY(chart.isZoomed());
    addSamples(100, 200, [](int) { return 20.0; });
    QCOMPARE(x->min(), 10.0);
    QCOMPARE(x->max(), 30.0);
    QCOMPARE(y->min(), 60.0);
    QCOMPARE(y->max(), 80.0);

    QTest::keyClick(&chart, Qt::Key_Escape);
    QVERIFY(!chart.isZoomed());
    QCOMPARE(x->min(), 0.0);
    QCOMPARE(x->max(), 200.0);
    QVERIFY(y->min() <= 20.0 && y->max() >= 100.0);

    // A rubber band from (sample 50, 90 ms) to (sample 150, 40 ms).
    auto viewPoint = [&chart](double sample, double ms) {
        const QPointF scene = chart.chart()->mapToScene(chart.chart()->mapToPosition(QPointF(sample, ms)));
        return chart.mapFromScene(scene);
    };
    const QPoint from = viewPoint(50, 90);
    const QPoint to = viewPoint(150, 40);
    auto send = [&chart](QEvent::Type type, QPoint at, Qt::MouseButtons buttons) {
        QMouseEvent event(type, QPointF(at), chart.viewport()->mapToGlobal(QPointF(at)), Qt::LeftButton, buttons,
                          Qt::NoModifier);
        QCoreApplication::sendEvent(chart.viewport(), &event);
    };
    send(QEvent::MouseButtonPress, from, Qt::LeftButton);
    send(QEvent::MouseMove, (from + to) / 2, Qt::LeftButton);
    send(QEvent::MouseMove, to, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, to, Qt::NoButton);
    QVERIFY(chart.isZoomed());
    QVERIFY2(std::abs(x->min() - 50) < 3 && std::abs(x->max() - 150) < 3,
             qPrintable(QStringLiteral("x %1..%2").arg(x->min()).arg(x->max())));
    QVERIFY2(std::abs(y->min() - 40) < 2 && std::abs(y->max() - 90) < 2,
             qPrintable(QStringLiteral("y %1..%2").arg(y->min()).arg(y->max())));

    // One wheel step in about the centre of the band: each range shrinks to 80 %.
    chart.resetZoom();
    QVERIFY(!chart.isZoomed());
    const double width = x->max() - x->min();
    const QPoint centre = viewPoint(100, 60);
    QWheelEvent wheel(QPointF(centre), chart.viewport()->mapToGlobal(QPointF(centre)), QPoint(), QPoint(0, 120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(chart.viewport(), &wheel);
    QVERIFY(chart.isZoomed());
    QCOMPARE(x->max() - x->min(), 0.8 * width);
    QVERIFY(x->min() < 100 && x->max() > 100);

    chart.reset(10); // a new run is followed from its start
    QVERIFY(!chart.isZoomed());
}

void TestLearner::buttonStates()
{
    LearnerPanel panel;
    auto* start = panel.findChild<QPushButton*>(QStringLiteral("start"));
    auto* pause = panel.findChild<QPushButton*>(QStringLiteral("pause"));
    auto* resume = panel.findChild<QPushButton*>(QStringLiteral("resume"));
    auto* stop = panel.findChild<QPushButton*>(QStringLiteral("stop"));
    auto* reset = panel.findChild<QPushButton*>(QStringLiteral("reset"));
    QVERIFY(start && pause && resume && stop && reset);
    QVERIFY(!start->isEnabled()); // no document
    panel.setDocument(learnerDocument());
    QVERIFY(start->isEnabled());
    QVERIFY(!pause->isEnabled() && !resume->isEnabled() && !stop->isEnabled() && !reset->isEnabled());
    panel.setSamples(1000000);
    QSignalSpy finished(&panel, &LearnerPanel::finished);
    start->click();
    QVERIFY(!start->isEnabled() && pause->isEnabled() && !resume->isEnabled() && stop->isEnabled() && !reset->isEnabled());
    pause->click();
    QVERIFY(!pause->isEnabled() && resume->isEnabled() && stop->isEnabled());
    resume->click();
    QVERIFY(pause->isEnabled() && !resume->isEnabled());
    stop->click();
    QVERIFY(finished.wait(20000));
    QVERIFY(start->isEnabled() && !pause->isEnabled() && !stop->isEnabled() && reset->isEnabled());
    reset->click();
    QVERIFY(!reset->isEnabled());
}

void TestLearner::keysStartPauseResumeStop()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto* panel = window.findChild<LearnerPanel*>();
    QCOMPARE(window.findChild<QAction*>(QStringLiteral("run-start"))->shortcut(), QKeySequence(Qt::Key_F5));
    QCOMPARE(window.findChild<QAction*>(QStringLiteral("run-stop"))->shortcut(), QKeySequence(Qt::Key_F7));
    QVERIFY(panel->findChild<QPushButton*>(QStringLiteral("start"))->toolTip().contains(QStringLiteral("F5")));
    QVERIFY(panel->findChild<QPushButton*>(QStringLiteral("pause"))->toolTip().contains(QStringLiteral("F6")));
    QVERIFY(panel->findChild<QPushButton*>(QStringLiteral("stop"))->toolTip().contains(QStringLiteral("F7")));
    panel->setAlgorithm(QStringLiteral("random"));
    panel->setSamples(1000000);
    QSignalSpy started(panel, &LearnerPanel::runStarted);
    QSignalSpy finished(panel, &LearnerPanel::finished);
    QTest::keyClick(&window, Qt::Key_F5); // from the main window, not the panel
    QCOMPARE(started.count(), 1);
    QTest::keyClick(&window, Qt::Key_F7);
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.first().at(0).value<LearnerOutcome>().result.stopped);
}

// View > Dark Palette switches the palette (the chart follows) and is remembered.
void TestLearner::darkPaletteIsAViewChoice()
{
    const QPalette before = QApplication::palette();
    MainWindow window;
    QAction* dark = window.findChild<QAction*>(QStringLiteral("darkPalette"));
    QVERIFY(dark);
    QVERIFY(dark->isCheckable());
    dark->setChecked(true);
    QVERIFY(ViewTheme::isDark(QApplication::palette()));
    QCOMPARE(QSettings().value(QStringLiteral("view/palette")).toString(), QStringLiteral("dark"));
    QTRY_VERIFY(window.findChild<LearningChart*>()->isDarkTheme());
    dark->setChecked(false);
    QVERIFY(!ViewTheme::isDark(QApplication::palette()));
    QCOMPARE(QSettings().value(QStringLiteral("view/palette")).toString(), QStringLiteral("light"));
    QApplication::setPalette(before);
}

void TestLearner::csvExport()
{
    LearningChart chart;
    chart.reset(4);
    LearnerSnapshot s;
    s.lowerBoundMs = 1.0;
    s.singleDeviceMs = 4.0;
    s.samples = {{0, 3.0, true}, {1, 9.0, false}, {2, 2.0, true}, {3, 2.5, true}};
    s.updates = {LearnerUpdate{4, UpdateKind::CrossEntropy, 2.5, 2.0, 0.5}};
    chart.addSnapshot(s);
    QCOMPARE(chart.sampleCount(), 4);
    // Best so far steps from 3 down to 2 at sample 2.
    QCOMPARE(chart.bestPoints(), (QVector<QPointF>{{0, 3.0}, {2, 3.0}, {2, 2.0}}));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("points.csv"));
    chart.saveCsv(path);
    std::ifstream in(path.toStdString());
    std::stringstream text;
    text << in.rdbuf();
    QCOMPARE(QString::fromStdString(text.str()),
             QStringLiteral("series,x,y\nsampled,0,3\nsampled,2,2\nsampled,3,2.5\nout_of_memory,1,9\n"
                            "best,0,3\nbest,2,3\nbest,2,2\nelite_threshold,4,2.5\nentropy,4,0.5\n"
                            "lower_bound,0,1\nsingle_gpu,0,4\n"));
    QVERIFY(chart.savePng(dir.filePath(QStringLiteral("chart.png"))));
}

void TestLearner::classicalReferenceLine()
{
    // Independently: the fastest feasible classical placement of the chain.
    const DocumentPtr doc = learnerDocument();
    double expectedMs = std::numeric_limits<double>::infinity();
    std::string expectedName;
    for (const std::string& name : classicalStartOrder()) { // the panel's order: ties to the first
        const PlaceResult r = makeClassicalPlacer(name)->place(PlaceContext{*doc->graph, *doc->cluster, SimOptions{}});
        Simulator sim(*doc->graph, *doc->cluster);
        QCOMPARE(sim.run(r.best).stepTimeUs, r.bestStepTimeUs);
        if (r.feasible && r.bestStepTimeUs / 1000.0 < expectedMs) {
            expectedMs = r.bestStepTimeUs / 1000.0;
            expectedName = name;
        }
    }
    QVERIFY(std::isfinite(expectedMs));

    LearnerController controller;
    LearningChart chart;
    chart.reset(50);
    connect(&controller, &LearnerController::snapshot, &chart, &LearningChart::addSnapshot);
    QSignalSpy finished(&controller, &LearnerController::finished);
    controller.start(request(doc, 50, "random"));
    QVERIFY(finished.wait(20000));
    QCOMPARE(chart.classicalMs(), expectedMs);
    QCOMPARE(chart.classicalName(), QString::fromStdString(expectedName));
    chart.flush();
    const QList<QPointF> line = chart.classicalSeries()->points();
    QCOMPARE(line.size(), 2);
    QCOMPARE(line[0].y(), expectedMs);
    QCOMPARE(line[1].y(), expectedMs);
    QVERIFY(chart.classicalSeries()->name().contains(QString::fromStdString(expectedName)));
}

void TestLearner::legendListsOnlyDrawnSeries()
{
    LearningChart chart;
    chart.resize(800, 500);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.reset(10);
    QCOMPARE(chart.legendNames(), QStringList());
    LearnerSnapshot first;
    first.samples = {{0, 5.0, true}, {1, 4.0, true}};
    first.samplesDone = 2;
    chart.addSnapshot(first);
    chart.flush();
    // No reference times, no update, nothing out of memory: only the points and the best line.
    QCOMPARE(chart.legendNames(), (QStringList{QStringLiteral("sampled"), QStringLiteral("best so far")}));

    LearnerSnapshot second;
    second.samples = {{2, 9.0, false}};
    second.updates = {{2, UpdateKind::CrossEntropy, 4.5, 4.0, 0.8}};
    second.lowerBoundMs = 1.0;
    second.singleDeviceMs = 6.0;
    second.classicalMs = 3.5;
    second.classicalName = QStringLiteral("m-sct");
    chart.addSnapshot(second);
    chart.flush();
    QCOMPARE(chart.legendNames(),
             (QStringList{QStringLiteral("sampled"), QStringLiteral("out of memory (at top)"),
                          QStringLiteral("elite threshold"), QStringLiteral("best so far"), QStringLiteral("lower bound"),
                          QStringLiteral("best single GPU"), QStringLiteral("best classical placer (m-sct)")}));
    // Entropy is drawn in its own strip under the step times (test_learning_chart), not listed.
    QCOMPARE(chart.entropyPoints().size(), 1);
    chart.selectSample(1); // the marked sample is drawn but never listed
    QVERIFY(!chart.legendNames().contains(QStringLiteral("shown sample")));
    chart.reset();
    chart.flush();
    QCOMPARE(chart.legendNames(), QStringList());
}

void TestLearner::warmStartedBestLineEndsAtThePanelsBest()
{
    // The start (m-sct's placement) is evaluated before sample 0 and is no sample: the
    // best-so-far line starts at it and ends at the best the panel reports.
    MainWindow window;
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(inceptionDocument()->path);
    QVERIFY(shown.wait(20000));
    const DocumentPtr doc = window.hub()->document();
    const PlaceResult start = makeClassicalPlacer("m-sct")->place(PlaceContext{*doc->graph, *doc->cluster, SimOptions{}});
    QVERIFY(start.feasible);
    const double startMs = start.bestStepTimeUs / 1000.0;
    auto* panel = window.findChild<LearnerPanel*>();
    QSignalSpy finished(panel, &LearnerPanel::finished);
    panel->setAlgorithm(QStringLiteral("post@m-sct"));
    panel->setSamples(40);
    panel->start();
    QVERIFY(finished.wait(60000));
    const auto outcome = finished.first().at(0).value<LearnerOutcome>();
    QVERIFY(outcome.error.isEmpty());
    LearningChart* chart = window.findChild<LearningChart*>();
    chart->flush();
    const QVector<QPointF>& best = chart->bestPoints();
    QVERIFY(!best.isEmpty());
    QCOMPARE(best.front(), QPointF(0, startMs));
    for (qsizetype i = 1; i < best.size(); ++i)
        QVERIFY(best[i].y() <= best[i - 1].y());
    QCOMPARE(best.back().y(), panel->bestMs());
    QCOMPARE(panel->bestMs(), outcome.result.bestStepTimeUs / 1000.0);
    QVERIFY(panel->bestMs() <= startMs);
    QVERIFY(chart->legendNames().contains(QStringLiteral("best so far (from the warm start)")));
}

namespace {

// Records every sampled placement of a run, for comparison with what the UI kept.
class RecordingObserver : public ProgressObserver {
public:
    std::vector<Placement> placements;
    void onSample(const SampleEvent& e) override
    {
        if (static_cast<size_t>(e.index) >= placements.size())
            placements.resize(static_cast<size_t>(e.index) + 1);
        if (e.placement)
            placements[static_cast<size_t>(e.index)] = *e.placement;
    }
    void onUpdate(const UpdateEvent&) override { }
};

} // namespace

void TestLearner::chartClickShowsSample()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    window.resize(1200, 800);
    window.show();
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    const DocumentPtr doc = window.hub()->document();
    // The same run outside the UI: random search is fully determined by its seed.
    RecordingObserver recorded;
    PlaceContext context{*doc->graph, *doc->cluster, SimOptions{}};
    context.samples = 60;
    context.seed = 5;
    context.observer = &recorded;
    makePlacer("random")->place(context);
    QCOMPARE(recorded.placements.size(), size_t{60});

    QSignalSpy finished(window.findChild<LearnerPanel*>(), &LearnerPanel::finished);
    window.findChild<LearnerPanel*>()->setAlgorithm(QStringLiteral("random"));
    window.findChild<LearnerPanel*>()->setSamples(60);
    window.findChild<QSpinBox*>(QStringLiteral("seed"))->setValue(5);
    window.findChild<LearnerPanel*>()->start();
    QVERIFY(finished.wait(20000));
    QCOMPARE(window.findChild<LearnerPanel*>()->samplePlacements()->keptCount(), size_t{60});

    LearningChart* chart = window.findChild<LearningChart*>();
    chart->selectSample(17); // what a click on sample 17's point does
    QCOMPARE(window.hub()->document()->placement, recorded.placements[17]);
    chart->selectSample(42);
    QCOMPARE(window.hub()->document()->placement, recorded.placements[42]);

    // A real click where sample 30 is drawn picks a sample there (points may coincide).
    const auto pos = chart->samplePosition(30);
    QVERIFY(pos.has_value());
    const int picked = chart->sampleAt(*pos);
    QVERIFY(picked >= 0);
    QCOMPARE(chart->samplePosition(picked), pos);
    QSignalSpy clicked(chart, &LearningChart::sampleClicked);
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, *pos);
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(window.hub()->document()->placement, recorded.placements[static_cast<size_t>(picked)]);
    QCOMPARE(chart->sampleAt(QPoint(2, 2)), -1); // outside the plot
}

void TestLearner::samplePlacementsThinUnderBudget()
{
    // 10 ops x 1 byte each, 45-byte budget: 4 rows fit, so the stride doubles as needed.
    SamplePlacements store(45);
    store.reset(10, 3);
    for (int i = 0; i < 16; ++i)
        store.add(i, Placement(10, i % 3));
    QCOMPARE(store.stride(), 4);
    QCOMPARE(store.keptCount(), size_t{4}); // samples 0, 4, 8, 12
    QCOMPARE(store.bytes(), size_t{40});
    QCOMPARE(store.placement(8), Placement(10, 8 % 3));
    QVERIFY(store.placement(9).empty());
    QCOMPARE(store.nearestKept(9), 8);
    QCOMPARE(store.nearestKept(11), 12);
    QCOMPARE(store.nearestKept(100), 12);
    store.add(20, Placement(3, 0)); // wrong size: ignored
    QCOMPARE(store.keptCount(), size_t{4});
    // Past 255 devices a device takes two bytes.
    SamplePlacements wide;
    wide.reset(3, 400);
    wide.add(0, Placement{399, 0, 256});
    QCOMPARE(wide.placement(0), (Placement{399, 0, 256}));
    QCOMPARE(wide.bytes(), size_t{6});
}

void TestLearner::optionsEditorCoversEveryKey()
{
    LearnerPanel panel;
    panel.setDocument(learnerDocument());
    LearnerOptionsEditor* editor = panel.optionsEditor();
    auto* start = panel.findChild<QPushButton*>(QStringLiteral("start"));
    for (const LearnerOptionInfo& info : learnerOptionKeys()) {
        const QString key = QString::fromStdString(info.key);
        QWidget* field = editor->findChild<QWidget*>(QStringLiteral("option-") + key);
        QVERIFY2(field, info.key.c_str());
        QVERIFY(field->toolTip().contains(key));
        QVERIFY(field->toolTip().contains(QString::fromStdString(info.help).toHtmlEscaped()));
        QVERIFY2(!LearnerOptionsEditor::explanation(key).isEmpty(), info.key.c_str());
        QCOMPARE(editor->value(key), QString::fromStdString(*learnerOptionValue(LearnerOptions{}, info.key)));
    }
    QVERIFY(editor->isValid() && start->isEnabled());
    // Typed text is checked by core's setter; the message shows under the field.
    auto* batch = editor->findChild<QLineEdit*>(QStringLiteral("option-batch"));
    batch->end(false);
    batch->insert(QStringLiteral("x")); // as typed: "20x"
    QVERIFY(!editor->isValid());
    QVERIFY(!start->isEnabled());
    auto* problem = editor->findChild<QLabel*>(QStringLiteral("problem-batch"));
    QVERIFY(!problem->isHidden());
    QVERIFY(problem->text().contains(QStringLiteral("integer")));
    QVERIFY(editor->setValue(QStringLiteral("elite"), QStringLiteral("2")));
    QVERIFY(editor->problem(QStringLiteral("elite")).contains(QStringLiteral("[1e-06, 1]")));
    editor->resetToDefaults();
    QVERIFY(editor->isValid() && start->isEnabled());
    QVERIFY(problem->isHidden());
    QVERIFY(editor->changed().empty());
    QVERIFY(editor->setValue(QStringLiteral("batch"), QStringLiteral("7")));
    QVERIFY(editor->setValue(QStringLiteral("grouping"), QStringLiteral("chunks")));
    QCOMPARE(editor->options().batchSize, 7);
    QCOMPARE(editor->options().grouping.strategy, GroupingStrategy::Chunks);
    const auto changed = editor->changed();
    QCOMPARE(changed.size(), size_t{2});
    QCOMPARE(changed[0], (std::pair<std::string, std::string>{"batch", "7"}));
    QCOMPARE(changed[1], (std::pair<std::string, std::string>{"grouping", "chunks"}));
}

void TestLearner::optionsReachTheLearner()
{
    // ce-interval larger than the run: the cross-entropy learner never updates.
    LearnerPanel panel;
    panel.setDocument(learnerDocument());
    panel.setAlgorithm(QStringLiteral("ce"));
    panel.setSamples(100);
    QSignalSpy snapshots(&panel, &LearnerPanel::snapshot);
    QSignalSpy finished(&panel, &LearnerPanel::finished);
    panel.start();
    QVERIFY(finished.wait(20000));
    int updates = 0;
    for (const auto& args : snapshots)
        updates += static_cast<int>(args.at(0).value<LearnerSnapshot>().updates.size());
    QVERIFY(updates > 0);
    QVERIFY(panel.optionsEditor()->setValue(QStringLiteral("ce-interval"), QStringLiteral("1000")));
    snapshots.clear();
    finished.clear();
    panel.start();
    QVERIFY(finished.wait(20000));
    updates = 0;
    for (const auto& args : snapshots)
        updates += static_cast<int>(args.at(0).value<LearnerSnapshot>().updates.size());
    QCOMPARE(updates, 0);
}

void TestLearner::algorithmListAndClusterPicker()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    auto* algorithms = window.findChild<LearnerPanel*>()->findChild<QComboBox*>(QStringLiteral("algorithm"));
    QStringList names;
    for (int i = 0; i < algorithms->count(); ++i)
        if (!algorithms->itemText(i).isEmpty())
            names << algorithms->itemText(i);
    for (const std::string& name : placerNames())
        QVERIFY2(names.contains(QString::fromStdString(name)), name.c_str());
    for (const char* name : {"post", "ce", "ppo", "reinforce", "random", "post@best", "post@m-sct", "m-etf", "metis"})
        QVERIFY2(names.contains(QLatin1String(name)), name);
    for (const QString& name : names) {
        QVERIFY2(makePlacer(name.toStdString()) != nullptr, qPrintable(name));
        QVERIFY2(!LearnerPanel::describeAlgorithm(name).isEmpty(), qPrintable(name));
    }

    // The picker follows the window's cluster, and picking in it changes the window's.
    QComboBox* picker = window.findChild<LearnerPanel*>()->clusterPicker();
    window.setClusterName(QStringLiteral("k80x2"));
    QCOMPARE(picker->currentData().toString(), QStringLiteral("k80x2"));
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    QCOMPARE(window.hub()->document()->cluster->deviceCount(), loadCluster("k80x2").deviceCount());
    const int index = picker->findData(QStringLiteral("a100x8-nvlink"));
    QVERIFY(index >= 0);
    picker->setCurrentIndex(index);
    emit picker->activated(index);
    QVERIFY(shown.wait(20000));
    QCOMPARE(window.hub()->document()->cluster->deviceCount(), loadCluster("a100x8-nvlink").deviceCount());
    QVERIFY(window.hub()->document()->cluster->deviceCount() != loadCluster("k80x2").deviceCount());
}

QTEST_MAIN(TestLearner)
#include "test_learner.moc"
