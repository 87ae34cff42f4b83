#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"

#include "core/io/dot/DotReader.h"
#include "core/io/native/PlacementFile.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/export/GuiExporter.h"
#include "ui/export/PictureCaption.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/theme/CategoryPalette.h"
#include "ui/theme/ViewTheme.h"
#include "ui/util/Format.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtMath>
#include <QtTest>

#include <map>

using namespace post;

namespace {

constexpr int kLayoutWaitMs = 30000;
const Placement kPlacement = {0, 1, 2, 1}; // input CPU, conv GPU:0, relu GPU:1, fc GPU:0

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

QStringList lines(const QString& path)
{
    return QString::fromUtf8(readAll(path)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class TestExports : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        testsupport::useScratchSettings();
        QVERIFY(dir_.isValid());
        panel_ = std::make_unique<GraphPanel>();
        panel_->resize(800, 600);
        QSignalSpy applied(panel_.get(), &GraphPanel::layoutApplied);
        panel_->setDocument(uitest::smallDocument(kPlacement));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(panel_->scene()->nodeItemCount(), 4);
    }

    void placementJsonReadsBack()
    {
        const DocumentPtr doc = uitest::smallDocument(kPlacement);
        const QString path = dir_.filePath(QStringLiteral("p.json"));
        GuiExporter::placementJson(*doc, path);
        QCOMPARE(readPlacementFile(path.toStdString(), *doc->graph, *doc->cluster), kPlacement);
    }

    // Exported under the document's dispatch rule: the step time is that rule's, and the file
    // says which (as post-cli place --dispatch critical-path --out writes it).
    void placementJsonRecordsTheDispatchRule()
    {
        auto doc = std::make_shared<GraphDocument>(*uitest::smallDocument(kPlacement));
        doc->sim.dispatch = Dispatch::CriticalPath;
        const QString path = dir_.filePath(QStringLiteral("p-cp.json"));
        GuiExporter::placementJson(*doc, path);
        const QJsonObject root = QJsonDocument::fromJson(readAll(path)).object();
        QCOMPARE(root.value(QStringLiteral("dispatch")).toString(), QStringLiteral("critical-path"));
        QCOMPARE(root.value(QStringLiteral("step_time_us")).toDouble(),
                 Simulator(*doc->graph, *doc->cluster, doc->sim).run(kPlacement).stepTimeUs);
        GuiExporter::placementJson(*uitest::smallDocument(kPlacement), path); // ready order: no key
        QVERIFY(!QJsonDocument::fromJson(readAll(path)).object().contains(QStringLiteral("dispatch")));
    }

    void placementCsvHasARowPerOp()
    {
        const DocumentPtr doc = uitest::smallDocument(kPlacement);
        const QString path = dir_.filePath(QStringLiteral("p.csv"));
        GuiExporter::placementCsv(*doc, path);
        const QStringList rows = lines(path);
        QCOMPARE(rows.size(), 1 + 4);
        QCOMPARE(rows[0].trimmed(), QStringLiteral("op,device"));
        QCOMPARE(rows[2].trimmed(), QStringLiteral("conv,/device:GPU:0"));
        QCOMPARE(rows[3].trimmed(), QStringLiteral("relu,/device:GPU:1"));
    }

    void tensorFlowStringsNameFullDevices()
    {
        const DocumentPtr doc = uitest::smallDocument(kPlacement);
        const QString path = dir_.filePath(QStringLiteral("p.tf.txt"));
        GuiExporter::placementTensorFlow(*doc, path);
        const QStringList rows = lines(path);
        QCOMPARE(rows.size(), 4);
        QCOMPARE(rows[0], QStringLiteral("input\t/job:localhost/replica:0/task:0/device:CPU:0"));
        QCOMPARE(rows[3], QStringLiteral("fc\t/job:localhost/replica:0/task:0/device:GPU:0"));
    }

    void placementExportsNeedAPlacement()
    {
        const QString path = dir_.filePath(QStringLiteral("none.json"));
        QVERIFY_THROWS_EXCEPTION(InputError, GuiExporter::placementJson(*uitest::smallDocument(), path));
        QVERIFY(!QFile::exists(path));
        QVERIFY_THROWS_EXCEPTION(InputError, GuiExporter::chromeTrace(*uitest::smallDocument(), path));
    }

    void svgHasATextPerOpName()
    {
        const QString path = dir_.filePath(QStringLiteral("g.svg"));
        GuiExporter::graphSvg(*panel_->scene(), path);
        QXmlStreamReader xml(readAll(path));
        std::map<QString, int> texts;
        int groups = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement)
                continue;
            if (xml.name() == QLatin1String("g"))
                ++groups;
            if (xml.name() == QLatin1String("text"))
                ++texts[xml.readElementText().trimmed()];
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(groups > 0);
        for (const char* name : {"input", "conv", "relu", "fc"})
            QVERIFY2(texts[QString::fromLatin1(name)] == 1, name);
        // The caption: the legend as on screen, and the step time of the shown placement,
        // simulated here independently.
        for (const char* device : {"/device:CPU:0", "/device:GPU:0", "/device:GPU:1"})
            QVERIFY2(texts[QString::fromLatin1(device)] == 1, device);
        QCOMPARE(texts[QStringLiteral("Device")], 1);
        const DocumentPtr doc = uitest::smallDocument(kPlacement);
        const SimResult r = Simulator(*doc->graph, *doc->cluster).run(kPlacement);
        const QString step = QStringLiteral("step %1 · fits memory").arg(formatMicroseconds(r.stepTimeUs));
        QVERIFY2(texts[step] == 1, qPrintable(step));
    }

