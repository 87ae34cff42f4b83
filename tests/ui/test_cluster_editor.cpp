// The cluster editor: its table models, edits that re-simulate the shown placement,
// refused values, device removal, and saving and reading post-cluster/1 files.
#include "core/io/native/ClusterFile.h"
#include "core/sim/Simulator.h"
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"
#include "ui/MainWindow.h"
#include "ui/cluster/ClusterDeviceModel.h"
#include "ui/cluster/ClusterDraft.h"
#include "ui/cluster/ClusterEditor.h"
#include "ui/cluster/ClusterLinkModel.h"
#include "ui/cluster/EditValue.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/util/Format.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace post;

namespace {

// smallDocument: input (0 µs) -> conv (100) -> relu (10) -> fc (40), conv -> fc; devices
// CPU:0, GPU:0 (speed 1), GPU:1 (speed 2). Everything on GPU:0 takes 150 µs.
DocumentPtr onGpu0() { return uitest::smallDocument(Placement{1, 1, 1, 1}); }

QModelIndex deviceCell(ClusterEditor& editor, int row, int column) { return editor.deviceModel()->index(row, column); }

} // namespace

class TestClusterEditor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }
    void modelsPassTester();
    void speedEditResimulates();
    void linkEditResimulates();
    void defaultLinkEditMovesFollowers();
    void invalidEditsAreRefused();
    void addAndRemoveDevices();
    void saveAndLoadRoundTrip();
    void memoryIsInGBAndEditsAreExact();
    void loadReportsBadFile();
    void windowUsesEditedCluster();
    void bigGraphsResimulateOffTheGuiThread();
    void windowSimulatesBigGraphsOnce();
};

