// The exact placer beyond the random graphs of test_bound_optimum: colocation, CPU pinning and
// memory under the simulator's rules, its time budget, its stop flag, its size limit, and its
// grouped mode (the coarsening and a bound reported as valid for the grouping only).
#include "tests/support/TestOps.h"

#include "core/classic/ClassicalPlacers.h"
#include "core/cluster/Cluster.h"
#include "core/exact/MilpGrouping.h"
#include "core/exact/MilpPlacer.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"
#include "tests/support/SmallRandomGraphs.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace post;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// An op taking `gpuUs` on a GPU of speed 1 and four times that on a CPU.
Op makeOp(const std::string& name, double gpuUs, double outputBytes, double paramBytes = 0.0)
{
    return testgraphs::testOp(name, gpuUs, outputBytes, paramBytes, 4.0);
}

// A layered random DAG of `ops` ops (inputs from up to three earlier ops).
Graph randomGraph(int ops, unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    GraphBuilder b("random" + std::to_string(seed));
    for (int i = 0; i < ops; ++i) {
        b.addOp(makeOp("op" + std::to_string(i), uniform(5, 100), 1000.0 * uniform(1, 100)));
        for (int k = 0; k < std::min(i, uniform(1, 3)); ++k)
            b.addEdge(static_cast<OpId>(uniform(std::max(0, i - 6), i - 1)), static_cast<OpId>(i),
                      1000.0 * uniform(1, 100));
    }
    return std::move(b).build();
}

Cluster gpus(int count, double memory = kInf)
{
    std::vector<Device> devices;
    for (int g = 0; g < count; ++g)
        devices.push_back(Device{"/device:GPU:" + std::to_string(g), DeviceKind::Gpu, 1.0, memory});
    return Cluster("gpus", std::move(devices), Link{1000.0, 20.0});
}

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Every sample and phase a placer reports, with each sample's placement copied.
struct Recorder : ProgressObserver {
    struct Sample {
        int index;
        double stepUs;
        bool feasible;
        Placement placement;
    };
    std::vector<Sample> samples;
    std::vector<PhaseEvent> phases;
    void onSample(const SampleEvent& e) override
    {
        samples.push_back({e.index, e.stepTimeUs, e.feasible, e.placement ? *e.placement : Placement{}});
    }
    void onUpdate(const UpdateEvent&) override { }
    void onPhase(const PhaseEvent& e) override { phases.push_back(e); }
};

// A milp run of `seconds` on `g` and `c` (stopped at once when `stop` is set), every sample
// and phase it reports recorded in `seen`.
PlaceResult observedRun(MilpPlacer milp, const Graph& g, const Cluster& c, double seconds, Recorder& seen,
                        std::atomic<bool>* stop = nullptr)
{
    PlaceContext context{g, c, SimOptions{}};
    context.seconds = seconds;
    context.observer = &seen;
    context.stop = stop;
    return milp.place(context);
}

// What a chart or a sample log gets from milp: every simulation as the next sample, numbered
// 0 .. samplesUsed - 1, each a placement of `g` with the simulator's time of it, the best of
// them the result, and the phases in order from the first sample.
void checkReportedSearch(const Recorder& seen, const PlaceResult& r, const Graph& g, const Cluster& c,
                         const std::vector<PhaseKind>& kinds)
{
    QCOMPARE(static_cast<int>(seen.samples.size()), r.samplesUsed);
    Simulator simulator(g, c);
    double best = kInf;
    for (size_t i = 0; i < seen.samples.size(); ++i) {
        const Recorder::Sample& s = seen.samples[i];
        QCOMPARE(s.index, static_cast<int>(i));
        QCOMPARE(s.placement.size(), static_cast<size_t>(g.opCount()));
        const SimResult& run = simulator.run(s.placement);
        QCOMPARE(s.stepUs, run.stepTimeUs);
        QCOMPARE(s.feasible, run.feasible);
        if (s.feasible)
            best = std::min(best, s.stepUs);
    }
    QCOMPARE(best, r.bestStepTimeUs);
    QCOMPARE(seen.samples.back().placement, r.best);
    QCOMPARE(static_cast<int>(seen.phases.size()), static_cast<int>(kinds.size()));
    for (size_t i = 0; i < kinds.size(); ++i) {
        QCOMPARE(seen.phases[i].kind, kinds[i]);
        QVERIFY(seen.phases[i].firstSample >= (i == 0 ? 0 : seen.phases[i - 1].firstSample));
        QVERIFY(seen.phases[i].firstSample < r.samplesUsed);
    }
    QCOMPARE(seen.phases[0].firstSample, 0);
}

} // namespace

