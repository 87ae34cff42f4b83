#include "core/classic/ClassicalPlacers.h"
#include "core/classic/FavouriteChildLp.h"
#include "core/classic/MSctPlacer.h"
#include "core/classic/MemoryFeedback.h"
#include "core/classic/MemoryLedger.h"
#include "core/classic/MetisPlacer.h"
#include "core/classic/RoundRobinPlacer.h"
#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/Simulator.h"

#include "tests/support/TestData.h"

#include <QtTest>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace post;

namespace {

constexpr double kFactor = 3.0; // optimizerStateFactor() of a graph without Adam updates

Op makeOp(const std::string& name, double gpuUs, double outputBytes = 100, double paramBytes = 0,
          const std::string& group = {})
{
    Op o;
    o.name = name;
    o.type = "Test";
    o.timeUs = {gpuUs * 10, gpuUs};
    o.outputBytes = outputBytes;
    o.paramBytes = paramBytes;
    o.colocate = group;
    return o;
}

// `gpus` GPUs (then one CPU) joined by links of the given speed.
Cluster makeCluster(int gpus, double gpuMemory, Link link, bool withCpu = true)
{
    std::vector<Device> devices;
    for (int i = 0; i < gpus; ++i)
        devices.push_back(Device{"/device:GPU:" + std::to_string(i), DeviceKind::Gpu, 1.0, gpuMemory});
    if (withCpu)
        devices.push_back(Device{"/device:CPU:0", DeviceKind::Cpu, 1.0, std::numeric_limits<double>::infinity()});
    return Cluster("test", std::move(devices), link);
}

Link slowLink() { return Link{1.0, 1000.0}; } // 1000 us latency: transfers dominate
Link fastLink() { return Link{1e9, 1.0}; }    // 1 us latency, negligible bytes

PlaceResult runPlacer(const std::string& name, const Graph& graph, const Cluster& cluster)
{
    auto placer = makeClassicalPlacer(name);
    if (!placer)
        qFatal("unknown placer %s", name.c_str());
    PlaceContext context{graph, cluster, SimOptions{}};
    return placer->place(context);
}

// The simulator's per-device peak memory for a placement.
std::vector<double> simulatedPeaks(const Graph& graph, const Cluster& cluster, const Placement& placement)
{
    Simulator simulator(graph, cluster);
    return simulator.run(placement).peakMemoryBytes;
}

int devicesUsed(const Placement& placement)
{
    std::set<DeviceId> used(placement.begin(), placement.end());
    return static_cast<int>(used.size());
}

// A chain of `ops` ops of 5 us, each edge of 500 bytes.
Graph chainGraph(int ops)
{
    GraphBuilder b;
    for (int i = 0; i < ops; ++i) {
        b.addOp(makeOp("op" + std::to_string(i), 5));
        if (i > 0)
            b.addEdge(static_cast<OpId>(i - 1), static_cast<OpId>(i), 500.0);
    }
    return std::move(b).build();
}

// A random DAG: each op takes inputs from up to three earlier ops; some ops share groups.
Graph randomGraph(int ops, unsigned seed)
{
    unsigned state = seed;
    auto next = [&state](unsigned bound) {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) % bound;
    };
    GraphBuilder b("random");
    for (int i = 0; i < ops; ++i) {
        const std::string group = next(5) == 0 ? "g" + std::to_string(next(4)) : std::string();
        b.addOp(makeOp("op" + std::to_string(i), 1.0 + next(100), 1000.0 * (1 + next(50)), 100.0 * next(20), group));
        if (i > 0)
            for (unsigned k = next(3) + 1; k > 0; --k)
                b.addEdge(static_cast<OpId>(next(static_cast<unsigned>(i))), static_cast<OpId>(i), -1.0);
    }
    return std::move(b).build();
}

} // namespace

class TestClassicalPlacers : public QObject {
    Q_OBJECT

private slots:
    void factoryKnowsEveryName()
    {
        const std::vector<std::string> expected{"single", "cpu",   "round-robin", "m-topo",
                                                "m-etf",  "m-sct", "metis",       "offload"};
        QCOMPARE(classicalPlacerNames(), expected);
        for (const std::string& name : expected) {
            auto placer = makeClassicalPlacer(name);
            QVERIFY(placer);
            QCOMPARE(placer->name(), name);
        }
        QVERIFY(!makeClassicalPlacer("nope"));
        // The searches' starts: the memory-aware placers first, m-SCT (whose LP takes what is
        // left of the starts' share) last, so that METIS runs in a short run.
        QCOMPARE(
            classicalStartOrder(),
            (std::vector<std::string>{"m-etf", "m-topo", "round-robin", "metis", "single", "cpu", "offload", "m-sct"}));
    }

