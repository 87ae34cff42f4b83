#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"

#include "core/sim/Simulator.h"
#include "ui/MainWindow.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/timeline/StepStatusLabel.h"
#include "ui/timeline/TimeTicks.h"
#include "ui/timeline/TimelinePanel.h"
#include "ui/timeline/TimelineView.h"
#include "ui/util/ElidingLabel.h"
#include "ui/util/Format.h"

#include <QHelpEvent>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QtTest>

#include <set>

using namespace post;

namespace {

constexpr int kWaitMs = 30000;

// input on the CPU, conv and fc on GPU:0, relu on GPU:1. By hand (docs/simulator.md; links
// 20 µs + bytes / 12,000 B/µs; GPU:1 runs at speed 2):
//   input  CPU    0 .. 0          input -> GPU:0 (1000 B)  0 .. 20.0833
//   conv   GPU:0  20.0833 .. 120.0833   conv -> GPU:1 (4000 B)  120.0833 .. 140.4167
//   relu   GPU:1  140.4167 .. 145.4167  relu -> GPU:0 (4000 B)  145.4167 .. 165.75
//   fc     GPU:0  165.75 .. 205.75      (conv -> fc stays on GPU:0)
const Placement kPlacement = {0, 1, 2, 1};
constexpr double kStepUs = 205.75;

// Sets of (producer, destination device) over cross-device edges: the transfers the
// simulator must make (one per producer and destination), derived from the edges alone.
std::set<std::pair<OpId, DeviceId>> expectedTransfers(const Graph& graph, const Placement& placement)
{
    std::set<std::pair<OpId, DeviceId>> out;
    for (const Edge& e : graph.edges())
        if (placement[static_cast<size_t>(e.from)] != placement[static_cast<size_t>(e.to)])
            out.insert({e.from, placement[static_cast<size_t>(e.to)]});
    return out;
}

// Devices by colocation group (or op) in turn: a valid placement with plenty of transfers.
Placement spreadPlacement(const Graph& graph, int devices)
{
    Placement p(static_cast<size_t>(graph.opCount()));
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const int group = graph.colocationGroup(op);
        p[static_cast<size_t>(op)] = (group >= 0 ? group : op) % devices;
    }
    return p;
}

void show(QWidget& widget)
{
    widget.show();
    if (!QTest::qWaitForWindowExposed(&widget))
        qFatal("window not exposed");
}

// Every op of the small graph on GPU:0, made too small for fc's parameters (1000 bytes):
// out of memory there.
StepPtr outOfMemoryStep()
{
    auto doc = std::make_shared<GraphDocument>(*uitest::smallDocument({1, 1, 1, 1}));
    std::vector<Device> devices(doc->cluster->devices().begin(), doc->cluster->devices().end());
    devices[1].memoryBytes = 1000;
    doc->cluster = std::make_shared<const Cluster>("tight", std::move(devices), Link{});
    return SimulatedStep::simulate(doc);
}

