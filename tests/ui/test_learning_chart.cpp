// The learning chart tells the truth: entropy in its own strip under the step times (never
// over the sampled points), Show Best, panning, and a linear or logarithmic step-time axis.
#include "tests/support/ScratchSettings.h"
#include "ui/MainWindow.h"
#include "ui/charts/ChartColours.h"
#include "ui/charts/LearningChart.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/theme/ColourDifference.h"

#include <QAction>
#include <QChart>
#include <QImage>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <QWheelEvent>

#include <cmath>
#include <limits>

using namespace post;

namespace {

// 100 samples from 100 ms down to 50.5 ms, the best at sample 99, with an entropy falling
// from 1 to 0.5 over ten updates.
LearnerSnapshot descendingRun()
{
    LearnerSnapshot snapshot;
    for (int i = 0; i < 100; ++i)
        snapshot.samples.push_back(LearnerSample{i, 100.0 - i * 0.5, true});
    for (int k = 1; k <= 10; ++k)
        snapshot.updates.push_back({k * 10, UpdateKind::Ppo, std::nan(""), 100.0 - k * 5.0, 1.0 - k * 0.05});
    snapshot.samplesDone = 100;
    snapshot.lowerBoundMs = 30.0;
    return snapshot;
}

struct ShownChart {
    LearningChart chart;
    // A chart on screen after one snapshot of a run of `planned` samples.
    explicit ShownChart(const LearnerSnapshot& snapshot = descendingRun(), int planned = 100)
    {
        chart.resize(900, 600);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.reset(planned);
        chart.addSnapshot(snapshot);
        chart.flush();
    }
};

// Opens samples/graphs/tiny-mlp.json in `window` (errors not as dialogs); false if it is not shown.
bool openTinyMlp(MainWindow& window)
{
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    return shown.wait(20000);
}

QPoint plotPoint(LearningChart& chart, double sample, double ms)
{
    const QPointF scene = chart.chart()->mapToScene(chart.chart()->mapToPosition(QPointF(sample, ms)));
    return chart.mapFromScene(scene);
}

void sendMouse(LearningChart& chart, QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QMouseEvent event(type, QPointF(at), chart.viewport()->mapToGlobal(QPointF(at)), button, buttons, modifiers);
    QCoreApplication::sendEvent(chart.viewport(), &event);
}

} // namespace

