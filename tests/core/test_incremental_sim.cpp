// IncrementalSimulator against the full Simulator, bit for bit, on random graphs, random
// group moves and sequences of moves kept or dropped as a local search does.
#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/sim/IncrementalSimulator.h"
#include "core/sim/Simulator.h"

#include <QtTest>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

using namespace post;

namespace {

std::string named(const char* prefix, int i)
{
    std::string s(prefix);
    s += std::to_string(i);
    return s;
}

struct Rng {
    std::mt19937 gen;
    explicit Rng(unsigned seed)
        : gen(seed)
    {
    }
    int uniform(int lo, int hi) { return lo + static_cast<int>(gen() % static_cast<unsigned>(hi - lo + 1)); }
    double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
};

// A random layered DAG: zero-duration ops, fractional sizes (so that sums depend on their
// order), duplicate edges, colocation groups, CPU-only ops and, optionally, roofline costs and
// collectives (a sixth of the ops; half of them measured, the others timed by the ring model).
Graph randomGraph(Rng& rng, int ops, bool roofline, bool collectives = false)
{
    GraphBuilder b("random");
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = named("op", i);
        const double gpuUs = rng.uniform(0, 7) == 0 ? 0.0 : rng.real(0.5, 40.0);
        o.timeUs = {gpuUs * rng.uniform(2, 10), gpuUs};
        o.outputBytes = rng.uniform(0, 6) == 0 ? 0.0 : rng.real(0.0, 6000.0);
        o.paramBytes = rng.uniform(0, 3) == 0 ? rng.real(1.0, 20000.0) : 0.0;
        o.residentBytes = i % 7 == 0 ? 0.5 * o.outputBytes : 0.0;
        if (rng.uniform(0, 30) == 0)
            o.cpuOnly = true;
        if (rng.uniform(0, 12) == 0)
            o.colocate = named("c", rng.uniform(0, 5));
        if (roofline && rng.uniform(0, 2) == 0) {
            o.flops = rng.real(1e5, 1e8);
            o.memoryBytes = rng.real(1e3, 1e6);
        }
        if (collectives && !o.cpuOnly && rng.uniform(0, 5) == 0) {
            o.collective = rng.uniform(0, 1) ? CollectiveKind::AllReduce : CollectiveKind::AllGather;
            o.collectiveBytes = rng.real(0.0, 50000.0);
            o.collectiveRanks = rng.uniform(0, 8);
            if (rng.uniform(0, 1) == 0)
                o.measuredKinds = 1U << static_cast<int>(DeviceKind::Gpu);
        }
        b.addOp(o);
        if (i == 0)
            continue;
        const int inputs = rng.uniform(0, 19) == 0 ? 0 : rng.uniform(1, 3); // few sources
        for (int k = 0; k < inputs; ++k) {
            const int from = std::max(0, i - rng.uniform(1, 15));
            b.addEdge(from, i, rng.uniform(0, 4) == 0 ? rng.real(0.0, 9000.0) : -1.0);
        }
    }
    return std::move(b).build();
}

// A random dense DAG (an execution trace's shape): up to 40 inputs per op from the 25 before
// it, parallel edges, half the ops without bytes (output and edges zero), fractional sizes.
Graph denseGraph(Rng& rng, int ops)
{
    GraphBuilder b("dense");
    std::vector<bool> bytesFree;
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = named("op", i);
        const double gpuUs = rng.uniform(0, 7) == 0 ? 0.0 : rng.real(0.5, 40.0);
        o.timeUs = {gpuUs * rng.uniform(2, 10), gpuUs};
        bytesFree.push_back(rng.uniform(0, 1) == 0);
        o.outputBytes = bytesFree.back() ? 0.0 : rng.real(1.0, 6000.0);
        o.paramBytes = rng.uniform(0, 3) == 0 ? rng.real(1.0, 20000.0) : 0.0;
        if (rng.uniform(0, 30) == 0)
            o.cpuOnly = true;
        b.addOp(o);
        const int inputs = i == 0 ? 0 : rng.uniform(0, 40);
        for (int k = 0; k < inputs; ++k) {
            const int from = rng.uniform(std::max(0, i - 25), i - 1);
            const bool ownBytes = !bytesFree[static_cast<size_t>(from)] && rng.uniform(0, 3) == 0;
            b.addEdge(from, i, ownBytes ? rng.real(0.0, 9000.0) : -1.0);
        }
    }
    return std::move(b).build();
}

