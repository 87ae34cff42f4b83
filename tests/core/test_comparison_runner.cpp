// core's ComparisonRunner (what post-cli compare and the Studio's Compare tab run).
#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/run/ComparisonRunner.h"
#include "core/run/GivenPlacementRow.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"

#include <QTest>

#include <atomic>

using namespace post;

namespace {

Graph chain()
{
    GraphBuilder b("chain");
    for (int i = 0; i < 6; ++i) {
        Op o;
        o.name = std::string("op").append(std::to_string(i)); // not operator+: GCC 12 -Wrestrict
        o.type = "T";
        o.timeUs = {100.0, 10.0};
        o.outputBytes = 100;
        b.addOp(o);
        if (i > 0)
            b.addEdge(i - 1, i, 100);
    }
    return std::move(b).build();
}

Cluster twoGpus()
{
    return Cluster("two", {Device{"/device:GPU:0", DeviceKind::Gpu, 1.0}, Device{"/device:GPU:1", DeviceKind::Gpu, 2.0}},
                   Link{});
}

} // namespace

class TestComparisonRunner : public QObject {
    Q_OBJECT

private slots:
    void rowsAndStatistics();
    void stopFlagSkipsTheRest();
    void givenPlacementRow();
    void provenBoundsMerge();
};

void TestComparisonRunner::rowsAndStatistics()
{
    const Graph g = chain();
    const Cluster c = twoGpus();
    ComparisonOptions o;
    o.algorithms = {"single", "random"};
    o.samples = 30;
    o.seeds = 3;
    ComparisonRunner runner(g, c, o);
    QVERIFY(runner.unknownAlgorithm().empty());
    double lastFraction = 0.0;
    bool monotone = true;
    int rowsSeen = 0;
    const auto rows = runner.run(
        [&](const ComparisonProgress& p) {
            monotone = monotone && p.fraction + 1e-12 >= lastFraction && p.fraction <= 1.0 + 1e-12;
            lastFraction = p.fraction;
        },
        [&](const ComparisonRow&) { ++rowsSeen; });
    QCOMPARE(rows.size(), size_t{2});
    QCOMPARE(rowsSeen, 2);
    QVERIFY(monotone);
    QCOMPARE(lastFraction, 1.0);
    // single: six 10 µs ops on the speed-2 GPU.
    QCOMPARE(rows[0].runs(), 1);
    QCOMPARE(rows[0].meanUs(), 30.0);
    QCOMPARE(rows[0].stddevUs(), 0.0);
    QCOMPARE(rows[0].best, Placement(6, 1));
    QCOMPARE(rows[1].runs(), 3);
    QCOMPARE(rows[1].feasibleRuns, 3);
    QCOMPARE(rows[1].samples, 30.0);
    // The kept placement is the best of the three runs.
    double lo = rows[1].bestUs[0];
    for (double v : rows[1].bestUs)
        lo = std::min(lo, v);
    QCOMPARE(rows[1].bestUsOverRuns, lo);

    ComparisonOptions bad;
    bad.algorithms = {"post", "nope"};
    QCOMPARE(ComparisonRunner(g, c, bad).unknownAlgorithm(), std::string("nope"));
}

void TestComparisonRunner::stopFlagSkipsTheRest()
{
    const Graph g = chain();
    const Cluster c = twoGpus();
    ComparisonOptions o;
    o.algorithms = {"random", "single"};
    o.samples = 100000000;
    o.seeds = 4;
    ComparisonRunner runner(g, c, o);
    std::atomic<bool> stop{false};
    // Stop from inside the first run, after a few samples.
    const auto rows = runner.run(
        [&](const ComparisonProgress& p) {
            if (p.fraction > 0.0)
                stop.store(true);
        },
        {}, &stop);
    QCOMPARE(rows.size(), size_t{1});
    QVERIFY(rows[0].stopped);
    QCOMPARE(rows[0].runs(), 1);
    QVERIFY(rows[0].samples < 1000.0);
}

