// Execution and Chakra traces in the desktop app: File ▸ Open offers every format of the
// importer table, a large trace shows its progress while it is read, a dropped trace opens.
#include "tests/support/ScratchSettings.h"
#include "tests/support/TestData.h"

#include "core/io/ImporterTable.h"
#include "ui/MainWindow.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/GraphFileFilters.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

using namespace post;

namespace {

constexpr int kWaitMs = 120000; // a 14,392-node trace on a loaded 2-core machine

} // namespace

class TestTraceOpen : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    void openFiltersComeFromTheImporterTable()
    {
        const QString filters = graphOpenFilters();
        const QStringList parts = filters.split(QStringLiteral(";;"));
        QVERIFY(parts.first().startsWith(QStringLiteral("Graphs and traces (")));
        QCOMPARE(parts.last(), QStringLiteral("All files (*)"));
        int readable = 0;
        for (const ImporterRow& row : importerTable()) {
            const QString title = QString::fromUtf8(row.title.data(), static_cast<qsizetype>(row.title.size()));
            QCOMPARE(parts.filter(title + QStringLiteral(" (")).size(), row.readable ? 1 : 0);
            readable += row.readable ? 1 : 0;
            for (std::string_view e : row.extensions)
                if (row.readable)
                    QVERIFY2(parts.first().contains(QStringLiteral("*") + QString::fromUtf8(e.data())),
                             qPrintable(title));
        }
        QCOMPARE(parts.size(), readable + 2);
        QVERIFY(filters.contains(QStringLiteral("PyTorch execution trace (*.json *.json.gz)")));
        QVERIFY(filters.contains(QStringLiteral("Chakra trace (protobuf) (*.et)")));
    }

    void aLargeTraceShowsProgressWhileItLoads()
    {
        REQUIRE_SHARED_DATA(data);
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy progress(window.hub(), &DocumentHub::loadProgress);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        int barSeen = -1;
        connect(window.hub(), &DocumentHub::loadProgress, &window,
                [&] { barSeen = std::max(barSeen, window.loadProgressPercent()); });
        window.openFile(data + QStringLiteral("/traces/param/resnet_et.json.gz"));
        QVERIFY(shown.wait(kWaitMs));
        QCOMPARE(window.hub()->document()->graph->opCount(), 902);
        QVERIFY(window.hub()->document()->format == GraphFormat::TorchEt);
        QVERIFY2(progress.size() >= 3, qPrintable(QString::number(progress.size())));
        double last = -1.0;
        for (const QList<QVariant>& signal : progress) {
            QVERIFY(signal.at(1).toDouble() >= last);
            last = signal.at(1).toDouble();
        }
        QVERIFY(barSeen >= 0); // the status bar showed a percentage, not only the busy indicator
        QCOMPARE(window.loadProgressPercent(), -1);
        QVERIFY(window.statusMessage().contains(QStringLiteral("ProfilerStep#8")));
    }

    void aDroppedChakraTraceOpens()
    {
        QTemporaryDir dir;
        const QString path = testdata::writeFile(dir, QStringLiteral("step.json"), R"json({"workload_graph": [
            {"Id": 1, "Name": "aten::mm(0)", "NodeType": 4, "runtime": 30, "data_deps": [], "is_cpu_op": true},
            {"Id": 2, "Name": "gemm_kernel", "NodeType": 4, "runtime": 400, "data_deps": [1], "is_cpu_op": false},
            {"Id": 3, "Name": "ncclKernel_AllReduce", "NodeType": 7, "runtime": 900, "data_deps": [2], "is_cpu_op": false}]})json");
        MainWindow window;
        window.setInteractiveErrors(false);
        QSignalSpy shown(&window, &MainWindow::documentShown);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(shown.wait(30000));
        QVERIFY(window.hub()->document()->format == GraphFormat::ChakraJson);
        const Graph& g = *window.hub()->document()->graph;
        QCOMPARE(g.opCount(), 3);
        QCOMPARE(g.op(*g.find("ncclKernel_AllReduce")).type, std::string("AllReduce"));
        QVERIFY(window.statusMessage().contains(QStringLiteral("Chakra trace")));
    }
};

QTEST_MAIN(TestTraceOpen)
#include "test_trace_open.moc"
