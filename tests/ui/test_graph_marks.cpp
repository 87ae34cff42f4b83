// The critical path and a placement diff's moved ops drawn on the graph view (op boxes,
// group and scope boxes, open scopes' frames, edges), following the shown placement; and
// the diff of two windows' placements (File ▸ Diff with Window), refused for other graphs.
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"

#include "ui/MainWindow.h"
#include "ui/compare/ComparisonView.h"
#include "ui/compare/PlacementDiff.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/SimulatedStep.h"
#include "ui/graphview/EdgeItem.h"
#include "ui/graphview/FrameItem.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/NodeItem.h"
#include "ui/theme/CategoryPalette.h"

#include <QAction>
#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>

#include "core/io/native/PlacementFile.h"

using namespace post;

namespace {

constexpr int kWaitMs = 30000;
constexpr DeviceId kGpu0 = 1;
constexpr DeviceId kGpu1 = 2; // twice as fast

// a -> b -> d and a -> c -> d: b takes 100 µs, c 1 µs, so with a, b, d on GPU:1 and c on
// GPU:0 the step's critical path is a, b, d (d waits for b, not for c).
DocumentPtr diamond(Placement placement)
{
    GraphBuilder b("diamond");
    b.addOp(uitest::op("a", "A", 10, 100, 0));
    b.addOp(uitest::op("b", "B", 200, 100, 0));
    b.addOp(uitest::op("c", "C", 2, 100, 0));
    b.addOp(uitest::op("d", "D", 10, 100, 0));
    b.addEdge("a", "b");
    b.addEdge("a", "c");
    b.addEdge("b", "d");
    b.addEdge("c", "d");
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("diamond.json");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = uitest::cluster();
    doc->placement = std::move(placement);
    return doc;
}

// input -> model/layer_0 … layer_9 (an "attn" and an "ffn" scope of 20 ops each, in a chain)
// -> loss, and beside it input -> side/op_0 … op_19 -> loss, short ops: 422 ops, drawn by
// scope (model and its layers open, attn/ffn/side closed boxes).
DocumentPtr layered(Placement placement)
{
    GraphBuilder b("layers");
    b.addOp(uitest::op("input", "Input", 1, 10, 0));
    std::string last = "input";
    for (int l = 0; l < 10; ++l)
        for (const char* part : {"attn", "ffn"})
            for (int k = 0; k < 20; ++k) {
                const std::string op = "model/layer_" + std::to_string(l) + "/" + part + "/op_" + std::to_string(k);
                b.addOp(uitest::op(op, k % 2 ? "MatMul" : "Add", 10, 10, 0));
                b.addEdge(last, op);
                last = op;
            }
    b.addOp(uitest::op("loss", "Loss", 1, 10, 0));
    b.addEdge(last, "loss");
    std::string side = "input";
    for (int k = 0; k < 20; ++k) {
        const std::string op = "side/op_" + std::to_string(k);
        b.addOp(uitest::op(op, "Add", 0.1, 10, 0));
        b.addEdge(side, op);
        side = op;
    }
    b.addEdge(side, "loss");
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("layers.json");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = uitest::cluster();
    doc->placement = std::move(placement);
    return doc;
}

QString scopeKey(const char* path) { return QStringLiteral("scope:") + QLatin1String(path); }

// The view edge from the box of op `from` to that of op `to` (-1 if none).
int viewEdge(const GraphScene& scene, OpId from, OpId to)
{
    const ViewGraph& view = scene.viewGraph();
    for (size_t e = 0; e < view.edges.size(); ++e)
        if (view.edges[e].from == view.nodeOfOp[static_cast<size_t>(from)]
            && view.edges[e].to == view.nodeOfOp[static_cast<size_t>(to)])
            return static_cast<int>(e);
    return -1;
}

bool waitShown(QSignalSpy& shown) { return shown.count() > 0 || shown.wait(kWaitMs); }

} // namespace

