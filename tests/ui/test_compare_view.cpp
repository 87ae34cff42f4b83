// The comparison tab: its table model, a full run on a small graph, Cancel, and showing
// a row's best placement in the window.
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/native/PlacementFile.h"
#include "core/run/PlacerRegistry.h"
#include "core/session/SessionFile.h"
#include "core/sim/Simulator.h"
#include "core/util/FileText.h"
#include "tests/support/ScratchSettings.h"
#include "tests/ui/UiTestGraphs.h"
#include "ui/MainWindow.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/compare/PlacementDiff.h"
#include "ui/document/DocumentHub.h"
#include "ui/inspector/InspectorPanel.h"

#include <QAbstractItemModelTester>
#include <QAbstractProxyModel>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
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
    void timeLimitEndsEachRun();
    void doubleClickShowsPlacement();
    void diffCountsMovesPerDevicePair();
    void provenAndGroupedBounds();
    void milpRowCertifiesTheBest();
    void rowsAreTimedUnderTheDocumentsDispatchRule();
    void aGroupedBoundSaysGroupedBesideAProvenOne();
    void algorithmNamesAreReadableAt1280x800();
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
    QCOMPARE(model.data(model.index(1, ComparisonModel::Std)).toString(), QStringLiteral("–")); // one run: none
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