// A CPU and 2-4 GPUs; sometimes free links (zero-time transfers), sometimes tight memory.
Cluster randomCluster(Rng& rng, bool roofline)
{
    std::vector<Device> devices;
    devices.push_back(Device{"/device:CPU:0", DeviceKind::Cpu, 1.0, std::numeric_limits<double>::infinity()});
    const int gpus = rng.uniform(2, 4);
    const bool tight = rng.uniform(0, 2) == 0;
    for (int i = 0; i < gpus; ++i) {
        Device d{named("/device:GPU:", i), DeviceKind::Gpu, i == 0 ? 1.0 : rng.real(0.7, 1.5),
                 tight ? rng.real(2e4, 2e5) : std::numeric_limits<double>::infinity()};
        if (roofline) {
            d.peakFlops = 1e13;
            d.memoryBandwidth = 9e11;
        }
        devices.push_back(d);
    }
    const bool freeLinks = rng.uniform(0, 3) == 0;
    Cluster c("random", devices, freeLinks ? Link{1e300, 0.0} : Link{rng.real(50.0, 500.0), rng.real(0.0, 8.0)});
    if (!freeLinks)
        c.setLink(1, 2, Link{1e3, 0.0});
    return c;
}

// The groups a local search moves: runs of consecutive ops, each colocation group whole.
std::vector<std::vector<OpId>> randomGroups(Rng& rng, const Graph& g)
{
    std::vector<int> label(static_cast<size_t>(g.opCount()));
    int next = 0;
    for (OpId op = 0; op < g.opCount();) {
        const int size = rng.uniform(1, 12);
        for (int k = 0; k < size && op < g.opCount(); ++k, ++op)
            label[static_cast<size_t>(op)] = next;
        ++next;
    }
    std::vector<int> colocated(static_cast<size_t>(g.colocationGroupCount()), -1);
    for (OpId op = 0; op < g.opCount(); ++op) {
        const int c = g.colocationGroup(op);
        if (c < 0)
            continue;
        if (colocated[static_cast<size_t>(c)] < 0)
            colocated[static_cast<size_t>(c)] = label[static_cast<size_t>(op)];
        label[static_cast<size_t>(op)] = colocated[static_cast<size_t>(c)];
    }
    // A group holding a colocated op takes its whole colocation group.
    std::vector<std::vector<OpId>> groups(static_cast<size_t>(next));
    for (OpId op = 0; op < g.opCount(); ++op)
        groups[static_cast<size_t>(label[static_cast<size_t>(op)])].push_back(op);
    std::erase_if(groups, [](const auto& members) { return members.empty(); });
    return groups;
}

// One of `groups`, drawn uniformly: the unit a move changes.
const std::vector<OpId>& pickGroup(Rng& rng, const std::vector<std::vector<OpId>>& groups)
{
    return groups[static_cast<size_t>(rng.uniform(0, static_cast<int>(groups.size()) - 1))];
}

// Every op of `group` on device `d`.
void moveGroup(const std::vector<OpId>& group, DeviceId d, Placement& p)
{
    for (OpId op : group)
        p[static_cast<size_t>(op)] = d;
}

Placement randomPlacement(Rng& rng, const Graph& g, const Cluster& c, const std::vector<std::vector<OpId>>& groups)
{
    Placement p(static_cast<size_t>(g.opCount()));
    for (const auto& members : groups) {
        const auto d = static_cast<DeviceId>(rng.uniform(0, c.deviceCount() - 1));
        for (OpId op : members)
            p[static_cast<size_t>(op)] = d;
    }
    applyCpuPinning(g, c, p);
    return p;
}

