// Post's list-scheduling sampler (core/learn/GuidedSampler, docs/learners.md "Guided
// sampling") and the PPO surrogate of its draws.
#include "core/classic/ListScheduler.h"
#include "core/cluster/Cluster.h"
#include "core/cluster/DeviceSymmetry.h"
#include "core/graph/Graph.h"
#include "core/graph/GraphBuilder.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/Grouping.h"
#include "core/learn/GuidedSampler.h"
#include "core/learn/SampleBatch.h"
#include "core/sim/Simulator.h"
#include "tests/support/TestOps.h"

#include "tests/support/TestData.h"

#include <QtTest>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace post;

namespace {

constexpr double kHuge = 1e12; // a guide so strong that every draw is the earliest finish

Op makeOp(const std::string& name, double gpuUs, double bytes, double params = 0.0)
{
    return post::testgraphs::testOp(name, gpuUs, bytes, params, 8.0); // CPUs 8x slower
}

// A random DAG: each op takes inputs from up to three earlier ops.
Graph randomGraph(std::uint64_t seed, int ops)
{
    std::mt19937_64 rng(seed);
    GraphBuilder b("random");
    for (int i = 0; i < ops; ++i) {
        const double us = 20.0 + static_cast<double>(rng() % 200);
        const double bytes = 1e4 * static_cast<double>(1 + rng() % 400);
        b.addOp(makeOp("op" + std::to_string(i), us, bytes, 1e5));
        const int inputs = i == 0 ? 0 : 1 + static_cast<int>(rng() % 3);
        std::set<int> from;
        for (int k = 0; k < inputs; ++k)
            from.insert(static_cast<int>(rng() % static_cast<std::uint64_t>(i)));
        for (int f : from)
            b.addEdge("op" + std::to_string(f), "op" + std::to_string(i));
    }
    return std::move(b).build();
}

Cluster gpus(int count)
{
    std::vector<Device> devices;
    devices.push_back(Device{"/device:CPU:0", DeviceKind::Cpu, 1.0, 1e12});
    for (int d = 0; d < count; ++d)
        devices.push_back(Device{"/device:GPU:" + std::to_string(d), DeviceKind::Gpu, 1.0, 1e12});
    return Cluster("gpus", std::move(devices), Link{10000.0, 5.0});
}

Grouping opGroups(const Graph& g)
{
    GroupingOptions none;
    none.strategy = GroupingStrategy::None;
    return groupOps(g, none);
}

struct Draw {
    std::vector<DeviceId> choice;
    Placement placement;
    std::vector<double> offsets;
    double logProb = 0.0;
};

Draw draw(GuidedSampler& sampler, const Grouping& groups, const Policy& policy, std::mt19937_64& rng, int devices)
{
    Draw d;
    d.choice.resize(static_cast<size_t>(groups.groupCount()));
    d.offsets.resize(d.choice.size() * static_cast<size_t>(devices));
    d.logProb = sampler.sample(policy, rng, d.choice, d.placement, d.offsets);
    return d;
}

double simulate(const Graph& g, const Cluster& c, const Placement& p)
{
    Simulator sim(g, c, SimOptions{});
    return sim.run(p).stepTimeUs;
}

PolicyMatrix randomLogits(int groups, int devices, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    PolicyMatrix m(groups, devices);
    for (int g = 0; g < groups; ++g)
        for (int d = 0; d < devices; ++d)
            m(g, d) = static_cast<double>(rng() % 2000) / 1000.0 - 1.0;
    return m;
}

} // namespace