// The Time limit ends each learner run (as compare --time), is kept with the table in a
// session and comes back with it.
void TestCompareView::timeLimitEndsEachRun()
{
    ComparisonView view;
    const DocumentPtr document = uitest::chainDocument(12);
    view.setDocument(document);
    QCOMPARE(view.timeLimit(), 0.0); // none by default: equal samples
    view.setSamples(1000000);        // far more than 0.3 s allows
    view.setTimeLimit(0.3);
    view.setSeeds(2);
    QVERIFY(view.setAlgorithms(QStringLiteral("random")));
    QSignalSpy done(&view, &ComparisonView::runFinished);
    view.start();
    QVERIFY(done.wait(60000));
    QCOMPARE(done.at(0).at(0).toBool(), false); // ended by its time, not cancelled
    const ComparisonRow& row = view.model()->row(0);
    QCOMPARE(row.runs(), 2);
    QVERIFY(!row.stopped);
    // Per run (the row's means): the time, not the samples, ended each.
    QVERIFY2(row.samples < 1000000, qPrintable(QString::number(row.samples)));
    QVERIFY2(row.wallSeconds >= 0.25 && row.wallSeconds < 5.0, qPrintable(QString::number(row.wallSeconds)));
    // Kept with the table, and back with it.
    const std::optional<SessionComparison> kept = view.results(document->graphId);
    QVERIFY(kept.has_value());
    QCOMPARE(kept->seconds, 0.3);
    ComparisonView restored;
    restored.setDocument(document);
    restored.restoreResults(*kept, document->graphId, nullptr);
    QCOMPARE(restored.timeLimit(), 0.3);
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

// Diff: two rows' best placements against each other, or one against the shown placement;
// the dialog counts ops per device pair and lists the moved ones, which select in the window.
void TestCompareView::diffCountsMovesPerDevicePair()
{
    MainWindow window;
    window.setInteractiveErrors(false);
    const DocumentPtr doc = uitest::smallDocument({0, 1, 1, 1}); // input, conv, relu, fc
    window.hub()->open(doc);
    auto* view = window.findChild<ComparisonView*>();
    SessionComparison table;
    ComparisonRow a;
    a.algorithm = "first";
    a.bestUs = {100};
    a.best = {0, 1, 2, 1};
    ComparisonRow b = a;
    b.algorithm = "second";
    b.best = {0, 2, 2, 2};
    table.rows = {a, b};
    view->restoreResults(table, doc->graphId);
    QSignalSpy requested(view, &ComparisonView::diffRequested);
    QVERIFY(view->diffRows(0, 1));
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.first().at(0).value<Placement>(), a.best);
    QCOMPARE(requested.first().at(3).toString(), QStringLiteral("second"));
    QVERIFY(view->diffRows(1)); // against the shown placement {0, 1, 1, 1}
    QCOMPARE(requested.last().at(0).value<Placement>(), doc->placement);
    QCOMPARE(requested.last().at(2).toString(), QStringLiteral("shown"));

    // The button does the same for the selected rows.
    view->table()->selectRow(0);
    view->table()->selectionModel()->select(view->table()->model()->index(1, 0),
                                            QItemSelectionModel::Select | QItemSelectionModel::Rows);
    auto* button = view->findChild<QPushButton*>(QStringLiteral("compareDiff"));
    QVERIFY(button->isEnabled());
    button->click();
    QCOMPARE(requested.size(), 3);
    auto* dialog = window.findChild<PlacementDiffDialog*>();
    QVERIFY(dialog);
    // first -> second: conv GPU:0 -> GPU:1, fc GPU:0 -> GPU:1; input (CPU) and relu (GPU:1) stay.
    QCOMPARE(dialog->diff().moved, (std::vector<OpId>{1, 3}));
    QCOMPARE(dialog->diff().pairs[1][2], 2);
    QCOMPARE(dialog->diff().pairs[0][0], 1);
    QCOMPARE(dialog->diff().pairs[2][2], 1);
    QCOMPARE(dialog->pairTable()->item(1, 2)->data(Qt::UserRole).toInt(), 2);
    QCOMPARE(dialog->movedList()->count(), 2);
    QVERIFY(dialog->movedList()->item(0)->text().startsWith(QStringLiteral("conv: GPU:0 → GPU:1")));
    QSignalSpy activated(dialog, &PlacementDiffDialog::opActivated);
    emit dialog->movedList()->itemActivated(dialog->movedList()->item(1));
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.first().at(0).toInt(), 3);
    QCOMPARE(window.findChild<InspectorPanel*>()->op(), OpId(3)); // selected in the window: fc in the inspector
    // The shown placement against a placement file and a session file of the same graph.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("other.json"));
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(placementJson(*doc->graph, *doc->cluster, b.best)));
    }
    PlacementDiffDialog* fromFile = window.diffWithPlacementFile(file);
    QVERIFY(fromFile);
    QCOMPARE(fromFile->diff().moved, (std::vector<OpId>{1, 2, 3})); // {0, 1, 1, 1} -> {0, 2, 2, 2}
    QCOMPARE(fromFile->diff().pairs[1][2], 3);
    Session session;
    session.graph = doc->graph;
    session.cluster = doc->cluster;
    session.placement = a.best;
    const QString sessionFile = dir.filePath(QStringLiteral("other.session.json"));
    writeSessionFile(sessionFile.toStdString(), session);
    PlacementDiffDialog* fromSession = window.diffWithPlacementFile(sessionFile);
    QVERIFY(fromSession);
    QCOMPARE(fromSession->diff().moved, (std::vector<OpId>{2})); // relu GPU:0 -> GPU:1
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    QVERIFY(!window.diffWithPlacementFile(dir.filePath(QStringLiteral("missing.json"))));
    QCOMPARE(failed.size(), 1);

    // A row without a placement of this graph gives no diff.
    ComparisonRow empty = a;
    empty.best.clear();
    table.rows = {empty};
    view->restoreResults(table, doc->graphId);
    QVERIFY(!view->diffRows(0));
}