    void ledgerTracksParamsAndLiveTensors()
    {
        // a (10 param bytes, output 100) feeds b (output 50) and, over a 300-byte edge, c
        // (output 70). Parameters count x3; a tensor lives until its last reader is placed.
        GraphBuilder b;
        b.addOp(makeOp("a", 1, 100, 10));
        b.addOp(makeOp("b", 1, 50, 0));
        b.addOp(makeOp("c", 1, 70, 0));
        b.addEdge("a", "b");
        b.addEdge("a", "c", 300);
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e9, fastLink(), false);
        MemoryLedger ledger(g, c, SimOptions{});
        QCOMPARE(ledger.footprint(0), 130.0);
        ledger.place(0, 0);
        QCOMPARE(ledger.peakBytes(0), 130.0);    // 30 params + 100 live
        QCOMPARE(ledger.peakAfter(1, 1), 350.0); // b's output + a copy of a's (largest edge: 300)
        ledger.place(1, 1);                      // b has no reader: its output dies at once
        QCOMPARE(ledger.peakAfter(2, 1), 370.0); // 300 copy still live + 70
        QCOMPARE(ledger.peakAfter(2, 0), 200.0); // 30 + 100 + 70
        ledger.place(2, 1);
        QCOMPARE(ledger.peakBytes(0), 130.0);
        QCOMPARE(ledger.peakBytes(1), 370.0);
        QVERIFY(ledger.fits(2, 1, 370.0) && !ledger.fits(2, 1, 369.0));
        QCOMPARE(MemoryLedger::placementPeaks(g, c, SimOptions{}, Placement{0, 1, 1}),
                 (std::vector<double>{130.0, 370.0}));
        QCOMPARE(MemoryLedger::placementPeaks(g, c, SimOptions{}, Placement{0, 0, 0}), (std::vector<double>{200.0, 0.0}));
    }

    // Several edges from one producer need one copy of its output on another device, and
    // asking again (peakAfter twice, another device) counts the same: the per-call marks of
    // the linear in-degree scan never leak between calls.
    void ledgerCountsOneCopyPerRemoteProducer()
    {
        GraphBuilder b;
        b.addOp(makeOp("a", 1, 100, 0));
        b.addOp(makeOp("x", 1, 40, 0));
        b.addOp(makeOp("sink", 1, 10, 0));
        b.addEdge("a", "sink", 100);
        b.addEdge("a", "sink", 100); // a parallel edge: still one copy of a's output
        b.addEdge("x", "sink", 40);
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(3, 1e9, fastLink(), false);
        MemoryLedger ledger(g, c, SimOptions{});
        ledger.place(0, 0);
        ledger.place(1, 1);
        QCOMPARE(ledger.peakAfter(2, 2), 150.0); // 10 + one copy of a (100) + one of x (40)
        QCOMPARE(ledger.peakAfter(2, 2), 150.0);
        QCOMPARE(ledger.peakAfter(2, 0), 150.0); // 100 + 40 (copy of x) + 10 on a's device
        QCOMPARE(ledger.peakAfter(2, 1), 150.0); // 40 + 100 (copy of a) + 10
    }

    void ledgerReservesAGroupsParametersWhole()
    {
        GraphBuilder b;
        b.addOp(makeOp("g1", 1, 0, 100, "g"));
        b.addOp(makeOp("free", 1, 0, 100));
        b.addOp(makeOp("g2", 1, 0, 200, "g"));
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e9, fastLink(), false);
        MemoryLedger ledger(g, c, SimOptions{});
        QCOMPARE(ledger.peakAfter(0, 0), 900.0); // (100 + 200) x 3
        ledger.place(0, 0);
        QCOMPARE(ledger.peakAfter(2, 0), 900.0); // already reserved
        QCOMPARE(ledger.peakAfter(1, 0), 1200.0);
    }

    void ledgerCountsResidentBytesOnce()
    {
        // Resident bytes join the whole-step load unscaled, a group's reserved whole like
        // its parameters: group g = g1 (100 params, 40 resident) + g2 (60 resident) needs
        // 100 x 3 + 40 + 60 = 400; "free" holds 500 resident.
        GraphBuilder b;
        Op g1 = makeOp("g1", 1, 0, 100, "g");
        g1.residentBytes = 40;
        Op free = makeOp("free", 1, 0, 0);
        free.residentBytes = 500;
        Op g2 = makeOp("g2", 1, 0, 0, "g");
        g2.residentBytes = 60;
        b.addOp(g1);
        b.addOp(free);
        b.addOp(g2);
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e9, fastLink(), false);
        MemoryLedger ledger(g, c, SimOptions{});
        QCOMPARE(ledger.footprint(0), 400.0);
        QCOMPARE(ledger.footprint(1), 500.0);
        QCOMPARE(ledger.peakAfter(0, 0), 400.0);
        ledger.place(0, 0);
        QCOMPARE(ledger.peakAfter(2, 0), 400.0); // already reserved
        QCOMPARE(ledger.peakAfter(1, 0), 900.0);
        QCOMPARE(MemoryLedger::placementPeaks(g, c, SimOptions{}, Placement{0, 1, 0}),
                 (std::vector<double>{400.0, 500.0}));
    }

    void memoryFeedbackTightensOverflowingBudgets()
    {
        // Two independent ops of 3000 parameter bytes; GPUs hold 5000. The builder keeps
        // both on GPU 0 while its budget is at least 5000: the simulator's peak there is
        // 6000, so the budget drops to 5000 x 5000 / 6000 x 0.97 and the next round splits.
        GraphBuilder b;
        b.addOp(makeOp("a", 1, 0, 1000));
        b.addOp(makeOp("b", 1, 0, 1000));
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 5000, fastLink(), false);
        const PlaceContext context{g, c, SimOptions{}};
        std::vector<std::vector<double>> seen;
        const PlaceResult r = placeWithMemoryFeedback(
            context,
            [&](const std::vector<double>& budgets) {
                seen.push_back(budgets);
                return budgets[0] >= 5000 ? Placement{0, 0} : Placement{0, 1};
            },
            PlacerClock::now());
        QCOMPARE(r.best, (Placement{0, 1}));
        QVERIFY(r.feasible);
        QCOMPARE(r.samplesUsed, 2);
        QCOMPARE(seen.size(), size_t(2));
        QCOMPARE(seen[1][1], 5000.0);
        QVERIFY(std::abs(seen[1][0] - 5000.0 * 5000.0 / 6000.0 * 0.97) < 1e-9);

        // A builder that cannot do better stops as soon as its answer repeats.
        const PlaceResult stuck = placeWithMemoryFeedback(
            context,
            [](const std::vector<double>&) {
                return Placement{0, 0};
            },
            PlacerClock::now());
        QCOMPARE(stuck.best, (Placement{0, 0}));
        QVERIFY(!stuck.feasible);
        QCOMPARE(stuck.samplesUsed, 1);
    }

    void metfSplitsIndependentBranches()
    {
        // Two heavy ops with nothing between them: both start at t = 0 on their own GPU,
        // however slow the links are.
        GraphBuilder b;
        b.addOp(makeOp("a", 100));
        b.addOp(makeOp("b", 100));
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e12, slowLink());
        const PlaceResult r = runPlacer("m-etf", g, c);
        QCOMPARE(r.best, (Placement{0, 1}));
        QCOMPARE(r.samplesUsed, 1);
        QVERIFY(r.feasible);
    }

    void metfKeepsChainTogetherOnSlowLinks()
    {
        // x -> y -> z: moving y costs a 1000 us transfer, waiting for x costs 10 us.
        GraphBuilder b;
        b.addOp(makeOp("x", 10));
        b.addOp(makeOp("y", 10));
        b.addOp(makeOp("z", 10));
        b.addEdge("x", "y");
        b.addEdge("y", "z");
        const Graph g = std::move(b).build();
        const PlaceResult r = runPlacer("m-etf", g, makeCluster(2, 1e12, slowLink()));
        QCOMPARE(r.best, (Placement{0, 0, 0}));
    }

    void metfForkJoinDependsOnLinkSpeed()
    {
        // s -> {a, b} -> t with a, b of 100 us. Fast links: b starts at 1 + 1 = 2 us on
        // GPU 1 instead of 101 us on GPU 0. Slow links: 1 + 1000 > 101, so GPU 0 it is.
        auto build = [] {
            GraphBuilder b;
            b.addOp(makeOp("s", 1));
            b.addOp(makeOp("a", 100));
            b.addOp(makeOp("b", 100));
            b.addOp(makeOp("t", 1));
            b.addEdge("s", "a");
            b.addEdge("s", "b");
            b.addEdge("a", "t");
            b.addEdge("b", "t");
            return std::move(b).build();
        };
        const Graph g = build();
        const PlaceResult fast = runPlacer("m-etf", g, makeCluster(2, 1e12, fastLink()));
        QCOMPARE(fast.best[1], 0);
        QCOMPARE(fast.best[2], 1);
        const PlaceResult slow = runPlacer("m-etf", g, makeCluster(2, 1e12, slowLink()));
        QCOMPARE(slow.best, (Placement{0, 0, 0, 0}));
    }

    void memoryLimitsSplitAGraphThatDoesNotFitOneGpu_data()
    {
        QTest::addColumn<QString>("placer");
        QTest::addColumn<Placement>("expected");
        // Chain of four ops, each 1000 param bytes x 3 = 3000 bytes plus 100-byte outputs; a
        // GPU holds 7000, so at most two ops (6000 + live tensors). Compute 1,1,1,10
        // would put three ops on GPU 0 by balance alone (chunk midpoints 0.08, 0.23, 0.38,
        // 1.23); memory moves the cut forward.
        QTest::newRow("round-robin") << "round-robin" << Placement{0, 0, 1, 1};
        QTest::newRow("m-topo") << "m-topo" << Placement{0, 0, 1, 1};
        QTest::newRow("m-etf") << "m-etf" << Placement{0, 0, 1, 1};
        QTest::newRow("m-sct") << "m-sct" << Placement{0, 0, 1, 1};
        QTest::newRow("metis") << "metis" << Placement{};
    }

    void memoryLimitsSplitAGraphThatDoesNotFitOneGpu()
    {
        QFETCH(QString, placer);
        QFETCH(Placement, expected);
        GraphBuilder b;
        const double times[] = {1, 1, 1, 10};
        for (int i = 0; i < 4; ++i) {
            b.addOp(makeOp("op" + std::to_string(i), times[i], 100, 1000));
            if (i > 0)
                b.addEdge(static_cast<OpId>(i - 1), static_cast<OpId>(i), -1.0);
        }
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 7000, fastLink());
        const PlaceResult r = runPlacer(placer.toStdString(), g, c);
        if (!expected.empty())
            QCOMPARE(r.best, expected);
        QCOMPARE(r.best[0] == 2 || r.best[1] == 2 || r.best[2] == 2 || r.best[3] == 2, false); // CPU untouched
        QVERIFY(r.feasible);
    }

    void singlePicksTheOnlyDeviceWhereTheGraphFits()
    {
        GraphBuilder b;
        for (int i = 0; i < 4; ++i)
            b.addOp(makeOp("op" + std::to_string(i), 1, 100, 1000));
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 7000, fastLink()); // 12400 bytes fit only the CPU
        const PlaceResult r = runPlacer("single", g, c);
        QCOMPARE(r.best, (Placement{2, 2, 2, 2}));
        QVERIFY(r.feasible);
        QCOMPARE(r.samplesUsed, 3);

        const Cluster noRoom = makeCluster(2, 7000, fastLink(), false);
        const PlaceResult none = runPlacer("single", g, noRoom);
        QCOMPARE(none.best, (Placement{0, 0, 0, 0}));
        QVERIFY(!none.feasible); // reported honestly
    }

    void cpuPlacerUsesTheFirstCpu()
    {
        GraphBuilder b;
        b.addOp(makeOp("a", 1));
        b.addOp(makeOp("b", 1));
        b.addEdge("a", "b");
        const Graph g = std::move(b).build();
        const PlaceResult r = runPlacer("cpu", g, makeCluster(3, 1e12, fastLink()));
        QCOMPARE(r.best, (Placement{3, 3}));
        QVERIFY_THROWS_EXCEPTION(std::exception, runPlacer("cpu", g, makeCluster(2, 1e12, fastLink(), false)));
    }

    void roundRobinChunksAreBalanced()
    {
        // Chain with GPU times 4,2,2,1,1,2 (total 12). Chunk = floor(k x midpoint / 12):
        // k=2: midpoints 2,5,7,8.5,9.5,11 -> 0,0,1,1,1,1 (loads 6 | 6);
        // k=3: -> 0,1,1,2,2,2 (loads 4 | 4 | 4).
        GraphBuilder b;
        const double times[] = {4, 2, 2, 1, 1, 2};
        for (int i = 0; i < 6; ++i) {
            b.addOp(makeOp("op" + std::to_string(i), times[i]));
            if (i > 0)
                b.addEdge(static_cast<OpId>(i - 1), static_cast<OpId>(i), -1.0);
        }
        const Graph g = std::move(b).build();
        QCOMPARE(runPlacer("round-robin", g, makeCluster(2, 1e12, fastLink())).best, (Placement{0, 0, 1, 1, 1, 1}));
        QCOMPARE(runPlacer("round-robin", g, makeCluster(3, 1e12, fastLink())).best, (Placement{0, 1, 1, 2, 2, 2}));
    }

    void roundRobinPutsAGroupWhereItsFirstOpFalls()
    {
        // Six equal ops in a chain; op5 shares a group with op1, so the units in order are
        // op0 (1), {op1, op5} (2), op2, op3, op4 (1 each): midpoints 0.5, 2, 3.5, 4.5, 5.5
        // of 6 give chunks 0,0,1,1,1 for k=2, and op5 follows op1 to GPU 0.
        GraphBuilder b;
        for (int i = 0; i < 6; ++i) {
            b.addOp(makeOp("op" + std::to_string(i), 1, 100, 0, i == 1 || i == 5 ? "g" : ""));
            if (i > 0)
                b.addEdge(static_cast<OpId>(i - 1), static_cast<OpId>(i), -1.0);
        }
        const Graph g = std::move(b).build();
        QCOMPARE(runPlacer("round-robin", g, makeCluster(2, 1e12, fastLink())).best, (Placement{0, 0, 1, 1, 1, 0}));
    }

    void colocationIsNeverSplit_data()
    {
        QTest::addColumn<QString>("placer");
        for (const std::string& name : classicalPlacerNames())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    void colocationIsNeverSplit()
    {
        QFETCH(QString, placer);
        // Two parallel chains; groups tie the head of one chain to the tail of the other,
        // and the two middles together, so any compute- or time-driven split is tempted.
        GraphBuilder b;
        for (int chain = 0; chain < 2; ++chain)
            for (int i = 0; i < 5; ++i) {
                std::string group;
                if ((chain == 0 && i == 0) || (chain == 1 && i == 4))
                    group = "cross";
                if (i == 2)
                    group = "middle";
                const std::string name = "c" + std::to_string(chain) + "_" + std::to_string(i);
                b.addOp(makeOp(name, 10 + i, 1000, 100, group));
                if (i > 0)
                    b.addEdge("c" + std::to_string(chain) + "_" + std::to_string(i - 1), name);
            }
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(4, 1e12, fastLink());
        const PlaceResult r = runPlacer(placer.toStdString(), g, c);
        const auto problem = placementProblem(g, c, r.best);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QCOMPARE(r.best[*g.find("c0_0")], r.best[*g.find("c1_4")]);
        QCOMPARE(r.best[*g.find("c0_2")], r.best[*g.find("c1_2")]);
    }

    // A chain of four ops of 3000 bytes each (1000 parameter bytes x 3) on one GPU that holds
    // two and a CPU ten times slower. m-TOPO fills the GPU in topological order and sends the
    // last two ops to the CPU, the 10-us one among them (100 us there); offload sends the two
    // 1-us ops, 9 us more each, and keeps both 10-us ones on the GPU. Where the GPUs hold the
    // graph it is m-TOPO.
    void offloadMovesTheCheapestBytesToTheCpu()
    {
        GraphBuilder b;
        const double times[] = {1, 10, 1, 10};
        for (int i = 0; i < 4; ++i) {
            b.addOp(makeOp("op" + std::to_string(i), times[i], 100, 1000));
            if (i > 0)
                b.addEdge("op" + std::to_string(i - 1), "op" + std::to_string(i));
        }
        const Graph g = std::move(b).build();
        const Cluster one = makeCluster(1, 7000, fastLink()); // GPU 0, then the CPU (device 1)
        const PlaceResult offload = runPlacer("offload", g, one), topo = runPlacer("m-topo", g, one);
        QCOMPARE(offload.best, (Placement{1, 0, 1, 0}));
        QCOMPARE(topo.best, (Placement{0, 0, 1, 1}));
        QVERIFY(offload.feasible);
        QVERIFY2(offload.bestStepTimeUs < topo.bestStepTimeUs / 2,
                 qPrintable(QString("%1 against %2").arg(offload.bestStepTimeUs).arg(topo.bestStepTimeUs)));
        const Cluster two = makeCluster(2, 7000, fastLink());
        QCOMPARE(runPlacer("offload", g, two).best, runPlacer("m-topo", g, two).best);
    }

    void colocationGroupMemoryIsReservedWhole()
    {
        // A group of two ops (3000 parameter bytes each) and a free op (3000) between them;
        // a GPU holds 7000. m-ETF must not fill GPU 0 with the free op after the group's first
        // op, because the group's second op is already reserved there.
        GraphBuilder b;
        b.addOp(makeOp("g1", 1, 100, 1000, "g"));
        b.addOp(makeOp("free", 1, 100, 1000));
        b.addOp(makeOp("g2", 1, 100, 1000, "g"));
        b.addEdge("g1", "free");
        b.addEdge("free", "g2");
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 7000, fastLink());
        for (const char* name : {"m-etf", "m-sct", "m-topo", "round-robin", "metis", "offload"}) {
            const PlaceResult r = runPlacer(name, g, c);
            QVERIFY2(!placementProblem(g, c, r.best), name);
            QCOMPARE(r.best[0], r.best[2]);
            QVERIFY2(r.best[1] != r.best[0], name);
            QVERIFY2(r.feasible, name);
        }
    }

    void metisFindsTheObviousMinCut()
    {
        // Two dense clusters of six equal ops joined by one 10-byte edge: two parts of six
        // ops each, cut = 10 bytes.
        GraphBuilder b;
        for (const char* side : {"a", "b"})
            for (int i = 0; i < 6; ++i)
                b.addOp(makeOp(std::string(side) + std::to_string(i), 10, 1e6));
        for (const char* side : {"a", "b"}) {
            const std::string s(side);
            const int edges[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {1, 4}, {3, 4}, {4, 5}, {2, 5}, {0, 5}};
            for (const auto& e : edges)
                b.addEdge(s + std::to_string(e[0]), s + std::to_string(e[1]));
        }
        b.addEdge("a5", "b0", 10);
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e12, fastLink());
        const Placement p = runPlacer("metis", g, c).best;
        double cut = 0.0;
        for (const Edge& e : g.edges())
            if (p[static_cast<size_t>(e.from)] != p[static_cast<size_t>(e.to)])
                cut += e.bytes;
        QCOMPARE(cut, 10.0);
        QVERIFY(p[0] != p[6]);
        QCOMPARE(std::count(p.begin(), p.end(), 0), 6L);
        QCOMPARE(std::count(p.begin(), p.end(), 1), 6L);
    }

    void metisRepairsMemoryByMovingLightUnits()
    {
        // Four independent ops of 3000 parameter bytes (100-byte outputs nobody reads) and no
        // edges: METIS balances 2 | 2 by compute but GPU 0 holds only 3500, so one op must
        // move to GPU 1 (9400: three ops).
        GraphBuilder b;
        for (int i = 0; i < 4; ++i)
            b.addOp(makeOp("op" + std::to_string(i), 1, 100, 1000));
        const Graph g = std::move(b).build();
        std::vector<Device> devices{{"/device:GPU:0", DeviceKind::Gpu, 1.0, 3500},
                                    {"/device:GPU:1", DeviceKind::Gpu, 1.0, 9400}};
        const Cluster c("uneven", devices, fastLink());
        const PlaceResult r = runPlacer("metis", g, c);
        QCOMPARE(std::count(r.best.begin(), r.best.end(), 0), 1L);
        QCOMPARE(std::count(r.best.begin(), r.best.end(), 1), 3L);
        QVERIFY(r.feasible);
    }

    void msctLpPicksTheCostlyChildAsFavourite()
    {
        // a (10 us) feeds b over 1000 us and c over 30 us (latency 0, 1 byte/us); b, c
        // take 10 us. LP: x_ab + x_ac >= 1, w = max(20 + 1000 x_ab, 20 + 30 x_ac), so the
        // optimum is x_ab = 30/1030, w = 20 + 30000/1030, and b is a's favourite.
        GraphBuilder b;
        b.addOp(makeOp("a", 10));
        b.addOp(makeOp("b", 10));
        b.addOp(makeOp("c", 10));
        b.addEdge("a", "b", 1000);
        b.addEdge("a", "c", 30);
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e12, Link{1.0, 0.0});
        FavouriteChildLp lp(g, c);
        const std::vector<OpId> favourite = lp.solve();
        QCOMPARE(favourite, (std::vector<OpId>{1, kNoOp, kNoOp}));
        QCOMPARE(lp.windowsSolved(), 1);
        QCOMPARE(lp.windowsFailed(), 0);
        QVERIFY(std::abs(lp.relaxedMakespanUs() - (20.0 + 30000.0 / 1030.0)) < 1e-6);

        const PlaceResult r = runPlacer("m-sct", g, c);
        QVERIFY(!placementProblem(g, c, r.best));
        QCOMPARE(r.best[1], r.best[0]); // the favourite child stays with its parent
        QVERIFY(r.feasible);
    }

    void msctWindowsKeepEachLpSmall()
    {
        // A chain of 7 ops in LP windows of 3: windows {0,1,2} {3,4,5} {6}; the edges
        // 2->3 and 5->6 cross windows and cannot be favourites, the rest are.
        const Graph g = chainGraph(7);
        const Cluster c = makeCluster(2, 1e12, Link{1.0, 0.0});
        FavouriteChildLp lp(g, c, 3);
        QCOMPARE(lp.solve(), (std::vector<OpId>{1, 2, kNoOp, 4, 5, kNoOp, kNoOp}));
        QCOMPARE(lp.windowsSolved(), 3);
        const PlaceResult r = MSctPlacer(MSctOptions{3, 0.5}).place(PlaceContext{g, c, SimOptions{}});
        QVERIFY(!placementProblem(g, c, r.best));
    }

    // Under a deadline, an LP of at most 4,000 edges in its windows is solved whole even when
    // the deadline has passed (its favourites do not depend on the clock); a larger one skips
    // the windows left at the deadline, here all of them.
    void msctSmallLpIgnoresTheDeadline()
    {
        const auto past = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        const Graph small = chainGraph(7);
        const Cluster c = makeCluster(2, 1e12, Link{1.0, 0.0});
        FavouriteChildLp late(small, c, 3);
        QCOMPARE(late.solve(past), (std::vector<OpId>{1, 2, kNoOp, 4, 5, kNoOp, kNoOp}));
        QCOMPARE(late.windowsSolved(), 3);
        QCOMPARE(late.windowsSkipped(), 0);

        // 400 ops, each feeding the next 30: windows of 50 ops hold 8,280 edges in all.
        GraphBuilder band;
        constexpr int kOps = 400;
        for (int i = 0; i < kOps; ++i) {
            band.addOp(makeOp("op" + std::to_string(i), 5));
            for (int j = std::max(0, i - 30); j < i; ++j)
                band.addEdge(static_cast<OpId>(j), static_cast<OpId>(i), 100.0 + (i * 7 + j) % 13);
        }
        const Graph large = std::move(band).build();
        FavouriteChildLp skipped(large, c, 50);
        skipped.solve(past);
        QCOMPARE(skipped.windowsSkipped(), 8);
        QCOMPARE(skipped.windowsSolved(), 0);
    }

    // A dense window (more than 10,000 rows, about one per edge) takes the fallback without a
    // solve, on every machine alike: 150 ops, each feeding every later one (11,175 edges), in
    // one window; the same graph cut into windows of 50 ops (1,225 edges each) is solved.
    void msctDenseWindowTakesTheFallback()
    {
        GraphBuilder b;
        constexpr int kOps = 150;
        for (int i = 0; i < kOps; ++i) {
            b.addOp(makeOp("op" + std::to_string(i), 5));
            for (int j = 0; j < i; ++j)
                b.addEdge(static_cast<OpId>(j), static_cast<OpId>(i), 100.0 + (i * 7 + j) % 13);
        }
        const Graph g = std::move(b).build();
        const Cluster c = makeCluster(2, 1e12, Link{1.0, 0.0});
        FavouriteChildLp dense(g, c);
        const std::vector<OpId> favourite = dense.solve();
        QCOMPARE(dense.windowsSolved(), 0);
        QCOMPARE(dense.windowsFailed(), 1);
        // The fallback: the child behind the costliest transfer (op 0 chooses first, so it
        // gets its own); every child keeps at most one favourite parent, as after an LP.
        OpId costliest = kNoOp;
        double most = -1.0;
        for (EdgeId e : g.outEdges(0))
            if (g.edge(e).bytes > most) {
                most = g.edge(e).bytes;
                costliest = g.edge(e).to;
            }
        QCOMPARE(favourite[0], costliest);
        std::vector<int> parents(kOps, 0);
        for (OpId child : favourite)
            if (child != kNoOp)
                QVERIFY(++parents[static_cast<size_t>(child)] <= 1);
        FavouriteChildLp windowed(g, c, 50);
        windowed.solve();
        QCOMPARE(windowed.windowsSolved(), 3);
        QCOMPARE(windowed.windowsFailed(), 0);
    }

    // The searches' classical starts against a deadline (local-search, milp): a placer runs
    // to its end once started, the next only while time is left, the first even when it is
    // not, and under a stop only where the search asks for one.
    void deadlineHooksRunTheFirstStartAndStopAtTheDeadline()
    {
        const Graph g = randomGraph(40, 3);
        const Cluster c = makeCluster(4, 1e12, Link{1e3, 20.0});
        PlaceContext context{g, c, SimOptions{}};
        context.seconds = 7.0;
        const std::vector<std::string> names = classicalStartOrder();
        QVERIFY(names.size() >= 3);
        double left = 5.0;
        bool stop = false;
        std::vector<double> limits;
        auto run = [&](bool firstDespiteStop) {
            ClassicalRunHooks hooks = deadlineHooks([&] { return left; }, [&] { return stop; }, firstDespiteStop);
            const auto adjust = hooks.adjust;
            limits.clear();
            hooks.adjust = [&](PlaceContext& quiet) {
                adjust(quiet);
                limits.push_back(quiet.seconds);
            };
            // Time runs out while the first placer runs.
            hooks.done = [&](const ClassicalStart&) { left = -0.5; };
            return runClassicalPlacers(context, names, hooks).size();
        };
        QCOMPARE(run(false), size_t{1}); // the first one ran whole, the second never started
        QCOMPARE(limits, std::vector<double>{5.0});
        left = 0.0; // time up before any: one start all the same, with the least limit
        QCOMPARE(run(false), size_t{1});
        QCOMPARE(limits, std::vector<double>{1e-3});
        left = 5.0;
        stop = true;
        QCOMPARE(run(false), size_t{0}); // local-search: nothing under a stop
        QCOMPARE(run(true), size_t{1});  // milp: its incumbent
        stop = false;
        left = std::numeric_limits<double>::infinity(); // no time limit: every placer, the context's own
        ClassicalRunHooks untimed = deadlineHooks([&] { return left; }, [] { return false; }, false);
        std::vector<double> seen;
        const auto adjust = untimed.adjust;
        untimed.adjust = [&](PlaceContext& quiet) {
            adjust(quiet);
            seen.push_back(quiet.seconds);
        };
        QCOMPARE(runClassicalPlacers(context, names, untimed).size(), names.size());
        QCOMPARE(seen, std::vector<double>(names.size(), 7.0));
    }

    // A search's starts run at once on its threads (hooks.threads): the same starts in the same
    // order as one at a time, `done` on the caller's thread in that order, a refusal of mayStart
    // ending the run as it does in turn, m-SCT (lastAmongStarts) started after the others ended,
    // and a placer that does not apply (cpu without a CPU) left out.
    void startsRunAtOnceAsInTurn()
    {
        const Graph g = randomGraph(60, 5);
        const std::vector<std::string> names = classicalStartOrder();
        QCOMPARE(names.back(), std::string("m-sct"));
        for (const bool withCpu : {true, false}) {
            const Cluster c = makeCluster(4, 1e12, Link{1e3, 20.0}, withCpu);
            PlaceContext context{g, c, SimOptions{}};
            std::mutex mutex;
            bool doneOnCaller = true, doneInOrder = true;
            auto run = [&](int threads, std::function<bool(size_t)> mayStart, std::vector<std::string>* startedOrder) {
                ClassicalRunHooks hooks;
                hooks.threads = threads;
                hooks.mayStart = std::move(mayStart);
                hooks.starting = [&](const std::string& name, size_t, size_t) {
                    const std::lock_guard lock(mutex);
                    if (startedOrder)
                        startedOrder->push_back(name);
                };
                std::vector<std::string> doneOrder;
                const auto caller = std::this_thread::get_id();
                hooks.done = [&](const ClassicalStart& s) {
                    doneOnCaller = doneOnCaller && std::this_thread::get_id() == caller;
                    doneOrder.push_back(s.name);
                };
                std::vector<ClassicalStart> starts = runClassicalPlacers(context, names, hooks);
                doneInOrder = doneInOrder && doneOrder.size() == starts.size();
                for (size_t i = 0; doneInOrder && i < starts.size(); ++i)
                    doneInOrder = doneOrder[i] == starts[i].name;
                return starts;
            };
            const auto inTurn = run(1, {}, nullptr);
            std::vector<std::string> started;
            const auto atOnce = run(3, {}, &started);
            QCOMPARE(atOnce.size(), inTurn.size());
            QCOMPARE(inTurn.size(), withCpu ? names.size() : names.size() - 1);
            for (size_t i = 0; i < inTurn.size(); ++i) {
                QCOMPARE(atOnce[i].name, inTurn[i].name);
                QCOMPARE(atOnce[i].result.best, inTurn[i].result.best);
                QCOMPARE(atOnce[i].result.bestStepTimeUs, inTurn[i].result.bestStepTimeUs);
            }
            QCOMPARE(started.back(), std::string("m-sct"));
            // Two starts allowed: the same two either way.
            const auto firstTwo = [](size_t i) { return i < 2; };
            const auto twoInTurn = run(1, firstTwo, nullptr);
            const auto twoAtOnce = run(3, firstTwo, nullptr);
            QCOMPARE(twoInTurn.size(), size_t{2});
            QCOMPARE(twoAtOnce.size(), size_t{2});
            QCOMPARE(twoAtOnce[0].name, names[0]);
            QCOMPARE(twoAtOnce[1].name, names[1]);
            QVERIFY(doneOnCaller);
            QVERIFY(doneInOrder);
        }
    }

    void everyPlacerIsDeterministicAndValid_data()
    {
        QTest::addColumn<QString>("placer");
        for (const std::string& name : classicalPlacerNames())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    void everyPlacerIsDeterministicAndValid()
    {
        QFETCH(QString, placer);
        const Graph g = randomGraph(80, 7);
        // GPU memory: 40% of what the whole graph needs on one device, so the memory-aware
        // placers must spread it (and one GPU alone is infeasible).
        const double whole = simulatedPeaks(g, makeCluster(1, 1e12, fastLink(), false), Placement(80, 0))[0];
        const Cluster c = makeCluster(4, 0.4 * whole, Link{1e3, 20.0});
        const PlaceResult first = runPlacer(placer.toStdString(), g, c);
        const PlaceResult second = runPlacer(placer.toStdString(), g, c);
        QCOMPARE(first.best, second.best);
        QCOMPARE(first.bestStepTimeUs, second.bestStepTimeUs);
        QVERIFY(!placementProblem(g, c, first.best));
        QVERIFY(first.bestStepTimeUs > 0.0);
        QVERIFY(first.wallSeconds >= 0.0);
        QCOMPARE(first.samplesUsed, second.samplesUsed);
        QVERIFY(first.samplesUsed >= 1);
        if (placer == "single")
            QCOMPARE(first.samplesUsed, c.deviceCount());
        if (placer != "single" && placer != "cpu") {
            QVERIFY(devicesUsed(first.best) >= 3);
            const std::vector<double> peaks = simulatedPeaks(g, c, first.best);
            for (DeviceId d = 0; d < c.deviceCount(); ++d)
                QVERIFY2(peaks[static_cast<size_t>(d)] <= c.device(d).memoryBytes,
                         qPrintable(QString("device %1: %2 of %3 bytes")
                                        .arg(d)
                                        .arg(peaks[static_cast<size_t>(d)])
                                        .arg(c.device(d).memoryBytes)));
            QVERIFY(first.feasible);
        }
    }

    void realGraphsOnK80x4_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("placer");
        for (const char* model : {"resnet50", "inception_v3"})
            for (const std::string& name : classicalPlacerNames())
                QTest::addRow("%s/%s", model, name.c_str()) << model << QString::fromStdString(name);
    }

    void realGraphsOnK80x4()
    {
        QFETCH(QString, model);
        QFETCH(QString, placer);
        REQUIRE_SHARED_DATA(dataDir);
        const std::string path = (dataDir + "/pipedream/" + model + "/graph.txt").toStdString();
        const Graph g = readGraphFile(path);
        const Cluster c = loadCluster("k80x4");
        const PlaceResult r = runPlacer(placer.toStdString(), g, c);
        const auto problem = placementProblem(g, c, r.best);
        QVERIFY2(!problem, problem ? problem->c_str() : "");
        QVERIFY(r.feasible);
        // The reported time is the simulator's for the returned placement.
        Simulator simulator(g, c);
        const SimResult& check = simulator.run(r.best);
        QCOMPARE(r.bestStepTimeUs, check.stepTimeUs);
        QVERIFY(check.feasible);
        qInfo("%s %-11s step %10.1f ms  devices used %d  wall %.3f s", qPrintable(model), qPrintable(placer),
              r.bestStepTimeUs / 1000.0, devicesUsed(r.best), r.wallSeconds);
    }
};

QTEST_APPLESS_MAIN(TestClassicalPlacers)
#include "test_classical_placers.moc"