class TestMilp : public QObject {
    Q_OBJECT

private slots:
    // milp builds the polynomial bound into its model (its row C >= lowerBound()), so post-cli
    // place and Post Studio compute it before milp and beside every other placer.
    void onlyMilpTakesTheBoundFirst()
    {
        QVERIFY(placerUsesLowerBound("milp"));
        for (const char* name : {"post@best", "post", "post@m-sct", "local-search", "m-sct", "random", "nope"})
            QVERIFY2(!placerUsesLowerBound(name), name);
    }

    // Colocation, a CPU-only op and a GPU too small for some placements: milp's answer is the
    // best of every placement placementProblem() accepts and the simulator finds feasible.
    void honoursColocationPinningAndMemory()
    {
        GraphBuilder b("mixed");
        b.addOp(makeOp("read", 5, 40e3));
        Op decode = makeOp("decode", 10, 60e3);
        decode.cpuOnly = true;
        b.addOp(std::move(decode));
        b.addOp(makeOp("conv1", 60, 50e3, 400e3));
        b.addOp(makeOp("conv2", 50, 50e3, 400e3));
        Op update1 = makeOp("update1", 20, 1e3);
        update1.colocate = "w1";
        Op w1 = makeOp("w1", 2, 1e3);
        w1.colocate = "w1";
        b.addOp(std::move(w1));
        b.addOp(makeOp("join", 30, 20e3));
        b.addOp(std::move(update1));
        b.addEdge(0, 1, 40e3);
        b.addEdge(1, 2, 60e3);
        b.addEdge(1, 3, 60e3);
        b.addEdge(4, 2, 1e3);
        b.addEdge(2, 5, 50e3);
        b.addEdge(3, 5, 50e3);
        b.addEdge(5, 6, 20e3);
        const Graph g = std::move(b).build();
        // conv1 and conv2 hold 1.2 MB each (params x 3): one GPU of 2 MB cannot take both.
        std::vector<Device> devices{Device{"/device:CPU:0", DeviceKind::Cpu, 1.0, kInf},
                                    Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 2e6},
                                    Device{"/device:GPU:1", DeviceKind::Gpu, 1.0, 2e6}};
        const Cluster c("mixed", std::move(devices), Link{1000.0, 10.0});

        Simulator simulator(g, c);
        double best = kInf;
        Placement p(static_cast<size_t>(g.opCount()), 0);
        auto visit = [&](auto&& self, int op) -> void {
            if (op == g.opCount()) {
                if (placementProblem(g, c, p))
                    return;
                const SimResult& r = simulator.run(p);
                if (r.feasible)
                    best = std::min(best, r.stepTimeUs);
                return;
            }
            for (int d = 0; d < c.deviceCount(); ++d) {
                p[static_cast<size_t>(op)] = static_cast<DeviceId>(d);
                self(self, op + 1);
            }
        };
        visit(visit, 0);
        QVERIFY(std::isfinite(best));