// The table's bound column and the line above it: a proven op-level bound raises the lower
// bound (source milp) and the certified gap follows; a grouped bound is shown as grouped and
// never becomes the lower bound, even when it is above the best placement.
void TestCompareView::provenAndGroupedBounds()
{
    ComparisonModel model;
    model.clear(100.0, QStringLiteral("fork-join"));
    ComparisonRow etf;
    etf.algorithm = "m-etf";
    etf.bestUs = {130.0};
    etf.feasibleRuns = 1;
    etf.bestUsOverRuns = 130.0;
    etf.bestFeasible = true;
    etf.best = {0};
    model.addRow(etf);
    QCOMPARE(model.lowerBoundUs(), 100.0);
    QCOMPARE(model.lowerBoundSource(), QStringLiteral("fork-join"));
    QVERIFY(std::abs(model.certifiedGap() - 0.3) < 1e-12);
    QCOMPARE(model.summary(),
             QStringLiteral("Lower bound 0.100 ms (fork-join); best 0.130 ms (m-etf), certified gap 30.0%"));
    // Every row shows its certified gap and the bound that certifies it.
    QCOMPARE(model.data(model.index(0, ComparisonModel::CertifiedGap)).toString(), QStringLiteral("30.0% (fork-join)"));
    QVERIFY(model.data(model.index(0, ComparisonModel::CertifiedGap), Qt::ToolTipRole)
                .toString()
                .contains("certified by the fork-join bound"));
    QVERIFY(!model.data(model.index(0, ComparisonModel::CertifiedGap), Qt::ToolTipRole)
                 .toString()
                 .contains("ready-order dispatch"));
    // The ready-order bound says which dispatch rule it bounds.
    ComparisonModel readyOrder;
    readyOrder.clear(100.0, QStringLiteral("ready-order"));
    readyOrder.addRow(etf);
    QCOMPARE(readyOrder.data(readyOrder.index(0, ComparisonModel::CertifiedGap)).toString(),
             QStringLiteral("30.0% (ready order)"));
    QVERIFY(readyOrder.data(readyOrder.index(0, ComparisonModel::CertifiedGap), Qt::ToolTipRole)
                .toString()
                .contains("certified by the ready order bound, 0.100 ms (it bounds runs under ready-order dispatch"));
    ComparisonRow grouped = etf;
    grouped.algorithm = "milp";
    grouped.bestUs = {140.0};
    grouped.bestUsOverRuns = 140.0;
    grouped.bounds.groupedBoundUs = 135.0; // above the best: a bound of the grouping only
    grouped.bounds.groupedBoundGroups = 42;
    model.addRow(grouped);
    QCOMPARE(model.lowerBoundUs(), 100.0);
    QCOMPARE(model.data(model.index(1, ComparisonModel::Bound)).toString(), QStringLiteral("0.135 grouped (42 chunks)"));
    QVERIFY(model.data(model.index(1, ComparisonModel::Bound), Qt::ToolTipRole).toString().contains("not a lower bound"));
    QVERIFY2(model.summary().endsWith(QStringLiteral(
                 "milp's grouped bound 0.135 ms on 42 chunks holds for that grouping only, not for this graph")),
             qPrintable(model.summary()));
    QCOMPARE(model.data(model.index(0, ComparisonModel::VsLowerBound)).toString(), QStringLiteral("1.30×"));
    ComparisonRow proven = etf;
    proven.algorithm = "milp";
    proven.bounds.solverBoundUs = 125.0;
    proven.bounds.solverBoundOpLevel = true;
    model.addRow(proven);
    QCOMPARE(model.lowerBoundUs(), 125.0);
    QCOMPARE(model.lowerBoundSource(), QStringLiteral("milp"));
    QVERIFY(std::abs(model.certifiedGap() - 0.04) < 1e-12);
    QCOMPARE(model.data(model.index(0, ComparisonModel::VsLowerBound)).toString(), QStringLiteral("1.04×"));
    // The proven bound certifies every row now, the grouped row too (its own bound never does).
    QCOMPARE(model.data(model.index(0, ComparisonModel::CertifiedGap)).toString(), QStringLiteral("4.00% (milp)"));
    QCOMPARE(model.data(model.index(1, ComparisonModel::CertifiedGap)).toString(), QStringLiteral("12.0% (milp)"));
    QVERIFY(std::abs(model.rowCertifiedGap(1) - 0.12) < 1e-12);
    ComparisonRow infeasible = etf;
    infeasible.algorithm = "single";
    infeasible.bestFeasible = false;
    infeasible.feasibleRuns = 0;
    model.addRow(infeasible);
    QVERIFY(model.data(model.index(3, ComparisonModel::CertifiedGap)).toString().isEmpty()); // nothing certified
    QCOMPARE(model.data(model.index(2, ComparisonModel::Bound)).toString(), QStringLiteral("0.125"));
    QVERIFY(!model.bestProvenOptimal());
    ComparisonRow optimal = proven;
    optimal.bounds.solverBoundUs = 130.0;
    optimal.bounds.provenOptimal = true;
    model.addRow(optimal);
    QVERIFY(model.bestProvenOptimal());
    QCOMPARE(model.data(model.index(4, ComparisonModel::Bound)).toString(), QStringLiteral("0.130 (proven optimal)"));
    QVERIFY2(model.summary().startsWith(QStringLiteral(
                 "Lower bound 0.130 ms (milp); best 0.130 ms (m-etf), certified gap 0.00%, proven optimal")),
             qPrintable(model.summary()));
}