QTEST_APPLESS_MAIN(TestComparisonRunner)
// A file's own placement as a one-run row: six 10 us ops on the speed-2 GPU take 30 us.
void TestComparisonRunner::givenPlacementRow()
{
    const Graph g = chain();
    const Cluster c = twoGpus();
    const ComparisonRow row = post::givenPlacementRow(g, c, Placement(6, DeviceId(1)), "model.pbtxt");
    QCOMPARE(row.algorithm, std::string("given"));
    QCOMPARE(row.runs(), 1);
    QVERIFY(row.allFeasible());
    QCOMPARE(row.bestUsOverRuns, 30.0);
    QCOMPARE(row.meanUs(), 30.0);
    QCOMPARE(row.best, Placement(6, DeviceId(1)));
    // Timed under the rule the other rows are (compare --dispatch): on GPU:0 a 50 us op and
    // a 1 us op feeding 40 us on GPU:1 are ready together; by ready order (lower id) the long
    // one goes first and the feed waits for it, by critical path the feed does not.
    GraphBuilder b("dispatch");
    for (const auto& [name, us] : {std::pair{"long", 50.0}, std::pair{"feed", 1.0}, std::pair{"tail", 80.0}}) {
        Op o;
        o.name = name;
        o.timeUs = {10.0 * us, us};
        b.addOp(o);
    }
    b.addEdge(1, 2, 0.0);
    const Graph d = std::move(b).build();
    SimOptions byPath;
    byPath.dispatch = Dispatch::CriticalPath;
    const Placement split{0, 0, 1};
    const double ready = post::givenPlacementRow(d, c, split, "model.pbtxt").bestUsOverRuns;
    const double critical = post::givenPlacementRow(d, c, split, "model.pbtxt", byPath).bestUsOverRuns;
    QCOMPARE(ready, Simulator(d, c).run(split).stepTimeUs);
    QCOMPARE(critical, Simulator(d, c, byPath).run(split).stepTimeUs);
    QVERIFY2(critical < ready, qPrintable(QString("%1 against %2 us").arg(critical).arg(ready)));
    try {
        post::givenPlacementRow(g, c, Placement(5, DeviceId(0)), "model.pbtxt");
        QFAIL("a placement of the wrong size was accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.file(), std::string("model.pbtxt"));
        QCOMPARE(e.location(), std::string("given placement"));
    }
}

// A row's bounds over its runs: the largest of each kind with its own scope or chunks, optimal
// where any run proved it; a run without bounds changes nothing.
void TestComparisonRunner::provenBoundsMerge()
{
    ProvenBounds row;
    QVERIFY(!row.any());
    ProvenBounds grouping; // a solver bound of a grouping only, then a larger op-level one
    grouping.solverBoundUs = 90.0;
    grouping.groupedBoundUs = 120.0;
    grouping.groupedBoundGroups = 40;
    grouping.groupedOptimal = true;
    row.merge(grouping);
    QVERIFY(row.any() && row.hasSolverBound() && !row.provesOpLevel());
    QCOMPARE(row.opLevelUs(), 0.0);
    ProvenBounds opLevel;
    opLevel.solverBoundUs = 100.0;
    opLevel.solverBoundOpLevel = true;
    opLevel.provenOptimal = true;
    opLevel.groupedBoundUs = 110.0; // smaller: the 40 chunks' bound stays
    opLevel.groupedBoundGroups = 30;
    row.merge(opLevel);
    QCOMPARE(row.solverBoundUs, 100.0);
    QVERIFY(row.provesOpLevel() && row.provenOptimal);
    QCOMPARE(row.opLevelUs(), 100.0);
    QCOMPARE(row.groupedBoundUs, 120.0);
    QCOMPARE(row.groupedBoundGroups, 40);
    QVERIFY(row.groupedOptimal);
    ProvenBounds weaker; // a smaller grouping-only bound keeps the op-level scope
    weaker.solverBoundUs = 95.0;
    row.merge(weaker);
    row.merge(ProvenBounds{});
    QCOMPARE(row.solverBoundUs, 100.0);
    QVERIFY(row.solverBoundOpLevel && row.provenOptimal && row.groupedOptimal);
}

#include "test_comparison_runner.moc"
