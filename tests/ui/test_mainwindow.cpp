#include "tests/support/ScratchSettings.h"
#include "tests/support/TestData.h"

#include "core/cluster/Cluster.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/PlacementFile.h"
#include "ui/MainWindow.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentLoader.h"
#include "ui/document/RecentFiles.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/NodeItem.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/models/OpTableModel.h"
#include "ui/panels/OpTablePanel.h"
#include "ui/theme/CategoryPalette.h"
#include "ui/util/ElidingLabel.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <memory>

using namespace post;

namespace {

constexpr int kWaitMs = 30000;

// Four PipeDream layers (one input): 2L - I = 7 ops, E + E' + (L - I) = 3 + 2 + 3 = 8
// edges in the training step (docs/importers.md).
const char* const kTinyProfile = "node1 -- Input0 -- forward_compute_time=5.0, backward_compute_time=0.0, "
                                 "activation_size=1000.0, parameter_size=0.0\n"
                                 "node2 -- Conv2d(3, 8) -- forward_compute_time=2.0, backward_compute_time=4.0, "
                                 "activation_size=8000.0, parameter_size=864.0\n"
                                 "node3 -- ReLU(inplace) -- forward_compute_time=0.5, backward_compute_time=0.5, "
                                 "activation_size=8000.0, parameter_size=0.0\n"
                                 "node4 -- Linear(8, 10) -- forward_compute_time=1.0, backward_compute_time=2.0, "
                                 "activation_size=40.0, parameter_size=320.0\n"
                                 "\tnode1 -- node2\n"
                                 "\tnode2 -- node3\n"
                                 "\tnode3 -- node4\n";

// 25 layers in a chain (one input): 49 ops.
QByteArray chainProfile()
{
    QByteArray text =
        "node0 -- Input0 -- forward_compute_time=0, backward_compute_time=0, activation_size=10, parameter_size=0\n";
    for (int i = 1; i < 25; ++i)
        text += QByteArray("node") + QByteArray::number(i)
            + " -- Conv2d -- forward_compute_time=1, backward_compute_time=1, activation_size=10, parameter_size=4\n";
    for (int i = 1; i < 25; ++i)
        text += "\tnode" + QByteArray::number(i - 1) + " -- node" + QByteArray::number(i) + "\n";
    return text;
}

using testdata::writeFile;

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        testsupport::useScratchSettings();
        QVERIFY(dir_.isValid());
    }

    // The first window is 1400x880; on a smaller screen (1280x800) it is sized to the screen's
    // available geometry, frame included, and placed on it. (The offscreen platform's screen is
    // 800x600.)
    void theFirstWindowFitsTheScreen()
    {
        QCOMPARE(MainWindow::fittedSize({1400, 880}, {1920, 1080}), QSize(1400, 880));
        const QSize small = MainWindow::fittedSize({1400, 880}, {1280, 800});
        QVERIFY(small.width() < 1280 && small.height() < 800 && small.width() >= 1200 && small.height() >= 700);
        MainWindow window;
        QCOMPARE(window.size(), QSize(1400, 880));
        // The window can be that small: its docks, tabs and bars fit in it.
        const QSize least = window.minimumSizeHint();
        QVERIFY2(least.width() <= small.width() && least.height() <= small.height(),
                 qPrintable(QStringLiteral("at least %1x%2").arg(least.width()).arg(least.height())));
        // On this platform's screen (800 px wide) it shrinks as far as it can, onto the screen.
        const QRect available = window.screen()->availableGeometry();
        QVERIFY2(available.width() < 1400 && available.height() < 880, "the test needs a screen smaller than the window");
        window.fitToScreen();
        QCOMPARE(window.size(), MainWindow::fittedSize({1400, 880}, available.size()).expandedTo(least));
        QVERIFY(available.contains(window.pos()));
    }

    // A label that may be too narrow for its text draws it cut short with "…" and says the
    // whole text in its tooltip (before its own); text() stays whole.
    void anElidingLabelSaysItsWholeTextWhenCut()
    {
        ElidingLabel label;
        const QString whole = QStringLiteral(
            "Showing placement a-placement-with-a-long-name.json, timed as it was placed");
        label.setText(whole);
        label.setToolTip(QStringLiteral("What the label is"));
        label.resize(label.sizeHint().width() + 10, 20);
        QVERIFY(!label.isElided());
        QCOMPARE(label.shownText(), whole);
        QCOMPARE(label.effectiveToolTip(), QStringLiteral("What the label is"));
        QVERIFY(label.minimumSizeHint().width() < label.sizeHint().width());
        label.resize(120, 20);
        QVERIFY(label.isElided());
        QVERIFY(label.shownText().endsWith(QStringLiteral("…")));
        QVERIFY(label.fontMetrics().horizontalAdvance(label.shownText()) <= 120);
        QCOMPARE(label.text(), whole);
        QCOMPARE(label.effectiveToolTip(), whole + QStringLiteral("\n\nWhat the label is"));
    }

    // The status bar's sections (the status line, the step's figures, the graph's summary)
    // share its width: at 1400 px and narrower each stays inside the bar, none overlaps
    // another, and a section narrower than its text draws it elided with the whole text in its
    // tooltip. The step's figures give way last. (At 1400 px the summary ran past the window's
    // edge, cut mid-word, when a placement file with a longer name was shown.)
    void theStatusBarsSectionsFitOrElide()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        window.resize(1400, 880);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(
            writeFile(dir_, QStringLiteral("a-profile-with-a-name-long-enough-to-crowd-the-bar.txt"), chainProfile()));
        QVERIFY(shown.wait(kWaitMs));
        const Graph& g = *window.hub()->document()->graph;
        const Placement p(static_cast<size_t>(g.opCount()), 1);
        QVERIFY(window.openPlacement(
            writeFile(dir_, QStringLiteral("the-placement-of-that-profile-with-a-long-name-too.placement.json"),
                      QByteArray::fromStdString(placementJson(g, *window.hub()->document()->cluster, p)))));
        auto* status = window.findChild<ElidingLabel*>(QStringLiteral("statusText"));
        auto* step = window.findChild<ElidingLabel*>(QStringLiteral("stepStatus"));
        auto* summary = window.findChild<ElidingLabel*>(QStringLiteral("graphSummary"));
        QVERIFY(status && step && summary);
        QTRY_VERIFY(step->isVisible() && step->text().startsWith(QStringLiteral("Step ")));
        QVERIFY(status->text().startsWith(QStringLiteral("Showing placement the-placement-of-that-profile")));
        QStatusBar* bar = window.statusBar();
        bool elided = false;
        for (const int width : {1400, 1100, std::max(900, window.minimumSizeHint().width())}) {
            window.resize(width, 880);
            QTest::qWait(50);
            QTRY_COMPARE(bar->width(), window.width());
            QList<QRect> taken;
            for (const ElidingLabel* label : {status, step, summary}) {
                const QRect rect(label->mapTo(bar, QPoint(0, 0)), label->size());
                const QString what = QStringLiteral("%1 px: %2 at %3-%4 of a %5 px bar")
                                         .arg(width)
                                         .arg(label->objectName())
                                         .arg(rect.left())
                                         .arg(rect.right())
                                         .arg(bar->width());
                QVERIFY2(bar->rect().contains(rect), qPrintable(what));
                for (const QRect& other : taken)
                    QVERIFY2(!rect.intersects(other), qPrintable(what));
                taken << rect;
                const bool cut = label->shownText() != label->text();
                QCOMPARE(label->isElided(), cut);
                if (cut) {
                    elided = true;
                    QVERIFY2(label->effectiveToolTip().startsWith(label->text()), qPrintable(what));
                    QVERIFY(label->shownText().endsWith(QStringLiteral("…")));
                }
            }
            if (width >= 1100) // the step's figures stay whole in a window as wide as the first
                QVERIFY2(!step->isElided(), qPrintable(step->shownText()));
        }
        QVERIFY(elided); // the narrowest window did make them give way
    }

    void openingAFileDrawsEveryOp()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        const QString path = writeFile(dir_, QStringLiteral("tiny.txt"), kTinyProfile);
        window.openFile(path);
        QVERIFY(shown.wait(kWaitMs));
        QCOMPARE(window.hub()->document()->opCount(), 7);
        QCOMPARE(window.hub()->document()->graph->edgeCount(), 8);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->nodeItemCount(), 7);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->edgeItemCount(), 8);
        QCOMPARE(window.findChild<OpTablePanel*>()->model()->rowCount(), 7);
        QVERIFY(window.windowTitle().contains(QStringLiteral("tiny.txt")));
        QCOMPARE(RecentFiles::files().value(0), QFileInfo(path).absoluteFilePath());
    }

    // Roofline estimates on a Hopper GPU at the reference efficiencies are noted, as post-cli
    // notes them, for the graph on the cluster shown now: another cluster drops the note.
    void hopperEstimatesAreNotedForTheClusterShown()
    {
        const QString hopper = writeFile(dir_, QStringLiteral("hopper.json"), R"({"format": "post-cluster/1", "devices": [
            {"name": "/device:CPU:0", "kind": "cpu", "peak_tflops": 14.336, "memory_bandwidth_GBps": 614.4},
            {"name": "/device:GPU:0", "kind": "gpu", "type": "h100", "peak_tflops": 67, "peak_tf32_tflops": 494.7,
             "memory_bandwidth_GBps": 3350}]})");
        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(window.setClusterName(hopper));
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(testdata::sourceDir() + QStringLiteral("/tests/data/onnx/cnn.onnx"));
        QVERIFY(shown.wait(kWaitMs));
        const QString note = QStringLiteral("at the cost model's reference efficiencies");
        QVERIFY2(window.documentNotes().join(QLatin1Char('\n')).contains(note),
                 qPrintable(window.documentNotes().join(QLatin1Char('\n'))));
        window.hub()->setCluster(std::make_shared<const Cluster>(loadCluster("k80x4")), {}, this);
        QVERIFY2(!window.documentNotes().join(QLatin1Char('\n')).contains(note),
                 qPrintable(window.documentNotes().join(QLatin1Char('\n'))));
        QSettings().remove(QStringLiteral("cluster"));
    }

    // A cluster that cannot be read is reported naming its file, and neither used nor kept
    // in the settings (else every later launch would fail).
    void aBadClusterIsReportedAndNeverKept()
    {
        const QString bad = writeFile(dir_, QStringLiteral("broken-cluster.json"), "{\"format\": \"post-cluster/1\", ");
        {
            MainWindow window;
            window.setInteractiveErrors(false);
            const QString before = window.hub()->clusterName();
            QSignalSpy failed(&window, &MainWindow::loadFailed);
            QVERIFY(!window.setClusterName(bad));
            QCOMPARE(failed.count(), 1);
            QCOMPARE(failed.first().at(0).toString(), bad);
            QVERIFY2(failed.first().at(1).toString().contains(bad), qPrintable(failed.first().at(1).toString()));
            QVERIFY2(window.statusMessage().contains(QStringLiteral("broken-cluster.json")),
                     qPrintable(window.statusMessage()));
            QCOMPARE(window.hub()->clusterName(), before);
            QVERIFY(QSettings().value(QStringLiteral("cluster")).toString() != bad);

            QVERIFY(window.setClusterName(QStringLiteral("k80x2"))); // a good one is kept
            QCOMPARE(QSettings().value(QStringLiteral("cluster")).toString(), QStringLiteral("k80x2"));
        }
        // A cluster kept from an earlier run that has gone bad since is dropped at start-up.
        QSettings().setValue(QStringLiteral("cluster"), bad);
        MainWindow window;
        QCOMPARE(window.hub()->clusterName(), DocumentLoader::defaultClusterName());
        QVERIFY(!QSettings().contains(QStringLiteral("cluster")));
        QVERIFY(window.statusMessage().contains(bad));
        QSettings().remove(QStringLiteral("cluster"));
    }

    // Every bundled sample opens and is drawn with one box per op (small graphs) or per
    // group (large ones): every op in exactly one box, a colocation group never split.
    void everySampleIsDrawnOpByOpOrByGroup()
    {
        const QDir samples(testdata::sourceDir() + QStringLiteral("/samples/graphs"));
        const QStringList files = samples.entryList({QStringLiteral("*.json")}, QDir::Files);
        QVERIFY(files.size() >= 4);
        for (const QString& file : files) {
            MainWindow window;
            window.setInteractiveErrors(false);
            QSignalSpy shown(&window, &MainWindow::documentShown);
            QSignalSpy failed(&window, &MainWindow::loadFailed);
            window.openFile(samples.filePath(file));
            QVERIFY2(shown.wait(kWaitMs), qPrintable(file));
            QVERIFY2(failed.isEmpty(), qPrintable(file));
            const Graph& g = *window.hub()->document()->graph;
            const GraphScene* scene = window.findChild<GraphPanel*>()->scene();
            const ViewGraph& view = scene->viewGraph();
            QCOMPARE(scene->nodeItemCount(), view.nodeCount());
            QCOMPARE(static_cast<int>(view.nodeOfOp.size()), g.opCount());
            int opsInBoxes = 0;
            for (const ViewNode& node : view.nodes)
                opsInBoxes += static_cast<int>(node.ops.size());
            QCOMPARE(opsInBoxes, g.opCount());
            if (!view.grouped) {
                QCOMPARE(scene->nodeItemCount(), g.opCount());
                continue;
            }
            QVERIFY2(scene->nodeItemCount() < g.opCount(), qPrintable(file));
            if (view.isScoped()) {
                // By name scope: boxes follow names, which may split a colocation group.
                qInfo("%s: %d ops drawn by scope as %d boxes in %zu frames", qPrintable(file), g.opCount(),
                      scene->nodeItemCount(), view.frames.size());
                continue;
            }
            std::vector<int> boxOfGroup(static_cast<size_t>(g.colocationGroupCount()), -1);
            for (OpId op = 0; op < g.opCount(); ++op) {
                const int group = g.colocationGroup(op);
                if (group < 0)
                    continue;
                int& box = boxOfGroup[static_cast<size_t>(group)];
                if (box < 0)
                    box = view.nodeOfOp[static_cast<size_t>(op)];
                QCOMPARE(view.nodeOfOp[static_cast<size_t>(op)], box);
            }
            qInfo("%s: %d ops drawn as %d boxes", qPrintable(file), g.opCount(), scene->nodeItemCount());
        }
    }

    void droppingAFileOpensIt()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        const QString path = writeFile(dir_, QStringLiteral("dropped.txt"), kTinyProfile);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(shown.wait(kWaitMs));
        QCOMPARE(window.hub()->document()->path, QFileInfo(path).absoluteFilePath());
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->nodeItemCount(), 7);
    }

    void aBadFileReportsAnErrorNamingTheProblem()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        const QString path = writeFile(dir_, QStringLiteral("bad.txt"),
                                       "node1 -- Conv2d -- forward_compute_time=-3, backward_compute_time=0, "
                                       "activation_size=1, parameter_size=0\n");
        window.openFile(path);
        QVERIFY(failed.wait(kWaitMs));
        QCOMPARE(failed.first().at(0).toString(), path);
        const QString message = failed.first().at(1).toString();
        QVERIFY2(message.contains(QStringLiteral("line 1")), qPrintable(message));
        QCOMPARE(shown.count(), 0);
        QVERIFY(!window.hub()->document());

        failed.clear();
        window.openFile(dir_.filePath(QStringLiteral("missing.txt")));
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY(!failed.first().at(1).toString().isEmpty());
    }

    void aNewFileDropsTheOldOne()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        const QString first = writeFile(dir_, QStringLiteral("chain.txt"), chainProfile());
        const QString second = writeFile(dir_, QStringLiteral("tiny2.txt"), kTinyProfile);
        window.openFile(first);
        window.openFile(second);
        QVERIFY(shown.wait(kWaitMs));
        QTest::qWait(300);
        QCOMPARE(shown.count(), 1);
        QCOMPARE(window.hub()->document()->path, QFileInfo(second).absoluteFilePath());
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->nodeItemCount(), 7);

        // And once shown, opening the chain replaces it. Its forward-to-backward edges cross
        // many ranks (rung i crosses 49 - 2i), so it is drawn one box per layer: 25.
        window.openFile(first);
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(window.findChild<GraphPanel*>()->scene()->viewGraph().grouped);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->nodeItemCount(), 25);
        QCOMPARE(window.findChild<OpTablePanel*>()->model()->rowCount(), 49);
    }

    void selectionFollowsTableInspectorLinksAndGraph()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(writeFile(dir_, QStringLiteral("tiny3.txt"), kTinyProfile));
        QVERIFY(shown.wait(kWaitMs));
        const Graph& g = *window.hub()->document()->graph;
        const OpId conv = *g.find("node2");
        const OpId relu = *g.find("node3");

        // A row picked in the table selects the op everywhere.
        emit window.findChild<OpTablePanel*>()->opSelected(conv);
        QCOMPARE(window.findChild<InspectorPanel*>()->op(), conv);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->selectedOp(), conv);
        QVERIFY(window.findChild<GraphPanel*>()->scene()->itemForOp(conv)->isSelected());
        QVERIFY(window.findChild<InspectorPanel*>()->html().contains(QStringLiteral("Conv2d")));

        // Its output link in the inspector moves the selection to the neighbour.
        QVERIFY(window.findChild<InspectorPanel*>()->html().contains(QStringLiteral("op:%1").arg(relu)));
        auto* browser = window.findChild<InspectorPanel*>()->findChild<QTextBrowser*>();
        QVERIFY(browser);
        emit browser->anchorClicked(QUrl(QStringLiteral("op:%1").arg(relu)));
        QCOMPARE(window.findChild<InspectorPanel*>()->op(), relu);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->selectedOp(), relu);
        const QModelIndex current = window.findChild<OpTablePanel*>()->table()->currentIndex();
        QCOMPARE(current.data(OpTableModel::OpIdRole).toInt(), relu);

        // A click in the graph reaches the table and the inspector.
        window.findChild<GraphPanel*>()->scene()->itemForOp(conv)->setSelected(true);
        QCOMPARE(window.findChild<InspectorPanel*>()->op(), conv);
        QCOMPARE(window.findChild<OpTablePanel*>()->table()->currentIndex().data(OpTableModel::OpIdRole).toInt(), conv);
    }

    // The inspector says where each time comes from: measured (--costs), estimated from
    // shapes by the cost model, or (nothing said) as the file gives it.
    void inspectorTellsMeasuredFromEstimatedTimes()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(writeFile(dir_, QStringLiteral("sources.json"), R"({"format": "post-graph/1", "name": "g",
            "ops": [{"name": "measured", "time_us": {"gpu": 5, "cpu": 50}, "flops": 1e6, "measured": ["cpu"]},
                    {"name": "shaped", "time_us": {"gpu": 5, "cpu": 50, "t4": 9}, "flops": 1e6},
                    {"name": "profiled", "time_us": {"gpu": 5, "cpu": 50},
                     "body": "body: 2 ops, x 7 iterations", "fused_into": "shaped"},
                    {"name": "traced", "time_us": {"gpu": 7, "cpu": 50}, "flops": 1e6, "measured": ["gpu"],
                     "measured_by": "run.pt.trace.json.gz"}],
            "edges": [{"from": "measured", "to": "shaped"}, {"from": "shaped", "to": "profiled"},
                      {"from": "profiled", "to": "traced"}]})"));
        QVERIFY(shown.wait(kWaitMs));
        const Graph& g = *window.hub()->document()->graph;
        auto* inspector = window.findChild<InspectorPanel*>();
        inspector->showOp(*g.find("measured"));
        QVERIFY2(inspector->html().contains(QStringLiteral("(measured)")), qPrintable(inspector->html()));
        QVERIFY(inspector->html().contains(QStringLiteral("(estimated)"))); // its GPU time
        // A time measured by a trace names it (issue 27: which trace, or estimated).
        inspector->showOp(*g.find("traced"));
        QVERIFY2(inspector->html().contains(QStringLiteral("(measured: run.pt.trace.json.gz)")),
                 qPrintable(inspector->html()));
        QVERIFY(inspector->html().contains(QStringLiteral("(estimated)"))); // its CPU time
        inspector->showOp(*g.find("shaped"));
        QVERIFY(!inspector->html().contains(QStringLiteral("(measured)")));
        QVERIFY(inspector->html().contains(QStringLiteral("(estimated)")));
        QVERIFY(!inspector->html().contains(QStringLiteral("Body")));
        // A time for a device type (docs/clusters.md, "Device types"), given in the file.
        QVERIFY2(inspector->html().contains(QStringLiteral("Time on t4"))
                     && inspector->html().contains(QStringLiteral("(given)")),
                 qPrintable(inspector->html()));
        inspector->showOp(*g.find("profiled"));
        QVERIFY(!inspector->html().contains(QStringLiteral("Time on")));
        QVERIFY(!inspector->html().contains(QStringLiteral("(measured)")));
        QVERIFY(!inspector->html().contains(QStringLiteral("(estimated)")));
        // A control-flow op lists its body and how it was costed (issue 17: If / Loop / Scan).
        QVERIFY2(inspector->html().contains(QStringLiteral("body: 2 ops, x 7 iterations")),
                 qPrintable(inspector->html()));
        // A fused op names the op whose kernel runs it (its 0 us explained); others do not.
        QVERIFY2(inspector->html().contains(QStringLiteral("Fused into")) && inspector->html().contains("shaped"),
                 qPrintable(inspector->html()));
        inspector->showOp(*g.find("shaped"));
        QVERIFY(!inspector->html().contains(QStringLiteral("Fused into")));
    }

    void aPlacementRecoloursWithoutRelayout()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(writeFile(dir_, QStringLiteral("tiny4.txt"), kTinyProfile));
        QVERIFY(shown.wait(kWaitMs));
        window.setColourMode(ColourMode::Device);
        GraphScene* scene = window.findChild<GraphPanel*>()->scene();
        NodeItem* before = scene->itemForOp(1);
        const QColor unplaced = before->nodePaint().fill;
        window.hub()->setPlacement(Placement(static_cast<size_t>(window.hub()->document()->opCount()), 1));
        QCOMPARE(scene->itemForOp(1), before); // same items: no new layout
        QCOMPARE(scene->itemForOp(1)->nodePaint().fill, scene->theme().nodeFill(CategoryPalette::colour(1)));
        QVERIFY(scene->itemForOp(1)->nodePaint().fill != unplaced);
        QCOMPARE(window.findChild<OpTablePanel*>()->model()->index(1, OpTableModel::Device).data().toString(),
                 QString::fromStdString(window.hub()->document()->cluster->device(1).name));
    }

    void aPlacementFileColoursByDeviceAndABadOneIsReported()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        window.openFile(writeFile(dir_, QStringLiteral("tiny5.txt"), kTinyProfile));
        QVERIFY(shown.wait(kWaitMs));
        const Graph& g = *window.hub()->document()->graph;
        const Cluster& c = *window.hub()->document()->cluster;
        // Everything on device 2, except node3 and its gradient (a colocation group) on 3.
        Placement p(static_cast<size_t>(g.opCount()), 2);
        p[static_cast<size_t>(*g.find("node3"))] = 3;
        p[static_cast<size_t>(*g.find("node3/grad"))] = 3;
        const QString good = writeFile(dir_, QStringLiteral("tiny5.placement.json"),
                                       QByteArray::fromStdString(placementJson(g, c, p)));
        QVERIFY(window.openPlacement(good));
        QCOMPARE(window.hub()->document()->placement, p);
        GraphScene* scene = window.findChild<GraphPanel*>()->scene();
        QVERIFY(window.findChild<GraphPanel*>()->colourMode() == ColourMode::Device);
        QCOMPARE(scene->itemForOp(*g.find("node3"))->nodePaint().fill,
                 scene->theme().nodeFill(CategoryPalette::colour(3)));
        QCOMPARE(scene->itemForOp(*g.find("node2"))->nodePaint().fill,
                 scene->theme().nodeFill(CategoryPalette::colour(2)));

        const QString bad = writeFile(
            dir_, QStringLiteral("bad.placement.json"),
            "{\"format\": \"post-placement/1\", \"placement\": {\"nope\": \"/device:GPU:0\"}}");
        QVERIFY(!window.openPlacement(bad));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.first().at(0).toString(), bad);
        QVERIFY(!failed.first().at(1).toString().isEmpty());
        QCOMPARE(window.hub()->document()->placement, p); // the shown placement stays
    }

    // A placement file placed under critical-path dispatch (post-cli place --dispatch
    // critical-path --out) is shown under that rule; one of ready order takes it back.
    void aPlacementFileBringsItsDispatchRule()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(writeFile(dir_, QStringLiteral("tiny5-cp.txt"), kTinyProfile));
        QVERIFY(shown.wait(kWaitMs));
        const DocumentPtr opened = window.hub()->document(); // a rule of its own copies the cluster
        const Graph& g = *opened->graph;
        const Cluster& c = *opened->cluster;
        const Placement p(static_cast<size_t>(g.opCount()), 2);
        PlacementProvenance made;
        made.algorithm = "m-etf";
        made.stepTimeUs = 1.0;
        made.dispatch = Dispatch::CriticalPath;
        QVERIFY(window.openPlacement(writeFile(dir_, QStringLiteral("cp.placement.json"),
                                               QByteArray::fromStdString(placementJson(g, c, p, {}, made)))));
        QVERIFY(window.hub()->document()->sim.dispatch == Dispatch::CriticalPath);
        QCOMPARE(window.hub()->document()->placement, p);
        QCOMPARE(window.hub()->document()->made.algorithm, std::string("m-etf"));
        QCOMPARE(window.findChild<LearnerPanel*>()->dispatchPicker()->currentText(), QStringLiteral("critical path"));
        made.dispatch = Dispatch::ReadyOrder;
        QVERIFY(window.openPlacement(writeFile(dir_, QStringLiteral("ready.placement.json"),
                                               QByteArray::fromStdString(placementJson(g, c, p, {}, made)))));
        QVERIFY(window.hub()->document()->sim.dispatch == Dispatch::ReadyOrder);
        // A file without a step time says nothing of its rule: the window keeps its own.
        window.setDispatch(Dispatch::CriticalPath);
        QVERIFY(window.openPlacement(
            writeFile(dir_, QStringLiteral("bare.placement.json"), QByteArray::fromStdString(placementJson(g, c, p)))));
        QVERIFY(window.hub()->document()->sim.dispatch == Dispatch::CriticalPath);
        QSettings().remove(QStringLiteral("dispatch"));
    }

    // A placement file that records the precision mode of its step time (post-cli place --out,
    // File ▸ Export) is shown in that mode; one without a step time leaves the window's.
    void aPlacementFileBringsItsPrecision()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(writeFile(dir_, QStringLiteral("tiny5-amp.txt"), kTinyProfile));
        QVERIFY(shown.wait(kWaitMs));
        const DocumentPtr opened = window.hub()->document();
        const Graph& g = *opened->graph;
        const Cluster& c = *opened->cluster;
        QVERIFY(c.precision() != PrecisionMode::Amp);
        const Placement p(static_cast<size_t>(g.opCount()), 2);
        PlacementProvenance made;
        made.stepTimeUs = 1.0;
        made.precision = PrecisionMode::Amp;
        QVERIFY(window.openPlacement(writeFile(dir_, QStringLiteral("amp.placement.json"),
                                               QByteArray::fromStdString(placementJson(g, c, p, {}, made)))));
        QVERIFY(window.hub()->document()->cluster->precision() == PrecisionMode::Amp);
        QCOMPARE(window.hub()->document()->placement, p);
        QCOMPARE(window.findChild<LearnerPanel*>()->precisionPicker()->currentText(), QStringLiteral("amp"));
        made.precision = PrecisionMode::Fp32;
        QVERIFY(window.openPlacement(writeFile(dir_, QStringLiteral("fp32.placement.json"),
                                               QByteArray::fromStdString(placementJson(g, c, p, {}, made)))));
        QVERIFY(window.hub()->document()->cluster->precision() == PrecisionMode::Fp32);
        QVERIFY(window.openPlacement(writeFile(dir_, QStringLiteral("bare-p.placement.json"),
                                               QByteArray::fromStdString(placementJson(g, c, p)))));
        QVERIFY(window.hub()->document()->cluster->precision() == PrecisionMode::Fp32);
        QSettings().remove(QStringLiteral("precision"));
    }

    void realResNet18IsDrawnByLayer()
    {
        REQUIRE_SHARED_DATA(data);
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(data + QStringLiteral("/pipedream/resnet18/graph.txt"));
        QVERIFY(shown.wait(kWaitMs));
        // 71 layers, one input: 141 ops; its forward-to-backward edges make op-level dot
        // slow, so the view shows one box per layer (colocation group, plus the input).
        QCOMPARE(window.hub()->document()->opCount(), 141);
        QVERIFY(window.findChild<GraphPanel*>()->scene()->viewGraph().grouped);
        QCOMPARE(window.findChild<GraphPanel*>()->scene()->nodeItemCount(), 71);
    }

private:
    QTemporaryDir dir_;
};

QTEST_MAIN(TestMainWindow)
#include "test_mainwindow.moc"