// A real comparison with milp on a small graph: its row proves the best optimal, and the line
// above the table says so.
void TestCompareView::milpRowCertifiesTheBest()
{
    ComparisonView view;
    DocumentHub hub;
    view.setHub(&hub);
    const DocumentPtr document = uitest::smallDocument();
    view.setDocument(document);
    view.findChild<QLineEdit*>(QStringLiteral("compareAlgorithms"))->setText(QStringLiteral("milp,m-etf"));
    QSignalSpy done(&view, &ComparisonView::runFinished);
    QSignalSpy bound(&hub, &DocumentHub::provenBoundFound);
    view.start();
    QVERIFY(done.wait(60000));
    const ComparisonModel& model = *view.model();
    const int milp = rowOf(model, "milp");
    QVERIFY(milp >= 0);
    QVERIFY(model.row(milp).bounds.provenOptimal);
    QVERIFY(model.bestProvenOptimal());
    QVERIFY(model.data(model.index(milp, ComparisonModel::Bound)).toString().endsWith("(proven optimal)"));
    // Here the critical path already meets the optimum: milp's bound (a millionth below it, its
    // tolerance) does not replace it.
    QCOMPARE(model.lowerBoundSource(), QStringLiteral("critical-path"));
    QVERIFY2(view.boundText().contains(QStringLiteral("(critical path)")) && view.boundText().endsWith("proven optimal"),
             qPrintable(view.boundText()));
    // The milp row's bound goes to the hub, for the chart of the same graph and cluster.
    QCOMPARE(bound.count(), 1);
    const auto proven = bound.at(0).at(0).value<ProvenBound>();
    QVERIFY(proven.bounds.opLevelUs() > 0.0);
    QVERIFY(proven.bounds.provenOptimal);
    QCOMPARE(proven.graphId, document->graphId);
    QCOMPARE(proven.cluster, reinterpret_cast<quintptr>(document->cluster.get()));
}

// Compare times every row under the document's dispatch rule (post-cli compare --dispatch).
void TestCompareView::rowsAreTimedUnderTheDocumentsDispatchRule()
{
    auto doc = std::make_shared<GraphDocument>();
    const std::string path = qEnvironmentVariable("POST_SOURCE_DIR").toStdString()
        + "/samples/graphs/inception-block.json";
    doc->graph = std::make_shared<const Graph>(parseNativeGraph(readFileText(path), path));
    doc->cluster = std::make_shared<const Cluster>(loadCluster("k80x4"));
    doc->sim.dispatch = Dispatch::CriticalPath;
    ComparisonView view;
    view.setDocument(doc);
    QVERIFY(view.setAlgorithms(QStringLiteral("round-robin")));
    QSignalSpy done(&view, &ComparisonView::runFinished);
    view.start();
    QVERIFY(done.wait(120000));
    QCOMPARE(view.model()->rowCount(), 1);
    const ComparisonRow& row = view.model()->row(0);
    const double pathUs = Simulator(*doc->graph, *doc->cluster, doc->sim).run(row.best).stepTimeUs;
    const double readyUs = Simulator(*doc->graph, *doc->cluster).run(row.best).stepTimeUs;
    QVERIFY2(std::abs(pathUs - readyUs) > 1.0, qPrintable(QStringLiteral("%1 vs %2 µs").arg(pathUs).arg(readyUs)));
    QCOMPARE(row.meanUs(), pathUs);
    QVERIFY2(view.boundText().contains(QStringLiteral("every row timed by critical-path dispatch")),
             qPrintable(view.boundText()));
}

