#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/learn/PostLearner.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/Simulator.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace post;

namespace {

// Synthetic problem with a known unique optimum: step time = 100 + 10 x (ops off their
// target device). Placements putting op 0 on device 3 run out of memory.
class HammingEvaluator final : public StepEvaluator {
public:
    explicit HammingEvaluator(Placement target)
        : target_(std::move(target))
    {
    }
    Evaluation evaluate(const Placement& placement) override
    {
        int wrong = 0;
        for (size_t i = 0; i < target_.size(); ++i)
            wrong += placement[i] != target_[i];
        Evaluation e;
        e.rawStepTimeUs = 100.0 + 10.0 * wrong;
        e.feasible = placement[0] != 3;
        e.excessMemoryBytes = e.feasible ? 0.0 : 1.0;
        e.stepTimeUs = e.feasible ? e.rawStepTimeUs : 10.0 * e.rawStepTimeUs;
        return e;
    }

private:
    Placement target_;
};

class Recorder final : public ProgressObserver {
public:
    struct Entry {
        bool isUpdate;
        SampleEvent sample;
        UpdateEvent update;
    };
    void onSample(const SampleEvent& e) override
    {
        entries.push_back({false, e, {}});
        if (stop && e.index == stopAt)
            stop->store(true);
    }
    void onUpdate(const UpdateEvent& e) override { entries.push_back({true, {}, e}); }

    std::vector<Entry> entries;
    std::atomic<bool>* stop = nullptr;
    int stopAt = -1;
};

struct Problem {
    Graph graph;
    Cluster cluster;
    Placement target;
};

// `ops` independent ops on 4 devices; the target spreads them round-robin with a twist.
Problem hammingProblem(int ops)
{
    GraphBuilder b("independent");
    Problem p;
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = "op" + std::to_string(i);
        o.timeUs = {10.0, 1.0};
        b.addOp(o);
        p.target.push_back(static_cast<DeviceId>((i * 7 + i / 4) % 4));
    }
    p.graph = std::move(b).build();
    std::vector<Device> devices;
    for (int d = 0; d < 4; ++d)
        devices.push_back(Device{"/device:GPU:" + std::to_string(d), DeviceKind::Gpu, 1.0, 1e9});
    p.cluster = Cluster("four", devices, Link{});
    return p;
}

LearnerOptions ungrouped()
{
    LearnerOptions o;
    o.grouping.strategy = GroupingStrategy::None;
    return o;
}

PlaceResult runLearner(PolicyLearner& learner, const Problem& p, int samples, std::uint64_t seed, int threads,
                       ProgressObserver* observer = nullptr, const std::atomic<bool>* stop = nullptr)
{
    learner.setEvaluatorMaker([&p](const PlaceContext&) { return std::make_unique<HammingEvaluator>(p.target); });
    const PlaceContext context{.graph = p.graph,
                               .cluster = p.cluster,
                               .sim = {},
                               .samples = samples,
                               .seed = seed,
                               .threads = threads,
                               .observer = observer,
                               .stop = stop};
    return learner.place(context);
}

std::unique_ptr<PolicyLearner> learner(std::string_view name, const LearnerOptions& options)
{
    auto placer = makeLearner(name, options);
    return std::unique_ptr<PolicyLearner>(dynamic_cast<PolicyLearner*>(placer.release()));
}

// Two independent heavy branches of three ops between a light source and sink:
// src -> a1 -> a2 -> a3 -> sink and src -> b1 -> b2 -> b3 -> sink.
Graph twoBranches()
{
    GraphBuilder b("two-branches");
    auto add = [&](const char* name, double us) {
        Op o;
        o.name = name;
        o.type = "Test";
        o.timeUs = {10.0 * us, us};
        o.outputBytes = 1e6; // 1 MB: 110 us on the link below, a tenth of a branch op
        b.addOp(o);
    };
    add("src", 5);
    for (const char* branch : {"a", "b"})
        for (int i = 1; i <= 3; ++i)
            add((std::string(branch) + char('0' + i)).c_str(), 500);
    add("sink", 5);
    for (const char* branch : {"a", "b"}) {
        std::string previous = "src";
        for (int i = 1; i <= 3; ++i) {
            const std::string name = std::string(branch) + char('0' + i);
            b.addEdge(previous, name);
            previous = name;
        }
        b.addEdge(previous, "sink");
    }
    return std::move(b).build();
}

