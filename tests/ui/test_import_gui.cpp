// Files whose import carries more than a graph: a TensorFlow GraphDef's own placement
// (its `device` fields), an ONNX model's batch size, op types without a cost formula.
#include "tests/support/KinetoTraces.h"
#include "tests/support/ScratchSettings.h"
#include "tests/support/TestData.h"

#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/sim/Simulator.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentLoader.h"
#include "ui/import/InputDimensionsDialog.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/learn/LearnerPanel.h"

#include <QAction>
#include <QFile>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
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

    // A PyTorch execution trace is what eager PyTorch ran: the inspector gives its host thread's
    // dispatch of the step's ops (two that do work here, at 47 us each).
    void executionTraceShowsItsHostDispatch()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("fuzz-regressions/pytorch-et/step-with-views.json"))));
        QVERIFY(window.hub()->document()->eagerHost);
        const QString text =
            QString(window.findChild<InspectorPanel*>()->html()).remove(QRegularExpression(QStringLiteral("<[^>]*>")));
        QVERIFY2(text.contains(QStringLiteral("Host dispatch"))
                     && text.contains(QStringLiteral("94.0 µs (eager PyTorch: 2 ops at about 47 µs each")),
                 qPrintable(text));
        QCOMPARE(window.findChild<LearningChart*>()->hostDispatchMs(), 0.094);

        // A cluster whose file gives its host's rate: the inspector and the chart's line take it.
        QTemporaryDir dir;
        const QString clusterPath = dir.filePath(QStringLiteral("slow-host.json"));
        QFile file(clusterPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "post-cluster/1", "name": "slow-host", "host_dispatch_us_per_op": 120,
            "devices": [{"name": "/device:CPU:0", "kind": "cpu"}, {"name": "/device:GPU:0", "kind": "gpu"}]})");
        file.close();
        window.setClusterName(clusterPath);
        QTRY_COMPARE_WITH_TIMEOUT(window.findChild<LearningChart*>()->hostDispatchMs(), 0.24, kWaitMs);
        const QString slow =
            QString(window.findChild<InspectorPanel*>()->html()).remove(QRegularExpression(QStringLiteral("<[^>]*>")));
        QVERIFY2(slow.contains(QStringLiteral("240 µs (eager PyTorch: 2 ops at about 120 µs each from one host "
                                              "thread, this cluster's host_dispatch_us_per_op")),
                 qPrintable(slow));
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
        // Not a PyTorch export: no host dispatch (docs/cost-model.md, "Host dispatch").
        QVERIFY(!window.findChild<InspectorPanel*>()->html().contains(QStringLiteral("Host dispatch")));

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

    // A model whose export fixed the batch (unsorted.onnx: x is 2x4) is at that batch whatever
    // the batch chosen: the status bar and the inspector say its own, not the option's 1.
    void aFixedBatchIsTheModels()
    {
        const DocumentPtr fixed = DocumentLoader::loadNow(dataFile(QStringLiteral("onnx/unsorted.onnx")),
                                                          DocumentLoader::defaultClusterName());
        QCOMPARE(fixed->batch, std::int64_t(1));
        QCOMPARE(fixed->modelBatch, std::int64_t(2));
        QCOMPARE(fixed->batchText(), QStringLiteral("2 (fixed by the model)"));
        const DocumentPtr open = DocumentLoader::loadNow(dataFile(QStringLiteral("onnx/cnn.onnx")),
                                                         DocumentLoader::defaultClusterName(), 4);
        QCOMPARE(open->modelBatch, std::int64_t(4));
        QCOMPARE(open->batchText(), QStringLiteral("4"));

        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("onnx/unsorted.onnx"))));
        QVERIFY2(window.summaryText().contains(QStringLiteral("batch 2 (fixed by the model)")),
                 qPrintable(window.summaryText()));
        QVERIFY(window.findChild<InspectorPanel*>()->html().contains(QStringLiteral("2 (fixed by the model)")));
    }

    // A PyTorch export's .modules.json beside the model puts each module's ops in one group, as
    // post-cli place and compare do; one that cannot be read is named and the model still opens.
    void moduleSidecarGroupsTheOps()
    {
        QTemporaryDir dir;
        const QString model = dir.filePath(QStringLiteral("cnn.onnx"));
        QVERIFY(QFile::copy(dataFile(QStringLiteral("onnx/cnn.onnx")), model));
        const auto writeSidecar = [&](const QByteArray& text) {
            QFile f(model + QStringLiteral(".modules.json"));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text);
        };
        writeSidecar(
            R"({"format": "post-torch-modules/1", "modules": {"conv1": "block", "bn1": "block", "relu1": "block"}})");
        const DocumentPtr doc = DocumentLoader::loadNow(model, DocumentLoader::defaultClusterName());
        const Graph& g = *doc->graph;
        QCOMPARE(g.colocationGroup(*g.find("conv1")), g.colocationGroup(*g.find("relu1")));
        QVERIFY(g.colocationGroup(*g.find("conv1")) != g.colocationGroup(*g.find("pool1")));
        QVERIFY2(doc->notes.join(u'\n').contains(QStringLiteral("each PyTorch module's ops are placed together")),
                 qPrintable(doc->notes.join(u'\n')));

        writeSidecar(R"({"format": "post-torch-modules/1", "modules": {"nope": "x"}})");
        const DocumentPtr broken = DocumentLoader::loadNow(model, DocumentLoader::defaultClusterName());
        QVERIFY(broken->graph->colocationGroup(*broken->graph->find("conv1"))
                != broken->graph->colocationGroup(*broken->graph->find("relu1")));
        QVERIFY2(broken->notes.join(u'\n').contains(QStringLiteral(".modules.json: not read, so each op is placed")),
                 qPrintable(broken->notes.join(u'\n')));
    }

    // A model with open input dimensions (symbolic_dims.onnx: images [batch, 3, height,
    // width]) says so; the dialog lists height and width, and Read Again reads it with their
    // values, as post-cli --dim height=96 --dim width=64 would.
    void unknownDimensionsAreAskedFor()
    {
        MainWindow window;
        window.setInteractiveErrors(false); // no dialog by itself; the test opens it
        const QString path = dataFile(QStringLiteral("onnx/symbolic_dims.onnx"));
        QVERIFY(openAndWait(window, path));
        const DocumentPtr open = window.hub()->document();
        QCOMPARE(open->unresolvedDims.size(), size_t(2));
        QVERIFY(open->notes.join(QLatin1Char('\n')).contains(QStringLiteral("2 input dimensions have no value")));
        auto* prompt = window.findChild<InputDimensionsPrompt*>();
        QVERIFY(prompt && prompt->action()->isEnabled());
        InputDimensionsDialog* dialog = prompt->showDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->fieldCount(), 2);
        QVERIFY(dialog->field(QStringLiteral("height")) && dialog->field(QStringLiteral("width")));
        QCOMPARE(dialog->field(QStringLiteral("height"))->value(), 1);
        dialog->field(QStringLiteral("height"))->setValue(96);
        dialog->field(QStringLiteral("width"))->setValue(64);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        dialog->accept();
        QVERIFY(shown.wait(kWaitMs));
        const DocumentPtr read = window.hub()->document();
        QVERIFY(read->unresolvedDims.empty());
        QCOMPARE(read->dimensions.dims, (std::map<std::string, std::int64_t>{{"height", 96}, {"width", 64}}));
        ImportOptions options;
        options.dims = {{"height", 96}, {"width", 64}};
        const Graph expected = readGraphFile(path.toStdString(), GraphFormat::Auto, options);
        QCOMPARE(read->graph->opCount(), expected.opCount());
        for (OpId op = 0; op < expected.opCount(); ++op) {
            QCOMPARE(read->graph->op(op).timeUs, expected.op(op).timeUs);
            QCOMPARE(read->graph->op(op).outputBytes, expected.op(op).outputBytes);
        }
        // Kept for the file: opening it again uses them, and the dialog shows them to change.
        QVERIFY(openAndWait(window, path));
        QCOMPARE(window.hub()->document()->dimensions, read->dimensions);
        QVERIFY(prompt->action()->isEnabled());
        InputDimensionsDialog* again = prompt->showDialog();
        QCOMPARE(again->field(QStringLiteral("height"))->value(), 96);
        again->reject();
    }

    // Sizes that depend on the data (data_sizes.onnx: a NonZero of at most 16, a
    // NonMaxSuppression of at most 5): runs are off and the dialog asks for them, each at
    // first "its most"; Read Again gives one a value and the other its most, as post-cli
    // --count pick=4 --count-max would.
    void sizesThatDependOnTheDataAreAskedFor()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        const QString path = dataFile(QStringLiteral("onnx/data_sizes.onnx"));
        QVERIFY(openAndWait(window, path));
        const DocumentPtr open = window.hub()->document();
        QVERIFY(open->hasOpenDataSizes());
        QVERIFY(!open->cannotRun.isEmpty());
        QVERIFY(open->notes.join(QLatin1Char('\n')).contains(QStringLiteral("Some sizes depend on the data")));
        auto* prompt = window.findChild<InputDimensionsPrompt*>();
        QVERIFY(prompt && prompt->action()->isEnabled());
        InputDimensionsDialog* dialog = prompt->showDialog();
        QCOMPARE(dialog->fieldCount(), 2);
        QSpinBox* pick = dialog->sizeField(QStringLiteral("pick"));
        QVERIFY(pick && dialog->sizeField(QStringLiteral("keep")));
        QCOMPARE(pick->value(), -1);
        QCOMPARE(pick->maximum(), 16);
        QCOMPARE(pick->text(), QStringLiteral("its most, 16"));
        pick->setValue(4);
        const InputDimensions given = dialog->dimensions();
        QCOMPARE(given.counts, (std::map<std::string, std::int64_t>{{"pick", 4}}));
        QVERIFY(given.countsAtMost);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        dialog->accept();
        QVERIFY(shown.wait(kWaitMs));
        const DocumentPtr read = window.hub()->document();
        QVERIFY(!read->hasOpenDataSizes());
        QVERIFY2(read->cannotRun.isEmpty(), qPrintable(read->cannotRun));
        QCOMPARE(read->graph->op(*read->graph->find("project")).flops, 2.0 * 4 * 64 * 32);
        QVERIFY(read->notes.join(QLatin1Char('\n')).contains(QStringLiteral("worst case")));
        InputDimensionsDialog* again = prompt->showDialog();
        QCOMPARE(again->sizeField(QStringLiteral("pick"))->value(), 4);
        QCOMPARE(again->sizeField(QStringLiteral("keep"))->value(), -1);
        again->reject();
    }

    // A TensorFlow placeholder's unnamed dimensions are asked per input and axis, and go
    // back as a whole --input-shape with the known dimensions kept.
    void unnamedDimensionsBecomeAnInputShape()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("det.pbtxt"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"(node { name: "images" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 3 } } } } }
node { name: "w" op: "VariableV2" attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 3 } dim { size: 8 } } } } }
node { name: "conv" op: "Conv2D" input: "images" input: "w"
  attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }
  attr { key: "padding" value { s: "SAME" } } }
)");
        file.close();
        MainWindow window;
        window.setInteractiveErrors(false);
        window.setBatch(2);
        QVERIFY(openAndWait(window, path));
        QCOMPARE(window.hub()->document()->unresolvedDims.size(), size_t(2));
        InputDimensionsDialog* dialog = window.findChild<InputDimensionsPrompt*>()->showDialog();
        QCOMPARE(dialog->fieldCount(), 2);
        dialog->field(QStringLiteral("images"), 1)->setValue(64);
        dialog->field(QStringLiteral("images"), 2)->setValue(32);
        const InputDimensions given = dialog->dimensions();
        QCOMPARE(given.inputShapes.at("images"), (std::vector<std::int64_t>{2, 64, 32, 3}));
        QSignalSpy shown(&window, &MainWindow::documentShown);
        dialog->accept();
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(window.hub()->document()->unresolvedDims.empty());
    }

    // Op types the cost model has no formula for are named in the status bar.
    // The reader's warnings reach the window as they reach the CLI: a DOT graph without any
    // cost times every placement at 0 us, and the window says so.
    // File ▸ Measured Costs (post-cli --costs): the graph is read again with a trace's times,
    // said in the status bar; Forget gives the estimates back; a trace of another model is
    // refused naming it, and the graph shown keeps what it was read with.
    void measuredCostsReadTheGraphAgain()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString& name, const std::string& text) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.write(text.data(), qint64(text.size())) == qint64(text.size())
                ? dir.filePath(name)
                : QString();
        };
        const QString graph = write(QStringLiteral("toy.json"), R"({"format": "post-graph/1", "name": "toy", "ops": [
 {"name": "/conv/Conv", "type": "Conv", "time_us": {"gpu": 1000, "cpu": 10000}, "flops": 1e6},
 {"name": "/relu/Relu", "type": "Relu", "time_us": {"gpu": 1000, "cpu": 10000}, "flops": 1e6},
 {"name": "/fc/Gemm", "type": "Gemm", "time_us": {"gpu": 1000, "cpu": 10000}, "flops": 1e6}],
 "edges": [{"from": "/conv/Conv", "to": "/relu/Relu"}, {"from": "/relu/Relu", "to": "/fc/Gemm"}]})");
        testdata::KinetoTraceWriter w(testdata::KinetoLayout::PyTorch18);
        w.range("ProfilerStep#1", [](testdata::KinetoTraceWriter& step) {
            step.op("aten::conv2d", 300, 1).op("aten::relu_", 50, 2).op("aten::linear", 40, 3);
        });
        const QString trace = write(QStringLiteral("toy.pt.trace.json"), w.text());
        testdata::KinetoTraceWriter other(testdata::KinetoLayout::PyTorch18);
        other.op("aten::embedding_bag", 400, 1);
        const QString wrong = write(QStringLiteral("dlrm.pt.trace.json"), other.text());
        QVERIFY(!graph.isEmpty() && !trace.isEmpty() && !wrong.isEmpty());

        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(openAndWait(window, graph));
        const auto conv = [&] {
            return window.hub()->document()->graph->op(*window.hub()->document()->graph->find("/conv/Conv"));
        };
        QVERIFY(!conv().measured(DeviceKind::Gpu));
        QAction* forget = window.findChild<QAction*>(QStringLiteral("forgetMeasuredCosts"));
        QVERIFY(window.findChild<QAction*>(QStringLiteral("measuredCosts"))->isEnabled() && !forget->isEnabled());

        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.setMeasuredCosts(graph, {{trace}});
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(conv().measured(DeviceKind::Gpu));
        QVERIFY(conv().time(DeviceKind::Gpu) != 1000.0);
        QCOMPARE(window.hub()->document()->costs.files, QStringList{trace});
        QVERIFY(forget->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("toy.pt.trace.json: measured")), kWaitMs);

        // Another model's trace: refused, naming it; the measured graph stays, and so do its costs.
        QSignalSpy failed(&window, &MainWindow::loadFailed);
        window.setMeasuredCosts(graph, {{wrong}});
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY2(failed.first().at(1).toString().contains(QStringLiteral("dlrm.pt.trace.json")),
                 qPrintable(failed.first().at(1).toString()));
        QVERIFY(conv().measured(DeviceKind::Gpu));
        QCOMPARE(window.hub()->costs(graph).files, QStringList{trace});

        // One that covers too little: refused, unless taken as partial (post-cli --costs-partial).
        testdata::KinetoTraceWriter some(testdata::KinetoLayout::PyTorch2);
        some.op("aten::embedding_bag", 400, 1).op("aten::linear", 100, 2).op("aten::bmm", 30, 3);
        const QString little = write(QStringLiteral("little.pt.trace.json"), some.text());
        window.setMeasuredCosts(graph, {{little}});
        QVERIFY(failed.wait(kWaitMs));
        QVERIFY2(failed.last().at(1).toString().contains(QStringLiteral("at least 90% needed")),
                 qPrintable(failed.last().at(1).toString()));
        window.setMeasuredCosts(graph, {{little}, true});
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(window.hub()->document()->costs.partial);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("taken under --costs-partial")), kWaitMs);

        forget->trigger();
        QVERIFY(shown.wait(kWaitMs));
        QVERIFY(!conv().measured(DeviceKind::Gpu));
        QCOMPARE(conv().time(DeviceKind::Gpu), 1000.0);
        QVERIFY(!forget->isEnabled());
    }

    void readerWarningsAreShown()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("nocost.dot"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("digraph g { a -> b; b -> c; }\n");
        file.close();
        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(openAndWait(window, path));
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("no node has a cost")), kWaitMs);
    }

    // Tensors without an inferred shape: post-cli refuses to time the graph, and so does the
    // window. It shows the graph, says why runs are off (naming the count and the first node)
    // and keeps Start (and the Run menu's Start, which clicks it) and the comparison's Run off.
    void unshapedGraphsAreNotRun()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("onnx/unknown_new_op.onnx"))));
        const DocumentPtr doc = window.hub()->document();
        QVERIFY(doc && doc->graph);
        QVERIFY2(doc->cannotRun.contains(QStringLiteral("2 tensor(s)"))
                     && doc->cannotRun.contains(QStringLiteral("node 0 'crop' (CenterCropPad)")),
                 qPrintable(doc->cannotRun));
        QTRY_VERIFY_WITH_TIMEOUT(window.statusMessage().contains(QStringLiteral("Runs are off")), kWaitMs);
        auto* start = window.findChild<QPushButton*>(QStringLiteral("start"));
        QVERIFY(start);
        QVERIFY(!start->isEnabled());
        QCOMPARE(start->toolTip(), doc->cannotRun);
        auto* learner = window.findChild<LearnerPanel*>();
        QVERIFY(learner);
        QCOMPARE(learner->statusText(), doc->cannotRun);
        auto* compare = window.findChild<ComparisonView*>();
        QVERIFY(compare);
        auto* run = compare->findChild<QPushButton*>(QStringLiteral("compareRun"));
        QVERIFY(run);
        QVERIFY(!run->isEnabled());
        // A graph with every shape known runs as before.
        QVERIFY(openAndWait(window, dataFile(QStringLiteral("onnx/cnn.onnx"))));
        QVERIFY(window.hub()->document()->cannotRun.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(start->isEnabled(), kWaitMs);
    }

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
