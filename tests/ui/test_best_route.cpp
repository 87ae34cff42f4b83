// A learner's new bests on their way to the screen (issue 21 item 2): the coalescer that
// applies only the newest of a burst, the window's use of it, and the panels that follow a
// new placement of the same graph incrementally (the inspector keeps what did not change).
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"

#include "ui/MainWindow.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/learn/PlacementCoalescer.h"
#include "ui/models/DeviceTableModel.h"
#include "ui/models/OpTableModel.h"
#include "ui/panels/DeviceTablePanel.h"
#include "ui/panels/OpTablePanel.h"

#include <QtTest>

#include <algorithm>
#include <vector>

using namespace post;

namespace {

// Placement i of a burst (i < 255): every op on one of the two GPUs, op k on GPU:1 when bit
// k % 8 of i + 1 is set, so no two are equal and none is all on GPU:0.
Placement burstPlacement(int ops, int i)
{
    Placement p(static_cast<size_t>(ops));
    for (int op = 0; op < ops; ++op)
        p[static_cast<size_t>(op)] = 1 + (((i + 1) >> (op % 8)) & 1);
    return p;
}

} // namespace

class TestBestRoute : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    // A burst within one frame: the first goes at once, the rest wait and only the newest of
    // them is applied, one frame later.
    void aBurstAppliesTheFirstAndThenOnlyTheNewest()
    {
        PlacementCoalescer coalescer;
        coalescer.setFrameMs(500); // long, so a loaded machine cannot end the frame within the burst
        std::vector<Placement> applied;
        connect(&coalescer, &PlacementCoalescer::apply, [&](const Placement& p) { applied.push_back(p); });
        for (int i = 0; i < 10; ++i)
            coalescer.offer(burstPlacement(8, i));
        QCOMPARE(applied.size(), size_t(1));
        QCOMPARE(applied.back(), burstPlacement(8, 0)); // a quiet frame before it: no delay
        QVERIFY(coalescer.hasPending());
        QTRY_COMPARE(applied.size(), size_t(2));
        QCOMPARE(applied.back(), burstPlacement(8, 9));
        QCOMPARE(coalescer.superseded(), 8); // 1..8 never shown
        QTest::qWait(100);
        QCOMPARE(applied.size(), size_t(2)); // nothing after the newest
        QVERIFY(!coalescer.hasPending());
    }

    // While the previous best's step is simulated (busy) the newest waits; the gate opening
    // sends it at the next turn of the event loop, not inside the signal that opened it.
    void aBusyGateHoldsTheNewestUntilItOpens()
    {
        PlacementCoalescer coalescer;
        coalescer.setFrameMs(0);
        coalescer.setMaxHoldMs(60000);
        bool busy = true;
        coalescer.setBusy([&] { return busy; });
        std::vector<Placement> applied;
        connect(&coalescer, &PlacementCoalescer::apply, [&](const Placement& p) { applied.push_back(p); });
        coalescer.offer(burstPlacement(8, 1));
        coalescer.offer(burstPlacement(8, 2));
        QTest::qWait(50);
        QVERIFY(applied.empty());
        busy = false;
        coalescer.retry();
        QVERIFY(applied.empty());
        QTRY_COMPARE(applied.size(), size_t(1));
        QCOMPARE(applied.back(), burstPlacement(8, 2));
    }

    // A gate that stays shut holds the newest at most the hold time; flush() sends it at once;
    // drop() forgets it.
    void holdIsBoundedFlushSendsDropForgets()
    {
        PlacementCoalescer coalescer;
        coalescer.setFrameMs(0);
        coalescer.setMaxHoldMs(80);
        coalescer.setBusy([] { return true; });
        std::vector<Placement> applied;
        connect(&coalescer, &PlacementCoalescer::apply, [&](const Placement& p) { applied.push_back(p); });
        QElapsedTimer held;
        held.start();
        coalescer.offer(burstPlacement(8, 3));
        QVERIFY(applied.empty());
        QTRY_COMPARE(applied.size(), size_t(1));
        QVERIFY(held.elapsed() >= 70);

        coalescer.offer(burstPlacement(8, 4));
        QCOMPARE(applied.size(), size_t(1));
        coalescer.flush();
        QCOMPARE(applied.size(), size_t(2));
        QCOMPARE(applied.back(), burstPlacement(8, 4));

        coalescer.offer(burstPlacement(8, 5));
        coalescer.drop();
        QTest::qWait(150);
        QCOMPARE(applied.size(), size_t(2));
    }

    // The window: a burst of N bests from the learner panel shows fewer than N documents, in
    // the order they came (never an older one after a newer one), and ends on the last; the
    // panels show the last. Small graphs simulate their step at once, so the step simulation
    // is sent to the pool here to have the busy gate of a big graph.
    void theWindowShowsTheLastOfABurst()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        window.findChild<StepSimulation*>()->setSynchronousMaxOps(0);
        constexpr int kOps = 60;
        auto doc = std::const_pointer_cast<GraphDocument>(uitest::chainDocument(kOps));
        doc->placement = Placement(kOps, 1);
        window.hub()->open(doc);
        QTRY_VERIFY(!window.findChild<StepSimulation*>()->isBusy());

        std::vector<int> shown; // which burst placement each new document is
        constexpr int kBurst = 30;
        connect(window.hub(), &DocumentHub::documentChanged, this, [&](const DocumentPtr& d) {
            for (int i = 0; i < kBurst; ++i)
                if (d && d->placement == burstPlacement(kOps, i))
                    shown.push_back(i);
        });
        auto* learner = window.findChild<LearnerPanel*>();
        for (int i = 0; i < kBurst; ++i) {
            emit learner->bestPlacement(burstPlacement(kOps, i));
            if (i % 10 == 9)
                QCoreApplication::processEvents(); // queued snapshots arrive a few at a time
        }
        QTRY_COMPARE(window.hub()->document()->placement, burstPlacement(kOps, kBurst - 1));
        QTest::qWait(100);
        QCOMPARE(shown.back(), kBurst - 1);
        QVERIFY2(shown.size() < size_t(kBurst), qPrintable(QString::number(shown.size())));
        for (size_t k = 1; k < shown.size(); ++k)
            QVERIFY(shown[k] > shown[k - 1]);
        auto* coalescer = window.findChild<PlacementCoalescer*>();
        QVERIFY(coalescer);
        QCOMPARE(coalescer->offered(), kBurst);
        QCOMPARE(coalescer->appliedCount(), static_cast<int>(shown.size()));

        // The panels show the last one.
        const Placement& last = window.hub()->document()->placement;
        OpTableModel* ops = window.findChild<OpTablePanel*>()->model();
        for (int op = 0; op < kOps; ++op)
            QCOMPARE(ops->index(op, OpTableModel::Device).data(OpTableModel::SortRole).toInt(),
                     last[static_cast<size_t>(op)]);
        DeviceTableModel* devices = window.findChild<DeviceTablePanel*>()->model();
        for (DeviceId d = 0; d < 3; ++d)
            QCOMPARE(devices->index(d, DeviceTableModel::Ops).data().toInt(),
                     static_cast<int>(std::count(last.begin(), last.end(), d)));
        QTRY_VERIFY(window.findChild<StepSimulation*>()->current());
        QCOMPARE(window.findChild<StepSimulation*>()->current()->document->placement, last);
    }

    // A document from elsewhere (a chart click, a comparison row) is newer than a best still
    // waiting: that best is never shown after it. A run's end shows its final best at once.
    void aNewerDocumentDropsTheWaitingBestAndTheEndFlushes()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        constexpr int kOps = 20;
        auto doc = std::const_pointer_cast<GraphDocument>(uitest::chainDocument(kOps));
        doc->placement = Placement(kOps, 1);
        window.hub()->open(doc);
        auto* learner = window.findChild<LearnerPanel*>();
        auto* coalescer = window.findChild<PlacementCoalescer*>();
        coalescer->setFrameMs(60000); // every best after the first waits
        emit learner->bestPlacement(burstPlacement(kOps, 1));
        QCOMPARE(window.hub()->document()->placement, burstPlacement(kOps, 1));
        emit learner->bestPlacement(burstPlacement(kOps, 2));
        QVERIFY(coalescer->hasPending());
        window.hub()->setPlacement(burstPlacement(kOps, 3)); // the user picks a sample
        QVERIFY(!coalescer->hasPending());
        QTest::qWait(50);
        QCOMPARE(window.hub()->document()->placement, burstPlacement(kOps, 3));

        emit learner->bestPlacement(burstPlacement(kOps, 4));
        QCOMPARE(window.hub()->document()->placement, burstPlacement(kOps, 3)); // waits a frame
        emit learner->finished(LearnerOutcome{});
        QCOMPARE(window.hub()->document()->placement, burstPlacement(kOps, 4));
    }

    // The inspector rebuilds its HTML only when what it shows changed: a new placement that
    // moves other ops keeps it; one that moves the shown op shows the op's new device and time.
    void inspectorFollowsTheShownOpOnly()
    {
        InspectorPanel inspector;
        const DocumentPtr first = uitest::smallDocument({1, 1, 1, 1}); // all on GPU:0 (speed 1)
        inspector.setDocument(first);
        QVERIFY(inspector.html().contains(QStringLiteral("shown"))); // its Placement row
        const int summaryRenders = inspector.renderCount();
        auto other = std::make_shared<GraphDocument>(*first); // the same graph
        other->placement = {1, 1, 1, 2};
        inspector.setDocument(other);
        QCOMPARE(inspector.renderCount(), summaryRenders); // the summary says the same

        const OpId conv = 1;
        inspector.showOp(conv);
        QVERIFY(inspector.html().contains(QStringLiteral("/device:GPU:0")));
        QVERIFY(inspector.html().contains(QStringLiteral("100 µs"))); // on its device, speed 1
        const int renders = inspector.renderCount();
        auto fcMoves = std::make_shared<GraphDocument>(*first);
        fcMoves->placement = {1, 1, 2, 0};
        inspector.setDocument(fcMoves);
        QCOMPARE(inspector.renderCount(), renders);
        auto convMoves = std::make_shared<GraphDocument>(*first);
        convMoves->placement = {1, 2, 2, 0};
        inspector.setDocument(convMoves);
        QCOMPARE(inspector.renderCount(), renders + 1);
        QVERIFY2(inspector.html().contains(QStringLiteral("/device:GPU:1")), qPrintable(inspector.html()));
        QVERIFY(!inspector.html().contains(QStringLiteral("/device:GPU:0")));
        QVERIFY(inspector.html().contains(QStringLiteral("50.0 µs"))); // GPU:1 is twice as fast
        // Another graph forgets the op and shows its summary.
        inspector.setDocument(uitest::chainDocument(5));
        QCOMPARE(inspector.op(), kNoOp);
        QVERIFY(inspector.html().contains(QStringLiteral("chain")));
    }

    // An op of a colocation group: the group's name, and the other ops that share it (the
    // inspector said "Colocated with: node5" for node5 itself, the group's name).
    void inspectorNamesTheOpsColocatedWithTheShownOne()
    {
        using namespace post;
        GraphBuilder b("grouped");
        b.addOp(uitest::op("node5", "Conv2d", 100, 4000, 800, "node5"));
        b.addOp(uitest::op("node5/grad", "Conv2dBackward", 200, 4000, 0, "node5"));
        b.addOp(uitest::op("free", "ReLU", 10, 4000, 0));
        b.addEdge("node5", "node5/grad");
        b.addEdge("node5/grad", "free");
        auto doc = std::make_shared<GraphDocument>();
        doc->path = QStringLiteral("grouped");
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        doc->placement = {1, 1, 1};
        InspectorPanel inspector;
        inspector.setDocument(doc);
        inspector.showOp(0);
        QVERIFY2(inspector.html().contains(QStringLiteral("Colocated with")) && inspector.html().contains("node5/grad"),
                 qPrintable(inspector.html()));
        inspector.showOp(1);
        QVERIFY2(inspector.html().contains(QStringLiteral("Colocation group")), qPrintable(inspector.html()));
        const QString html = inspector.html();
        const int at = html.indexOf(QStringLiteral("Colocated with"));
        QVERIFY(at >= 0 && html.indexOf(QStringLiteral(">node5<"), at) >= 0); // node5/grad's partner
        inspector.showOp(2);
        QVERIFY(!inspector.html().contains(QStringLiteral("Colocat")));
    }
};

QTEST_MAIN(TestBestRoute)
#include "test_best_route.moc"
