// The property behind every certified gap: on small random graphs with heavy transfers, where
// enumerating every placement with the simulator gives the true optimum,
//   lower bound <= optimum <= every classical placer's step time.
#include "core/cluster/Cluster.h"
#include "core/exact/MilpPlacer.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace post;

namespace {

struct Case {
    Graph graph;
    Cluster cluster;
};

// 6-10 ops, each taking inputs from one to three earlier ops, on 2-3 identical GPUs whose links
// take about as long as an op (heavy transfers). Memory is unlimited, so every placement is feasible.
Case randomCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int ops = uniform(6, 10);
    GraphBuilder b("random" + std::to_string(seed));
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = "op" + std::to_string(i);
        o.type = "Test";
        const double gpuUs = uniform(5, 100);
        o.timeUs = {gpuUs * 10, gpuUs};
        o.outputBytes = 1000.0 * uniform(1, 100);
        b.addOp(std::move(o));
        if (i > 0) {
            const int inputs = std::min(i, uniform(1, 3));
            std::vector<int> from;
            while (static_cast<int>(from.size()) < inputs) {
                const int f = uniform(0, i - 1);
                if (std::find(from.begin(), from.end(), f) == from.end())
                    from.push_back(f);
            }
            for (int f : from)
                b.addEdge(static_cast<OpId>(f), static_cast<OpId>(i), 1000.0 * uniform(1, 100));
        }
    }
    const int gpus = uniform(2, 3);
    std::vector<Device> devices;
    for (int g = 0; g < gpus; ++g)
        devices.push_back(
            Device{"/device:GPU:" + std::to_string(g), DeviceKind::Gpu, 1.0, std::numeric_limits<double>::infinity()});
    // 1000 bytes per us and 5-40 us latency: a 50 kB tensor costs about as much as an op.
    const Link link{1000.0, static_cast<double>(uniform(5, 40))};
    return Case{std::move(b).build(), Cluster("random", std::move(devices), link)};
}

// The least simulated step time over every placement. The GPUs and links are identical, so
// placements that only rename devices take the same time: enumerating restricted growth
// strings (op i goes to a device already used or to the next new one) visits one of each.
double optimum(const Graph& graph, const Cluster& cluster)
{
    Simulator simulator(graph, cluster);
    const int n = graph.opCount();
    const int devices = cluster.deviceCount();
    Placement placement(static_cast<size_t>(n), 0);
    double best = std::numeric_limits<double>::infinity();
    auto visit = [&](auto&& self, int op, int used) -> void {
        if (op == n) {
            best = std::min(best, simulator.run(placement).stepTimeUs);
            return;
        }
        for (int d = 0; d < std::min(used + 1, devices); ++d) {
            placement[static_cast<size_t>(op)] = static_cast<DeviceId>(d);
            self(self, op + 1, std::max(used, d + 1));
        }
    };
    visit(visit, 0, 0);
    return best;
}

} // namespace