        MilpPlacer milp;
        PlaceContext context{g, c, SimOptions{}};
        const PlaceResult r = milp.place(context);
        QVERIFY(!placementProblem(g, c, r.best));
        QVERIFY(r.feasible);
        QVERIFY(r.bounds.provenOptimal);
        QVERIFY(r.bounds.solverBoundOpLevel);
        QCOMPARE(r.bestStepTimeUs, best);
        QVERIFY(r.bounds.solverBoundUs <= best);
        QVERIFY(r.bounds.solverBoundUs >= best * (1 - 1e-5));
        QVERIFY(c.device(r.best[1]).kind == DeviceKind::Cpu);
        QCOMPARE(r.best[4], r.best[6]);
    }

    // A graph it cannot finish on in the budget: it returns in about that time with a valid
    // placement and a bound between the polynomial one and its own step.
    void honoursTheTimeBudget()
    {
        const Graph g = randomGraph(30, 7);
        const Cluster c = gpus(4);
        MilpPlacer milp;
        PlaceContext context{g, c, SimOptions{}};
        context.seconds = 1.0;
        const auto start = std::chrono::steady_clock::now();
        const PlaceResult r = milp.place(context);
        const double took = secondsSince(start);
        // One node's LP past the limit, on a loaded machine.
        QVERIFY2(took < context.seconds + 4.0, qPrintable(QString::number(took)));
        QVERIFY(!placementProblem(g, c, r.best));
        Simulator simulator(g, c);
        QCOMPARE(r.bestStepTimeUs, simulator.run(r.best).stepTimeUs);
        QVERIFY(r.bounds.solverBoundUs >= lowerBound(g, c).valueUs() * (1 - 1e-6));
        QVERIFY(r.bounds.solverBoundUs <= r.bestStepTimeUs);
        QVERIFY(!r.stopped);
    }

    void honoursTheStopFlag()
    {
        const Graph g = randomGraph(30, 8);
        const Cluster c = gpus(4);
        // Raised before the call: the best classical placement comes back at once.
        std::atomic<bool> stop{true};
        MilpPlacer milp;
        PlaceContext context{g, c, SimOptions{}};
        context.seconds = 60.0;
        context.stop = &stop;
        auto start = std::chrono::steady_clock::now();
        PlaceResult r = milp.place(context);
        QVERIFY(secondsSince(start) < 5.0);
        QVERIFY(r.stopped);
        QVERIFY(!r.bounds.provenOptimal);
        QVERIFY(!placementProblem(g, c, r.best));
        // Raised during the search: CBC stops at its next node.
        stop = false;
        std::thread raiser([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            stop = true;
        });
        start = std::chrono::steady_clock::now();
        r = milp.place(context);
        const double took = secondsSince(start);
        raiser.join();
        QVERIFY2(took < 10.0, qPrintable(QString::number(took)));
        QVERIFY(r.stopped);
        QVERIFY(r.bounds.solverBoundUs <= r.bestStepTimeUs);
    }

    // The coarsening: acyclic (build() would throw), colocation kept, every op in one chunk,
    // a chunk's time the sum of its ops', at most `width` chunks per band.
    void coarseningKeepsTheGraphsRules()
    {
        std::mt19937 rng(11);
        GraphBuilder b("colocated");
        for (int i = 0; i < 150; ++i) {
            Op op = makeOp("op" + std::to_string(i), 5 + static_cast<int>(rng() % 90), 1000.0);
            if (i % 25 == 0 || i % 25 == 24)
                op.colocate = "var" + std::to_string(i / 25); // first and last of each 25 together
            b.addOp(std::move(op));
            for (int k = 0; k < std::min(i, 2); ++k)
                b.addEdge(static_cast<OpId>(i - 1 - static_cast<int>(rng() % std::min(i, 8))), static_cast<OpId>(i),
                          1000.0);
        }
        const Graph g = std::move(b).build();
        const Cluster c = gpus(3);
        const MilpCoarsening m = coarsenForMilp(g, c, 10, 3);
        QVERIFY(m.chunkCount() >= 10 && m.chunkCount() <= 30);
        std::vector<double> sum(static_cast<size_t>(m.chunkCount()), 0.0);
        for (OpId o = 0; o < g.opCount(); ++o)
            sum[static_cast<size_t>(m.chunkOf[static_cast<size_t>(o)])] += g.op(o).time(DeviceKind::Gpu);
        for (OpId k = 0; k < m.chunkCount(); ++k)
            QVERIFY(std::abs(m.coarse.op(k).time(DeviceKind::Gpu) - sum[static_cast<size_t>(k)]) < 1e-9);
        for (OpId o = 0; o < g.opCount(); ++o)
            for (OpId p = 0; p < g.opCount(); ++p)
                if (g.colocationGroup(o) >= 0 && g.colocationGroup(o) == g.colocationGroup(p)) {
                    const int a = m.chunkOf[static_cast<size_t>(o)], z = m.chunkOf[static_cast<size_t>(p)];
                    QVERIFY(a == z
                            || (m.coarse.colocationGroup(a) >= 0
                                && m.coarse.colocationGroup(a) == m.coarse.colocationGroup(z)));
                }
        // A coarse placement keeping the coarse colocation expands to one keeping the graph's.
        Placement coarse(static_cast<size_t>(m.chunkCount()), 0);
        for (OpId k = 0; k < m.chunkCount(); ++k) {
            const int group = m.coarse.colocationGroup(k);
            coarse[static_cast<size_t>(k)] = static_cast<DeviceId>((group >= 0 ? group : k) % 3);
        }
        QVERIFY(!placementProblem(g, c, m.expand(coarse)).has_value());
    }

    // Grouped mode on a graph too big for the op-level model: a placement re-timed at op level,
    // the solver's bound reported as a grouped bound only, and that bound no higher than the
    // simulated step of any placement of the coarse graph (enumerated).
    void groupedModeReportsAGroupedBound()
    {
        const Graph g = randomGraph(80, 5);
        const Cluster c = gpus(2);
        PlaceContext context{g, c, SimOptions{}};
        context.seconds = 5.0;
        LearnerOptions options;
        options.milpGroups = 10;
        const std::unique_ptr<Placer> milp = makePlacer("milp", options);
        const PlaceResult r = milp->place(context);
        const MilpCoarsening grouping = milpGrouping(g, c, SimOptions{}, 10);
        QVERIFY(grouping.chunkCount() <= 10);
        QCOMPARE(r.bounds.groupedBoundGroups, grouping.chunkCount());
        QVERIFY(r.bounds.groupedBoundUs > 0.0);
        QVERIFY(r.bounds.solverBoundUs == 0.0 || r.bounds.provenOptimal); // no op-level bound from the grouping
        Simulator sim(g, c);
        QCOMPARE(sim.run(r.best).stepTimeUs, r.bestStepTimeUs);
        Simulator coarseSim(grouping.coarse, c);
        const int k = grouping.chunkCount();
        double bestCoarse = kInf;
        for (int mask = 0; mask < (1 << k); ++mask) {
            Placement p(static_cast<size_t>(k), 0);
            for (int i = 0; i < k; ++i)
                p[static_cast<size_t>(i)] = (mask >> i) & 1;
            const SimResult& run = coarseSim.run(p);
            if (run.feasible)
                bestCoarse = std::min(bestCoarse, run.stepTimeUs);
        }
        QVERIFY2(
            r.bounds.groupedBoundUs <= bestCoarse * (1 + 1e-9),
            qPrintable(
                QString("grouped bound %1 above the coarse optimum %2").arg(r.bounds.groupedBoundUs).arg(bestCoarse)));
        // The placement: the coarse incumbent expanded, or the best classical placement where
        // that is faster, so never worse than any classical placer.
        int compared = 0;
        for (const std::string& name : classicalPlacerNames()) {
            if (name == "cpu")
                continue; // no CPU in this cluster
            PlaceContext quiet{g, c, SimOptions{}};
            const PlaceResult classical = makeClassicalPlacer(name)->place(quiet);
            if (classical.feasible)
                QVERIFY2(r.bestStepTimeUs <= classical.bestStepTimeUs * (1 + 1e-9), name.c_str());
            ++compared;
        }
        QCOMPARE(compared, 7);
        Placement p(static_cast<size_t>(k), 0);
        for (OpId o = 0; o < g.opCount(); ++o)
            p[static_cast<size_t>(grouping.chunkOf[static_cast<size_t>(o)])] = r.best[static_cast<size_t>(o)];
        if (r.bounds.groupedOptimal && grouping.expand(p) == r.best) // the coarse optimum, expanded
            QVERIFY(coarseSim.run(p).stepTimeUs <= bestCoarse * (1 + 1e-9));
        // Automatic mode on the same graph: the most chunks that fit, at most kMaxOps.
        MilpPlacer automatic;
        context.seconds = 2.0;
        const PlaceResult a = automatic.place(context);
        QVERIFY(a.bounds.groupedBoundGroups > 10 && a.bounds.groupedBoundGroups <= MilpPlacer::kMaxOps);
        QVERIFY(a.feasible);
    }

    // The caller's polynomial bound (PlaceContext::lowerBoundUs) stands in for the one milp
    // would compute: grouped mode claims op-level optimality from it, and from nothing else.
    void groupedModeTakesTheCallersBound()
    {
        const Graph g = randomGraph(80, 5);
        const Cluster c = gpus(2);
        LearnerOptions options;
        options.milpGroups = 10;
        PlaceContext context{g, c, SimOptions{}};
        context.samples = 200;
        context.seconds = 3.0;
        const double polynomial = lowerBound(g, c).valueUs();
        const PlaceResult computed = makePlacer("milp", options)->place(context);
        QVERIFY2(computed.bestStepTimeUs > polynomial * (1 + 1e-6),
                 qPrintable(QString("the case needs a gap: %1 against %2").arg(computed.bestStepTimeUs).arg(polynomial)));
        QVERIFY(!computed.bounds.provenOptimal);
        QVERIFY(!computed.bounds.solverBoundOpLevel);
        context.lowerBoundUs = polynomial; // as computed: the same claims
        const PlaceResult given = makePlacer("milp", options)->place(context);
        QVERIFY(!given.bounds.provenOptimal);
        QVERIFY(!given.bounds.solverBoundOpLevel);
        // A bound the caller proved by other means, met by the placement: optimal, at op level.
        context.lowerBoundUs = 1e12;
        const PlaceResult met = makePlacer("milp", options)->place(context);
        QVERIFY(met.bounds.provenOptimal);
        QVERIFY(met.bounds.solverBoundOpLevel);
        QCOMPARE(met.bounds.solverBoundUs, met.bestStepTimeUs);
    }

    // A run of milp is drawn like any other search: its classical starts, hill climbs and the
    // placements its model solves give are samples, in the phases they belong to.
    void reportsEverySimulationAsASample()
    {
        const Graph g = randomGraph(12, 11);
        const Cluster c = gpus(3);
        Recorder seen;
        const PlaceResult r = observedRun(MilpPlacer(), g, c, 3.0, seen);
        QVERIFY(r.samplesUsed > static_cast<int>(classicalPlacerNames().size()));
        checkReportedSearch(seen, r, g, c, {PhaseKind::ClassicalStarts, PhaseKind::LocalSearch, PhaseKind::ExactSolve});
        // The same search unobserved: the observer changes nothing but what is seen.
        PlaceContext quiet{g, c, SimOptions{}};
        quiet.seconds = 3.0;
        const PlaceResult q = MilpPlacer().place(quiet);
        if (r.bounds.provenOptimal && q.bounds.provenOptimal) { // neither cut short by the clock
            QCOMPARE(q.bestStepTimeUs, r.bestStepTimeUs);
            QCOMPARE(q.samplesUsed, r.samplesUsed);
        }
    }

    // Grouped mode's samples are placements of the graph, timed on it, not of its grouping:
    // the whole graph's classical starts, then the coarse search's (its phases named so).
    void groupedModeReportsSamplesOfTheWholeGraph()
    {
        const Graph g = randomGraph(80, 5);
        const Cluster c = gpus(2);
        Recorder seen;
        const PlaceResult r = observedRun(MilpPlacer(10), g, c, 2.0, seen);
        QVERIFY(r.bounds.groupedBoundGroups > 0);
        std::vector<PhaseKind> kinds{PhaseKind::ClassicalStarts, PhaseKind::ClassicalStarts, PhaseKind::LocalSearch};
        if (seen.phases.size() > 3)
            kinds.push_back(PhaseKind::ExactSolve);
        checkReportedSearch(seen, r, g, c, kinds);
        QCOMPARE(seen.phases[0].label, std::string("classical starts"));
        QCOMPARE(seen.phases[1].label, std::string("grouped classical starts"));
    }

    // The classical starts stop at the deadline: a placer runs to its end once started, the
    // next one only while time is left, the first always (on a 107,741-op graph each takes
    // seconds). Here a stop requested before the run leaves exactly the first placer's start.
    void classicalStartsStopAtTheDeadline()
    {
        const Graph g = randomGraph(12, 7);
        const Cluster c = gpus(2);
        const std::string first = classicalStartOrder().front();
        PlaceContext alone{g, c, SimOptions{}};
        const PlaceResult firstOnly = findClassicalPlacer(first)->make()->place(alone);
        auto classicalSamples = [](const Recorder& seen) {
            return seen.phases.size() > 1 ? seen.phases[1].firstSample : static_cast<int>(seen.samples.size());
        };
        Recorder all;
        (void)observedRun(MilpPlacer(), g, c, 5.0, all);
        Recorder stopped;
        std::atomic<bool> stop{true};
        const PlaceResult r = observedRun(MilpPlacer(), g, c, 5.0, stopped, &stop);
        QCOMPARE(classicalSamples(stopped), firstOnly.samplesUsed);
        QVERIFY2(classicalSamples(all) > firstOnly.samplesUsed, "every classical placer runs with time left");
        QVERIFY(r.stopped);
        QCOMPARE(r.bestStepTimeUs, Simulator(g, c).run(r.best).stepTimeUs);
    }

    void refusesGraphsAboveItsLimit()
    {
        const Graph g = randomGraph(MilpPlacer::kMaxOps + 1, 3);
        const Cluster c = gpus(2);
        MilpPlacer milp(1000); // op level forced: no grouping
        PlaceContext context{g, c, SimOptions{}};
        try {
            milp.place(context);
            QFAIL("milp accepted a graph above its size limit");
        } catch (const InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains("up to 60 ops") && what.contains("has 61"), qPrintable(what));
        }
        // The registry makes it, and a comparison runs it only when named.
        QVERIFY(makePlacer("milp") != nullptr);
        const std::vector<std::string> defaults = defaultComparisonNames();
        QVERIFY(std::find(defaults.begin(), defaults.end(), "milp") == defaults.end());
    }

    // A collective runs beside compute in the simulator, on compute in milp's model: milp
    // refuses the graph rather than claim a bound that would not hold.
    void refusesGraphsWithCollectives()
    {
        GraphBuilder b("with-allreduce");
        b.addOp(makeOp("grad", 50, 4e6));
        Op allReduce = makeOp("allreduce", 80, 4e6);
        allReduce.collective = CollectiveKind::AllReduce;
        allReduce.collectiveBytes = 4e6;
        b.addOp(std::move(allReduce));
        b.addOp(makeOp("update", 20, 1e3));
        b.addEdge(0, 1, 4e6);
        b.addEdge(1, 2, 4e6);
        const Graph g = std::move(b).build();
        PlaceContext context{g, gpus(2), SimOptions{}};
        for (int groups : {0, 2}) {
            try {
                MilpPlacer(groups).place(context);
                QFAIL("milp accepted a graph with a collective");
            } catch (const InputError& e) {
                const QString what = QString::fromUtf8(e.what());
                QVERIFY2(what.contains("collectives") && what.contains("'allreduce'"), qPrintable(what));
            }
        }
    }

    // Issue 30 item 3: on random small graphs whose optimum enumeration gives (every placement
    // simulated), milp's placement is timed by the simulator at what it reports, its bound never
    // exceeds the optimum, and it claims "proven optimal" exactly when it can: a claimed placement
    // is the enumerated optimum and meets the proven bound. Budgets are short (1 s; the variable
    // POST_MILP_CLAIM_SECONDS changes it) so that some proofs run out of time and the claim must
    // then be withheld. Identical GPUs with heavy transfers (smallRandomCase) and clusters of
    // unequal devices and links with zero-time ops and parallel edges (variedSmallCase).
    // POST_MILP_CLAIM_CASES=N runs N graphs of each kind (default 12).
    void claimsOptimalOnlyWhenItIs()
    {
        const int cases = qEnvironmentVariableIntValue("POST_MILP_CLAIM_CASES") > 0
            ? qEnvironmentVariableIntValue("POST_MILP_CLAIM_CASES")
            : 12;
        const QString secondsText = qEnvironmentVariable("POST_MILP_CLAIM_SECONDS");
        const double seconds = secondsText.isEmpty() ? 1.0 : secondsText.toDouble();
        int proven = 0, optimalFound = 0, total = 0;
        double worstExcess = 0.0;
        for (int kind = 0; kind < 2; ++kind)
            for (unsigned seed = 1; seed <= static_cast<unsigned>(cases); ++seed) {
                // Seeds past test_bound_optimum's 24 for the identical GPUs.
                const randomgraphs::SmallCase c = kind == 0 ? randomgraphs::smallRandomCase(1000 + seed)
                                                            : randomgraphs::variedSmallCase(seed);
                const double best = kind == 0 ? randomgraphs::enumeratedOptimum(c.graph, c.cluster)
                                              : randomgraphs::enumeratedOptimumAnyDevices(c.graph, c.cluster);
                MilpPlacer milp;
                PlaceContext context{c.graph, c.cluster, SimOptions{}};
                context.seconds = seconds;
                const PlaceResult r = milp.place(context);
                Simulator simulator(c.graph, c.cluster);
                const double timed = simulator.run(r.best).stepTimeUs;
                const double tolerance = 1e-6 * std::max(best, 1.0);
                const QString what = QString("%1 seed %2 (%3 ops, %4 devices): milp %5 (bound %6, %7), optimum %8")
                                         .arg(kind == 0 ? "random" : "varied")
                                         .arg(kind == 0 ? 1000 + seed : seed)
                                         .arg(c.graph.opCount())
                                         .arg(c.cluster.deviceCount())
                                         .arg(r.bestStepTimeUs, 0, 'f', 6)
                                         .arg(r.bounds.solverBoundUs, 0, 'f', 6)
                                         .arg(r.bounds.provenOptimal ? "proven optimal" : "not proven")
                                         .arg(best, 0, 'f', 6);
                if (qEnvironmentVariableIsSet("POST_MILP_VERBOSE"))
                    std::printf("%s\n", qPrintable(what));
                QVERIFY2(r.feasible, qPrintable(what));
                QCOMPARE(r.bestStepTimeUs, timed);
                QVERIFY2(r.bounds.solverBoundUs <= best + tolerance, qPrintable(what));
                QVERIFY2(r.bestStepTimeUs >= best - tolerance, qPrintable(what));
                const bool atOptimum = r.bestStepTimeUs <= best + tolerance;
                if (r.bounds.provenOptimal) {
                    QVERIFY2(atOptimum, qPrintable(what));
                    // The bound is the model's less the solver's tolerances (a few millionths).
                    QVERIFY2(r.bestStepTimeUs <= r.bounds.solverBoundUs * (1 + 1e-5), qPrintable(what));
                }
                QVERIFY2(atOptimum || !r.bounds.provenOptimal, qPrintable(what));
                ++total;
                proven += r.bounds.provenOptimal ? 1 : 0;
                optimalFound += atOptimum ? 1 : 0;
                worstExcess = std::max(worstExcess, best > 0.0 ? r.bestStepTimeUs / best - 1.0 : 0.0);
            }
        std::printf("milp at %.1f s on %d random small graphs: the optimum on %d, proven on %d, worst %.2f%% above\n",
                    seconds, total, optimalFound, proven, 100.0 * worstExcess);
    }

    // lower_bound_ms: the largest bound valid for the op-level problem, never a grouped one.
    void largestBoundPicksTheProvenOne()
    {
        const LowerBound polynomial{100.0, 80.0, 120.0};
        QCOMPARE(largestBound(polynomial, 150.0, true).us, 150.0);
        QCOMPARE(std::string(largestBound(polynomial, 150.0, true).source), std::string("milp"));
        QCOMPARE(largestBound(polynomial, 150.0, false).us, 120.0);
        QCOMPARE(std::string(largestBound(polynomial, 150.0, false).source), std::string("fork-join"));
        QCOMPARE(largestBound(polynomial, 110.0, true).us, 120.0);
    }

    // The certified gap every output shows (place, compare, Post Studio): step / bound - 1.
    void certifiedGapOfAStep()
    {
        QCOMPARE(certifiedGap(110.0, 100.0), 110.0 / 100.0 - 1.0);
        QCOMPARE(certifiedGap(100.0, 100.0 * (1 + 1e-12)), 0.0); // a proof of optimality, rounded
        QVERIFY(certifiedGap(99.0, 100.0) < 0.0);                // an invalid bound is not hidden
        const double inf = std::numeric_limits<double>::infinity();
        for (const auto& [step, bound] : {std::pair{1.0, 0.0}, {0.0, 1.0}, {inf, 1.0}, {1.0, inf}, {-1.0, 1.0}})
            QVERIFY2(std::isnan(certifiedGap(step, bound)), qPrintable(QString("%1 / %2").arg(step).arg(bound)));
    }

    // A bound shown beside the step it bounds: above it by rounding alone, it is the step
    // (place printed "best step 0.092 ms" over "lower bound 0.093 ms" for 92.5 against
    // 92.50000000000001 us); an invalid bound stays visible.
    void boundShownBelowItsStep()
    {
        QCOMPARE(boundBelowStep(92.50000000000001, 92.5), 92.5);
        QCOMPARE(boundBelowStep(90.0, 92.5), 90.0);
        QCOMPARE(boundBelowStep(93.0, 92.5), 93.0);
    }
};

QTEST_APPLESS_MAIN(TestMilp)
#include "test_milp.moc"