class TestLearningChart : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    // The strip lies under the plot (and under the sample axis), so no entropy point is ever
    // drawn over a sampled point; each entropy value is drawn at its height in the strip.
    void entropyHasItsOwnStrip()
    {
        ShownChart shown;
        LearningChart& chart = shown.chart;
        const QRectF strip = chart.entropyStripRect();
        QVERIFY(!strip.isEmpty());
        const QRectF plot = QRectF(
            chart.mapFromScene(chart.chart()->mapRectToScene(chart.chart()->plotArea())).boundingRect());
        QVERIFY2(strip.top() > plot.bottom() + 10,
                 qPrintable(QStringLiteral("strip %1, plot bottom %2").arg(strip.top()).arg(plot.bottom())));
        QVERIFY(std::abs(strip.left() - plot.left()) <= 1.5 && std::abs(strip.right() - plot.right()) <= 1.5);
        for (int i = 0; i < 100; i += 7) {
            const auto at = chart.samplePosition(i);
            QVERIFY(at.has_value());
            QVERIFY(!strip.contains(QPointF(*at)));
        }
        QCOMPARE(chart.entropyPoints().size(), 10);
        for (const QPointF& p : chart.entropyPoints()) {
            const QPointF at = chart.entropyPosition(p.x(), p.y());
            QVERIFY(strip.adjusted(-0.5, -0.5, 0.5, 0.5).contains(at));
            QVERIFY(std::abs(at.y() - (strip.bottom() - p.y() * strip.height())) < 1e-9);
        }
        // Drawn: the line's colour is in the strip of the window's picture, not a blank strip.
        const QImage image = chart.grab().toImage();
        const QPointF mid = chart.entropyPosition(55, 0.725); // on the segment from (50, 0.75) to (60, 0.7)
        bool found = false;
        for (int dy = -3; dy <= 3 && !found; ++dy) {
            const QColor c = image.pixelColor(QPoint(qRound(mid.x()), qRound(mid.y()) + dy) * image.devicePixelRatio());
            // Antialiased over two pixels: a pixel well off the background, towards the line's colour.
            const QColor line = ChartColours::forTheme(chart.isDarkTheme()).entropy;
            const QColor back = chart.palette().color(QPalette::Base);
            found = colourDifference(c, back) > 25.0 && colourDifference(c, line) < colourDifference(back, line);
        }
        QVERIFY2(found, "no entropy line where the strip should show it");
        // The main chart holds no entropy series; its legend does not list one.
        for (QAbstractSeries* series : chart.chart()->series())
            QVERIFY(!series->name().contains(QStringLiteral("entropy")));
    }

    // The certified gap is drawn in the plot's top right corner, also when the entropy strip
    // has a line (whose clip once hid every later paint: the note showed only in runs without
    // policy updates).
    void certifiedGapIsDrawnBesideTheEntropyLine()
    {
        ShownChart shown;
        LearningChart& chart = shown.chart;
        QVERIFY(!chart.entropyPoints().isEmpty());
        QCOMPARE(chart.boundNote(), QStringLiteral("certified gap 68.3% to the lower bound"));
        const QImage image = chart.grab().toImage();
        const QRect plot = chart.mapFromScene(chart.chart()->mapRectToScene(chart.chart()->plotArea())).boundingRect();
        const QColor text = chart.palette().color(QPalette::Text);
        const QColor back = chart.palette().color(QPalette::Base);
        // The samples (100 down to 50.5 ms) leave that corner empty: text-coloured pixels there
        // are the note's.
        int textPixels = 0;
        for (int y = plot.top() + 4; y <= plot.top() + 30; ++y)
            for (int x = plot.right() - 220; x <= plot.right() - 4; ++x) {
                const QColor c = image.pixelColor(QPoint(x, y) * image.devicePixelRatio());
                textPixels += colourDifference(c, text) < colourDifference(back, text) / 3 ? 1 : 0;
            }
        QVERIFY2(textPixels > 40, qPrintable(QString::number(textPixels)));
    }

    void showBestMarksAndShowsTheBestSample()
    {
        ShownChart shown;
        LearningChart& chart = shown.chart;
        QCOMPARE(chart.bestSampleIndex(), 99);
        QSignalSpy clicked(&chart, &LearningChart::sampleClicked);
        QSignalSpy requested(&chart, &LearningChart::bestRequested);
        // Zoomed away from it: Show Best brings it back into view.
        chart.zoomTo(0, 20, 80, 100);
        chart.showBest();
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.first().at(0).toInt(), 99);
        QVERIFY(!chart.isZoomed());
        QVERIFY(chart.sampleAxis()->max() >= 99);
        // The key does the same.
        chart.setFocus();
        QTest::keyClick(&chart, Qt::Key_B);
        QCOMPARE(clicked.size(), 2);
        // A final pick that beats every sample is no sample: the window is asked for it.
        chart.finishRun(40.0);
        QCOMPARE(chart.bestSampleIndex(), -1);
        chart.showBest();
        QCOMPARE(requested.size(), 1);
        QCOMPARE(clicked.size(), 2);
    }

    // The sample axis spans the run's budget while it runs, and the samples drawn once it has
    // ended short of it (a time limit, Stop); a continued run gets its budget back.
    void sampleAxisFitsARunThatEndedEarly()
    {
        ShownChart shown(descendingRun(), 1000);
        LearningChart& chart = shown.chart;
        QCOMPARE(chart.sampleAxis()->max(), 1000.0);
        chart.finishRun(std::numeric_limits<double>::quiet_NaN());
        chart.flush();
        QCOMPARE(chart.sampleAxis()->max(), 100.0); // samples 0..99
        chart.continueRun(2000);
        chart.flush();
        QCOMPARE(chart.sampleAxis()->max(), 2000.0);
        // A time-limited run may end far short of its budget: while it goes the axis runs to
        // the first of 10, 20, 50, 100, 200, ... a fifth past the last sample, at most the budget.
        ShownChart timed(descendingRun(), 1000000);
        timed.chart.setTimeLimited(true);
        timed.chart.flush();
        QCOMPARE(timed.chart.sampleAxis()->max(), 200.0); // samples 0..99: 120 wanted
        LearnerSnapshot more;
        for (int i = 100; i < 180; ++i)
            more.samples.push_back(LearnerSample{i, 50.0, true});
        timed.chart.addSnapshot(more);
        timed.chart.flush();
        QCOMPARE(timed.chart.sampleAxis()->max(), 500.0); // 180 samples: 216 wanted
        timed.chart.reset(300);                           // a new run without a limit: its budget again
        timed.chart.flush();
        QCOMPARE(timed.chart.sampleAxis()->max(), 300.0);
        ShownChart small(descendingRun(), 150); // the budget caps the round number
        small.chart.setTimeLimited(true);
        small.chart.flush();
        QCOMPARE(small.chart.sampleAxis()->max(), 150.0);
    }

    // In the window: Run ▸ Show Best shows the best sample's placement.
    void runMenuShowBestShowsItsPlacement()
    {
        MainWindow window;
        QVERIFY(openTinyMlp(window));
        auto* panel = window.findChild<LearnerPanel*>();
        QSignalSpy finished(panel, &LearnerPanel::finished);
        panel->setAlgorithm(QStringLiteral("random"));
        panel->setSamples(40);
        panel->start();
        QVERIFY(finished.wait(20000));
        auto* chart = window.findChild<LearningChart*>();
        chart->flush();
        const int best = chart->bestSampleIndex();
        QVERIFY(best >= 0);
        window.hub()->setPlacement(panel->samplePlacement(0)); // something else on show
        auto* action = window.findChild<QAction*>(QStringLiteral("run-show-best"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_B));
        action->trigger();
        QCOMPARE(window.hub()->document()->placement, panel->samplePlacement(best));
    }

    // Dragging with the middle button (or Ctrl+left) moves the data with the mouse; Shift+wheel
    // and the arrow keys pan too. The width shown stays, and the axes stay put afterwards.
    void panningMovesTheView()
    {
        ShownChart shown;
        LearningChart& chart = shown.chart;
        chart.zoomTo(20, 60, 60, 90);
        QValueAxis* x = chart.sampleAxis();
        const QPoint from = plotPoint(chart, 40, 75);
        const QPoint to = plotPoint(chart, 30, 75); // 10 samples to the left
        sendMouse(chart, QEvent::MouseButtonPress, from, Qt::MiddleButton, Qt::MiddleButton);
        sendMouse(chart, QEvent::MouseMove, to, Qt::NoButton, Qt::MiddleButton);
        sendMouse(chart, QEvent::MouseButtonRelease, to, Qt::MiddleButton, Qt::NoButton);
        QVERIFY2(std::abs(x->min() - 30) < 0.5 && std::abs(x->max() - 70) < 0.5,
                 qPrintable(QStringLiteral("x %1..%2").arg(x->min()).arg(x->max())));
        QVERIFY(chart.isZoomed());
        // Ctrl+left drag upwards by 10 ms: lower step times come into view.
        const QPoint up = plotPoint(chart, 50, 85);
        const QPoint down = plotPoint(chart, 50, 75);
        sendMouse(chart, QEvent::MouseButtonPress, down, Qt::LeftButton, Qt::LeftButton, Qt::ControlModifier);
        sendMouse(chart, QEvent::MouseMove, up, Qt::NoButton, Qt::LeftButton, Qt::ControlModifier);
        sendMouse(chart, QEvent::MouseButtonRelease, up, Qt::LeftButton, Qt::NoButton, Qt::ControlModifier);
        QVERIFY2(std::abs(chart.stepAxisMin() - 50) < 0.5 && std::abs(chart.stepAxisMax() - 80) < 0.5,
                 qPrintable(QStringLiteral("y %1..%2").arg(chart.stepAxisMin()).arg(chart.stepAxisMax())));
        // Shift+wheel and the arrow keys pan the samples by a tenth of the width per step.
        const double min = x->min();
        const QPoint centre = plotPoint(chart, 50, 65);
        QWheelEvent wheel(QPointF(centre), chart.viewport()->mapToGlobal(QPointF(centre)), QPoint(), QPoint(0, -120),
                          Qt::NoButton, Qt::ShiftModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart.viewport(), &wheel);
        QVERIFY2(std::abs(x->min() - (min + 4)) < 0.3, qPrintable(QString::number(x->min())));
        QCOMPARE(x->max() - x->min(), 40.0);
        chart.setFocus();
        QTest::keyClick(&chart, Qt::Key_Left);
        QVERIFY(std::abs(x->min() - min) < 0.3);
        // New samples do not move a panned view; Escape goes back to following the run.
        LearnerSnapshot more;
        more.samples = {LearnerSample{150, 20.0, true}};
        chart.addSnapshot(more);
        chart.flush();
        QVERIFY(std::abs(x->min() - min) < 0.3);
        QTest::keyClick(&chart, Qt::Key_Escape);
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(x->max(), 151.0);
    }

    // The log axis: every series moves to it, the range covers the data, and equal ratios
    // are drawn at equal distances; L toggles back to the linear axis.
    // The lower-bound line names its source and carries the certified gap of the best so far;
    // a larger proven (milp) bound replaces it; a grouped bound gets its own line, labelled as
    // no bound of the graph, and never moves the lower bound, even when above the best.
    void lowerBoundLineNamesItsSourceAndGap()
    {
        LearningChart chart;
        chart.resize(900, 600);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.reset(100);
        LearnerSnapshot run = descendingRun(); // best 50.5 ms
        run.lowerBoundSource = QStringLiteral("critical-path");
        chart.addSnapshot(run);
        chart.flush();
        QCOMPARE(chart.lowerBoundSource(), QStringLiteral("critical-path"));
        QVERIFY(std::abs(chart.certifiedGap() - (50.5 - 30.0) / 30.0) < 1e-12);
        QVERIFY2(chart.legendNames().contains(QStringLiteral("lower bound (critical path)")),
                 qPrintable(chart.legendNames().join(QStringLiteral(" | "))));
        QCOMPARE(chart.boundNote(), QStringLiteral("certified gap 68.3% to the lower bound (critical path)"));
        chart.setProvenBound(40.4, false);
        chart.flush();
        QCOMPARE(chart.lowerBoundMs(), 40.4);
        QCOMPARE(chart.lowerBoundSource(), QStringLiteral("milp"));
        QCOMPARE(chart.lowerBoundSeries()->at(0).y(), 40.4);
        QVERIFY2(chart.legendNames().contains(QStringLiteral("lower bound (milp, proven)")),
                 qPrintable(chart.legendNames().join(QStringLiteral(" | "))));
        QCOMPARE(chart.boundNote(), QStringLiteral("certified gap 25.0% to the lower bound (milp, proven)"));
        chart.setProvenBound(0.0, false, 60.0, 12); // grouped, above the best: no bound of the graph
        chart.flush();
        QCOMPARE(chart.lowerBoundMs(), 40.4);
        QCOMPARE(chart.groupedBoundMs(), 60.0);
        QCOMPARE(chart.groupedBoundSeries()->at(0).y(), 60.0);
        QVERIFY2(chart.legendNames().contains(QStringLiteral("grouped bound (12 chunks)")),
                 qPrintable(chart.legendNames().join(QStringLiteral(" | "))));
        QCOMPARE(chart.boundNote(),
                 QStringLiteral("certified gap 25.0% to the lower bound (milp, proven)\ngrouped bound 60.000 ms on 12 "
                                "chunks: a bound of that grouping only, not of this graph"));
        // A smaller proven bound than the polynomial one leaves the polynomial line.
        chart.reset(100);
        chart.addSnapshot(run);
        chart.setProvenBound(20.0, false);
        chart.flush();
        QCOMPARE(chart.lowerBoundMs(), 30.0);
        QCOMPARE(chart.lowerBoundSource(), QStringLiteral("critical-path"));
        QCOMPARE(chart.groupedBoundMs(), 0.0); // reset() dropped the grouped line
        QVERIFY(chart.groupedBoundSeries()->count() == 0);
    }

    // A graph eager PyTorch runs: its host thread's dispatch is a line of the graph's, named
    // with its figure; a new run (reset) keeps it, a graph without one drops it.
    void hostDispatchLineIsTheGraphs()
    {
        LearningChart chart;
        chart.resize(900, 600);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.reset(100);
        chart.setHostDispatch(60.0);
        chart.addSnapshot(descendingRun()); // best 50.5 ms: all below the host's 60
        chart.flush();
        QCOMPARE(chart.hostDispatchSeries()->count(), 2);
        QCOMPARE(chart.hostDispatchSeries()->at(0).y(), 60.0);
        QCOMPARE(chart.hostDispatchSeries()->at(1).y(), 60.0);
        QVERIFY2(chart.legendNames().contains(QStringLiteral("host dispatch 60.00 ms (eager PyTorch)")),
                 qPrintable(chart.legendNames().join(QStringLiteral(" | "))));
        QVERIFY(chart.stepAxisMax() >= 60.0); // in the band shown
        chart.reset(100);
        chart.flush();
        QCOMPARE(chart.hostDispatchMs(), 60.0);
        QCOMPARE(chart.hostDispatchSeries()->count(), 2);
        chart.setHostDispatch(std::numeric_limits<double>::quiet_NaN());
        chart.flush();
        QCOMPARE(chart.hostDispatchSeries()->count(), 0);
        QVERIFY(!chart.legendNames().join(QStringLiteral(" | ")).contains(QStringLiteral("host dispatch")));
    }

    // In the window: a milp run on a small graph proves its placement optimal, and the chart
    // says so on the lower-bound line.
    void milpRunShowsProvenOptimal()
    {
        MainWindow window;
        QVERIFY(openTinyMlp(window));
        auto* panel = window.findChild<LearnerPanel*>();
        QSignalSpy finished(panel, &LearnerPanel::finished);
        panel->setAlgorithm(QStringLiteral("milp"));
        panel->start();
        QVERIFY(finished.wait(30000));
        const auto outcome = finished.at(0).at(0).value<LearnerOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(outcome.result.bounds.provenOptimal);
        auto* chart = window.findChild<LearningChart*>();
        chart->flush();
        QCOMPARE(chart->lowerBoundSource(), QStringLiteral("milp"));
        QVERIFY(chart->certifiedGap() >= 0.0 && chart->certifiedGap() <= 1e-5); // the solver's tolerance
        QVERIFY2(chart->legendNames().contains(QStringLiteral("lower bound (milp, proven)")),
                 qPrintable(chart->legendNames().join(QStringLiteral(" | "))));
        QCOMPARE(chart->boundNote(), QStringLiteral("best proven optimal (milp)"));
    }

    // The host's line lies above the band the linear axis keeps (twice the best classical
    // placer): it is drawn all the same (resnet_et at amp on a100x8-nvlink: samples 17-29 ms,
    // the host's 42.39 ms line above a 40 ms axis, named in the legend and never drawn).
    void hostDispatchLineIsInTheRangeShown()
    {
        LearnerSnapshot snapshot;
        snapshot.samples = {{0, 29.0, true}, {1, 22.0, true}, {2, 16.7, true}};
        snapshot.classicalMs = 16.9;
        snapshot.classicalName = QStringLiteral("single");
        snapshot.singleDeviceMs = 16.9;
        snapshot.lowerBoundMs = 14.7;
        ShownChart shown(snapshot, 3);
        LearningChart& chart = shown.chart;
        chart.setHostDispatch(42.39);
        chart.flush();
        QVERIFY2(chart.stepAxisMax() >= 42.39, qPrintable(QStringLiteral("y max %1").arg(chart.stepAxisMax())));
        QVERIFY(chart.stepAxisMin() <= 14.7);
    }

    void farOutliersLeaveTheBandOfInterest()
    {
        // The default's first samples are its classical starts (the CPU placement at 9x the
        // best classical placer on nasnetamobile): the linear axis stops at twice the best
        // classical placer, the log axis shows every sample.
        LearnerSnapshot snapshot;
        snapshot.samples = {{0, 7000.0, true}, {1, 2000.0, true}, {2, 780.0, true}, {3, 700.0, true}};
        snapshot.classicalMs = 775.0;
        snapshot.classicalName = QStringLiteral("m-sct");
        snapshot.lowerBoundMs = 600.0;
        ShownChart shown(snapshot, 6);
        LearningChart& chart = shown.chart;
        // Twice 775 ms and a pad, rounded up to nice tick numbers: at most 2,000 ms.
        QVERIFY2(chart.stepAxisMax() <= 2000.0 && chart.stepAxisMax() >= 2.0 * 775.0,
                 qPrintable(QStringLiteral("y max %1").arg(chart.stepAxisMax())));
        QVERIFY(chart.stepAxisMin() <= 600.0);
        chart.setLogScale(true);
        QVERIFY(chart.stepAxisMax() >= 7000.0);
    }

    void logScaleToggles()
    {
        LearnerSnapshot snapshot;
        snapshot.samples = {{0, 1000.0, true}, {1, 100.0, true}, {2, 10.0, true}, {3, 50.0, true}};
        ShownChart shown(snapshot, 4);
        LearningChart& chart = shown.chart;
        QVERIFY(!chart.isLogScale());
        QVERIFY(qobject_cast<QValueAxis*>(chart.stepAxis()));
        chart.setLogScale(true);
        QVERIFY(chart.isLogScale());
        auto* log = qobject_cast<QLogValueAxis*>(chart.stepAxis());
        QVERIFY(log);
        QCOMPARE(chart.chart()->axes(Qt::Vertical), QList<QAbstractAxis*>{log});
        for (QAbstractSeries* series : chart.chart()->series())
            QVERIFY(series->attachedAxes().contains(log));
        QVERIFY(chart.stepAxisMin() <= 10.0 && chart.stepAxisMin() > 1.0);
        QVERIFY(chart.stepAxisMax() >= 1000.0 && chart.stepAxisMax() < 10000.0);
        const double y1000 = chart.samplePosition(0)->y();
        const double y100 = chart.samplePosition(1)->y();
        const double y10 = chart.samplePosition(2)->y();
        QVERIFY2(std::abs((y10 - y100) - (y100 - y1000)) <= 2.0,
                 qPrintable(QStringLiteral("%1 %2 %3").arg(y1000).arg(y100).arg(y10)));
        // Wheel zoom keeps the value under the cursor in place on the log axis too.
        const QPoint at = *chart.samplePosition(1);
        QWheelEvent wheel(QPointF(at), chart.viewport()->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart.viewport(), &wheel);
        QVERIFY(chart.isZoomed());
        QVERIFY(std::abs(chart.samplePosition(1)->y() - at.y()) <= 2);
        chart.setFocus();
        QTest::keyClick(&chart, Qt::Key_L);
        QVERIFY(!chart.isLogScale());
        QVERIFY(!chart.isZoomed());
        auto* linear = qobject_cast<QValueAxis*>(chart.stepAxis());
        QVERIFY(linear);
        QCOMPARE(chart.chart()->axes(Qt::Vertical), QList<QAbstractAxis*>{linear});
        QVERIFY(chart.stepAxisMin() <= 10.0 && chart.stepAxisMax() >= 1000.0);
    }
};

QTEST_MAIN(TestLearningChart)
#include "test_learning_chart.moc"