class TestGraphMarks : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    void criticalPathOutlinesItsOpsAndEdges()
    {
        const DocumentPtr doc = diamond({kGpu1, kGpu1, kGpu0, kGpu1});
        const StepPtr step = SimulatedStep::simulate(doc);
        QVERIFY(step);
        QCOMPARE(step->criticalOps, (std::vector<OpId>{0, 1, 3}));

        GraphPanel panel;
        panel.setGrouping(Grouping::Ops);
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(doc);
        QVERIFY(applied.wait(kWaitMs));
        GraphScene* scene = panel.scene();
        scene->setCriticalPath(doc->graphId, step->criticalOps);
        // Off until shown.
        for (OpId op = 0; op < 4; ++op)
            QCOMPARE(scene->itemForOp(op)->marks().critical, 0);
        scene->setCriticalPathShown(true);
        QCOMPARE(scene->itemForOp(0)->marks().critical, 1);
        QCOMPARE(scene->itemForOp(1)->marks().critical, 1);
        QCOMPARE(scene->itemForOp(2)->marks().critical, 0); // c
        QCOMPARE(scene->itemForOp(3)->marks().critical, 1);
        QCOMPARE(scene->itemForOp(0)->marks().criticalColour, scene->theme().critical);
        QVERIFY(scene->itemForOp(1)->toolTip().contains(QStringLiteral("critical path")));
        QVERIFY(scene->itemForEdge(viewEdge(*scene, 0, 1))->isCritical());
        QVERIFY(scene->itemForEdge(viewEdge(*scene, 1, 3))->isCritical());
        QVERIFY(!scene->itemForEdge(viewEdge(*scene, 0, 2))->isCritical());
        QVERIFY(!scene->itemForEdge(viewEdge(*scene, 2, 3))->isCritical());
        // Kept over a recolouring and a new layout of the same graph.
        panel.updateDocument(doc);
        panel.relayout();
        QVERIFY(applied.wait(kWaitMs));
        QCOMPARE(scene->itemForOp(1)->marks().critical, 1);
        QVERIFY(scene->itemForEdge(viewEdge(*scene, 1, 3))->isCritical());
        // A path of another graph is not drawn on this one; hiding clears every mark.
        scene->setCriticalPath(doc->graphId + 1000, step->criticalOps);
        QCOMPARE(scene->itemForOp(1)->marks().critical, 0);
        scene->setCriticalPath(doc->graphId, step->criticalOps);
        scene->setCriticalPathShown(false);
        QCOMPARE(scene->itemForOp(1)->marks().critical, 0);
        QVERIFY(!scene->itemForEdge(viewEdge(*scene, 1, 3))->isCritical());
    }

    // Scope boxes and frames count the critical and moved ops they hold; opening a scope
    // keeps the marks on its ops.
    void scopeBoxesAndFramesCountTheirMarks()
    {
        Placement placement(422, kGpu1);
        const DocumentPtr doc = layered(placement);
        const Graph& graph = *doc->graph;
        for (int k = 0; k < 20; ++k) // the side chain on the other GPU: never waited for
            placement[static_cast<size_t>(*graph.find("side/op_" + std::to_string(k)))] = kGpu0;
        const DocumentPtr placed = std::make_shared<GraphDocument>([&] {
            GraphDocument copy = *doc;
            copy.placement = placement;
            return copy;
        }());
        const StepPtr step = SimulatedStep::simulate(placed);
        QVERIFY(step);

        GraphPanel panel;
        panel.resize(1000, 700);
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(placed);
        QVERIFY(applied.wait(kWaitMs));
        QVERIFY(panel.showsScopes());
        GraphScene* scene = panel.scene();
        scene->setCriticalPathShown(true);
        scene->setCriticalPath(placed->graphId, step->criticalOps);
        const ViewGraph& view = scene->viewGraph();
        const int attn3 = view.nodeWithKey(scopeKey("model/layer_3/attn"));
        const int sideBox = view.nodeWithKey(scopeKey("side"));
        QVERIFY(attn3 >= 0 && sideBox >= 0);
        QCOMPARE(scene->itemForNode(attn3)->marks().critical, 20);
        QCOMPARE(scene->itemForNode(sideBox)->marks().critical, 0);
        QCOMPARE(scene->itemForFrame(view.frameWithKey(scopeKey("model/layer_3")))->marks().critical, 40);
        QCOMPARE(scene->itemForFrame(view.frameWithKey(scopeKey("model")))->marks().critical, 400);
        QVERIFY(scene->itemForNode(attn3)->toolTip().contains(QStringLiteral("20 ops on the critical path")));

        // A diff moving op_0 … op_4 of layer_3/attn to GPU:0.
        std::vector<DeviceId> moved(422, kNoDevice);
        for (int k = 0; k < 5; ++k)
            moved[static_cast<size_t>(*graph.find("model/layer_3/attn/op_" + std::to_string(k)))] = kGpu0;
        scene->setMovedOps(placed->graphId, moved);
        QCOMPARE(scene->itemForNode(attn3)->marks().moved, 5);
        QCOMPARE(scene->itemForNode(attn3)->marks().movedColour, CategoryPalette::colour(kGpu0));
        QCOMPARE(scene->itemForNode(view.nodeWithKey(scopeKey("model/layer_3/ffn")))->marks().moved, 0);
        QCOMPARE(scene->itemForFrame(view.frameWithKey(scopeKey("model/layer_3")))->marks().moved, 5);
        QCOMPARE(scene->itemForFrame(view.frameWithKey(scopeKey("model/layer_4")))->marks().moved, 0);

        // Open the scope: its ops are boxes now, each with its own marks, the frame the count.
        panel.expandGroup(scopeKey("model/layer_3/attn"));
        QVERIFY(applied.wait(kWaitMs));
        const ViewGraph& open = scene->viewGraph();
        const int frame = open.frameWithKey(scopeKey("model/layer_3/attn"));
        QVERIFY(frame >= 0);
        QCOMPARE(scene->itemForFrame(frame)->marks().moved, 5);
        QCOMPARE(scene->itemForFrame(frame)->marks().critical, 20);
        const OpId op2 = *graph.find("model/layer_3/attn/op_2");
        const OpId op9 = *graph.find("model/layer_3/attn/op_9");
        QCOMPARE(scene->itemForOp(op2)->marks().moved, 1);
        QCOMPARE(scene->itemForOp(op2)->marks().critical, 1);
        QCOMPARE(scene->itemForOp(op9)->marks().moved, 0);
        QVERIFY(scene->itemForEdge(viewEdge(*scene, op2, op2 + 1))->isCritical()); // op_2 -> op_3
        scene->setMovedOps(0, {});
        QCOMPARE(scene->itemForOp(op2)->marks().moved, 0);
        QCOMPARE(scene->itemForFrame(frame)->marks().moved, 0);
    }

    // In the window: View ▸ Show Critical Path, the path following the shown placement, and
    // a diff's moved ops on the graph following it too, until the diff is closed.
    void windowMarksFollowTheShownPlacement()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.hub()->open(diamond({kGpu1, kGpu1, kGpu0, kGpu1}));
        QVERIFY(waitShown(shown));
        GraphScene* scene = window.findChild<GraphPanel*>()->scene();
        auto* toggle = window.findChild<QAction*>(QStringLiteral("showCriticalPath"));
        QVERIFY(toggle && toggle->isCheckable());
        toggle->setChecked(true);
        QVERIFY(window.isCriticalPathShown());
        QCOMPARE(scene->itemForOp(1)->marks().critical, 1);
        QCOMPARE(scene->itemForOp(2)->marks().critical, 0);
        // Every op on GPU:0: one device runs them all, each waits for the one before, so the
        // path (re-simulated with the new placement) now holds c too.
        window.hub()->setPlacement({kGpu0, kGpu0, kGpu0, kGpu0});
        for (OpId op = 0; op < 4; ++op)
            QCOMPARE(scene->itemForOp(op)->marks().critical, 1);
        toggle->setChecked(false);
        QCOMPARE(scene->itemForOp(1)->marks().critical, 0);

        // A diff against a placement file: b and d move to GPU:1.
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("other.json"));
        {
            const DocumentPtr& doc = window.hub()->document();
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(
                placementJson(*doc->graph, *doc->cluster, Placement{kGpu0, kGpu1, kGpu0, kGpu1})));
        }
        PlacementDiffDialog* dialog = window.diffWithPlacementFile(file);
        QVERIFY(dialog);
        QCOMPARE(window.activeDiff(), dialog);
        QCOMPARE(scene->itemForOp(0)->marks().moved, 0);
        QCOMPARE(scene->itemForOp(1)->marks().moved, 1);
        QCOMPARE(scene->itemForOp(1)->marks().movedColour, CategoryPalette::colour(kGpu1));
        QCOMPARE(scene->itemForOp(3)->marks().moved, 1);
        // The shown placement changes (a run's best, a Compare row): the diff follows it.
        window.hub()->setPlacement({kGpu0, kGpu1, kGpu1, kGpu0});
        QCOMPARE(dialog->diff().moved, (std::vector<OpId>{2, 3})); // c to GPU:0, d to GPU:1
        QVERIFY2(dialog->summary().startsWith(QStringLiteral("2 of 4 ops move")), qPrintable(dialog->summary()));
        QCOMPARE(scene->itemForOp(1)->marks().moved, 0);
        QCOMPARE(scene->itemForOp(2)->marks().moved, 1);
        QCOMPARE(scene->itemForOp(2)->marks().movedColour, CategoryPalette::colour(kGpu0));
        QCOMPARE(scene->itemForOp(3)->marks().moved, 1);
        // A Compare row against the shown placement replaces it (one diff at a time).
        auto* compare = window.findChild<ComparisonView*>();
        emit compare->diffRequested(window.hub()->document()->placement, Placement{kGpu1, kGpu1, kGpu1, kGpu0},
                                    QStringLiteral("shown"), QStringLiteral("m-etf"));
        QVERIFY(window.activeDiff() && window.activeDiff() != dialog);
        dialog = window.activeDiff();
        QCOMPARE(scene->itemForOp(0)->marks().moved, 1);
        QCOMPARE(scene->itemForOp(1)->marks().moved, 0);
        QCOMPARE(scene->itemForOp(3)->marks().moved, 0);
        window.hub()->setPlacement({kGpu1, kGpu1, kGpu1, kGpu0}); // the row chosen: nothing moves
        QVERIFY(dialog->diff().moved.empty());
        for (OpId op = 0; op < 4; ++op)
            QCOMPARE(scene->itemForOp(op)->marks().moved, 0);
        window.hub()->setPlacement({kGpu0, kGpu1, kGpu1, kGpu0});
        QCOMPARE(scene->itemForOp(0)->marks().moved, 1);
        // Closing the diff takes its marks away.
        dialog->close();
        QTRY_VERIFY(!window.activeDiff());
        QCOMPARE(scene->itemForOp(0)->marks().moved, 0);
        // Another graph drops the diff.
        dialog = window.diffWithPlacementFile(file);
        QVERIFY(dialog);
        window.hub()->open(uitest::smallDocument({0, 1, 1, 1}));
        QTRY_VERIFY(!window.activeDiff());
    }

    // File ▸ Diff with Window: the other windows by document name; the shown placement
    // against another window's, following both; refused for another graph.
    void twoWindowsDiffTheirPlacements()
    {
        MainWindow first;
        first.setInteractiveErrors(false);
        QSignalSpy firstShown(&first, &MainWindow::documentShown);
        first.hub()->open(diamond({kGpu1, kGpu1, kGpu0, kGpu1}));
        QVERIFY(waitShown(firstShown));
        QCOMPARE(first.documentName(), QStringLiteral("diamond.json"));

        MainWindow* second = first.newWindow();
        QVERIFY(second->testAttribute(Qt::WA_DeleteOnClose));
        QVERIFY(first.otherWindows().contains(second));
        QVERIFY(second->otherWindows().contains(&first));
        QSignalSpy secondShown(second, &MainWindow::documentShown);
        // The same graph read again (its own Graph object), placed otherwise.
        second->hub()->open(diamond({kGpu0, kGpu0, kGpu0, kGpu1}));
        QVERIFY(waitShown(secondShown));

        // The menu lists the other window by its document's name.
        auto* menu = first.findChild<QMenu*>(QStringLiteral("diffWindowMenu"));
        QVERIFY(menu);
        emit menu->aboutToShow();
        QList<QAction*> entries;
        for (QAction* action : menu->actions())
            if (action->isEnabled())
                entries.push_back(action);
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.first()->text(), QStringLiteral("diamond.json"));
        entries.first()->trigger();
        PlacementDiffDialog* dialog = first.activeDiff();
        QVERIFY(dialog);
        QVERIFY2(dialog->summary()
                     == QStringLiteral("2 of 4 ops move from this window to diamond.json in the other "
                                       "window."),
                 qPrintable(dialog->summary()));
        // first -> second: a and b GPU:1 -> GPU:0; c and d stay.
        QCOMPARE(dialog->diff().moved, (std::vector<OpId>{0, 1}));
        QCOMPARE(dialog->diff().pairs[kGpu1][kGpu0], 2);
        QCOMPARE(dialog->diff().pairs[kGpu1][kGpu1], 1);
        QCOMPARE(dialog->diff().pairs[kGpu0][kGpu0], 1);
        GraphScene* scene = first.findChild<GraphPanel*>()->scene();
        QCOMPARE(scene->itemForOp(0)->marks().moved, 1);
        QCOMPARE(scene->itemForOp(2)->marks().moved, 0);
        // The other window's placement changes: the diff follows it.
        second->hub()->setPlacement({kGpu1, kGpu1, kGpu1, kGpu1});
        QCOMPARE(dialog->diff().moved, (std::vector<OpId>{2}));
        QCOMPARE(scene->itemForOp(0)->marks().moved, 0);
        QCOMPARE(scene->itemForOp(2)->marks().moved, 1);
        QCOMPARE(scene->itemForOp(2)->marks().movedColour, CategoryPalette::colour(kGpu1));

        // Another graph of as many ops (other names), then one of more ops: refused, saying why.
        QSignalSpy refused(&first, &MainWindow::diffRefused);
        MainWindow other;
        other.setInteractiveErrors(false);
        other.hub()->open(uitest::smallDocument({0, 1, 1, 1})); // input, conv, relu, fc
        QVERIFY(!first.diffWithWindow(&other));
        QCOMPARE(refused.size(), 1);
        QCOMPARE(refused.last().at(0).toString(),
                 QStringLiteral("The graphs differ: op “a” of diamond.json is not in small. Only placements of one "
                                "graph can be diffed."));
        QCOMPARE(first.statusMessage(), refused.last().at(0).toString());
        QCOMPARE(first.activeDiff(), dialog); // the diff on show stays
        auto five = uitest::chainDocument(5);
        auto placedFive = std::make_shared<GraphDocument>(*five);
        placedFive->placement = Placement(5, kGpu0);
        other.hub()->open(placedFive);
        QVERIFY(!first.diffWithWindow(&other));
        QCOMPARE(refused.last().at(0).toString(),
                 QStringLiteral("The graphs differ: diamond.json has 4 ops, chain has 5. Only placements of one graph "
                                "can be diffed."));
        // The same graph on a cluster with another device name.
        auto elsewhere = std::make_shared<GraphDocument>(*diamond({0, 1, 1, 1}));
        elsewhere->cluster = std::make_shared<const Cluster>(
            "other",
            std::vector<Device>{Device{"/device:CPU:0", DeviceKind::Cpu, 1.0},
                                Device{"/device:GPU:7", DeviceKind::Gpu, 1.0, 12e9}},
            Link{});
        other.hub()->open(elsewhere);
        QVERIFY(!first.diffWithWindow(&other));
        QCOMPARE(refused.last().at(0).toString(),
                 QStringLiteral("The clusters differ: diamond.json places ops on /device:GPU:7, which diamond.json's "
                                "cluster (test3) does not have."));
        // A window with nothing placed.
        auto unplaced = std::make_shared<GraphDocument>(*diamond({}));
        other.hub()->open(unplaced);
        QVERIFY(!first.diffWithWindow(&other));
        QVERIFY2(refused.last().at(0).toString().contains(QStringLiteral("shows no placement")),
                 qPrintable(refused.last().at(0).toString()));
        // Two entries now, the empty-handed one disabled.
        emit menu->aboutToShow();
        int enabled = 0;
        for (QAction* action : menu->actions())
            enabled += action->isEnabled() ? 1 : 0;
        QCOMPARE(menu->actions().size(), 2);
        QCOMPARE(enabled, 1);

        // The other window closes: the diff keeps its last placements.
        second->close();
        QTRY_VERIFY(!first.otherWindows().contains(second));
        QCOMPARE(first.activeDiff(), dialog);
        first.hub()->setPlacement({kGpu1, kGpu1, kGpu0, kGpu1});
        QCOMPARE(dialog->diff().moved, (std::vector<OpId>{2})); // against second's last: all on GPU:1
    }
};

QTEST_MAIN(TestGraphMarks)
#include "test_graph_marks.moc"
