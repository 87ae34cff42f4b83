// The comparison tab: its table model, a full run on a small graph, Cancel, and showing
// a row's best placement in the window.
#include "core/run/PlacerRegistry.h"
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"
#include "ui/MainWindow.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"

#include <QAbstractItemModelTester>
#include <QAbstractProxyModel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <set>

using namespace post;

namespace {

int rowOf(const ComparisonModel& model, const std::string& algorithm)
{
    for (int i = 0; i < model.rowCount(); ++i)
        if (model.row(i).algorithm == algorithm)
            return i;
    return -1;
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }
    void modelPassesTester();
    void runFillsEveryAlgorithm();
    void cancelStops();
    void doubleClickShowsPlacement();
};

void TestCompareView::modelPassesTester()
{
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.clear(100.0);
    ComparisonRow a;
    a.algorithm = "post";
    a.bestUs = {120.0, 140.0, 130.0};
    a.feasibleRuns = 2;
    a.wallSeconds = 0.5;
    model.addRow(a);
    ComparisonRow b;
    b.algorithm = "m-etf";
    b.bestUs = {110.0};
    b.feasibleRuns = 1;
    model.addRow(b);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.data(model.index(0, ComparisonModel::Mean)).toString(), QStringLiteral("0.130"));
    QCOMPARE(model.data(model.index(0, ComparisonModel::Best)).toString(), QStringLiteral("0.120"));
    QCOMPARE(model.data(model.index(0, ComparisonModel::Std)).toString(), QStringLiteral("0.010")); // sd of 120,140,130
    QCOMPARE(model.data(model.index(0, ComparisonModel::VsLowerBound)).toString(), QStringLiteral("1.30×"));
    QCOMPARE(model.data(model.index(0, ComparisonModel::Feasible)).toString(), QStringLiteral("2/3"));
    QCOMPARE(model.data(model.index(1, ComparisonModel::Std), ComparisonModel::SortRole).toDouble(), 0.0);
    QCOMPARE(model.data(model.index(1, ComparisonModel::VsLowerBound), ComparisonModel::SortRole).toDouble(), 1.1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestCompareView::runFillsEveryAlgorithm()
{
    ComparisonView view;
    view.setDocument(uitest::smallDocument());
    view.setSamples(40);
    view.setSeeds(2);
    QSignalSpy done(&view, &ComparisonView::runFinished);
    view.start();
    QVERIFY(view.isRunning());
    QVERIFY(done.wait(120000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    const ComparisonModel& model = *view.model();
    const std::vector<std::string> names = defaultComparisonNames(); // milp runs only when named
    QCOMPARE(model.rowCount(), static_cast<int>(names.size()));
    for (const std::string& name : names) {
        const int row = rowOf(model, name);
        QVERIFY2(row >= 0, name.c_str());
        QCOMPARE(model.row(row).runs(), placerUsesSeed(name) ? 2 : 1);
        QCOMPARE(model.row(row).best.size(), size_t{4});
    }
    // single: every op on the fastest GPU (GPU:1, speed 2): (0 + 100 + 10 + 40) / 2 µs.
    const ComparisonRow& single = model.row(rowOf(model, "single"));
    QCOMPARE(single.meanUs(), 75.0);
    QCOMPARE(single.best, (Placement{2, 2, 2, 2}));
    QVERIFY(model.lowerBoundUs() > 0.0 && model.lowerBoundUs() <= 75.0);
    QVERIFY(!view.findChild<QPushButton*>(QStringLiteral("compareCancel"))->isEnabled());
}

void TestCompareView::cancelStops()
{
    ComparisonView view;
    view.setDocument(uitest::chainDocument(12));
    view.setSamples(5000000); // far more than the test waits for
    view.setSeeds(3);
    QVERIFY(view.setAlgorithms(QStringLiteral("m-etf,post,ce")));
    QSignalSpy done(&view, &ComparisonView::runFinished);
    view.start();
    QTRY_VERIFY_WITH_TIMEOUT(view.model()->rowCount() == 1, 30000); // m-etf done, post running
    QTest::qWait(100);
    view.cancel();
    QVERIFY(done.wait(30000));
    QCOMPARE(done.at(0).at(0).toBool(), true);
    QVERIFY(!view.isRunning());
    // post's first run ends at the stop flag and gives a cancelled row; ce never starts.
    QCOMPARE(view.model()->rowCount(), 2);
    QVERIFY(view.model()->row(1).stopped);
    QCOMPARE(view.model()->row(1).runs(), 1);
    QVERIFY(view.model()->row(1).samples < 5000000);
    QVERIFY(view.statusText().contains(QStringLiteral("Cancelled")));
    QVERIFY(!view.setAlgorithms(QStringLiteral("post,nope")));
}

void TestCompareView::doubleClickShowsPlacement()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    QSignalSpy shown(&window, &MainWindow::documentShown);
    window.openFile(qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/tiny-mlp.json"));
    QVERIFY(shown.wait(20000));
    ComparisonView* view = window.findChild<ComparisonView*>();
    QVERIFY(view->setAlgorithms(QStringLiteral("m-etf,single")));
    QSignalSpy done(view, &ComparisonView::runFinished);
    view->start();
    QVERIFY(done.wait(60000));
    QCOMPARE(view->model()->rowCount(), 2);
    const int row = rowOf(*view->model(), "single");
    const Placement expected = view->model()->row(row).best;
    QVERIFY(std::set<DeviceId>(expected.begin(), expected.end()).size() == 1);
    // A double-click on the row in the (sortable) table view.
    QTableView* table = view->table();
    const QModelIndex source = view->model()->index(row, ComparisonModel::Mean);
    const QModelIndex shownIndex = qobject_cast<QAbstractProxyModel*>(table->model())->mapFromSource(source);
    emit table->doubleClicked(shownIndex);
    QCOMPARE(window.hub()->document()->placement, expected);
}

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
