#include "tests/ui/UiTestGraphs.h"

#include "core/graph/Collective.h"

#include "ui/models/DeviceTableModel.h"
#include "ui/models/OpTableModel.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSortFilterProxyModel>
#include <QtTest>

#include <algorithm>
#include <set>
#include <vector>

using namespace post;

class TestModels : public QObject {
    Q_OBJECT

private slots:
    void opModelPassesTheModelTester()
    {
        OpTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(OpTableModel::SortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setDocument(uitest::smallDocument());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(OpTableModel::ColumnCount));
        proxy.sort(OpTableModel::GpuTime, Qt::DescendingOrder);
        model.setDocument(uitest::smallDocument({1, 2, 2, 0}));
        model.setDocument(uitest::chainDocument(7));
        QCOMPARE(model.rowCount(), 7);
        model.setDocument(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void opModelShowsFormattedValuesAndSortsRawOnes()
    {
        OpTableModel model;
        model.setDocument(uitest::smallDocument({1, 2, 2, 0}));
        auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(text(1, OpTableModel::Name), QStringLiteral("conv"));
        QCOMPARE(text(1, OpTableModel::Type), QStringLiteral("Conv2d"));
        QCOMPARE(text(1, OpTableModel::Device), QStringLiteral("/device:GPU:1"));
        QCOMPARE(text(3, OpTableModel::Device), QStringLiteral("/device:CPU:0"));
        QCOMPARE(text(1, OpTableModel::GpuTime), QStringLiteral("100 µs"));
        QCOMPARE(text(1, OpTableModel::CpuTime), QStringLiteral("1.00 ms"));
        QCOMPARE(text(1, OpTableModel::OutputBytes), QStringLiteral("4.00 KB"));
        QCOMPARE(text(3, OpTableModel::ParamBytes), QStringLiteral("20.0 KB"));
        QCOMPARE(model.index(2, OpTableModel::Name).data(OpTableModel::OpIdRole).toInt(), 2);

        // Sorting by GPU time goes by the numbers (10 < 40 < 100), not the text.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(OpTableModel::SortRole);
        proxy.sort(OpTableModel::GpuTime, Qt::AscendingOrder);
        QStringList order;
        for (int r = 0; r < proxy.rowCount(); ++r)
            order << proxy.index(r, OpTableModel::Name).data().toString();
        QCOMPARE(order, (QStringList{"input", "relu", "fc", "conv"}));
    }

    void newPlacementRefreshesTheDeviceColumnOnly()
    {
        OpTableModel model;
        model.setDocument(uitest::smallDocument());
        QCOMPARE(model.index(0, OpTableModel::Device).data().toString(), QStringLiteral("unplaced"));
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto placed = std::make_shared<GraphDocument>(*model.document());
        placed->placement = {2, 2, 1, 1};
        model.setDocument(placed);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().column(), int(OpTableModel::Device));
        QCOMPARE(changed.first().at(1).toModelIndex().row(), 3);
        QCOMPARE(model.index(0, OpTableModel::Device).data().toString(), QStringLiteral("/device:GPU:1"));
    }

    // A new placement of the same graph names exactly the rows whose device changed (in
    // runs), so a proxy filtering or sorting by device follows it; every row shows the new
    // device. Many scattered changes, or another cluster, refresh the whole column.
    void newPlacementNamesTheRowsWhoseDeviceChanged()
    {
        constexpr int kOps = 300;
        auto first = std::const_pointer_cast<GraphDocument>(uitest::chainDocument(kOps));
        first->placement = Placement(kOps, 1);
        OpTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(first);
        QSortFilterProxyModel filtered; // the op table's filter box, typed "GPU:1"
        filtered.setSourceModel(&model);
        filtered.setFilterKeyColumn(OpTableModel::Device);
        filtered.setFilterFixedString(QStringLiteral("GPU:1"));
        QSortFilterProxyModel sorted; // the op table sorted by device
        sorted.setSourceModel(&model);
        sorted.setSortRole(OpTableModel::SortRole);
        sorted.sort(OpTableModel::Device, Qt::DescendingOrder);
        QCOMPARE(filtered.rowCount(), 0);

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        auto second = std::make_shared<GraphDocument>(*first);
        const std::vector<int> moved = {0, 5, 6, 7, 100, 298, 299};
        for (int op : moved)
            second->placement[static_cast<size_t>(op)] = 2;
        model.setDocument(second);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 4); // {0}, {5..7}, {100}, {298, 299}
        std::vector<int> named;
        for (const QList<QVariant>& args : changed) {
            const QModelIndex from = args.at(0).toModelIndex(), to = args.at(1).toModelIndex();
            QCOMPARE(from.column(), int(OpTableModel::Device));
            QCOMPARE(to.column(), int(OpTableModel::Device));
            for (int r = from.row(); r <= to.row(); ++r)
                named.push_back(r);
        }
        QCOMPARE(named, moved);
        const auto deviceText = [&](const GraphDocument& doc, int op) {
            return QString::fromStdString(doc.cluster->device(doc.placement[static_cast<size_t>(op)]).name);
        };
        for (int op = 0; op < kOps; ++op)
            QCOMPARE(model.index(op, OpTableModel::Device).data().toString(), deviceText(*second, op));
        QCOMPARE(filtered.rowCount(), int(moved.size()));
        for (int r = 0; r < filtered.rowCount(); ++r)
            QVERIFY(std::count(moved.begin(), moved.end(), filtered.index(r, 0).data(OpTableModel::OpIdRole).toInt()));
        for (int r = 0; r < int(moved.size()); ++r) // GPU:1 (device 2) first
            QCOMPARE(sorted.index(r, OpTableModel::Device).data(OpTableModel::SortRole).toInt(), 2);
        QCOMPARE(sorted.index(int(moved.size()), OpTableModel::Device).data(OpTableModel::SortRole).toInt(), 1);

        // Every other op moves: more runs than are worth naming, one change of the whole column.
        changed.clear();
        auto third = std::make_shared<GraphDocument>(*first);
        for (int op = 0; op < kOps; op += 2)
            third->placement[static_cast<size_t>(op)] = 2;
        model.setDocument(third);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().row(), 0);
        QCOMPARE(changed.first().at(1).toModelIndex().row(), kOps - 1);
        for (int op = 0; op < kOps; ++op)
            QCOMPARE(model.index(op, OpTableModel::Device).data().toString(), deviceText(*third, op));
        QCOMPARE(filtered.rowCount(), kOps / 2);