void TestClusterEditor::modelsPassTester()
{
    ClusterEditor editor;
    QAbstractItemModelTester devices(editor.deviceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester links(editor.linkModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    editor.setDocument(onGpu0());
    QCOMPARE(editor.deviceModel()->rowCount(), 3);
    QCOMPARE(editor.linkModel()->rowCount(), 1 + 3 * 2);
    QCOMPARE(editor.deviceModel()->data(deviceCell(editor, 2, ClusterDeviceModel::Name)).toString(),
             QStringLiteral("/device:GPU:1"));
    QCOMPARE(editor.deviceModel()->data(deviceCell(editor, 0, ClusterDeviceModel::Kind)).toString(),
             QStringLiteral("cpu"));
    // Memory in GB (10^9 bytes), as post-cli and the Devices dock write it: GPU:0's 12e9 bytes
    // are 12 (they were 11.18 GiB, beside "12.0 GB" in the Devices dock).
    QCOMPARE(editor.deviceModel()->data(deviceCell(editor, 1, ClusterDeviceModel::Memory), Qt::EditRole).toString(),
             QStringLiteral("12"));
    QCOMPARE(editor.deviceModel()->data(deviceCell(editor, 1, ClusterDeviceModel::Memory)).toString(),
             QStringLiteral("12"));
    QCOMPARE(editor.deviceModel()->headerData(ClusterDeviceModel::Memory, Qt::Horizontal).toString(),
             QStringLiteral("Memory (GB)"));
    // The link rows: default first, then (from, to) pairs in from-major order.
    const ClusterLinkModel* m = editor.linkModel();
    QCOMPARE(m->data(m->index(m->rowOf(2, 1), ClusterLinkModel::From), Qt::EditRole).toString(),
             QStringLiteral("/device:GPU:1"));
    QCOMPARE(m->data(m->index(m->rowOf(2, 1), ClusterLinkModel::To)).toString(), QStringLiteral("GPU:0")); // shown short
    QCOMPARE(m->data(m->index(0, ClusterLinkModel::Bandwidth)).toDouble(), 12.0); // Link{} is 12 GB/s
    editor.addDevice();
    editor.removeDevice(0);
    QVERIFY(editor.deviceModel()->setData(deviceCell(editor, 0, ClusterDeviceModel::Speed), QStringLiteral("3")));
}

void TestClusterEditor::speedEditResimulates()
{
    ClusterEditor editor;
    editor.setDocument(onGpu0());
    QCOMPARE(editor.shownStepUs(), 150.0);
    QSignalSpy edited(&editor, &ClusterEditor::clusterEdited);
    QVERIFY(editor.deviceModel()->setData(deviceCell(editor, 1, ClusterDeviceModel::Speed), QStringLiteral("4")));
    QCOMPARE(edited.size(), 1);
    QCOMPARE(editor.shownStepUs(), 150.0 / 4.0); // every op's time over the new speed
    QVERIFY(editor.summary().contains(QStringLiteral("37.5")));
    const auto cluster = edited.at(0).at(0).value<std::shared_ptr<const Cluster>>();
    QCOMPARE(cluster->device(1).speed, 4.0);
    QCOMPARE(cluster->device(2).speed, 2.0);
    // Memory below what the ops need makes the shown placement infeasible.
    QVERIFY(editor.deviceModel()->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QStringLiteral("0.000001")));
    QVERIFY(!editor.shownFeasible());
    QVERIFY(editor.summary().contains(QStringLiteral("out of memory")));
}

void TestClusterEditor::linkEditResimulates()
{
    // input on the CPU, the rest on GPU:0: the 1000-byte input crosses CPU:0 -> GPU:0,
    // 20 µs + 1000 B / 12000 B/µs with the default link.
    ClusterEditor editor;
    editor.setDocument(uitest::smallDocument(Placement{0, 1, 1, 1}));
    QCOMPARE(editor.shownStepUs(), 150.0 + 20.0 + 1000.0 / 12000.0);
    ClusterLinkModel* links = editor.linkModel();
    const int row = links->rowOf(0, 1);
    QVERIFY(links->setData(links->index(row, ClusterLinkModel::Latency), QStringLiteral("0")));
    QVERIFY(links->setData(links->index(row, ClusterLinkModel::Bandwidth), QStringLiteral("1"))); // 1000 B/µs
    QCOMPARE(editor.shownStepUs(), 150.0 + 1.0);
    QVERIFY(!editor.draft().isDefault(0, 1));
    QVERIFY(editor.draft().isDefault(1, 0)); // only that direction changed
}

void TestClusterEditor::defaultLinkEditMovesFollowers()
{
    ClusterEditor editor;
    editor.setDocument(uitest::smallDocument(Placement{0, 1, 1, 1}));
    ClusterLinkModel* links = editor.linkModel();
    QVERIFY(links->setData(links->index(links->rowOf(1, 2), ClusterLinkModel::Latency), QStringLiteral("7")));
    QVERIFY(links->setData(links->index(0, ClusterLinkModel::Latency), QStringLiteral("5")));
    QCOMPARE(editor.draft().link(0, 1).latencyUs, 5.0); // followed the default
    QCOMPARE(editor.draft().link(1, 2).latencyUs, 7.0); // set apart: kept
    QCOMPARE(editor.shownStepUs(), 150.0 + 5.0 + 1000.0 / 12000.0);
}

void TestClusterEditor::invalidEditsAreRefused()
{
    ClusterEditor editor;
    editor.setDocument(onGpu0());
    QSignalSpy edited(&editor, &ClusterEditor::clusterEdited);
    QSignalSpy rejected(editor.deviceModel(), &ClusterDeviceModel::editRejected);
    ClusterDeviceModel* d = editor.deviceModel();
    for (const char* bad : {"0", "-2", "fast", "nan", "inf", ""})
        QVERIFY2(!d->setData(deviceCell(editor, 1, ClusterDeviceModel::Speed), QString::fromLatin1(bad)), bad);
    QVERIFY(!d->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QStringLiteral("-1")));
    QVERIFY(!d->setData(deviceCell(editor, 1, ClusterDeviceModel::Kind), QStringLiteral("tpu")));
    QVERIFY(!d->setData(deviceCell(editor, 1, ClusterDeviceModel::Name), QStringLiteral("/device:GPU:1"))); // taken
    QVERIFY(!d->setData(deviceCell(editor, 1, ClusterDeviceModel::Name), QStringLiteral("  ")));
    ClusterLinkModel* l = editor.linkModel();
    QVERIFY(!l->setData(l->index(1, ClusterLinkModel::Bandwidth), QStringLiteral("0")));
    QVERIFY(!l->setData(l->index(1, ClusterLinkModel::Latency), QStringLiteral("-3")));
    QVERIFY(!l->setData(l->index(1, ClusterLinkModel::From), QStringLiteral("x"))); // not editable
    QCOMPARE(edited.size(), 0);
    QCOMPARE(rejected.size(), 10);
    QVERIFY(editor.message().contains(QStringLiteral("Latency")));
    QCOMPARE(editor.draft().devices[1].speed, 1.0);
    QCOMPARE(editor.shownStepUs(), 150.0);
    // A valid edit clears the message; empty memory means unlimited.
    QVERIFY(d->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QString()));
    QVERIFY(std::isinf(editor.draft().devices[1].memoryBytes));
    QVERIFY(editor.message().isEmpty());
}

