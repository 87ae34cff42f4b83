// The learner panel, its controller and thread, and the learning chart.
#include "MainWindow.h"
#include "UiTestGraphs.h"
#include "charts/LearningChart.h"
#include "graphview/GraphPanel.h"
#include "learn/LearnerController.h"
#include "learn/LearnerPanel.h"
#include "learn/LearnerWorker.h"
#include "io/ClusterPresets.h"
#include "io/GraphFile.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>

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

} // namespace

class TestLearner : public QObject {
    Q_OBJECT

private slots:
    void runFillsChartAndRecolours();
    void latencyDuringLongRun();
    void stopEndsRunEarly();
    void pauseHaltsAndResumeContinues();
    void snapshotsAreThrottled();
    void destroyingDuringRunJoins();
    void buttonStates();
    void csvExport();
};

void TestLearner::runFillsChartAndRecolours()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    QVERIFY(!window.document()->isPlaced());

    QSignalSpy changed(&window, &MainWindow::documentChanged);
    QSignalSpy finished(window.learner(), &LearnerPanel::finished);
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
    window.learner()->setAlgorithm(QStringLiteral("post"));
    window.learner()->setSamples(200);
    window.learner()->start();
    QVERIFY(finished.wait(60000));
    tick.stop();
    qInfo("event-loop max gap during a 200-sample post run: %.1f ms", maxGapMs);

    const auto outcome = finished.first().at(0).value<LearnerOutcome>();
    QVERIFY(outcome.error.isEmpty());
    QCOMPARE(outcome.result.samplesUsed, 200);
    QCOMPARE(window.learningChart()->sampleCount(), 200);
    QCOMPARE(window.learner()->samplesDone(), 200);
    // The window now shows the learner's best placement.
    QVERIFY(!changed.isEmpty());
    QVERIFY(window.document()->isPlaced());
    QCOMPARE(window.document()->placement, outcome.result.best);
    // The best-so-far line never beats the result (which may also come from a final greedy pick).
    QVERIFY(!window.learningChart()->bestPoints().isEmpty());
    QVERIFY(window.learningChart()->bestPoints().back().y() >= outcome.result.bestStepTimeUs / 1000.0 * (1 - 1e-12));
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
    QSignalSpy finished(window.learner(), &LearnerPanel::finished);
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
    window.learner()->setSamples(20000);
    tick.start(10);
    window.learner()->start();
    QVERIFY(finished.wait(120000));
    tick.stop();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    QCOMPARE(window.learningChart()->sampleCount(), 20000);
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
    QVERIFY(samples > 20 * snapshots.size());
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
    controller.reset(); // stops, releases the pause and joins the thread
    QTRY_VERIFY(graph.expired()); // the worker let go of the document
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

QTEST_MAIN(TestLearner)
#include "test_learner.moc"