// The incremental result against a fresh full simulation: every figure, bit for bit.
void compare(Simulator& full, const IncrementalSimulator& inc, const SimResult& got, const Placement& p)
{
    const SimResult& want = full.run(p, true);
    QCOMPARE(got.stepTimeUs, want.stepTimeUs);
    QCOMPARE(got.feasible, want.feasible);
    QCOMPARE(got.deviceBusyUs, want.deviceBusyUs);
    QCOMPARE(got.peakMemoryBytes, want.peakMemoryBytes);
    QCOMPARE(got.linkBytes, want.linkBytes);
    QCOMPARE(got.linkBusyUs, want.linkBusyUs);
    const auto start = inc.opStartUs();
    const auto end = inc.opEndUs();
    QCOMPARE(start.size(), p.size());
    for (const OpSpan& s : want.timeline.ops) {
        QCOMPARE(start[static_cast<size_t>(s.op)], s.startUs);
        QCOMPARE(end[static_cast<size_t>(s.op)], s.endUs);
    }
}

// Fifteen runs of the incremental simulator, each moving one random group of a base placement
// to a random device, checked against a full run; a run's placement becomes the reference
// (and the base) one time in three. Counts the runs and those that resumed.
void singleGroupMoves(Rng& rng, const Graph& g, const Cluster& c, const std::vector<std::vector<OpId>>& groups,
                      long& runs, long& resumed, SimOptions options = {})
{
    Simulator full(g, c, options);
    IncrementalSimulator inc(g, c, options);
    Placement base = randomPlacement(rng, g, c, groups);
    compare(full, inc, inc.run(base), base);
    for (int step = 0; step < 15; ++step) {
        Placement p = base;
        const auto& group = pickGroup(rng, groups);
        moveGroup(group, static_cast<DeviceId>(rng.uniform(0, c.deviceCount() - 1)), p);
        applyCpuPinning(g, c, p);
        compare(full, inc, inc.run(p), p);
        ++runs;
        if (inc.stats().resumedAtUs > 0.0 && p != base)
            ++resumed;
        if (rng.uniform(0, 2) == 0) {
            inc.keepLastAsReference();
            base = p;
        }
    }
}

} // namespace

class TestIncrementalSim : public QObject {
    Q_OBJECT

private slots:
    // A local search's sequence: moves and swaps of groups, some kept as the new reference.
    void matchesFullSimulatorOnMoveSequences()
    {
        long resumed = 0;
        long runs = 0;
        long infeasible = 0;
        for (unsigned seed = 1; seed <= 100; ++seed) {
            Rng rng(seed);
            const bool roofline = seed % 5 == 0;
            const Graph g = randomGraph(rng, rng.uniform(20, seed % 10 == 0 ? 3000 : 500), roofline);
            const Cluster c = randomCluster(rng, roofline);
            const auto groups = randomGroups(rng, g);
            Simulator full(g, c);
            IncrementalSimulator inc(g, c);
            Placement base = randomPlacement(rng, g, c, groups);
            compare(full, inc, inc.run(base), base);
            QVERIFY(inc.hasReference());
            for (int step = 0; step < 25; ++step) {
                Placement p = base;
                const auto& a = pickGroup(rng, groups);
                if (rng.uniform(0, 3) == 0) { // swap two groups' devices
                    const auto& b = pickGroup(rng, groups);
                    const DeviceId da = p[static_cast<size_t>(a.front())];
                    const DeviceId db = p[static_cast<size_t>(b.front())];
                    moveGroup(a, db, p);
                    moveGroup(b, da, p);
                } else {
                    moveGroup(a, static_cast<DeviceId>(rng.uniform(0, c.deviceCount() - 1)), p);
                }
                applyCpuPinning(g, c, p);
                QVERIFY(!placementProblem(g, c, p));
                const SimResult& r = inc.run(p);
                compare(full, inc, r, p);
                infeasible += r.feasible ? 0 : 1;
                ++runs;
                if (inc.stats().resumedAtUs > 0.0 && p != base)
                    ++resumed;
                if (rng.uniform(0, 2) == 0) { // accepted: the candidate becomes the reference
                    inc.keepLastAsReference();
                    QCOMPARE(inc.reference(), p);
                    base = p;
                    // The kept reference re-runs unchanged, and resumes later moves correctly.
                    compare(full, inc, inc.run(base), base);
                }
            }
        }
        // The comparison must have exercised resumed runs and memory overflow.
        qInfo("%ld of %ld runs resumed, %ld infeasible", resumed, runs, infeasible);
        QVERIFY2(resumed > runs / 4, qPrintable(QString("%1 of %2 runs resumed").arg(resumed).arg(runs)));
        QVERIFY(infeasible > 0);
    }