Cluster twoGpus()
{
    return Cluster(
        "two", {Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 1e12}, Device{"/device:GPU:1", DeviceKind::Gpu, 1.0, 1e12}},
        Link{1e4, 10.0});
}

} // namespace

class TestLearners : public QObject {
    Q_OBJECT

private slots:
    void factoryKnowsEveryName()
    {
        QCOMPARE(learnerNames(), (std::vector<std::string>{"post", "post-alg1", "ce", "ppo", "reinforce", "random"}));
        for (const std::string& name : learnerNames()) {
            auto placer = makeLearner(name);
            QVERIFY(placer);
            QCOMPARE(placer->name(), name);
        }
        QVERIFY(!makeLearner("annealing"));
    }

    void penaltyGrowsWithExcessMemory()
    {
        PenaltyOptions growing; // base 1, slope 4
        QCOMPARE(PlacementEvaluator::penalisedStepTimeUs(50.0, true, 0.0, 1000.0, 100.0, growing), 50.0);
        // 50 + 1000 x (1 + 4 x 25 / 100) = 2050.
        QCOMPARE(PlacementEvaluator::penalisedStepTimeUs(50.0, false, 25.0, 1000.0, 100.0, growing), 2050.0);
        QVERIFY(PlacementEvaluator::penalisedStepTimeUs(50.0, false, 30.0, 1000.0, 100.0, growing) > 2050.0);
        PenaltyOptions fixed{.kind = InfeasiblePenalty::Fixed};
        QCOMPARE(PlacementEvaluator::penalisedStepTimeUs(50.0, false, 25.0, 1000.0, 100.0, fixed), 10000.0);
        QCOMPARE(PlacementEvaluator::penalisedStepTimeUs(70.0, false, 99.0, 1000.0, 100.0, fixed), 10000.0);
    }

    void batchEvaluatorMatchesSerial()
    {
        const Problem p = hammingProblem(16);
        const StepEvaluatorFactory factory = [&] { return std::make_unique<HammingEvaluator>(p.target); };
        std::vector<Placement> placements;
        for (int i = 0; i < 37; ++i) {
            Placement x(16);
            for (int k = 0; k < 16; ++k)
                x[static_cast<size_t>(k)] = static_cast<DeviceId>((i * 5 + k * k) % 4);
            placements.push_back(x);
        }
        BatchEvaluator serial(factory, 1), parallel(factory, 3);
        QCOMPARE(parallel.threads(), 3);
        std::vector<Evaluation> a(placements.size()), b(placements.size());
        for (int round = 0; round < 5; ++round) { // the pool is reused across batches
            serial.evaluate(placements, a);
            parallel.evaluate(placements, b);
            for (size_t i = 0; i < a.size(); ++i) {
                QCOMPARE(b[i].stepTimeUs, a[i].stepTimeUs);
                QCOMPARE(b[i].feasible, a[i].feasible);
                QCOMPARE(a[i].stepTimeUs, HammingEvaluator(p.target).evaluate(placements[i]).stepTimeUs);
            }
        }
    }