class TestBoundOptimum : public QObject {
    Q_OBJECT

private slots:
    void boundBelowOptimumBelowEveryPlacer()
    {
        constexpr int kCases = 300;
        constexpr double kTolerance = 1e-9;
        double ratioSum = 0.0, ratioMin = 1.0;
        double classicSum = 0.0, classicMin = 1.0; // max(critical path, work) alone
        int tight = 0, forkJoinWins = 0;
        // Every classical placer but cpu, which needs a CPU device: these clusters are GPUs only.
        std::vector<std::string> placers = classicalPlacerNames();
        std::erase(placers, std::string("cpu"));
        QCOMPARE(placers.size(), size_t{6});
        for (unsigned seed = 1; seed <= kCases; ++seed) {
            const Case c = randomCase(seed);
            const double best = optimum(c.graph, c.cluster);
            const LowerBound lb = lowerBound(c.graph, c.cluster);
            const double bound = lb.valueUs();
            // Heads and tails only add to the plain path through an op.
            QVERIFY(lb.forkJoinUs >= lb.criticalPathUs * (1 - kTolerance));
            const double classic = std::max(lb.criticalPathUs, lb.workUs);
            classicSum += classic / best;
            classicMin = std::min(classicMin, classic / best);
            forkJoinWins += lb.forkJoinUs > classic * (1 + 1e-9) ? 1 : 0;
            QVERIFY2(bound <= best * (1 + kTolerance),
                     qPrintable(QString("seed %1: bound %2 above the optimum %3").arg(seed).arg(bound).arg(best)));
            const double ratio = bound / best;
            if (qEnvironmentVariableIsSet("POST_BOUND_VERBOSE"))
                std::printf("ratio %.3f seed %u ops %d gpus %d best %.0f bound %.0f path %.0f work %.0f\n", ratio, seed,
                            c.graph.opCount(), c.cluster.deviceCount(), best, bound, lb.criticalPathUs, lb.workUs);
            ratioSum += ratio;
            ratioMin = std::min(ratioMin, ratio);
            tight += ratio >= 1 - 1e-9 ? 1 : 0;
            for (const std::string& name : placers) {
                auto placer = makeClassicalPlacer(name);
                QVERIFY(placer);
                PlaceContext context{c.graph, c.cluster, SimOptions{}};
                const PlaceResult r = placer->place(context);
                Simulator simulator(c.graph, c.cluster);
                const double t = simulator.run(r.best).stepTimeUs;
                QCOMPARE(r.bestStepTimeUs, t);
                QVERIFY2(best <= t * (1 + kTolerance),
                         qPrintable(QString("seed %1: %2 takes %3, below the enumerated optimum %4")
                                        .arg(seed)
                                        .arg(QString::fromStdString(name))
                                        .arg(t)
                                        .arg(best)));
            }
        }
        // The measurement of issue 16: how far the bound sits below the true optimum.
        std::printf("bound / optimum over %d random graphs: mean %.3f, min %.3f, tight on %d; fork-join raises it "
                    "on %d (path and work alone: mean %.3f, min %.3f)\n",
                    kCases, ratioSum / kCases, ratioMin, tight, forkJoinWins, classicSum / kCases, classicMin);
        QVERIFY(forkJoinWins > 0); // the communication-priced bound is what these graphs exercise
    }

    // The exact placer on the same kind of graphs: its placement is the enumerated optimum,
    // its proven bound is never above it, and it says so (optimal).
    // POST_MILP_CASES=300 runs more graphs (POST_MILP_VERBOSE=1 prints each).
    void milpFindsTheOptimum()
    {
        const int cases = qEnvironmentVariableIntValue("POST_MILP_CASES") > 0
            ? qEnvironmentVariableIntValue("POST_MILP_CASES")
            : 24;
        double slowest = 0.0, total = 0.0, boundRatio = 0.0;
        for (unsigned seed = 1; seed <= static_cast<unsigned>(cases); ++seed) {
            const Case c = randomCase(seed);
            const double best = optimum(c.graph, c.cluster);
            MilpPlacer milp;
            PlaceContext context{c.graph, c.cluster, SimOptions{}};
            // Room to finish on a loaded machine: the 10 s target is the printed figure, not a
            // timed assertion.
            context.seconds = 120.0;
            const auto t0 = std::chrono::steady_clock::now();
            const PlaceResult r = milp.place(context);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            slowest = std::max(slowest, seconds);
            total += seconds;
            Simulator simulator(c.graph, c.cluster);
            QCOMPARE(r.bestStepTimeUs, simulator.run(r.best).stepTimeUs);
            QVERIFY(r.feasible);
            QVERIFY(r.solverBoundOpLevel);
            const QString what = QString("seed %1 (%2 ops, %3 GPUs): milp %4 (bound %5, %6, %7 s), optimum %8")
                                     .arg(seed)
                                     .arg(c.graph.opCount())
                                     .arg(c.cluster.deviceCount())
                                     .arg(r.bestStepTimeUs, 0, 'f', 6)
                                     .arg(r.solverBoundUs, 0, 'f', 6)
                                     .arg(r.provenOptimal ? "optimal" : "not proven")
                                     .arg(seconds, 0, 'f', 2)
                                     .arg(best, 0, 'f', 6);
            QVERIFY2(r.solverBoundUs <= best * (1 + 1e-9), qPrintable(what));
            QVERIFY2(r.solverBoundUs <= r.bestStepTimeUs, qPrintable(what));
            QVERIFY2(r.provenOptimal, qPrintable(what));
            QVERIFY2(std::abs(r.bestStepTimeUs - best) <= 1e-6 * best, qPrintable(what));
            boundRatio += r.solverBoundUs / best;
            if (qEnvironmentVariableIsSet("POST_MILP_VERBOSE"))
                std::printf("%s\n", qPrintable(what));
        }
        std::printf("milp on %d random graphs: optimal on each, bound / optimum mean %.6f, %.2f s in all, slowest "
                    "%.2f s\n",
                    cases, boundRatio / cases, total, slowest);
    }
};

QTEST_APPLESS_MAIN(TestBoundOptimum)
#include "test_bound_optimum.moc"
