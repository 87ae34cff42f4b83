#include "tests/ui/UiTestGraphs.h"

#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/GraphView.h"
#include "ui/graphview/LegendWidget.h"
#include "ui/graphview/NodeColourer.h"
#include "ui/graphview/NodeItem.h"
#include "ui/graphview/OpSearchWidget.h"
#include "ui/graphview/OverviewWidget.h"
#include "ui/layout/ViewGraphBuilder.h"
#include "ui/theme/CategoryPalette.h"
#include "ui/theme/GradientScale.h"
#include "ui/theme/ViewTheme.h"

#include <QtTest>

#include <cmath>

using namespace post;

namespace {

constexpr int kLayoutWaitMs = 30000;

QColor fillOf(const GraphScene* scene, OpId op) { return scene->itemForOp(op)->nodePaint().fill; }

} // namespace

class TestGraphView : public QObject {
    Q_OBJECT

private slots:
    void gradientIsLogarithmicViridis()
    {
        const GradientScale scale(1.0, 100.0);
        QCOMPARE(scale.position(10.0), 0.5);
        QCOMPARE(scale.position(1.0), 0.0);
        QCOMPARE(scale.position(0.0), 0.0);
        QCOMPARE(scale.position(1e6), 1.0);
        QCOMPARE(GradientScale::at(0.0), QColor(0x44, 0x01, 0x54));
        QCOMPARE(GradientScale::at(1.0), QColor(0xfd, 0xe7, 0x25));
        QCOMPARE(scale.colour(10.0), GradientScale::at(0.5));
    }

    void darkModeComesFromTheWindowColour()
    {
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
        QPalette light;
        light.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
        QVERIFY(ViewTheme::isDark(dark));
        QVERIFY(!ViewTheme::isDark(light));
        QVERIFY(ViewTheme::fromPalette(dark).dark);
        // Labels stay readable: dark text on light fills and the other way round.
        QCOMPARE(ViewTheme::textOn(QColor(Qt::white)).lightness() < 128, true);
        QCOMPARE(ViewTheme::textOn(QColor(0x44, 0x01, 0x54)).lightness() > 128, true);
    }

    void deviceColoursFollowThePlacementInDeviceOrder()
    {
        const DocumentPtr doc = uitest::smallDocument({1, 2, 2, 0});
        const ViewGraph view = ViewGraphBuilder::opLevel(*doc->graph);
        const ViewTheme theme = ViewTheme::light();
        const NodeColouring c = colourNodes(*doc, view, ColourMode::Device, theme);
        QCOMPARE(c.paints.size(), size_t(4));
        QCOMPARE(c.paints[0].fill, theme.nodeFill(CategoryPalette::colour(1)));
        QCOMPARE(c.paints[1].fill, theme.nodeFill(CategoryPalette::colour(2)));
        QCOMPARE(c.paints[3].fill, theme.nodeFill(CategoryPalette::colour(0)));
        QCOMPARE(c.legend.entries.size(), size_t(3));
        QCOMPARE(c.legend.entries[0].label, QStringLiteral("/device:CPU:0"));
        QCOMPARE(c.legend.entries[2].colour, CategoryPalette::colour(2));

        const DocumentPtr unplaced = uitest::smallDocument();
        const NodeColouring u = colourNodes(*unplaced, view, ColourMode::Device, theme);
        QCOMPARE(u.paints[1].fill, theme.nodeFill(theme.unplaced));
        QCOMPARE(u.legend.entries.size(), size_t(1));
        QCOMPARE(u.legend.entries[0].label, QStringLiteral("unplaced"));
    }

    void groupsShowTheirDeviceMix()
    {
        GraphBuilder b("groups");
        b.addOp(uitest::op("a", "T", 1, 1, 0, "g"));
        b.addOp(uitest::op("b", "T", 1, 1, 0, "g"));
        b.addOp(uitest::op("c", "T", 1, 1, 0, "g"));
        b.addOp(uitest::op("d", "T", 1, 1, 0));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        b.addEdge("c", "d");
        auto doc = std::make_shared<GraphDocument>();
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        doc->placement = {1, 2, 2, 0};
        const ViewGraph view = ViewGraphBuilder::grouped(*doc->graph);
        QCOMPARE(view.nodeCount(), 2);
        const NodeColouring c = colourNodes(*doc, view, ColourMode::Device, ViewTheme::light());
        // The group box takes its majority device (GPU:1, 2 of 3) and lists the mix.
        QCOMPARE(c.paints[0].fill, ViewTheme::light().nodeFill(CategoryPalette::colour(2)));
        QCOMPARE(c.paints[0].mix.size(), size_t(2));
        QCOMPARE(c.paints[0].mix[0].first, CategoryPalette::colour(1));
        QCOMPARE(c.paints[0].mix[0].second, 1.0 / 3.0);
        QCOMPARE(c.paints[0].mix[1].second, 2.0 / 3.0);
        QVERIFY(c.paints[1].mix.empty());
    }