    void pngShowsTheGraphOnItsBackground()
    {
        const QString path = dir_.filePath(QStringLiteral("g.png"));
        GuiExporter::graphPng(*panel_->scene(), path, 2.0);
        const QImage image(path);
        QVERIFY(!image.isNull());
        const QRectF area = panel_->scene()->itemsBoundingRect();
        const PictureCaption caption = PictureCaption::of(*panel_->scene());
        const double width = std::max(area.width() + 32, caption.minimumWidth());
        const double band = caption.height(width);
        QCOMPARE(image.width(), qCeil(width * 2.0));
        QCOMPARE(image.height(), qCeil((band + area.height() + 32) * 2.0));
        const QColor background = panel_->scene()->theme().background;
        QCOMPARE(image.pixel(1, image.height() - 2), background.rgb());
        QCOMPARE(image.pixel(1, 1), caption.theme.panel.rgb()); // the caption band on top
        // Its legend: each device's swatch colour, above the graph.
        for (int device = 0; device < 3; ++device) {
            const QRgb swatch = CategoryPalette::colour(device).rgb();
            int found = 0;
            for (int y = 0; y < qFloor(band * 2.0); ++y)
                for (int x = 0; x < image.width(); ++x)
                    found += (image.pixel(x, y) & 0xffffff) == (swatch & 0xffffff);
            QVERIFY2(found > 50, qPrintable(QStringLiteral("device %1: %2 pixels").arg(device).arg(found)));
        }
        // conv's box is filled with GPU:0's colour somewhere.
        const QRgb convFill = panel_->scene()->theme().nodeFill(CategoryPalette::colour(1)).rgb();
        int convPixels = 0, other = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QRgb p = image.pixel(x, y);
                convPixels += (p & 0xffffff) == (convFill & 0xffffff);
                other += p != background.rgb();
            }
        QVERIFY(convPixels > 100);
        QVERIFY(other > convPixels);
    }

    void bigImagesAreScaledDownToTheCap()
    {
        const QString path = dir_.filePath(QStringLiteral("capped.png"));
        const QRectF area = panel_->scene()->itemsBoundingRect().adjusted(-16, -16, 16, 16);
        GuiExporter::graphPng(*panel_->scene(), path, 1000.0, 50000.0);
        const QImage image(path);
        QVERIFY(!image.isNull());
        // Scaled to sqrt(50,000 / area) of the whole picture (caption included), keeping the
        // aspect ratio (rounded up to whole pixels).
        const PictureCaption caption = PictureCaption::of(*panel_->scene());
        const double width = std::max(area.width(), caption.minimumWidth());
        const double height = caption.height(width) + area.height();
        const double scale = std::sqrt(50000.0 / (width * height));
        QCOMPARE(image.width(), qCeil(width * scale));
        QCOMPARE(image.height(), qCeil(height * scale));
        QVERIFY(double(image.width()) * image.height() <= 50000.0 + image.width() + image.height() + 1);
    }

    void dotReadsBackWithDeviceFills()
    {
        const DocumentPtr doc = uitest::smallDocument(kPlacement);
        const QString path = dir_.filePath(QStringLiteral("g.dot"));
        GuiExporter::graphDot(*doc, path);
        const QByteArray text = readAll(path);
        const Graph back = parseDotGraph(text.toStdString(), path.toStdString(), {});
        QCOMPARE(back.opCount(), 4);
        QCOMPARE(back.edgeCount(), 4);
        for (OpId op = 0; op < 4; ++op) {
            const Op& a = doc->graph->op(op);
            const Op& b = back.op(*back.find(a.name));
            QCOMPARE(b.type, a.type);
            QCOMPARE(b.timeUs, a.timeUs);
            QCOMPARE(b.outputBytes, a.outputBytes);
            QCOMPARE(b.paramBytes, a.paramBytes);
        }
        int skipEdges = 0;
        for (const Edge& e : back.edges())
            if (back.op(e.from).name == "conv" && back.op(e.to).name == "fc") {
                QCOMPARE(e.bytes, 123.0);
                ++skipEdges;
            }
        QCOMPARE(skipEdges, 1);
        // Each op's fill is its device's palette colour.
        const QRegularExpression fill(QStringLiteral("\"(\\w+)\" \\[.*fillcolor=\"(#[0-9a-f]{6})\""));
        std::map<QString, QString> fills;
        for (const QString& line : QString::fromUtf8(text).split(QLatin1Char('\n'))) {
            const auto m = fill.match(line);
            if (m.hasMatch())
                fills[m.captured(1)] = m.captured(2);
        }
        QCOMPARE(fills.size(), size_t(4));
        QCOMPARE(fills[QStringLiteral("input")], CategoryPalette::colour(0).name());
        QCOMPARE(fills[QStringLiteral("conv")], CategoryPalette::colour(1).name());
        QCOMPARE(fills[QStringLiteral("relu")], CategoryPalette::colour(2).name());
        QVERIFY(text.contains("style=\"rounded,filled\""));

        // Unplaced ops get the unplaced grey, and names needing quotes survive.
        GraphBuilder b("odd \"names\"");
        b.addOp(uitest::op("a \"quoted\" op", "T", 1, 8, 0));
        b.addOp(uitest::op("b->c", "T", 2, 8, 0, "grp"));
        b.addEdge(0, 1, -1.0);
        auto odd = std::make_shared<GraphDocument>();
        odd->graph = std::make_shared<const Graph>(std::move(b).build());
        odd->cluster = uitest::cluster();
        GuiExporter::graphDot(*odd, path);
        const QByteArray oddText = readAll(path);
        const Graph oddBack = parseDotGraph(oddText.toStdString(), path.toStdString(), {});
        QVERIFY(oddBack.find("a \"quoted\" op"));
        QCOMPARE(oddBack.op(*oddBack.find("b->c")).colocate, std::string("grp"));
        QVERIFY(oddText.contains(ViewTheme::light().unplaced.name().toLatin1()));
    }

    // Tiny and huge numbers have exponents in their shortest form (6.44e-05): the export
    // reopens with core's DOT reader and every op time and byte count is the same double.
    void dotWithExponentNumbersReopensExactly()
    {
        GraphBuilder b("tiny");
        b.addOp(uitest::op("a", "T", 6.44e-05, 1e21, 0));
        b.addOp(uitest::op("b", "T", 1.0 / 3.0, 8, 3.5e-7));
        b.addOp(uitest::op("c", "T", 0, 0.5, 2.5e13));
        b.addEdge(0, 1, 7.25e-3);
        b.addEdge(1, 2, 1e20);
        auto doc = std::make_shared<GraphDocument>();
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        const QString path = dir_.filePath(QStringLiteral("tiny.dot"));
        GuiExporter::graphDot(*doc, path);
        const QByteArray text = readAll(path);
        QVERIFY2(text.contains("time_us_gpu=\"6.44e-05\""), text.constData());
        const Graph back = parseDotGraph(text.toStdString(), path.toStdString(), {});
        QCOMPARE(back.opCount(), 3);
        QCOMPARE(back.edgeCount(), 2);
        for (OpId id = 0; id < 3; ++id) {
            const Op& a = doc->graph->op(id);
            const Op& r = back.op(*back.find(a.name));
            QCOMPARE(r.time(DeviceKind::Gpu), a.time(DeviceKind::Gpu));
            QCOMPARE(r.time(DeviceKind::Cpu), a.time(DeviceKind::Cpu));
            QCOMPARE(r.outputBytes, a.outputBytes);
            QCOMPARE(r.paramBytes, a.paramBytes);
        }
        std::map<std::string, double> bytes;
        for (const Edge& e : back.edges())
            bytes[back.op(e.from).name + ">" + back.op(e.to).name] = e.bytes;
        QCOMPARE(bytes.at("a>b"), 7.25e-3);
        QCOMPARE(bytes.at("b>c"), 1e20);
    }

    void chromeTraceHasAnEventPerOp()
    {
        const DocumentPtr doc = uitest::smallDocument(kPlacement);
        const QString path = dir_.filePath(QStringLiteral("trace.json"));
        GuiExporter::chromeTrace(*doc, path);
        QJsonParseError error;
        const QJsonDocument json = QJsonDocument::fromJson(readAll(path), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        std::map<QString, int> opEvents;
        int transfers = 0;
        for (const QJsonValue& v : json.object().value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("ph")).toString() != QStringLiteral("X"))
                continue;
            if (e.value(QStringLiteral("cat")).toString() == QStringLiteral("op"))
                ++opEvents[e.value(QStringLiteral("name")).toString()];
            else
                ++transfers;
        }
        QCOMPARE(opEvents.size(), size_t(4));
        for (const auto& [name, count] : opEvents)
            QVERIFY2(count == 1, qPrintable(name));
        QCOMPARE(transfers, 3); // input -> GPU:0, conv -> GPU:1, relu -> GPU:0
    }

    void exportMenuNeedsAGraphAndAPlacement()
    {
        MainWindow window;
        window.setInteractiveErrors(false);
        QMenu* menu = window.findChild<QMenu*>("exportMenu");
        QVERIFY(menu);
        emit menu->aboutToShow();
        int entries = 0;
        for (QAction* action : menu->actions())
            if (!action->isSeparator()) {
                ++entries;
                QVERIFY2(!action->isEnabled(), qPrintable(action->text())); // nothing open
            }
        QCOMPARE(entries, 8); // JSON, CSV, TF devices, placed .pbtxt, SVG, PNG, DOT, Chrome trace
    }

    void learningChartSavesSvgAndPng()
    {
        LearningChart chart;
        chart.resize(600, 400);
        LearnerSnapshot snapshot;
        for (int i = 0; i < 10; ++i)
            snapshot.samples.push_back(LearnerSample{i, 10.0 - i * 0.5, true});
        snapshot.samplesDone = 10;
        snapshot.bestMs = 5.5;
        chart.reset(10);
        chart.addSnapshot(snapshot);
        const QString svgPath = dir_.filePath(QStringLiteral("chart.svg"));
        chart.saveSvg(svgPath);
        QXmlStreamReader xml(readAll(svgPath));
        bool sawSvg = false;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg"))
                sawSvg = true;
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvg);
        const QString pngPath = dir_.filePath(QStringLiteral("chart.png"));
        QVERIFY(chart.savePng(pngPath));
        QCOMPARE(QImage(pngPath).size(), chart.size());
        QVERIFY_THROWS_EXCEPTION(InputError, chart.saveSvg(dir_.filePath(QStringLiteral("no/such/dir/chart.svg"))));
    }

private:
    QTemporaryDir dir_;
    std::unique_ptr<GraphPanel> panel_;
};

QTEST_MAIN(TestExports)
#include "test_exports.moc"
