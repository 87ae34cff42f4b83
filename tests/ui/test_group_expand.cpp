// Expand-a-group in the grouped graph view, and what a cancelled layout leaves on screen.
#include "tests/ui/UiTestGraphs.h"

#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/GraphView.h"
#include "ui/graphview/NodeItem.h"
#include "ui/graphview/RetryOverlay.h"

#include <QPushButton>
#include <QtTest>

using namespace post;

namespace {

constexpr int kLayoutWaitMs = 30000;

// "b2" and the like (GCC 12 warns falsely on "b" + std::to_string(i)).
std::string name(const char* prefix, int i) { return std::string(prefix).append(std::to_string(i)); }

// x feeds colocation groups g1 (3 ops) and g2 (4 ops), which both feed y: drawn grouped
// as 4 boxes (x, g1, g2, y; x and y have two edges each, so they join no chain).
DocumentPtr twoGroupDocument()
{
    GraphBuilder b("two groups");
    b.addOp(uitest::op("x", "Input", 1, 10, 0));
    for (int i = 0; i < 3; ++i)
        b.addOp(uitest::op(name("a", i), "Conv", 5, 10, 0, "g1"));
    for (int i = 0; i < 4; ++i)
        b.addOp(uitest::op(name("b", i), "MatMul", 5, 10, 0, "g2"));
    b.addOp(uitest::op("y", "Add", 1, 10, 0));
    b.addEdge("x", "a0");
    b.addEdge("a0", "a1");
    b.addEdge("a1", "a2");
    b.addEdge("x", "b0");
    for (int i = 1; i < 4; ++i)
        b.addEdge(name("b", i - 1), name("b", i));
    b.addEdge("a2", "y");
    b.addEdge("b3", "y");
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("two groups");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = uitest::cluster();
    return doc;
}

int nodeWithKey(const GraphScene* scene, const QString& key)
{
    const auto& nodes = scene->viewGraph().nodes;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].key == key)
            return static_cast<int>(i);
    return -1;
}

} // namespace

class TestGroupExpand : public QObject {
    Q_OBJECT

private slots:
    void doubleClickExpandsAndCollapseGoesBack()
    {
        GraphPanel panel;
        panel.resize(900, 700);
        panel.show();
        panel.setGrouping(Grouping::Groups);
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(twoGroupDocument());
        QVERIFY(applied.wait(kLayoutWaitMs));
        GraphScene* scene = panel.scene();
        QCOMPARE(scene->nodeItemCount(), 4);
        const int g2 = nodeWithKey(scene, QStringLiteral("group:g2"));
        QVERIFY(g2 >= 0);
        QCOMPARE(scene->viewGraph().nodes[static_cast<size_t>(g2)].ops.size(), size_t(4));

        // Double-click the g2 box: its 4 ops replace it, everything else stays grouped.
        NodeItem* box = scene->itemForNode(g2);
        QVERIFY(box);
        const QPoint at = panel.view()->mapFromScene(box->sceneBoundingRect().center());
        QTest::mouseDClick(panel.view()->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 4 + (4 - 1));
        QVERIFY(panel.expandedGroups().contains(QStringLiteral("group:g2")));
        QVERIFY(nodeWithKey(scene, QStringLiteral("group:g1")) >= 0);
        QCOMPARE(scene->itemForOp(*scene->document()->graph->find("b2"))->title(), QStringLiteral("b2"));

        panel.expandGroup(QStringLiteral("group:g1"));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 7 + (3 - 1));

        panel.collapseGroup(QStringLiteral("group:g2"));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 9 - (4 - 1));
        panel.collapseAllGroups();
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 4);
        // A new graph starts collapsed.
        panel.expandGroup(QStringLiteral("group:g2"));
        QVERIFY(applied.wait(kLayoutWaitMs));
        panel.setDocument(twoGroupDocument());
        QVERIFY(panel.expandedGroups().isEmpty());
    }

    void cancellingARelayoutKeepsTheDrawing()
    {
        GraphPanel panel;
        panel.resize(900, 700);
        panel.show();
        panel.setGrouping(Grouping::Groups);
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(twoGroupDocument());
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(panel.scene()->nodeItemCount(), 4);
        QSignalSpy cancelled(&panel, &GraphPanel::layoutCancelled);
        panel.expandGroup(QStringLiteral("group:g2"));
        QVERIFY(panel.isLayoutBusy());
        panel.cancelLayout();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!applied.wait(500));
        QCOMPARE(panel.scene()->nodeItemCount(), 4); // the previous drawing, untouched
        QVERIFY(panel.retryOverlay()->isHidden());
        QVERIFY(panel.expandedGroups().isEmpty()); // back to what is drawn: expanding again works
        panel.expandGroup(QStringLiteral("group:g2"));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(panel.scene()->nodeItemCount(), 7);
    }

    void cancellingTheFirstLayoutOffersToLayOutAgain()
    {
        GraphPanel panel;
        panel.resize(900, 700);
        panel.show();
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::chainDocument(150));
        panel.cancelLayout();
        QVERIFY(!applied.wait(500));
        QCOMPARE(panel.scene()->nodeItemCount(), 0);
        RetryOverlay* retry = panel.retryOverlay();
        QVERIFY(retry->isVisible());
        QVERIFY(retry->message().startsWith(QStringLiteral("Layout cancelled")));
        // Centred over the view.
        QVERIFY(qAbs(retry->geometry().center().x() - panel.view()->viewport()->geometry().center().x()) <= 2);
        auto* again = retry->findChild<QPushButton*>(QStringLiteral("layOutAgain"));
        QVERIFY(again);
        again->click();
        QVERIFY(retry->isHidden());
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(panel.scene()->nodeItemCount(), panel.scene()->viewGraph().nodeCount());
        QVERIFY(panel.scene()->nodeItemCount() > 0);
    }
};

QTEST_MAIN(TestGroupExpand)
#include "test_group_expand.moc"