// milp's grouped mode on gnmt (k80x4) proves its best optimal when it meets the polynomial
// bound, and has a grouped bound too: the row shows both, the grouped one named grouped (it
// showed "320.223 (proven optimal)" alone, while the line above called it a grouped bound).
void TestCompareView::aGroupedBoundSaysGroupedBesideAProvenOne()
{
    ComparisonModel model;
    model.clear(320223.0, QStringLiteral("critical-path"));
    ComparisonRow milp;
    milp.algorithm = "milp";
    milp.bestUs = {320223.0, 320223.0};
    milp.feasibleRuns = 2;
    milp.bestUsOverRuns = 320223.0;
    milp.bestFeasible = true;
    milp.best = {0};
    milp.bounds.solverBoundUs = 320223.0; // it meets the critical path: optimal for the graph
    milp.bounds.solverBoundOpLevel = true;
    milp.bounds.provenOptimal = true;
    milp.bounds.groupedBoundUs = 320223.0; // and the solver's bound of its 40 chunks
    milp.bounds.groupedBoundGroups = 40;
    model.addRow(milp);
    const QString shown = model.data(model.index(0, ComparisonModel::Bound)).toString();
    QCOMPARE(shown, QStringLiteral("320.223 (proven optimal); 320.223 grouped (40 chunks)"));
    const QString tip = model.data(model.index(0, ComparisonModel::Bound), Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("40 chunks (320.223 ms): valid for that grouping only")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("proven optimal")), qPrintable(tip));
    QVERIFY2(model.summary().contains(QStringLiteral("grouped bound 320.223 ms on 40 chunks holds for that grouping")),
             qPrintable(model.summary()));
}

// At 1280x800 the Compare tab is about 900 px wide beside the docks: every algorithm's name
// shows whole (the column used to stretch into what the others left, about 25 px).
void TestCompareView::algorithmNamesAreReadableAt1280x800()
{
    ComparisonView view;
    view.resize(900, 500);
    const char* names[] = {"post@m-etf", "local-search", "round-robin", "milp", "cpu"};
    for (const char* name : names) {
        ComparisonRow row;
        row.algorithm = name;
        row.bestUs = {123456.0};
        row.feasibleRuns = 1;
        row.bestUsOverRuns = 123456.0;
        row.bestFeasible = true;
        row.stopped = std::string(name) == "local-search"; // "local-search (cancelled)"
        view.model()->addRow(row);
    }
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* table = view.findChild<QTableView*>();
    QVERIFY(table);
    QCoreApplication::processEvents();
    const QFontMetrics metrics(table->font());
    for (int r = 0; r < view.model()->rowCount(); ++r) {
        const QString text = view.model()->data(view.model()->index(r, ComparisonModel::Algorithm)).toString();
        QVERIFY2(table->columnWidth(ComparisonModel::Algorithm) > metrics.horizontalAdvance(text),
                 qPrintable(QStringLiteral("%1 px for \"%2\" (%3 px)")
                                .arg(table->columnWidth(ComparisonModel::Algorithm))
                                .arg(text)
                                .arg(metrics.horizontalAdvance(text))));
    }
    // Every other column keeps its header readable too.
    for (int c = 0; c < ComparisonModel::ColumnCount; ++c) {
        const QString header = view.model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(table->columnWidth(c) >= metrics.horizontalAdvance(header),
                 qPrintable(QStringLiteral("column %1 (%2): %3 px").arg(c).arg(header).arg(table->columnWidth(c))));
    }
}

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