void TestClusterEditor::addAndRemoveDevices()
{
    ClusterEditor editor;
    editor.setDocument(onGpu0());
    QSignalSpy edited(&editor, &ClusterEditor::clusterEdited);
    const int row = editor.addDevice();
    QCOMPARE(row, 3);
    QCOMPARE(editor.linkModel()->rowCount(), 1 + 4 * 3);
    QCOMPARE(editor.draft().devices[3].name, std::string("/device:GPU:2"));
    // Removing GPU:0 moves its ops to the fastest remaining GPU: old GPU:1 (speed 2), now index 1.
    QVERIFY(editor.removeDevice(1));
    const Placement moved = edited.last().at(1).value<Placement>();
    QCOMPARE(moved, (Placement{1, 1, 1, 1}));
    QCOMPARE(editor.draft().devices[1].name, std::string("/device:GPU:1"));
    QCOMPARE(editor.shownStepUs(), 150.0 / 2.0);
    QVERIFY(editor.removeDevice(0));
    QVERIFY(editor.removeDevice(0));
    QVERIFY(!editor.removeDevice(0)); // the last one stays
    QVERIFY(editor.message().contains(QStringLiteral("at least one")));
}

// The Memory column is in GB, the studio's and post-cli's unit, and its editing is exact: the
// edit text of any capacity reads back as the same bytes (a preset's 12,884,901,888 bytes of a
// K80, 16 GiB, odd byte counts), a typed decimal is that many GB to the byte, and the display
// agrees with the Devices dock's formatBytes to its three digits.
void TestClusterEditor::memoryIsInGBAndEditsAreExact()
{
    for (const double bytes : {12884901888.0, 17179869184.0, 12e9, 1e9 + 1.0, 123456789012345.0, 0.3e9 / 7.0,
                               std::nextafter(16e9, 17e9), 1.0, 999999999999.0}) {
        auto doc = std::make_shared<GraphDocument>(*onGpu0());
        std::vector<Device> devices(doc->cluster->devices().begin(), doc->cluster->devices().end());
        devices[1].memoryBytes = bytes;
        doc->cluster = std::make_shared<const Cluster>("memory", std::move(devices), Link{});
        ClusterEditor editor;
        editor.setDocument(doc);
        ClusterDeviceModel* model = editor.deviceModel();
        const QString text = model->data(deviceCell(editor, 1, ClusterDeviceModel::Memory), Qt::EditRole).toString();
        QVERIFY2(!text.contains(QLatin1Char('e')), qPrintable(text)); // a plain decimal to edit
        QCOMPARE(text.toDouble(), bytes / 1e9);                       // in GB
        // Typing the shown text back (an edit that changes nothing) keeps every byte.
        QVERIFY(model->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), text));
        QVERIFY2(editor.draft().devices[1].memoryBytes == bytes,
                 qPrintable(QStringLiteral("%1 -> %2 -> %3")
                                .arg(bytes, 0, 'f', 3)
                                .arg(text)
                                .arg(editor.draft().devices[1].memoryBytes, 0, 'f', 3)));
    }
    ClusterEditor editor;
    editor.setDocument(onGpu0());
    ClusterDeviceModel* model = editor.deviceModel();
    // Typed decimals are exact to the byte (12.88 * 1e9 in doubles is 12880000000.000002).
    for (const auto& [typed, bytes] : {std::pair{"12.88", 12880000000.0}, std::pair{"12.884901888", 12884901888.0},
                                       std::pair{"0.000000001", 1.0}, std::pair{"1.5e1", 15e9}, std::pair{"80", 80e9}}) {
        QVERIFY2(model->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QString::fromLatin1(typed)), typed);
        QCOMPARE(editor.draft().devices[1].memoryBytes, bytes);
    }
    QVERIFY(model->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QStringLiteral("12.884901888")));
    QCOMPARE(model->data(deviceCell(editor, 1, ClusterDeviceModel::Memory)).toString(), QStringLiteral("12.88"));
    QCOMPARE(formatBytes(editor.draft().devices[1].memoryBytes), QStringLiteral("12.9 GB")); // the Devices dock
    QSignalSpy rejected(model, &ClusterDeviceModel::editRejected);
    for (const char* bad : {"inf", "0x10", "1e", "-2", "12 GB", "nan"})
        QVERIFY2(!model->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QString::fromLatin1(bad)), bad);
    QCOMPARE(rejected.count(), 6);
    QVERIFY(rejected.last().at(0).toString().contains(QStringLiteral("GB")));
    QCOMPARE(editor.draft().devices[1].memoryBytes, 12884901888.0);

    // Bandwidth in GB/s is exact the same way: the edit text of a link reads back as its bytes
    // per µs, and "12.6" is 12,600 of them (12.6 * 1e3 in doubles is 12599.999999999998).
    ClusterLinkModel* links = editor.linkModel();
    const QModelIndex cell = links->index(links->rowOf(1, 2), ClusterLinkModel::Bandwidth);
    for (const double bytesPerUs : {12600.0, 1.0 / 3.0, 40000.0, std::nextafter(12.6e3, 13e3), 0.001}) {
        QVERIFY(links->setData(cell, decimalTimesPow10(bytesPerUs, -3)));
        QVERIFY2(editor.draft().link(1, 2).bytesPerUs == bytesPerUs,
                 qPrintable(links->data(cell, Qt::EditRole).toString()));
        QVERIFY(links->setData(cell, links->data(cell, Qt::EditRole)));
        QCOMPARE(editor.draft().link(1, 2).bytesPerUs, bytesPerUs);
    }
    QVERIFY(links->setData(cell, QStringLiteral("12.6")));
    QCOMPARE(editor.draft().link(1, 2).bytesPerUs, 12600.0);
}