        // The same placement on a renamed cluster: every name may differ, the whole column.
        changed.clear();
        auto renamed = std::make_shared<GraphDocument>(*third);
        std::vector<Device> devices(third->cluster->devices().begin(), third->cluster->devices().end());
        devices[2].name = "/device:GPU:7";
        renamed->cluster = std::make_shared<const Cluster>("renamed", std::move(devices), Link{});
        model.setDocument(renamed);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.index(0, OpTableModel::Device).data().toString(), QStringLiteral("/device:GPU:7"));
        QCOMPARE(filtered.rowCount(), 0);
        QCOMPARE(reset.count(), 0);
    }

    // A new placement on the same graph and cluster keeps the device table's rows and shows
    // what a fresh table shows for it (op counts, compute, parameters), also going back to a
    // placement seen before (the per-op times it keeps); another cluster resets it.
    void deviceModelFollowsANewPlacementWithoutAReset()
    {
        constexpr int kOps = 50;
        auto first = std::const_pointer_cast<GraphDocument>(uitest::chainDocument(kOps));
        first->placement = Placement(kOps, 1);
        auto second = std::make_shared<GraphDocument>(*first);
        for (int op = 0; op < kOps; op += 3)
            second->placement[static_cast<size_t>(op)] = op % 2 ? 2 : 0;
        DeviceTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto sameAsFresh = [&](const DocumentPtr& doc) {
            DeviceTableModel fresh;
            fresh.setDocument(doc);
            QCOMPARE(model.rowCount(), fresh.rowCount());
            for (int r = 0; r < fresh.rowCount(); ++r)
                for (int c = 0; c < DeviceTableModel::ColumnCount; ++c)
                    for (int role : {int(Qt::DisplayRole), int(DeviceTableModel::SortRole)})
                        QCOMPARE(model.index(r, c).data(role), fresh.index(r, c).data(role));
        };
        model.setDocument(first);
        sameAsFresh(first);
        QCOMPARE(model.index(1, DeviceTableModel::Ops).data().toInt(), kOps);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        for (const DocumentPtr& doc : {DocumentPtr(second), DocumentPtr(first), DocumentPtr(second)}) {
            model.setDocument(doc);
            sameAsFresh(doc);
        }
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 3);
        QCOMPARE(model.index(0, DeviceTableModel::Ops).data().toInt(), 9); // ops 0, 6, ..., 48 on the CPU
        // GPU:1 (speed 2) holds ops 3, 9, ..., 45: (4 + 10 + ... + 46) / 2 us.
        QCOMPARE(model.index(2, DeviceTableModel::ComputeTime).data(DeviceTableModel::SortRole).toDouble(),
                 (4 + 46) * 8 / 2 / 2.0);

        auto faster = std::make_shared<GraphDocument>(*second);
        std::vector<Device> devices(second->cluster->devices().begin(), second->cluster->devices().end());
        devices[2].speed = 4.0;
        faster->cluster = std::make_shared<const Cluster>("faster", std::move(devices), Link{});
        model.setDocument(faster);
        QCOMPARE(reset.count(), 1);
        sameAsFresh(faster);
        QCOMPARE(model.index(2, DeviceTableModel::ComputeTime).data(DeviceTableModel::SortRole).toDouble(),
                 (4 + 46) * 8 / 2 / 4.0);
    }

    void deviceModelPassesTheModelTester()
    {
        DeviceTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setDocument(uitest::smallDocument());
        QCOMPARE(model.rowCount(), 3);
        model.setDocument(uitest::smallDocument({1, 2, 2, 0}));
        model.setDocument(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void deviceModelSumsWhatThePlacementPutsOnEachDevice()
    {
        DeviceTableModel model;
        // input, fc on GPU:0; conv, relu on GPU:1 (speed 2).
        model.setDocument(uitest::smallDocument({1, 2, 2, 1}));
        auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(text(0, DeviceTableModel::Name), QStringLiteral("/device:CPU:0"));
        QCOMPARE(text(0, DeviceTableModel::Kind), QStringLiteral("CPU"));
        QCOMPARE(text(0, DeviceTableModel::Memory), QStringLiteral("unlimited"));
        QCOMPARE(text(2, DeviceTableModel::Memory), QStringLiteral("16.0 GB"));
        // Speed on one scale, the fastest device for the graph's ops (GPU:1, speed 2: 75 µs) at 1x:
        // GPU:0 takes 150 µs, the CPU 1,500 µs (its times are ten times the GPU's). The cluster
        // file's speeds (CPU 1, GPU:0 1, GPU:1 2) are each relative to their kind: the column
        // said 1x, 1x and 2x before, a CPU as fast as a GPU.
        QCOMPARE(text(2, DeviceTableModel::Speed), QStringLiteral("1×"));
        QCOMPARE(text(1, DeviceTableModel::Speed), QStringLiteral("0.5×"));
        QCOMPARE(text(0, DeviceTableModel::Speed), QStringLiteral("0.05×"));
        QCOMPARE(model.index(0, DeviceTableModel::Speed).data(DeviceTableModel::SortRole).toDouble(), 75.0 / 1500.0);
        const QString tip = model.index(0, DeviceTableModel::Speed).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("/device:GPU:1")) && tip.contains(QStringLiteral("1.50 ms"))
                     && tip.contains(QStringLiteral("75.0 µs")) && tip.contains(QStringLiteral("speed 1")),
                 qPrintable(tip));
        QVERIFY(model.headerData(DeviceTableModel::Speed, Qt::Horizontal).toString().contains(QStringLiteral("fastest")));
        QVERIFY(model.headerData(DeviceTableModel::Speed, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("fastest")));
        QCOMPARE(model.index(0, DeviceTableModel::Ops).data().toInt(), 0);
        QCOMPARE(model.index(1, DeviceTableModel::Ops).data().toInt(), 2);
        QCOMPARE(model.index(2, DeviceTableModel::Ops).data().toInt(), 2);
        // GPU:0: 0 + 40 us; GPU:1: (100 + 10) / 2 us.
        QCOMPARE(model.index(1, DeviceTableModel::ComputeTime).data(DeviceTableModel::SortRole).toDouble(), 40.0);
        QCOMPARE(model.index(2, DeviceTableModel::ComputeTime).data(DeviceTableModel::SortRole).toDouble(), 55.0);
        QCOMPARE(model.index(1, DeviceTableModel::ParamBytes).data(DeviceTableModel::SortRole).toDouble(), 20000.0);
        QCOMPARE(model.index(2, DeviceTableModel::ParamBytes).data(DeviceTableModel::SortRole).toDouble(), 800.0);
    }

    // Once the step is simulated: busy and idle time (adding up to the step), peak memory, and
    // the bytes and transfers each device sends and receives, against the graph's own edges
    // (one transfer per tensor and destination device).
    void deviceModelShowsTheSimulatedStep()
    {
        DeviceTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const DocumentPtr doc = uitest::smallDocument({0, 1, 2, 1}); // input CPU, conv GPU:0, relu GPU:1, fc GPU:0
        model.setDocument(doc);
        QVERIFY(!model.index(1, DeviceTableModel::Busy).data().isValid()); // not simulated yet
        const StepPtr step = SimulatedStep::simulate(doc);
        QVERIFY(step);
        model.setStep(SimulatedStep::simulate(uitest::smallDocument({0, 1, 2, 1}))); // another document's: ignored
        QVERIFY(!model.index(1, DeviceTableModel::Busy).data().isValid());
        model.setStep(step);
        const SimResult& r = step->result;
        std::vector<double> bytesIn(3), bytesOut(3);
        std::vector<int> in(3), out(3);
        const Graph& g = *doc->graph;
        for (OpId u = 0; u < g.opCount(); ++u) {
            std::set<DeviceId> destinations;
            for (EdgeId e : g.outEdges(u)) {
                const OpId v = g.edge(e).to;
                if (doc->placement[static_cast<size_t>(v)] != doc->placement[static_cast<size_t>(u)])
                    destinations.insert(doc->placement[static_cast<size_t>(v)]);
            }
            const auto from = static_cast<size_t>(doc->placement[static_cast<size_t>(u)]);
            for (DeviceId to : destinations) {
                ++out[from];
                ++in[static_cast<size_t>(to)];
            }
        }
        for (int d = 0; d < 3; ++d) {
            const auto value = [&](int column) { return model.index(d, column).data(DeviceTableModel::SortRole); };
            QCOMPARE(value(DeviceTableModel::Busy).toDouble(), r.deviceBusyUs[static_cast<size_t>(d)]);
            QCOMPARE(value(DeviceTableModel::Busy).toDouble() + value(DeviceTableModel::Idle).toDouble(), r.stepTimeUs);
            QCOMPARE(value(DeviceTableModel::PeakMemory).toDouble(), r.peakMemoryBytes[static_cast<size_t>(d)]);
            QCOMPARE(value(DeviceTableModel::TransfersIn).toInt(), in[static_cast<size_t>(d)]);
            QCOMPARE(value(DeviceTableModel::TransfersOut).toInt(), out[static_cast<size_t>(d)]);
            double linkIn = 0, linkOut = 0;
            for (int e = 0; e < 3; ++e) {
                linkOut += r.linkBytes[static_cast<size_t>(d * 3 + e)];
                linkIn += r.linkBytes[static_cast<size_t>(e * 3 + d)];
            }
            QCOMPARE(value(DeviceTableModel::BytesIn).toDouble(), linkIn);
            QCOMPARE(value(DeviceTableModel::BytesOut).toDouble(), linkOut);
        }
        QVERIFY(model.index(1, DeviceTableModel::TransfersOut).data().toInt() > 0); // conv feeds relu on GPU:1
        QCOMPARE(model.headerData(DeviceTableModel::Idle, Qt::Horizontal).toString(), QStringLiteral("Idle"));
        // The same placement in a new document (the learner's best shown again) keeps the step,
        // which StepSimulation does not simulate again; a new placement empties the step's
        // columns until its own step arrives.
        auto again = std::make_shared<GraphDocument>(*doc);
        model.setDocument(again);
        QCOMPARE(model.index(1, DeviceTableModel::Busy).data(DeviceTableModel::SortRole).toDouble(), r.deviceBusyUs[1]);
        model.setDocument(uitest::smallDocument({1, 1, 1, 1}));
        QVERIFY(!model.index(1, DeviceTableModel::Busy).data().isValid());
    }

    // A collective runs on its device's communication channel beside the compute lane: Busy
    // (the simulator's deviceBusyUs, post-cli simulate's busy) counts the compute lane only, and
    // so does Compute, the collective's time going to Collectives. Compute used to count it
    // too, so a device showed 650 µs of compute and 350 µs busy.
    void deviceModelCountsCollectivesApartFromCompute()
    {
        GraphBuilder b("collective");
        b.addOp(uitest::op("a", "MatMul", 100, 1000, 0));
        Op reduce = uitest::op("allreduce", "AllReduce", 300, 1000, 0);
        reduce.collective = CollectiveKind::AllReduce;
        reduce.measuredKinds = 1U << static_cast<unsigned>(DeviceKind::Gpu); // its measured 300 µs
        b.addOp(reduce);
        b.addOp(uitest::op("b", "MatMul", 50, 1000, 0));
        b.addOp(uitest::op("c", "MatMul", 200, 1000, 0)); // independent: overlaps the collective
        b.addEdge("a", "allreduce");
        b.addEdge("allreduce", "b");
        auto doc = std::make_shared<GraphDocument>();
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        doc->placement = Placement{1, 1, 1, 1}; // all on GPU:0 (speed 1)
        DeviceTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(doc);
        QVERIFY(model.hasCollectives());
        const auto value = [&](int row, int column) {
            return model.index(row, column).data(DeviceTableModel::SortRole).toDouble();
        };
        QCOMPARE(value(1, DeviceTableModel::ComputeTime), 350.0);
        QCOMPARE(value(1, DeviceTableModel::Collectives), 300.0);
        QCOMPARE(model.index(1, DeviceTableModel::Collectives).data().toString(), QStringLiteral("300 µs"));
        const StepPtr step = SimulatedStep::simulate(doc);
        QVERIFY(step);
        model.setStep(step);
        for (int d = 0; d < 3; ++d) {
            QCOMPARE(value(d, DeviceTableModel::Busy), step->result.deviceBusyUs[static_cast<size_t>(d)]);
            QVERIFY2(value(d, DeviceTableModel::Busy) >= value(d, DeviceTableModel::ComputeTime) - 1e-9,
                     qPrintable(QStringLiteral("device %1: busy %2 < compute %3")
                                    .arg(d)
                                    .arg(value(d, DeviceTableModel::Busy))
                                    .arg(value(d, DeviceTableModel::ComputeTime))));
            QCOMPARE(value(d, DeviceTableModel::Busy), value(d, DeviceTableModel::ComputeTime));
        }
        QCOMPARE(value(1, DeviceTableModel::Busy), 350.0);
        // The collective overlapped c: the step is shorter than compute plus collectives.
        QVERIFY(step->result.stepTimeUs < 650.0);
        model.setDocument(uitest::smallDocument({1, 1, 1, 1}));
        QVERIFY(!model.hasCollectives());
    }

    // A peak over the device's memory stands out in the Devices dock (red, bold, marked, a
    // tooltip); a peak that fits does not.
    void deviceModelMarksAPeakOverTheDevicesMemory()
    {
        auto doc = std::make_shared<GraphDocument>(*uitest::smallDocument({1, 1, 1, 1}));
        std::vector<Device> devices(doc->cluster->devices().begin(), doc->cluster->devices().end());
        devices[1].memoryBytes = 1000; // GPU:0, below fc's parameters alone
        doc->cluster = std::make_shared<const Cluster>("tight", std::move(devices), Link{});
        DeviceTableModel model;
        model.setDocument(doc);
        const StepPtr step = SimulatedStep::simulate(doc);
        QVERIFY(!step->result.feasible);
        model.setStep(step);
        const QModelIndex over = model.index(1, DeviceTableModel::PeakMemory);
        QVERIFY(over.data(Qt::ForegroundRole).isValid());
        QVERIFY(over.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY2(over.data().toString().startsWith(QStringLiteral("⚠ ")), qPrintable(over.data().toString()));
        QVERIFY(over.data(Qt::ToolTipRole).toString().contains(QStringLiteral("does not fit")));
        QCOMPARE(over.data(DeviceTableModel::SortRole).toDouble(), step->result.peakMemoryBytes[1]); // sorts raw
        const QModelIndex fits = model.index(2, DeviceTableModel::PeakMemory); // GPU:1, 16 GB, empty
        QVERIFY(!fits.data(Qt::ForegroundRole).isValid());
        QVERIFY(!fits.data().toString().contains(QStringLiteral("⚠")));
    }
};

QTEST_MAIN(TestModels)
#include "test_models.moc"