    // Each worker's evaluator is built on that worker's thread (so that its memory is that
    // thread's), one factory call at a time, and evaluates there; evaluator 0 is the caller's.
    // A factory that throws makes the constructor rethrow, without a hang.
    void batchEvaluatorBuildsEachEvaluatorOnItsThread()
    {
        struct Recorder final : StepEvaluator {
            std::thread::id builtOn = std::this_thread::get_id();
            std::atomic<int>* elsewhere = nullptr;
            Evaluation evaluate(const Placement& x) override
            {
                if (std::this_thread::get_id() != builtOn)
                    ++*elsewhere;
                Evaluation e;
                e.stepTimeUs = e.rawStepTimeUs = static_cast<double>(x.size());
                return e;
            }
        };
        std::atomic<int> elsewhere{0};
        std::vector<std::thread::id> builders; // no lock: the calls never overlap
        int calls = 0;
        const StepEvaluatorFactory factory = [&] {
            builders.push_back(std::this_thread::get_id());
            ++calls;
            auto e = std::make_unique<Recorder>();
            e->elsewhere = &elsewhere;
            return e;
        };
        {
            BatchEvaluator pool(factory, 4);
            QCOMPARE(calls, 4);
            QCOMPARE(builders.front(), std::this_thread::get_id());
            const std::set<std::thread::id> distinct(builders.begin(), builders.end());
            QCOMPARE(distinct.size(), size_t{4});
            std::vector<Placement> placements(200, Placement(3, 0));
            std::vector<Evaluation> results(placements.size());
            for (int round = 0; round < 3; ++round)
                pool.evaluate(placements, results);
            QCOMPARE(results[7].stepTimeUs, 3.0);
        }
        QCOMPARE(elsewhere.load(), 0);

        calls = 0;
        const StepEvaluatorFactory failing = [&]() -> std::unique_ptr<StepEvaluator> {
            if (++calls == 3)
                throw std::runtime_error("third evaluator");
            return std::make_unique<Recorder>();
        };
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, BatchEvaluator(failing, 4));
        QCOMPARE(calls, 4); // every worker got its turn before the constructor rethrew
    }

    void batchEvaluatorRethrows()
    {
        struct Throwing final : StepEvaluator {
            Evaluation evaluate(const Placement& x) override
            {
                if (x[0] == 2)
                    throw std::runtime_error("boom");
                return {};
            }
        };
        BatchEvaluator pool([] { return std::make_unique<Throwing>(); }, 2);
        std::vector<Placement> placements{{0}, {1}, {2}, {0}};
        std::vector<Evaluation> results(4);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.evaluate(placements, results));
        placements[2] = {1};
        pool.evaluate(placements, results); // still usable
    }

    void postFindsTheKnownOptimum()
    {
        const Problem p = hammingProblem(24); // 4^24 placements, one optimum
        auto post = learner("post-alg1", ungrouped());
        const PlaceResult r = runLearner(*post, p, 1200, 1, 2);
        QVERIFY(r.feasible);
        QCOMPARE(r.bestStepTimeUs, 100.0);
        QCOMPARE(r.best, p.target);
        QCOMPARE(r.samplesUsed, 1200);
        QVERIFY(!r.stopped);
        // Random search with the same budget gets nowhere near it.
        auto random = learner("random", ungrouped());
        const PlaceResult rr = runLearner(*random, p, 1200, 1, 2);
        QVERIFY(rr.bestStepTimeUs >= 180.0);
    }

    void ablationsImproveOnRandom()
    {
        const Problem p = hammingProblem(24);
        auto random = learner("random", ungrouped());
        const double randomBest = runLearner(*random, p, 1200, 3, 1).bestStepTimeUs;
        for (const char* name : {"ce", "ppo", "reinforce"}) {
            auto l = learner(name, ungrouped());
            const PlaceResult r = runLearner(*l, p, 1200, 3, 1);
            QVERIFY2(r.feasible, name);
            QVERIFY2(r.bestStepTimeUs < randomBest, name);
        }
    }

    void sameSeedSameResultWhateverTheThreads()
    {
        const Problem p = hammingProblem(24);
        for (const char* name : {"post-alg1", "reinforce"}) {
            auto a = learner(name, ungrouped());
            auto b = learner(name, ungrouped());
            Recorder ra, rb;
            const PlaceResult one = runLearner(*a, p, 300, 77, 1, &ra);
            const PlaceResult two = runLearner(*b, p, 300, 77, 2, &rb);
            QCOMPARE(one.best, two.best);
            QCOMPARE(one.bestStepTimeUs, two.bestStepTimeUs);
            QCOMPARE(ra.entries.size(), rb.entries.size());
            for (size_t i = 0; i < ra.entries.size(); ++i) {
                QCOMPARE(ra.entries[i].sample.stepTimeUs, rb.entries[i].sample.stepTimeUs);
                QCOMPARE(ra.entries[i].update.entropy, rb.entries[i].update.entropy);
            }
            auto c = learner(name, ungrouped());
            Recorder rc;
            runLearner(*c, p, 300, 78, 2, &rc);
            bool differs = false;
            for (size_t i = 0; i < rc.entries.size(); ++i)
                differs |= rc.entries[i].sample.stepTimeUs != ra.entries[i].sample.stepTimeUs;
            QVERIFY(differs); // another seed, another run
        }
    }

    void observerSeesEverySampleAndUpdateInOrder()
    {
        const Problem p = hammingProblem(24);
        LearnerOptions o = ungrouped();
        o.batchSize = 20;
        o.ceInterval = 100;
        auto post = learner("post-alg1", o);
        Recorder rec;
        const PlaceResult r = runLearner(*post, p, 410, 5, 2, &rec);
        QCOMPARE(r.samplesUsed, 410);
        int nextSample = 0;
        int updates = 0;
        double best = std::numeric_limits<double>::infinity();
        double previousEntropy = 1.0;
        for (const auto& e : rec.entries) {
            if (!e.isUpdate) {
                QCOMPARE(e.sample.index, nextSample++);
                if (e.sample.feasible)
                    best = std::min(best, e.sample.stepTimeUs);
                continue;
            }
            ++updates;
            // Updates come every K = 20 samples, right after the batch that triggered them.
            QCOMPARE(e.update.afterSample, 20 * updates);
            QCOMPARE(nextSample, e.update.afterSample);
            const bool ce = e.update.afterSample % 100 == 0;
            QCOMPARE(e.update.kind, ce ? UpdateKind::CrossEntropy : UpdateKind::Ppo);
            QCOMPARE(std::isnan(e.update.eliteThresholdUs), !ce);
            QCOMPARE(e.update.bestStepTimeUs, best);
            QVERIFY(e.update.entropy >= 0.0 && e.update.entropy <= 1.0);
            if (ce)
                QVERIFY(e.update.eliteThresholdUs >= best);
            previousEntropy = e.update.entropy;
        }
        QCOMPARE(nextSample, 410);
        QCOMPARE(updates, 20);          // the last 10 samples make a partial batch: no update
        QVERIFY(previousEntropy < 0.5); // the policy has concentrated
    }

    void eliteThresholdIsTheWorstEliteTime()
    {
        const Problem p = hammingProblem(24);
        LearnerOptions o = ungrouped();
        o.batchSize = 10;
        o.ceInterval = 50;
        o.eliteFraction = 0.1;
        auto ce = learner("ce", o);
        Recorder rec;
        runLearner(*ce, p, 100, 9, 1, &rec);
        std::vector<double> window;
        int ceUpdates = 0;
        for (const auto& e : rec.entries) {
            if (!e.isUpdate) {
                window.push_back(e.sample.stepTimeUs);
                continue;
            }
            QCOMPARE(e.update.kind, UpdateKind::CrossEntropy);
            QCOMPARE(window.size(), size_t(50));
            std::sort(window.begin(), window.end());
            QCOMPARE(e.update.eliteThresholdUs, window[4]); // ceil(0.1 x 50) = 5 elites
            window.clear();
            ++ceUpdates;
        }
        QCOMPARE(ceUpdates, 2);
    }

    void stopFlagEndsAtTheNextBatch()
    {
        const Problem p = hammingProblem(24);
        std::atomic<bool> stop{false};
        Recorder rec;
        rec.stop = &stop;
        rec.stopAt = 45;
        auto post = learner("post-alg1", ungrouped());
        const PlaceResult r = runLearner(*post, p, 2400, 1, 2, &rec, &stop);
        QVERIFY(r.stopped);
        QCOMPARE(r.samplesUsed, 60); // batch 40..59 finishes, then the flag is seen
        QCOMPARE(static_cast<int>(r.best.size()), p.graph.opCount());
    }

    void warmStartIsNeverLost()
    {
        const Problem p = hammingProblem(24);
        LearnerOptions o = ungrouped();
        o.warmStart = p.target;
        o.warmStartMass = 0.6;
        auto ppo = learner("ppo", o);
        const PlaceResult r = runLearner(*ppo, p, 40, 2, 1);
        QCOMPARE(r.bestStepTimeUs, 100.0);
        QCOMPARE(r.samplesUsed, 40);
        // The policy starts concentrated: its samples are far better than uniform ones
        // (expected 24 x 0.4 = 9.6 wrong ops instead of 18).
        LearnerOptions cold = ungrouped();
        Recorder warmRec, coldRec;
        runLearner(*learner("random", o), p, 200, 2, 1, &warmRec);
        runLearner(*learner("random", cold), p, 200, 2, 1, &coldRec);
        auto mean = [](const Recorder& r) {
            double s = 0;
            int n = 0;
            for (const auto& e : r.entries)
                if (e.sample.feasible) {
                    s += e.sample.stepTimeUs;
                    ++n;
                }
            return s / n;
        };
        QVERIFY(mean(warmRec) < 100.0 + 10.0 * 12);
        QVERIFY(mean(coldRec) > 100.0 + 10.0 * 16);
    }

    void postSplitsTwoBranchesOnTheSimulator()
    {
        const Graph g = twoBranches();
        const Cluster c = twoGpus();
        // The optimum by exhaustive search over all 2^8 placements: one branch per device,
        // src with one branch and sink with the other, 5 + 110 + 1500 + 5 = 1620 us.
        Simulator sim(g, c);
        const int n = g.opCount();
        double optimum = std::numeric_limits<double>::infinity();
        for (unsigned mask = 0; mask < (1u << n); ++mask) {
            Placement x(static_cast<size_t>(n));
            for (int i = 0; i < n; ++i)
                x[static_cast<size_t>(i)] = static_cast<DeviceId>((mask >> i) & 1u);
            optimum = std::min(optimum, sim.run(x).stepTimeUs);
        }
        QCOMPARE(optimum, 1620.0);
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            auto post = makeLearner("post");
            const PlaceContext context{.graph = g,
                                       .cluster = c,
                                       .sim = {},
                                       .samples = 600,
                                       .seed = seed,
                                       .threads = 2,
                                       .observer = nullptr,
                                       .stop = nullptr};
            const PlaceResult r = post->place(context);
            QVERIFY(r.feasible);
            QCOMPARE(r.bestStepTimeUs, optimum);
            QCOMPARE(sim.run(r.best).stepTimeUs, optimum);
            // Each branch whole, the two on different devices.
            const auto at = [&](const char* name) { return r.best[static_cast<size_t>(*g.find(name))]; };
            QCOMPARE(at("a2"), at("a1"));
            QCOMPARE(at("a3"), at("a1"));
            QCOMPARE(at("b2"), at("b1"));
            QCOMPARE(at("b3"), at("b1"));
            QVERIFY(at("a1") != at("b1"));
        }
    }

    void simulatorEvaluatorPenalisesOverflow()
    {
        // One op owning 1 GB of parameters (3 GB with gradients and momentum) on 2 GB devices.
        GraphBuilder b("fat");
        Op o;
        o.name = "fat";
        o.timeUs = {100.0, 10.0};
        o.paramBytes = 1e9;
        b.addOp(o);
        const Graph g = std::move(b).build();
        const Cluster c(
            "small",
            {Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 2e9}, Device{"/device:GPU:1", DeviceKind::Gpu, 2.0, 2e9}},
            Link{});
        PlacementEvaluator evaluator(g, c, SimOptions{}, PenaltyOptions{});
        Simulator sim(g, c);
        const SimResult& truth = sim.run(Placement{1});
        QVERIFY(!truth.feasible);
        const Evaluation e = evaluator.evaluate(Placement{1});
        QVERIFY(!e.feasible);
        QCOMPARE(e.rawStepTimeUs, truth.stepTimeUs);
        QCOMPARE(e.rawStepTimeUs, 5.0); // 10 us at speed 2
        QCOMPARE(e.excessMemoryBytes, truth.peakMemoryBytes[1] - 2e9);
        QVERIFY(e.excessMemoryBytes >= 1e9);
        // Reference: the op alone on the faster device, 5 us; cluster memory 4 GB.
        QCOMPARE(PlacementEvaluator::referenceTimeUs(g, c), 5.0);
        QCOMPARE(e.stepTimeUs, 5.0 + 5.0 * (1.0 + 4.0 * e.excessMemoryBytes / 4e9));
    }

    void degenerateProblems()
    {
        // No ops at all, and a single device: nothing to learn, but no crash and a valid answer.
        const Graph empty = GraphBuilder("empty").build();
        const Cluster c = twoGpus();
        const PlaceContext none{.graph = empty,
                                .cluster = c,
                                .sim = {},
                                .samples = 50,
                                .seed = 1,
                                .threads = 2,
                                .observer = nullptr,
                                .stop = nullptr};
        const PlaceResult r0 = makeLearner("post")->place(none);
        QCOMPARE(r0.samplesUsed, 50);
        QVERIFY(r0.best.empty());
        QCOMPARE(r0.bestStepTimeUs, 0.0);

        const Graph g = twoBranches();
        const Cluster one("one", {Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 1e12}}, Link{});
        Recorder rec;
        const PlaceContext single{
            .graph = g, .cluster = one, .sim = {}, .samples = 100, .seed = 1, .threads = 2, .observer = &rec, .stop = nullptr};
        const PlaceResult r1 = makeLearner("post")->place(single);
        QCOMPARE(r1.best, Placement(static_cast<size_t>(g.opCount()), 0));
        QCOMPARE(r1.bestStepTimeUs, 3010.0); // everything in sequence on the one device
        for (const auto& e : rec.entries)
            if (e.isUpdate)
                QCOMPARE(e.update.entropy, 0.0);
    }

    void warmStartRefinesCoarseGroups()
    {
        // Four chunks of six ops; the target gives each chunk's ops different devices.
        const Problem p = hammingProblem(24);
        LearnerOptions o;
        o.grouping.strategy = GroupingStrategy::Chunks;
        o.grouping.maxGroups = 4;
        o.warmStart = p.target;
        o.warmStartMass = 1.0;
        Recorder refined;
        runLearner(*learner("random", o), p, 40, 1, 1, &refined);
        for (const auto& e : refined.entries)
            QCOMPARE(e.sample.stepTimeUs, 100.0); // every sample is the start itself
        o.refineGroupsByWarmStart = false;
        Recorder coarse;
        const PlaceResult r = runLearner(*learner("random", o), p, 40, 1, 1, &coarse);
        for (const auto& e : coarse.entries)
            QVERIFY(e.sample.stepTimeUs > 100.0); // a chunk cannot follow the start
        QCOMPARE(r.bestStepTimeUs, 100.0);        // but the evaluated start is kept
    }

    void badWarmStartIsRejected()
    {
        const Problem p = hammingProblem(4);
        LearnerOptions o = ungrouped();
        o.warmStart = {0, 1};
        auto post = learner("post-alg1", o);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runLearner(*post, p, 10, 1, 1));
    }

    void badOptionsAreRejected()
    {
        const Problem p = hammingProblem(4);
        LearnerOptions o = ungrouped();
        o.eliteFraction = 0.0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runLearner(*learner("ce", o), p, 10, 1, 1));
        o = ungrouped();
        o.batchSize = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runLearner(*learner("post-alg1", o), p, 10, 1, 1));
    }

    void bestIsFeasibleWhenAnySampleIs()
    {
        // Every placement with op 0 on device 3 is infeasible but may be the fastest raw.
        Problem p = hammingProblem(6);
        p.target[0] = 3;
        auto random = learner("random", ungrouped());
        const PlaceResult r = runLearner(*random, p, 400, 4, 1);
        QVERIFY(r.feasible);
        QVERIFY(r.best[0] != 3);
    }
};

QTEST_APPLESS_MAIN(TestLearners)
#include "test_learners.moc"
