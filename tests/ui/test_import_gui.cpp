// Files whose import carries more than a graph: a TensorFlow GraphDef's own placement
// (its `device` fields), an ONNX model's batch size, op types without a cost formula.
#include "tests/support/ScratchSettings.h"
#include "tests/support/TestData.h"

#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/sim/Simulator.h"
#include "ui/MainWindow.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/inspector/InspectorPanel.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace post;

namespace {

constexpr int kWaitMs = 30000;

QString dataFile(const QString& name) { return testdata::sourceDir() + QStringLiteral("/tests/data/") + name; }

// Opens `path` and waits until it is drawn.
bool openAndWait(MainWindow& window, const QString& path)
{
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(path);
    return shown.wait(kWaitMs);
}

} // namespace

class TestImportGui : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    // small_cnn.pbtxt puts its ops on CPU:0, GPU:0 and GPU:1 (a few ops have no device and
    // take TensorFlow's default): the window shows that placement, computed here by core.
    void pbtxtOpensWithItsOwnPlacement()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        window.setClusterName(QStringLiteral("k80x4"));
        const QString path = dataFile(QStringLiteral("pbtxt/small_cnn.pbtxt"));
        QVERIFY(openAndWait(window, path));
        const ImportedGraph imported = readGraphFileWithPlacement(path.toStdString());
        const Placement expected = givenPlacement(imported, loadCluster("k80x4"));
        QVERIFY(window.hub()->document()->isPlaced());
        QCOMPARE(window.hub()->document()->placement, expected);
        QCOMPARE(window.hub()->document()->given, expected);
        QVERIFY(window.hub()->document()->format == GraphFormat::TfPbtxt);
        // Several devices are used, so this is not a default "all on one GPU".
        QVERIFY(std::set<DeviceId>(expected.begin(), expected.end()).size() >= 3);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("placement the file gives")), kWaitMs);
        QVERIFY(window.findChild<InspectorPanel*>()->html().contains(QStringLiteral("the file's own")));
    }

    // On a cluster without GPU:1 the file's placement cannot be shown: the graph still
    // opens, unplaced, and the status bar says why, naming the device.
    void aGivenPlacementThatDoesNotFitIsExplained()
    {
        QTemporaryDir dir;
        const QString clusterPath = dir.filePath(QStringLiteral("one-gpu.json"));
        QFile file(clusterPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "post-cluster/1", "name": "one-gpu", "devices": [
            {"name": "/device:CPU:0", "kind": "cpu", "speed": 1, "memory_bytes": 1e11},
            {"name": "/device:GPU:0", "kind": "gpu", "speed": 0.3, "memory_bytes": 1.2e10}],
            "default_link": {"bandwidth_GBps": 12, "latency_us": 10}})");
        file.close();
        MainWindow window;
        window.setInteractiveErrors(false);
        window.setClusterName(clusterPath);
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("pbtxt/small_cnn.pbtxt"))));
        QVERIFY(!window.hub()->document()->isPlaced());
        QVERIFY(window.hub()->document()->given.empty());
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("not shown")), kWaitMs);
        QVERIFY2(window.statusMessage().contains(QStringLiteral("GPU:1")), qPrintable(window.statusMessage()));
    }

    // The comparison tab adds the file's placement as a "given" row, timed by the simulator.
    void comparisonHasAGivenRow()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        window.setClusterName(QStringLiteral("k80x4"));
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("pbtxt/small_cnn.pbtxt"))));
        ComparisonView* view = window.findChild<ComparisonView*>();
        QVERIFY(view->setAlgorithms(QStringLiteral("single")));
        QSignalSpy finished(view, &ComparisonView::runFinished);
        view->start();
        QVERIFY(finished.wait(kWaitMs));
        const ComparisonModel* model = view->model();
        QCOMPARE(model->rowCount(), 2);
        int givenRow = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->row(r).algorithm == "given")
                givenRow = r;
        QVERIFY(givenRow >= 0);
        const DocumentPtr& doc = window.hub()->document();
        Simulator sim(*doc->graph, *doc->cluster, SimOptions{});
        QCOMPARE(model->row(givenRow).bestUsOverRuns, sim.run(doc->given, false).stepTimeUs);
        QCOMPARE(model->row(givenRow).best, doc->given);
    }

    // An ONNX model is read at the chosen batch size; changing it reads the model again
    // with costs that match core's reader at that batch.
    void onnxBatchSizeIsChosenAndShown()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        window.setBatch(4);
        const QString path = dataFile(QStringLiteral("onnx/cnn.onnx"));
        QVERIFY(openAndWait(window, path));
        QVERIFY(window.hub()->document()->format == GraphFormat::Onnx);
        QCOMPARE(window.hub()->document()->batch, std::int64_t(4));
        QVERIFY2(window.summaryText().contains(QStringLiteral("batch 4")), qPrintable(window.summaryText()));
        QVERIFY(window.findChild<InspectorPanel*>()->html().contains(QStringLiteral("Batch size")));

        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.setBatch(8);
        QVERIFY(shown.wait(kWaitMs));
        QCOMPARE(window.hub()->document()->batch, std::int64_t(8));
        QVERIFY(window.summaryText().contains(QStringLiteral("batch 8")));
        ImportOptions options;
        options.batch = 8;
        const Graph expected = readGraphFile(path.toStdString(), GraphFormat::Auto, options);
        options.batch = 4;
        const Graph atFour = readGraphFile(path.toStdString(), GraphFormat::Auto, options);
        const Graph& shownGraph = *window.hub()->document()->graph;
        QCOMPARE(shownGraph.opCount(), expected.opCount());
        double shownBytes = 0, expectedBytes = 0, fourBytes = 0;
        for (OpId op = 0; op < expected.opCount(); ++op) {
            shownBytes += shownGraph.op(op).outputBytes;
            expectedBytes += expected.op(op).outputBytes;
            fourBytes += atFour.op(op).outputBytes;
        }
        QCOMPARE(shownBytes, expectedBytes);
        QVERIFY(shownBytes > 1.5 * fourBytes); // activations grow with the batch
    }

    // Op types the cost model has no formula for are named in the status bar.
    void unknownOpTypesAreNamed()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("onnx/custom_op.onnx"))));
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("FancyOp")), kWaitMs);
        QVERIFY(window.statusMessage().contains(QStringLiteral("No cost formula")));
    }
};

QTEST_MAIN(TestImportGui)
#include "test_import_gui.moc"