// grad -> all-reduce (80 us, measured, so not the ring model's) and grad -> other (120 us,
// independent of the all-reduce, so it overlaps it), placed as `placement` on uitest::cluster().
DocumentPtr allReduceDocument(Placement placement)
{
    GraphBuilder b("with-allreduce");
    b.addOp(uitest::op("grad", "MatMul", 100, 4000, 0));
    Op allReduce = uitest::op("allreduce", "Collective", 80, 0, 0);
    allReduce.collective = CollectiveKind::AllReduce;
    allReduce.measuredKinds = 0b11;
    b.addOp(std::move(allReduce));
    b.addOp(uitest::op("other", "MatMul", 120, 100, 0));
    b.addEdge("grad", "allreduce");
    b.addEdge("grad", "other");
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("collective");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = uitest::cluster();
    doc->placement = std::move(placement);
    return doc;
}

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    void lanesAreDevicesThenUsedLinks()
    {
        const StepPtr step = SimulatedStep::simulate(uitest::smallDocument(kPlacement));
        QVERIFY(step);
        QVERIFY(qAbs(step->result.stepTimeUs - kStepUs) < 1e-9);
        QCOMPARE(step->deviceLaneCount, 3);
        QCOMPARE(step->lanes.size(), size_t(6)); // 3 devices + CPU->GPU:0, GPU:0->GPU:1, GPU:1->GPU:0
        QCOMPARE(step->lanes[0].name, QStringLiteral("CPU:0"));
        QCOMPARE(step->lanes[3].name, QStringLiteral("CPU:0 → GPU:0"));
        QCOMPARE(step->lanes[4].name, QStringLiteral("GPU:0 → GPU:1"));
        QCOMPARE(step->lanes[5].name, QStringLiteral("GPU:1 → GPU:0"));
        QCOMPARE(step->lanes[5].fullName, QStringLiteral("/device:GPU:1 → /device:GPU:0"));
        // GPU:0 runs conv then fc.
        const auto& gpu0 = step->lanes[1].bars;
        QCOMPARE(gpu0.size(), size_t(2));
        QCOMPARE(gpu0[0].item, 1);
        QCOMPARE(gpu0[1].item, 3);
        QVERIFY(qAbs(gpu0[0].startUs - 20.083333) < 1e-3);
        QVERIFY(qAbs(gpu0[1].startUs - 165.75) < 1e-9);
        QCOMPARE(step->barOfOp[2].lane, 2);
        QCOMPARE(step->barOfOp[2].index, 0);
        QVERIFY(qAbs(step->lanes[4].bars[0].startUs - 120.083333) < 1e-3);
    }

    // A collective runs on its device's communication channel, beside compute: its bar goes to
    // a lane of its own ("GPU:0 collectives", after the devices', before the links) so no lane's
    // bars overlap, which hit testing's binary search relies on.
    void collectivesHaveALaneOfTheirOwn()
    {
        const StepPtr step = SimulatedStep::simulate(allReduceDocument({1, 1, 1}));
        QVERIFY(step);
        QCOMPARE(step->collectiveLaneCount, 1);
        QCOMPARE(step->deviceLaneCount, 4);
        QCOMPARE(step->lanes.size(), size_t(4)); // one device: no transfers
        QCOMPARE(step->lanes[3].name, QStringLiteral("GPU:0 collectives"));
        QCOMPARE(step->lanes[3].device, DeviceId{1});
        QCOMPARE(step->barOfOp[1].lane, 3);
        QCOMPARE(step->lanes[1].bars.size(), size_t(2)); // grad and other on the compute lane
        const TimelineBar& collective = step->lanes[3].bars[0];
        const TimelineBar& other = step->lanes[1].bars[1];
        QVERIFY(collective.startUs < other.endUs && other.startUs < collective.endUs); // they overlap in time
        for (const TimelineLane& lane : step->lanes)
            for (size_t i = 1; i < lane.bars.size(); ++i)
                QVERIFY(lane.bars[i - 1].endUs <= lane.bars[i].startUs + 1e-9);
    }

    // The label column is as wide as the longest lane name needs, as the header paints it: a
    // collectives lane's "GPU:0 collectives" and a link's name are drawn whole (the first was
    // drawn "GPU:0 c…ectives"). A name too long for the widest column is elided in the middle
    // and its lane's label has the whole name as its tooltip, as every label does.
    void laneLabelsAreWholeOrElidedWithATooltip()
    {
        const DocumentPtr doc = allReduceDocument({1, 1, 2});
        TimelineView view;
        view.resize(900, 300);
        show(view);
        view.setStep(SimulatedStep::simulate(doc));
        QCOMPARE(view.laneCount(), 5); // CPU, GPU:0, GPU:1, GPU:0 collectives, GPU:0 -> GPU:1
        const QStringList whole = {QStringLiteral("CPU:0"), QStringLiteral("GPU:0"), QStringLiteral("GPU:1"),
                                   QStringLiteral("GPU:0 collectives"), QStringLiteral("GPU:0 → GPU:1")};
        for (int lane = 0; lane < view.laneCount(); ++lane)
            QCOMPARE(view.laneLabel(lane), whole[lane]);
        QVERIFY(view.laneToolTip(3).startsWith(QStringLiteral("/device:GPU:0 collectives")));
        QVERIFY(view.laneToolTip(3).contains(QStringLiteral("communication channel")));
        QVERIFY(view.laneToolTip(4).contains(QStringLiteral("/device:GPU:0 → /device:GPU:1")));
        // The label column, where the header draws lane 3's label: it names that lane.
        const QPoint onLabel(30, TimelineView::kAxisHeight + 3 * view.laneHeight() + view.laneHeight() / 2);
        QCOMPARE(view.laneLabelAt(onLabel), 3);
        QCOMPARE(view.laneLabelAt(QPoint(view.headerWidth() + 5, onLabel.y())), -1);
        // Past the widest column: elided in the middle, the whole name in the tooltip.
        std::vector<Device> devices(doc->cluster->devices().begin(), doc->cluster->devices().end());
        devices[1].name = "gpu-node-with-a-very-long-host-name-for-its-first-accelerator-0";
        auto named = std::make_shared<GraphDocument>(*doc);
        named->cluster = std::make_shared<const Cluster>("long", std::move(devices), Link{});
        view.setStep(SimulatedStep::simulate(named));
        QCOMPARE(view.headerWidth(), TimelineView::kMaxHeaderWidth);
        QVERIFY(view.laneLabel(1).contains(QStringLiteral("…")));
        QVERIFY(view.laneLabel(1).startsWith(QStringLiteral("gpu-node")));
        QVERIFY(view.fontMetrics().horizontalAdvance(view.laneLabel(1)) <= view.headerWidth() - 26);
        QVERIFY(view.laneToolTip(1).startsWith(
            QStringLiteral("gpu-node-with-a-very-long-host-name-for-its-first-accelerator-0")));
        QCOMPARE(view.laneLabel(2), QStringLiteral("GPU:1"));
    }

    // The step carries its critical path (core/sim/CriticalPath, tested in
    // core/test_critical_path): input -> conv -> relu (GPU:1) -> fc (GPU:0), three transfers.
    void criticalPathRunsFromStartToEnd()
    {
        const DocumentPtr doc = uitest::smallDocument({0, 1, 2, 1}); // input CPU, conv GPU:0, relu GPU:1, fc GPU:0
        const StepPtr step = SimulatedStep::simulate(doc);
        QVERIFY(step);
        QCOMPARE(step->criticalOps, (std::vector<OpId>{0, 1, 2, 3}));
        QCOMPARE(step->criticalTransfers.size(), size_t(3));
        QVERIFY(step->opOnCriticalPath[2]
                && step->transferOnCriticalPath[static_cast<size_t>(step->criticalTransfers[1])]);

        // Drawn outlined on the timeline; C (and the panel's button) switches it off and on.
        TimelinePanel panel;
        panel.resize(900, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setStep(step);
        QVERIFY(panel.summaryText().contains(QStringLiteral("critical path 4 ops, 3 transfers")));
        panel.view()->viewport()->repaint();
        QCOMPARE(panel.view()->lastPaintedCritical(), 7);
        panel.view()->setFocus();
        QTest::keyClick(panel.view(), Qt::Key_C);
        QVERIFY(!panel.view()->showsCriticalPath());
        QVERIFY(!panel.findChild<QToolButton*>(QStringLiteral("criticalPath"))->isChecked());
        panel.view()->viewport()->repaint();
        QCOMPARE(panel.view()->lastPaintedCritical(), 0);
        panel.findChild<QToolButton*>(QStringLiteral("criticalPath"))->click();
        QVERIFY(panel.view()->showsCriticalPath());
    }

    void viewCountsLanesAndBars()
    {
        TimelineView view;
        view.resize(900, 300);
        show(view);
        view.setStep(SimulatedStep::simulate(uitest::smallDocument(kPlacement)));
        QCOMPARE(view.laneCount(), 6);
        QCOMPARE(view.barCount(), 4 + 3); // ops + transfers
        // Fitted: the whole step is visible.
        QVERIFY(view.visibleStartUs() <= 0.0);
        QVERIFY(view.visibleStartUs() + view.visibleSpanUs() >= kStepUs);
    }

    void hoverTellsWhatABarIs()
    {
        const StepPtr step = SimulatedStep::simulate(uitest::smallDocument(kPlacement));
        TimelineView view;
        view.resize(900, 300);
        show(view);
        view.setStep(step);

        const auto conv = step->barOfOp[1];
        const QRectF rect = view.barRect(conv);
        QVERIFY(rect.width() > 100); // 100 of 186 µs across ~800 px
        const auto hit = view.barAt(rect.center().toPoint());
        QCOMPARE(hit.lane, conv.lane);
        QCOMPARE(hit.index, conv.index);
        const QString tip = view.toolTipFor(hit);
        QCOMPARE(tip,
                 QStringLiteral("conv\nType: Conv2d\nDevice: /device:GPU:0\n"
                                "Start 0.020 ms, end 0.120 ms\nDuration 100 µs"));

        // A transfer: the producer, bytes and link.
        const TimelineView::BarRef transfer{4, 0};
        QCOMPARE(view.opOf(transfer), OpId(1));
        const QString transferTip = view.toolTipFor(view.barAt(view.barRect(transfer).center().toPoint()));
        QVERIFY2(transferTip.startsWith(QStringLiteral("Transfer of conv's output\nBytes: 4.00 KB\n"
                                                       "Link: /device:GPU:0 → /device:GPU:1\n")),
                 qPrintable(transferTip));
        QVERIFY(transferTip.contains(QStringLiteral("Duration 20.3 µs")));

        // Empty space: nothing.
        QVERIFY(!view.barAt(QPoint(view.viewport()->width() - 2, view.viewport()->height() - 2)).valid());

        // The real tooltip event shows the same text.
        const QPoint at = rect.center().toPoint();
        QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
        QApplication::sendEvent(view.viewport(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QStringLiteral("Type: Conv2d")), qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    void wheelZoomKeepsTheTimeUnderTheMouse()
    {
        const StepPtr step = SimulatedStep::simulate(uitest::smallDocument(kPlacement));
        TimelineView view;
        view.resize(900, 300);
        show(view);
        view.setStep(step);
        const TimelineView::BarRef relu = step->barOfOp[2];
        const double x = view.barRect(relu).center().x();
        const double spanBefore = view.visibleSpanUs();
        const double widthBefore = view.barRect(step->barOfOp[1]).width();
        const QPointF pos(x, 60);
        QWheelEvent wheel(pos, view.viewport()->mapToGlobal(pos), QPoint(), QPoint(0, 240), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QVERIFY(view.visibleSpanUs() < spanBefore / 1.4); // 1.0015^240 = 1.433
        QVERIFY(qAbs(view.barRect(relu).center().x() - x) < 1.0);
        const double ratio = view.barRect(step->barOfOp[1]).width() / widthBefore;
        QVERIFY2(qAbs(ratio - spanBefore / view.visibleSpanUs()) < 1e-6,
                 qPrintable(QStringLiteral("%1 %2 %3").arg(ratio).arg(spanBefore).arg(view.visibleSpanUs())));
        view.fit();
        QCOMPARE(view.visibleSpanUs(), spanBefore);
    }

    void subPixelBarsAreMergedWhenPainting()
    {
        // 2,000 ops in a chain on one device over ~2 s: at 400 px every bar is far below a
        // pixel and they touch, so the lane paints as one block.
        auto chain = uitest::chainDocument(2000);
        auto placed = std::make_shared<GraphDocument>(*chain);
        placed->placement.assign(2000, 1);
        TimelineView view;
        view.resize(500, 200);
        show(view);
        view.setStep(SimulatedStep::simulate(placed));
        QCOMPARE(view.barCount(), 2000);
        view.grab();
        QCOMPARE(view.lastPaintedBars(), 1);
        // The first millisecond: op k lasts k + 1 µs, so ops 0..44 show (1 + ... + 45 =
        // 1035 µs); at ~0.38 px/µs the first five (under 2 px) merge into one block and
        // the other 40 are drawn one by one.
        view.showRange(0.0, 1000.0);
        QCOMPARE(view.visibleStartUs(), 0.0);
        QVERIFY(qAbs(view.visibleSpanUs() - 1000.0) < 1e-6);
        view.grab();
        QVERIFY2(view.lastPaintedBars() >= 40 && view.lastPaintedBars() <= 42,
                 qPrintable(QString::number(view.lastPaintedBars())));
    }

    void ticksAreRoundMilliseconds()
    {
        const TimeTicks t = TimeTicks::make(0.0, 10000.0, 0.05, 80.0); // 80 px = 1600 µs -> 2 ms steps
        QCOMPARE(t.stepUs, 2000.0);
        QCOMPARE(t.atUs.size(), size_t(6));
        QCOMPARE(t.label(4000.0), QStringLiteral("4"));
        const TimeTicks fine = TimeTicks::make(100.0, 200.0, 8.0, 80.0); // 10 µs steps
        QCOMPARE(fine.stepUs, 10.0);
        QCOMPARE(fine.label(120.0), QStringLiteral("0.12"));
    }

    void largeGraphsAreSimulatedOffTheGuiThreadAndStaleOnesDropped()
    {
        StepSimulation simulation;
        simulation.setSynchronousMaxOps(0);
        QSignalSpy simulated(&simulation, &StepSimulation::simulated);
        QSignalSpy busy(&simulation, &StepSimulation::busyChanged);
        const DocumentPtr first = uitest::smallDocument(kPlacement);
        const DocumentPtr second = uitest::smallDocument({1, 1, 1, 1});
        simulation.setDocument(first);
        QVERIFY(simulation.isBusy());
        QCOMPARE(simulated.count(), 0); // not on this thread
        simulation.setDocument(second);
        QTRY_VERIFY_WITH_TIMEOUT(!simulation.isBusy() && simulated.count() > 0, kWaitMs);
        QTest::qWait(20);
        QCOMPARE(simulated.count(), 1); // only the newest
        const StepPtr step = simulated.at(0).at(0).value<StepPtr>();
        QVERIFY(step);
        QCOMPARE(step->document, second);
        QCOMPARE(step->result.stepTimeUs, 150.0); // everything on GPU:0: 0 + 100 + 10 + 40
        QCOMPARE(simulation.current(), step);
        QCOMPARE(busy.first().first().toBool(), true);
        QCOMPARE(busy.last().first().toBool(), false);

        // Unplaced: nothing to simulate, reported at once.
        simulation.setDocument(uitest::smallDocument());
        QCOMPARE(simulated.count(), 2);
        QVERIFY(!simulated.last().first().value<StepPtr>());
    }

    void statusTextNamesStepTimeAndMemory()
    {
        const StepPtr step = SimulatedStep::simulate(uitest::smallDocument(kPlacement));
        // GPU:0 holds conv and fc: parameters (800 + 20,000) x 3 plus live tensors; the text
        // names the fullest device.
        const QString text = StepStatusLabel::textFor(*step);
        QVERIFY2(text.startsWith(QStringLiteral("Step 206 µs · fits memory · peak ")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral(" on GPU:0 · tf32")), qPrintable(text)); // and the precision mode

        // A GPU too small for fc's parameters: out of memory, naming it.
        const StepPtr tight = outOfMemoryStep();
        QVERIFY(!tight->result.feasible);
        QVERIFY2(StepStatusLabel::textFor(*tight).contains(QStringLiteral("out of memory: GPU:0 needs ")),
                 qPrintable(StepStatusLabel::textFor(*tight)));

        // Run by eager PyTorch, its three ops that do work (not the input) take the host thread
        // 3 x 47 us = 141 us to issue, less than the 206 us step: nothing to say. On GPU:1 alone
        // (speed 2) the step is 95 us: the label says it is host-bound, and its tooltip why.
        auto eager = std::make_shared<GraphDocument>(*uitest::smallDocument(kPlacement));
        eager->eagerHost = true;
        QVERIFY(!StepStatusLabel::textFor(*SimulatedStep::simulate(eager)).contains(QStringLiteral("host")));
        QVERIFY(StepStatusLabel::hostNoteFor(*SimulatedStep::simulate(eager)).empty());
        eager->placement = {0, 2, 2, 2};
        const StepPtr hostBound = SimulatedStep::simulate(eager);
        QVERIFY2(hostBound->result.stepTimeUs < 141.0, qPrintable(QString::number(hostBound->result.stepTimeUs)));
        QVERIFY2(StepStatusLabel::textFor(*hostBound).contains(QStringLiteral(" · host-bound: about 141 µs to issue")),
                 qPrintable(StepStatusLabel::textFor(*hostBound)));
        QVERIFY2(StepStatusLabel::hostNoteFor(*hostBound).starts_with("Eager PyTorch issues this step's 3 ops"),
                 StepStatusLabel::hostNoteFor(*hostBound).c_str());
        StepStatusLabel label;
        label.setStep(hostBound);
        QVERIFY2(label.toolTip().contains(QStringLiteral("likely bound by the host")), qPrintable(label.toolTip()));
        label.setStep(SimulatedStep::simulate(uitest::smallDocument(kPlacement)));
        QVERIFY(!label.toolTip().contains(QStringLiteral("host")));

        // A graph without a byte anywhere (a Chakra trace's): its peak of 0 B is no finding.
        auto unsized = std::make_shared<GraphDocument>(*uitest::smallDocument(kPlacement));
        GraphBuilder b("unsized");
        for (const Op& op : unsized->graph->ops()) {
            Op bare = op;
            bare.outputBytes = bare.paramBytes = 0.0;
            b.addOp(std::move(bare));
        }
        for (const Edge& e : unsized->graph->edges())
            b.addEdge(e.from, e.to, 0.0);
        unsized->graph = std::make_shared<const Graph>(std::move(b).build());
        const QString unknown = StepStatusLabel::textFor(*SimulatedStep::simulate(unsized));
        QVERIFY2(unknown.contains(QStringLiteral(" · memory unknown (the graph gives no sizes) · ")),
                 qPrintable(unknown));
        QVERIFY(!unknown.contains(QStringLiteral("fits memory")));
    }

    // The summary counts the devices that hold ops (every op on GPU:0 was "4 ops on 3
    // devices"), and says out of memory as the status bar does.
    // A summary wider than the panel is cut with "…", and its tooltip then has the whole text.
    void summaryElidesWithItsWholeTextAsTooltip()
    {
        TimelinePanel panel;
        panel.setStep(SimulatedStep::simulate(uitest::smallDocument({0, 1, 2, 1})));
        panel.resize(1400, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* summary = panel.findChild<ElidingLabel*>();
        QVERIFY(summary);
        QVERIFY2(!summary->isElided(), qPrintable(summary->shownText()));
        panel.resize(420, 400);
        QTRY_VERIFY(summary->isElided());
        QVERIFY2(summary->shownText().endsWith(QStringLiteral("…")), qPrintable(summary->shownText()));
        QVERIFY2(summary->effectiveToolTip().startsWith(panel.summaryText()), qPrintable(summary->effectiveToolTip()));
    }

    void summaryCountsTheDevicesHoldingOpsAndSaysOutOfMemory()
    {
        TimelinePanel panel;
        panel.setStep(SimulatedStep::simulate(uitest::smallDocument({1, 1, 1, 1})));
        QVERIFY2(panel.summaryText().contains(QStringLiteral(" · 4 ops on 1 of 3 devices · ")),
                 qPrintable(panel.summaryText()));
        QVERIFY(!panel.summaryText().contains(QStringLiteral("memory")));
        panel.setStep(SimulatedStep::simulate(uitest::smallDocument({0, 1, 2, 1})));
        QVERIFY2(panel.summaryText().contains(QStringLiteral(" · 4 ops on 3 devices · ")),
                 qPrintable(panel.summaryText()));
        panel.setStep(SimulatedStep::simulate(uitest::smallDocument({1, 1, 2, 1})));
        QVERIFY2(panel.summaryText().contains(QStringLiteral(" · 4 ops on 2 of 3 devices · ")),
                 qPrintable(panel.summaryText()));

        const StepPtr tight = outOfMemoryStep();
        QVERIFY(!tight->result.feasible);
        panel.setStep(tight);
        const QString memory = StepStatusLabel::memoryText(*tight);
        QVERIFY2(memory.startsWith(QStringLiteral("out of memory: GPU:0 needs ")), qPrintable(memory));
        QVERIFY2(panel.summaryText().contains(QStringLiteral(" · ⚠ ") + memory + QStringLiteral(" · 4 ops on 1 of")),
                 qPrintable(panel.summaryText()));
        QVERIFY2(StepStatusLabel::textFor(*tight).contains(memory), qPrintable(StepStatusLabel::textFor(*tight)));
    }

    void mainWindowShowsTheStepAndClicksSelectOps()
    {
        const QString sample = qEnvironmentVariable("POST_SOURCE_DIR")
            + QStringLiteral("/samples/graphs/inception-block.json");
        MainWindow window;
        window.setInteractiveErrors(false);
        window.resize(1200, 800);
        window.show();
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(sample);
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(!window.findChild<StepStatusLabel*>()->isVisible()); // nothing placed yet

        const Graph& graph = *window.hub()->document()->graph;
        const int devices = window.hub()->document()->cluster->deviceCount();
        const Placement placement = spreadPlacement(graph, devices);
        window.hub()->setPlacement(placement);
        QVERIFY(window.showCentralTab(QStringLiteral("timeline")));
        TimelineView* view = window.findChild<TimelinePanel*>()->view();
        QTRY_VERIFY_WITH_TIMEOUT(view->step() != nullptr, kWaitMs);
        QTRY_VERIFY(view->isVisible() && view->viewport()->width() > 600);

        const auto transfers = expectedTransfers(graph, placement);
        std::set<std::pair<DeviceId, DeviceId>> links;
        for (const auto& [producer, to] : transfers)
            links.insert({placement[static_cast<size_t>(producer)], to});
        QVERIFY(!links.empty());
        QCOMPARE(view->laneCount(), devices + static_cast<int>(links.size()));
        QCOMPARE(view->barCount(), graph.opCount() + static_cast<int>(transfers.size()));

        // The status bar shows core's step time for this placement.
        Simulator simulator(graph, *window.hub()->document()->cluster);
        const double stepUs = simulator.run(placement).stepTimeUs;
        QVERIFY(window.findChild<StepStatusLabel*>()->isVisible());
        QVERIFY2(window.findChild<StepStatusLabel*>()->text().startsWith(QStringLiteral("Step ")
                                                                         + formatMicroseconds(stepUs)),
                 qPrintable(window.findChild<StepStatusLabel*>()->text()));

        // Click the longest op's bar: the window selects it everywhere.
        const StepPtr step = view->step();
        OpId longest = 0;
        double best = -1;
        for (const OpSpan& s : step->result.timeline.ops)
            if (s.endUs - s.startUs > best) {
                best = s.endUs - s.startUs;
                longest = s.op;
            }
        const QRectF rect = view->barRect(step->barOfOp[static_cast<size_t>(longest)]);
        QVERIFY2(rect.width() >= 3, qPrintable(QString::number(rect.width())));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center().toPoint());
        QCOMPARE(view->selectedOp(), longest);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->selectedOp(), longest);

        // Selecting elsewhere outlines the op here too.
        window.selectOp(0, false);
        QCOMPARE(view->selectedOp(), OpId(0));

        // A new placement refreshes the timeline and the status bar.
        window.hub()->setPlacement(Placement(static_cast<size_t>(graph.opCount()), 1));
        QTRY_COMPARE_WITH_TIMEOUT(view->laneCount(), devices, kWaitMs);
        QCOMPARE(view->barCount(), graph.opCount());
    }
};

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