    void searchRanksExactThenPrefixThenSubstringThenType()
    {
        GraphBuilder b("search");
        b.addOp(uitest::op("myconv", "X", 1, 1, 0));
        b.addOp(uitest::op("relu", "Conv2d", 1, 1, 0));
        b.addOp(uitest::op("conv_1", "X", 1, 1, 0));
        b.addOp(uitest::op("Conv", "X", 1, 1, 0));
        b.addOp(uitest::op("fc", "Linear", 1, 1, 0));
        const Graph g = std::move(b).build();
        QCOMPARE(OpSearchWidget::findOps(g, QStringLiteral("conv"), 10), (std::vector<OpId>{3, 2, 0, 1}));
        QCOMPARE(OpSearchWidget::findOps(g, QStringLiteral("conv"), 2), (std::vector<OpId>{3, 2}));
        QCOMPARE(OpSearchWidget::findOps(g, QStringLiteral("  LINEAR "), 10), (std::vector<OpId>{4}));
        QVERIFY(OpSearchWidget::findOps(g, QString(), 10).empty());
        QVERIFY(OpSearchWidget::findOps(g, QStringLiteral("zzz"), 10).empty());
    }

    void panelDrawsOneItemPerOpAfterLayout()
    {
        GraphPanel panel;
        panel.resize(800, 600);
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::chainDocument(50));
        QCOMPARE(panel.scene()->nodeItemCount(), 0); // layout runs on its thread
        QVERIFY(panel.isLayoutBusy());
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(panel.scene()->nodeItemCount(), 50);
        QCOMPARE(panel.scene()->edgeItemCount(), 49);
        QVERIFY(!panel.isLayoutBusy());
        // Top to bottom in op order.
        QVERIFY(panel.scene()->itemForOp(0)->sceneBoundingRect().center().y()
                < panel.scene()->itemForOp(49)->sceneBoundingRect().center().y());
    }

    void aNewDocumentDropsTheStaleLayout()
    {
        GraphPanel panel;
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::chainDocument(150));
        panel.setDocument(uitest::smallDocument());
        QVERIFY(applied.wait(kLayoutWaitMs));
        QTest::qWait(300); // let a late result for the first document arrive, if any
        QCOMPARE(applied.count(), 1);
        QCOMPARE(panel.scene()->nodeItemCount(), 4);
        QCOMPARE(panel.scene()->document()->path, QStringLiteral("small"));
    }

    void cancelLeavesTheSceneEmpty()
    {
        GraphPanel panel;
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        QSignalSpy cancelled(&panel, &GraphPanel::layoutCancelled);
        panel.setDocument(uitest::chainDocument(150));
        panel.cancelLayout();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!panel.isLayoutBusy());
        QVERIFY(!applied.wait(1000));
        QCOMPARE(panel.scene()->nodeItemCount(), 0);
    }

    void colourBySwitchesNodeBrushes()
    {
        GraphPanel panel;
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        const DocumentPtr doc = uitest::smallDocument({1, 2, 2, 0});
        panel.setDocument(doc);
        QVERIFY(applied.wait(kLayoutWaitMs));
        const GraphScene* scene = panel.scene();
        const ViewTheme theme = scene->theme();

        panel.setColourMode(ColourMode::Device);
        QCOMPARE(fillOf(scene, 1), theme.nodeFill(CategoryPalette::colour(2)));
        QCOMPARE(fillOf(scene, 3), theme.nodeFill(CategoryPalette::colour(0)));

        // One op per type: ties by name give Conv2d, Input, Linear, ReLU colours 0..3.
        panel.setColourMode(ColourMode::OpType);
        QCOMPARE(fillOf(scene, 1), theme.nodeFill(CategoryPalette::colour(0)));
        QCOMPARE(fillOf(scene, 0), theme.nodeFill(CategoryPalette::colour(1)));
        QCOMPARE(fillOf(scene, 2), theme.nodeFill(CategoryPalette::colour(3)));
        QCOMPARE(scene->legend().title, QStringLiteral("Op type"));

        // Time on the placed device: input 0, conv 100/2, relu 10/2 on GPU:1, fc 400 on the CPU.
        panel.setColourMode(ColourMode::ComputeTime);
        QVERIFY(scene->legend().gradient);
        QCOMPARE(fillOf(scene, 1), GradientScale::at(std::log(50.0 / 5.0) / std::log(400.0 / 5.0)));
        QCOMPARE(fillOf(scene, 3), GradientScale::at(1.0));
        QCOMPARE(fillOf(scene, 0), GradientScale::at(0.0));
        // The ramp's ends are the values they map: the input's 0 µs takes the lowest colour with
        // relu's 5 µs, so that end is "≤ 5.00 µs" (it said "5.00 µs", as if nothing took less).
        // Its middle is the geometric mean (a log scale, as the title says): 44.7 µs.
        QCOMPARE(scene->legend().lowLabel, QStringLiteral("≤ 5.00 µs"));
        QCOMPARE(scene->legend().highLabel, QStringLiteral("400 µs"));
        QCOMPARE(scene->legend().midLabel, QStringLiteral("44.7 µs"));
        QCOMPARE(fillOf(scene, 2), GradientScale::at(0.0)); // relu: 5 µs, the low end
        QCOMPARE(GradientScale(5.0, 400.0).position(std::sqrt(5.0 * 400.0)), 0.5);
        QCOMPARE(scene->legend().title, QStringLiteral("Compute time (log scale)"));

        // Output + parameter bytes: input 1000, conv 4800, relu 4000, fc 20100.
        panel.setColourMode(ColourMode::Memory);
        QCOMPARE(fillOf(scene, 0), GradientScale::at(0.0));
        QCOMPARE(fillOf(scene, 3), GradientScale::at(1.0));
        QCOMPARE(fillOf(scene, 2), GradientScale::at(std::log(4.0) / std::log(20.1)));
        // No op holds less than the input's 1000 B: the low end is that value, unqualified.
        QCOMPARE(scene->legend().lowLabel, QStringLiteral("1.00 KB"));
        QCOMPARE(scene->legend().highLabel, QStringLiteral("20.1 KB"));
    }

    void searchPicksSelectsAndCentres()
    {
        GraphPanel panel;
        panel.resize(500, 300);
        panel.show();
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::chainDocument(60));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QSignalSpy selected(&panel, &GraphPanel::opSelected);
        panel.showSearch();
        QVERIFY(panel.search()->isVisible());
        panel.search()->setQuery(QStringLiteral("op57"));
        QCOMPARE(panel.search()->matches(), (std::vector<OpId>{57}));
        NodeItem* item = panel.scene()->itemForOp(57);
        QVERIFY(item->isHighlighted());
        panel.search()->pickCurrent();
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().value<OpId>(), 57);
        QCOMPARE(panel.scene()->selectedOp(), 57);
        QVERIFY(item->isSelected());
        const QRectF visible = panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect();
        QVERIFY(visible.contains(item->sceneBoundingRect().center()));
        QVERIFY(!visible.contains(panel.scene()->itemForOp(0)->sceneBoundingRect()));
    }

    void overlaysFollowResizes()
    {
        GraphPanel panel;
        panel.resize(600, 400);
        panel.show();
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::chainDocument(60));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(panel.legend()->isVisible());
        QVERIFY(panel.overview()->isVisible());
        for (const QSize size : {QSize(1100, 800), QSize(500, 350)}) {
            panel.resize(size);
            QCoreApplication::processEvents();
            // The legend at the top right and the overview at the bottom right of the viewport.
            const QRect area = panel.view()->viewport()->geometry();
            QCOMPARE(panel.legend()->geometry().right(), area.right() - 10 - 1);
            QCOMPARE(panel.overview()->geometry().right(), area.right() - 10 - 1);
            QCOMPARE(panel.overview()->geometry().bottom(), area.bottom() - 10 - 1);
        }
    }

    void clickingABoxReportsItsOp()
    {
        GraphPanel panel;
        QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
        panel.setDocument(uitest::smallDocument());
        QVERIFY(applied.wait(kLayoutWaitMs));
        QSignalSpy selected(&panel, &GraphPanel::opSelected);
        panel.scene()->itemForOp(2)->setSelected(true); // what a click does
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().value<OpId>(), 2);
        // Selecting from code does not echo back.
        panel.selectOp(3, false);
        QCOMPARE(selected.count(), 1);
        QVERIFY(panel.scene()->itemForOp(3)->isSelected());
        QVERIFY(!panel.scene()->itemForOp(2)->isSelected());
    }

    void darkPaletteDarkensTheScene()
    {
        GraphPanel panel;
        QPalette dark = panel.palette();
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x20, 0x24));
        dark.setColor(QPalette::Text, QColor(0xe6, 0xe8, 0xeb));
        panel.setPalette(dark);
        QVERIFY(panel.scene()->theme().dark);
        QVERIFY(panel.scene()->backgroundBrush().color().lightness() < 64);
    }
};

QTEST_MAIN(TestGraphView)
#include "test_graphview.moc"