void TestClusterEditor::saveAndLoadRoundTrip()
{
    QTemporaryDir dir;
    ClusterEditor editor;
    editor.setDocument(onGpu0());
    QVERIFY(editor.deviceModel()->setData(deviceCell(editor, 2, ClusterDeviceModel::Speed), QStringLiteral("2.5")));
    QVERIFY(editor.deviceModel()->setData(deviceCell(editor, 1, ClusterDeviceModel::Memory), QStringLiteral("24")));
    ClusterLinkModel* l = editor.linkModel();
    QVERIFY(l->setData(l->index(l->rowOf(1, 2), ClusterLinkModel::Bandwidth), QStringLiteral("150")));
    QVERIFY(l->setData(l->index(0, ClusterLinkModel::Latency), QStringLiteral("3")));
    const QString path = dir.filePath(QStringLiteral("edited.json"));
    editor.saveTo(path);

    // Read back by core's reader: same devices, links and default.
    const Cluster read = readClusterFile(path.toStdString());
    QCOMPARE(read.deviceCount(), 3);
    QCOMPARE(read.device(2).speed, 2.5);
    QCOMPARE(read.device(1).memoryBytes, 24e9); // "24" in the GB column
    QCOMPARE(read.link(1, 2).bytesPerUs, 150e3);
    QCOMPARE(read.link(2, 1).bytesPerUs, 12e3);
    QCOMPARE(read.defaultLink().latencyUs, 3.0);

    ClusterEditor other;
    QSignalSpy opened(&other, &ClusterEditor::clusterFileOpened);
    QVERIFY(other.loadFile(path));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(clusterJson(other.draft().build()), clusterJson(editor.draft().build()));
    QCOMPARE(other.deviceModel()->rowCount(), 3);

    // A file's host_dispatch_us_per_op has no cell of its own: an edit and a save keep it.
    const QString hostPath = dir.filePath(QStringLiteral("host.json"));
    QFile host(hostPath);
    QVERIFY(host.open(QIODevice::WriteOnly));
    host.write(R"({"format": "post-cluster/1", "name": "host", "host_dispatch_us_per_op": 31.5,
        "devices": [{"name": "/device:GPU:0", "kind": "gpu"}, {"name": "/device:GPU:1", "kind": "gpu"}]})");
    host.close();
    ClusterEditor third;
    QVERIFY(third.loadFile(hostPath));
    QVERIFY(third.deviceModel()->setData(deviceCell(third, 1, ClusterDeviceModel::Speed), QStringLiteral("2")));
    third.saveTo(hostPath);
    QCOMPARE(readClusterFile(hostPath.toStdString()).hostDispatchUsPerOp(), std::optional<double>(31.5));
}