    // Collectives on their devices' channels: resumed runs rebuild both queues of a device.
    void matchesWithCollectives()
    {
        long resumed = 0;
        long runs = 0;
        for (unsigned seed = 300; seed < 340; ++seed) {
            Rng rng(seed);
            const Graph g = randomGraph(rng, rng.uniform(20, 600), seed % 4 == 0, true);
            const Cluster c = randomCluster(rng, seed % 4 == 0);
            const auto groups = randomGroups(rng, g);
            singleGroupMoves(rng, g, c, groups, runs, resumed);
        }
        qInfo("%ld of %ld runs with collectives resumed", resumed, runs);
        QVERIFY2(resumed > runs / 4, qPrintable(QString("%1 of %2 runs resumed").arg(resumed).arg(runs)));
    }

    // Dense graphs with parallel edges and bytes-free ops: resumed runs rebuild each transfer's
    // consumers and the holders of each tensor exactly as a full run has them.
    void matchesOnDenseGraphs()
    {
        long resumed = 0;
        long runs = 0;
        for (unsigned seed = 200; seed < 230; ++seed) {
            Rng rng(seed);
            const Graph g = denseGraph(rng, rng.uniform(50, 250));
            const Cluster c = randomCluster(rng, false);
            const auto groups = randomGroups(rng, g);
            singleGroupMoves(rng, g, c, groups, runs, resumed);
        }
        qInfo("%ld of %ld dense runs resumed", resumed, runs);
        QVERIFY2(resumed > runs / 4, qPrintable(QString("%1 of %2 runs resumed").arg(resumed).arg(runs)));
    }

    // Critical-path dispatch: resumed runs rebuild each ready queue as a heap by priority and
    // start the same ops as a full run, on layered graphs with collectives and on dense ones.
    void matchesUnderCriticalPathDispatch()
    {
        SimOptions options;
        options.dispatch = Dispatch::CriticalPath;
        long resumed = 0;
        long runs = 0;
        long reordered = 0; // placements whose step differs from the ready-order one
        for (unsigned seed = 400; seed < 460; ++seed) {
            Rng rng(seed);
            const Graph g = seed % 3 == 0 ? denseGraph(rng, rng.uniform(50, 250))
                                          : randomGraph(rng, rng.uniform(20, 600), seed % 4 == 0, seed % 2 == 0);
            const Cluster c = randomCluster(rng, seed % 4 == 0);
            const auto groups = randomGroups(rng, g);
            singleGroupMoves(rng, g, c, groups, runs, resumed, options);
            const Placement p = randomPlacement(rng, g, c, groups);
            if (Simulator(g, c, options).run(p).stepTimeUs != Simulator(g, c).run(p).stepTimeUs)
                ++reordered;
        }
        qInfo("%ld of %ld critical-path runs resumed; %ld of 60 placements timed differently", resumed, runs, reordered);
        QVERIFY2(resumed > runs / 4, qPrintable(QString("%1 of %2 runs resumed").arg(resumed).arg(runs)));
        QVERIFY(reordered > 10); // the dispatch rule was exercised, not equal to ready order
    }

    // Far apart placements (and a reference cleared) still match: they run from the start.
    void matchesOnUnrelatedPlacements()
    {
        for (unsigned seed = 100; seed < 130; ++seed) {
            Rng rng(seed);
            const Graph g = randomGraph(rng, rng.uniform(1, 200), seed % 3 == 0);
            const Cluster c = randomCluster(rng, seed % 3 == 0);
            const auto groups = randomGroups(rng, g);
            Simulator full(g, c);
            IncrementalSimulator inc(g, c);
            for (int k = 0; k < 6; ++k) {
                const Placement p = randomPlacement(rng, g, c, groups);
                compare(full, inc, inc.run(p), p);
                if (k == 3)
                    inc.clearReference();
            }
        }
    }