class TestGuidedSampler : public QObject {
    Q_OBJECT

private slots:
    // With an overwhelming guide and uniform logits a draw is an earliest-finish list
    // schedule, m-ETF's up to ties (m-ETF takes the lowest device, the sampler draws among
    // them): the best of a few draws simulates within 2% of m-ETF on random graphs.
    void hugeGuideSchedulesLikeMEtf()
    {
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            const Graph g = randomGraph(seed, 40 + static_cast<int>(seed % 5) * 10);
            const Cluster c = gpus(3);
            const Grouping groups = opGroups(g);
            GuidedSampler sampler(g, c, SimOptions{}, kHuge);
            sampler.setGrouping(groups);
            const Policy policy(groups.groupCount(), c.deviceCount());
            std::mt19937_64 rng(seed);
            double drawn = std::numeric_limits<double>::infinity();
            for (int k = 0; k < 8; ++k)
                drawn = std::min(drawn, simulate(g, c, draw(sampler, groups, policy, rng, c.deviceCount()).placement));
            const double listed = simulate(g, c, ListScheduler(g, c, SimOptions{}).run().placement);
            QVERIFY2(drawn <= 1.02 * listed,
                     qPrintable(QString("seed %1: drawn %2, m-ETF %3").arg(seed).arg(drawn).arg(listed)));
        }
    }

    void hugeGuideSchedulesLikeMEtfOnARealGraph()
    {
        REQUIRE_SHARED_DATA(dir);
        const Graph g = readGraphFile((dir + "/pipedream/inception_v3/graph.txt").toStdString());
        const Cluster c = loadCluster("k80x4");
        const Grouping groups = opGroups(g);
        GuidedSampler sampler(g, c, SimOptions{}, kHuge);
        sampler.setGrouping(groups);
        const Policy policy(groups.groupCount(), c.deviceCount());
        std::mt19937_64 rng(1);
        const double drawn = simulate(g, c, draw(sampler, groups, policy, rng, c.deviceCount()).placement);
        const double listed = simulate(g, c, ListScheduler(g, c, SimOptions{}).run().placement);
        QVERIFY2(drawn <= 1.03 * listed, qPrintable(QString("drawn %1, m-ETF %2").arg(drawn).arg(listed)));
    }

    // Draws are canonical, their placement is their choice expanded, CPU devices are never
    // used while an accelerator has room, and a seed gives the same draw.
    void drawsAreCanonicalAndConsistent()
    {
        const Graph g = randomGraph(7, 60);
        const Cluster c = gpus(4);
        const Grouping groups = opGroups(g);
        GuidedSampler sampler(g, c, SimOptions{}, 2.0);
        sampler.setGrouping(groups);
        Policy policy(groups.groupCount(), c.deviceCount());
        policy.setLogits(randomLogits(groups.groupCount(), c.deviceCount(), 3));
        std::mt19937_64 rng(5);
        std::mt19937_64 again(5);
        for (int i = 0; i < 30; ++i) {
            const Draw d = draw(sampler, groups, policy, rng, c.deviceCount());
            std::vector<DeviceId> canonical = d.choice;
            sampler.canonicalize(canonical);
            QCOMPARE(canonical, d.choice);
            QCOMPARE(groups.expand(d.choice), d.placement);
            for (DeviceId x : d.placement)
                QVERIFY(x != 0); // the CPU
            QCOMPARE(draw(sampler, groups, policy, again, c.deviceCount()).placement, d.placement);
        }
    }

    // The log-probability a draw reports is the one the PPO surrogate recomputes from the
    // offsets: at unchanged logits every ratio is 1 and the surrogate is the mean advantage;
    // and the surrogate's gradient matches finite differences.
    void surrogateAgreesWithTheDraws()
    {
        const Graph g = randomGraph(11, 30);
        const Cluster c = gpus(3);
        const Grouping groups = opGroups(g);
        const int G = groups.groupCount();
        const int D = c.deviceCount();
        GuidedSampler sampler(g, c, SimOptions{}, 1.5);
        sampler.setGrouping(groups);
        Policy policy(G, D);
        policy.setLogits(randomLogits(G, D, 9));
        std::mt19937_64 rng(2);
        const int n = 6;
        std::vector<DeviceId> choices;
        std::vector<double> offsets;
        std::vector<double> logProbs;
        std::vector<double> advantages;
        for (int i = 0; i < n; ++i) {
            const Draw d = draw(sampler, groups, policy, rng, D);
            choices.insert(choices.end(), d.choice.begin(), d.choice.end());
            offsets.insert(offsets.end(), d.offsets.begin(), d.offsets.end());
            logProbs.push_back(d.logProb);
            advantages.push_back(i % 2 == 0 ? 1.0 + i : -0.5 * i);
        }
        const SampleBatch batch{choices, G, logProbs, advantages};
        double mean = 0.0;
        for (double a : advantages)
            mean += a / n;
        PolicyMatrix gradient;
        QVERIFY(std::abs(guidedClippedSurrogate(policy, batch, offsets, 0.2, &gradient) - mean) < 1e-9);
        // Finite differences inside the clip range (no clip: a large clip).
        const double h = 1e-6;
        for (int probe = 0; probe < 12; ++probe) {
            const int gi = (probe * 7) % G;
            const int di = probe % D;
            PolicyMatrix up = policy.logits();
            PolicyMatrix down = policy.logits();
            up(gi, di) += h;
            down(gi, di) -= h;
            Policy pu = policy;
            Policy pd = policy;
            pu.setLogits(up);
            pd.setLogits(down);
            const double numeric = (guidedClippedSurrogate(pu, batch, offsets, 100.0, nullptr)
                                    - guidedClippedSurrogate(pd, batch, offsets, 100.0, nullptr))
                / (2 * h);
            QVERIFY2(
                std::abs(numeric - gradient(gi, di)) < 1e-5,
                qPrintable(QString("group %1 device %2: %3 vs %4").arg(gi).arg(di).arg(numeric).arg(gradient(gi, di))));
        }
    }

    // A device without room for an op is not a candidate while another has room.
    void drawsRespectMemory()
    {
        const Graph g = randomGraph(3, 40); // 40 ops of 1e5 parameter bytes
        std::vector<Device> devices;
        devices.push_back(Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 1.5e6});
        devices.push_back(Device{"/device:GPU:1", DeviceKind::Gpu, 1.0, 1e12});
        const Cluster c("small", std::move(devices), Link{10000.0, 5.0});
        const Grouping groups = opGroups(g);
        GuidedSampler sampler(g, c, SimOptions{}, 0.0); // the policy alone: GPU:0 half the time
        sampler.setGrouping(groups);
        const Policy policy(groups.groupCount(), c.deviceCount());
        std::mt19937_64 rng(4);
        for (int i = 0; i < 20; ++i) {
            const Placement p = draw(sampler, groups, policy, rng, c.deviceCount()).placement;
            const std::vector<double> peaks = MemoryLedger::placementPeaks(g, c, SimOptions{}, p);
            QVERIFY2(peaks[0] <= 1.5e6, qPrintable(QString("peak %1").arg(peaks[0])));
        }
    }
};

QTEST_GUILESS_MAIN(TestGuidedSampler)
#include "test_guided_sampler.moc"