void TestClusterEditor::loadReportsBadFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "speed": -1}]})");
    f.close();
    ClusterEditor editor;
    editor.setDocument(onGpu0());
    QSignalSpy opened(&editor, &ClusterEditor::clusterFileOpened);
    QVERIFY(!editor.loadFile(path));
    QCOMPARE(opened.size(), 0);
    QVERIFY(editor.message().contains(QStringLiteral("speed")));
    QCOMPARE(editor.draft().deviceCount(), 3); // unchanged
}

void TestClusterEditor::windowUsesEditedCluster()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    const int devices = window.hub()->document()->cluster->deviceCount();
    ClusterEditor* editor = window.findChild<ClusterEditor*>();
    QCOMPARE(editor->deviceModel()->rowCount(), devices);
    const auto graph = window.hub()->document()->graph;
    // Show everything on device 0, then double device 0's speed: the window's document
    // (what the learner starts from) carries the new cluster and the same graph.
    window.hub()->setPlacement(Placement(static_cast<size_t>(graph->opCount()), 0));
    const double before = editor->shownStepUs();
    QVERIFY(before > 0.0);
    const double speed = window.hub()->document()->cluster->device(0).speed;
    QVERIFY(editor->deviceModel()->setData(editor->deviceModel()->index(0, ClusterDeviceModel::Speed),
                                           QString::number(speed * 2.0)));
    QCOMPARE(window.hub()->document()->cluster->device(0).speed, speed * 2.0);
    QCOMPARE(window.hub()->document()->graph, graph);
    QCOMPARE(window.hub()->document()->placement, Placement(static_cast<size_t>(graph->opCount()), 0));
    QVERIFY(std::abs(editor->shownStepUs() - before / 2.0) < 1e-9 * before); // one device: no transfers
    // The editor keeps its draft when the window hands back the cluster it made.
    QCOMPARE(editor->draft().devices[0].speed, speed * 2.0);
}

