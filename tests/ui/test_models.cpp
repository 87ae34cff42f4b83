#include "tests/ui/UiTestGraphs.h"

#include "ui/models/DeviceTableModel.h"
#include "ui/models/OpTableModel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

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
        QCOMPARE(text(2, DeviceTableModel::Speed), QStringLiteral("2×"));
        QCOMPARE(model.index(0, DeviceTableModel::Ops).data().toInt(), 0);
        QCOMPARE(model.index(1, DeviceTableModel::Ops).data().toInt(), 2);
        QCOMPARE(model.index(2, DeviceTableModel::Ops).data().toInt(), 2);
        // GPU:0: 0 + 40 us; GPU:1: (100 + 10) / 2 us.
        QCOMPARE(model.index(1, DeviceTableModel::ComputeTime).data(DeviceTableModel::SortRole).toDouble(), 40.0);
        QCOMPARE(model.index(2, DeviceTableModel::ComputeTime).data(DeviceTableModel::SortRole).toDouble(), 55.0);
        QCOMPARE(model.index(1, DeviceTableModel::ParamBytes).data(DeviceTableModel::SortRole).toDouble(), 20000.0);
        QCOMPARE(model.index(2, DeviceTableModel::ParamBytes).data(DeviceTableModel::SortRole).toDouble(), 800.0);
    }
};

QTEST_MAIN(TestModels)
#include "test_models.moc"