    // Moving one late op of a long chain resumes near its time, not from the start.
    void resumesLateForLateMoves()
    {
        GraphBuilder b("chain");
        const int n = 3000;
        for (int i = 0; i < n; ++i) {
            Op o;
            o.name = named("op", i);
            o.timeUs = {10.0, 1.0};
            o.outputBytes = 100.0;
            b.addOp(o);
            if (i > 0)
                b.addEdge(i - 1, i, -1.0);
        }
        const Graph g = std::move(b).build();
        const Cluster c("two", {Device{"/device:GPU:0"}, Device{"/device:GPU:1"}}, Link{100.0, 1.0});
        Simulator full(g, c);
        IncrementalSimulator inc(g, c);
        const Placement base(static_cast<size_t>(n), 0);
        inc.run(base);
        Placement p = base;
        p[static_cast<size_t>(n - 10)] = 1;
        compare(full, inc, inc.run(p), p);
        QVERIFY(inc.stats().resumedAtUs > 0.9 * (n - 10));
        QVERIFY(inc.stats().resumedAtUs < n - 11);
        // The first op's move reads its device at time 0: from the start.
        p = base;
        p[0] = 1;
        compare(full, inc, inc.run(p), p);
        QCOMPARE(inc.stats().resumedAtUs, 0.0);
    }

    // A pool whose evaluators re-time incrementally gives the same evaluations as a plain
    // evaluator, whatever the thread count, while the reference moves as a search accepts.
    void placementEvaluatorsAgree()
    {
        long resumed = 0;
        for (unsigned seed = 200; seed < 215; ++seed) {
            Rng rng(seed);
            const Graph g = randomGraph(rng, rng.uniform(300, 1500), false);
            const Cluster c = randomCluster(rng, false);
            const auto groups = randomGroups(rng, g);
            PlacementEvaluator plain(g, c, SimOptions{}, PenaltyOptions{});
            for (int threads : {1, 3}) {
                std::vector<PlacementEvaluator*> made;
                const StepEvaluatorFactory factory = [&]() -> std::unique_ptr<StepEvaluator> {
                    auto e = std::make_unique<PlacementEvaluator>(g, c, SimOptions{}, PenaltyOptions{});
                    made.push_back(e.get());
                    return e;
                };
                BatchEvaluator pool(factory, threads);
                Placement base = randomPlacement(rng, g, c, groups);
                for (int round = 0; round < 6; ++round) {
                    pool.setReference(base);
                    std::vector<Placement> candidates(8, base);
                    for (Placement& p : candidates) {
                        const auto& members = pickGroup(rng, groups);
                        moveGroup(members, static_cast<DeviceId>(rng.uniform(0, c.deviceCount() - 1)), p);
                        applyCpuPinning(g, c, p);
                    }
                    std::vector<Evaluation> got(candidates.size());
                    pool.evaluate(candidates, got);
                    for (size_t i = 0; i < candidates.size(); ++i) {
                        const Evaluation want = plain.evaluate(candidates[i]);
                        QCOMPARE(got[i].stepTimeUs, want.stepTimeUs);
                        QCOMPARE(got[i].rawStepTimeUs, want.rawStepTimeUs);
                        QCOMPARE(got[i].feasible, want.feasible);
                        QCOMPARE(got[i].excessMemoryBytes, want.excessMemoryBytes);
                    }
                    base = candidates[static_cast<size_t>(rng.uniform(0, 7))]; // "accepted"
                }
                for (const PlacementEvaluator* e : made)
                    resumed += e->resumedEvaluations();
            }
        }
        qInfo("%ld evaluations re-timed incrementally", resumed);
        QVERIFY2(resumed > 0, "no evaluation was re-timed incrementally");
    }

    void rejectsWrongSizes()
    {
        Rng rng(7);
        const Graph g = randomGraph(rng, 30, false);
        const Cluster c = randomCluster(rng, false);
        IncrementalSimulator inc(g, c);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, inc.run(Placement(5, 0)));
        inc.run(Placement(30, 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, inc.run(Placement(31, 0)));
        Placement bad(30, 0);
        bad[3] = 9;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, inc.run(bad));
    }
};

QTEST_APPLESS_MAIN(TestIncrementalSim)
#include "test_incremental_sim.moc"