// Above kSynchronousMaxOps ops (a new best of a 100k-op run) the shown placement is
// re-simulated on a pool thread: setDocument returns at once with no figure, and the figure
// that arrives is the simulator's; a newer document's job wins over an older one's.
void TestClusterEditor::bigGraphsResimulateOffTheGuiThread()
{
    const int n = ClusterEditor::kSynchronousMaxOps + 1000;
    auto doc = std::make_shared<GraphDocument>(*uitest::chainDocument(n));
    doc->placement.assign(static_cast<size_t>(n), 1); // the chain on GPU:0: the sum of its times
    ClusterEditor editor;
    QSignalSpy shown(&editor, &ClusterEditor::shownStepChanged);
    editor.setDocument(doc);
    QVERIFY(editor.isSimulating());
    QVERIFY(std::isnan(editor.shownStepUs()));
    QVERIFY(editor.summary().contains(QStringLiteral("simulating")));
    // Another placement before the first job is back: only its figure is shown.
    auto faster = std::make_shared<GraphDocument>(*doc);
    faster->placement.assign(static_cast<size_t>(n), 2); // GPU:1, speed 2
    editor.setDocument(faster);
    QTRY_VERIFY_WITH_TIMEOUT(!editor.isSimulating(), 30000);
    QCOMPARE(shown.size(), 1);
    const double expected = Simulator(*faster->graph, *faster->cluster).run(faster->placement).stepTimeUs;
    QCOMPARE(editor.shownStepUs(), expected);
    QVERIFY(editor.shownFeasible());
    QVERIFY2(editor.summary().contains(formatMicroseconds(expected)), qPrintable(editor.summary()));
    // An edit of the draft is re-simulated the same way, on the edited cluster.
    QVERIFY(editor.deviceModel()->setData(deviceCell(editor, 2, ClusterDeviceModel::Speed), QStringLiteral("4")));
    QVERIFY(editor.isSimulating());
    QTRY_VERIFY_WITH_TIMEOUT(!editor.isSimulating(), 30000);
    QCOMPARE(editor.shownStepUs(), expected / 2.0);
}

// In the window, a big graph's shown placement on its own cluster is simulated once, by the
// step simulation: the editor shows that figure without a simulation of its own; an edit of
// the cluster becomes the window's document, whose step is simulated once too.
void TestClusterEditor::windowSimulatesBigGraphsOnce()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    const int n = ClusterEditor::kSynchronousMaxOps + 1000;
    auto doc = std::make_shared<GraphDocument>(*uitest::chainDocument(n));
    window.hub()->open(doc);
    ClusterEditor* editor = window.findChild<ClusterEditor*>();
    const Placement onGpu0(static_cast<size_t>(n), 1);
    window.hub()->setPlacement(onGpu0);
    QTRY_VERIFY_WITH_TIMEOUT(!editor->isSimulating() && !std::isnan(editor->shownStepUs()), 30000);
    const double expected = Simulator(*doc->graph, *doc->cluster).run(onGpu0).stepTimeUs;
    QCOMPARE(editor->shownStepUs(), expected);
    QCOMPARE(editor->simulationsRun(), 0);
    QVERIFY(editor->deviceModel()->setData(deviceCell(*editor, 1, ClusterDeviceModel::Speed), QStringLiteral("4")));
    QCOMPARE(window.hub()->document()->cluster->device(1).speed, 4.0);
    QTRY_VERIFY_WITH_TIMEOUT(!editor->isSimulating(), 30000);
    QCOMPARE(editor->simulationsRun(), 0);
    QCOMPARE(editor->shownStepUs(), expected / 4.0);
}

QTEST_MAIN(TestClusterEditor)
#include "test_cluster_editor.moc"
