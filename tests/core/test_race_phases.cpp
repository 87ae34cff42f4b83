// post@best and local-search tell their observer which part of the search each sample comes
// from (ProgressObserver::onPhase), so the learning chart can keep a race's runs apart and
// say when a run never got to learn (issue 28 item 4).
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"

#include <QtTest>

#include <set>
#include <vector>

using namespace post;

namespace {

class PhaseRecorder final : public ProgressObserver {
public:
    void onSample(const SampleEvent&) override { ++samples; }
    void onUpdate(const UpdateEvent&) override { }
    void onPhase(const PhaseEvent& event) override
    {
        QCOMPARE(event.firstSample, samples); // announced before its first sample
        phases.push_back(event);
    }
    int samples = 0;
    std::vector<PhaseEvent> phases;
};

PhaseRecorder run(const std::string& algo, int samples, const LearnerOptions& options = {})
{
    const Graph graph = readGraphFile(qEnvironmentVariable("POST_SOURCE_DIR").toStdString()
                                      + "/samples/graphs/inception-block.json");
    const Cluster cluster = loadCluster("k80x4");
    PhaseRecorder recorder;
    PlaceContext ctx{graph, cluster, SimOptions{}};
    ctx.samples = samples;
    ctx.seed = 1;
    ctx.observer = &recorder;
    makePlacer(algo, options)->place(ctx);
    return recorder;
}

} // namespace

class TestRacePhases : public QObject {
    Q_OBJECT

private slots:
    void defaultRunNamesItsPhases()
    {
        const PhaseRecorder r = run("post@best", 1200);
        QVERIFY(r.phases.size() >= 3);
        QCOMPARE(r.phases[0].kind, PhaseKind::ClassicalStarts);
        QCOMPARE(r.phases[0].firstSample, 0);
        QCOMPARE(r.phases[1].kind, PhaseKind::LocalSearch);
        // The race's runs, then the plateau walk in the budget's last part.
        QCOMPARE(r.phases.back().kind, PhaseKind::PlateauWalk);
        QCOMPARE(r.phases.back().label, std::string("plateau walk"));
        QVERIFY(r.phases.back().firstSample < 1200);
        std::set<int> runs;
        for (size_t i = 2; i + 1 < r.phases.size(); ++i) {
            QCOMPARE(r.phases[i].kind, PhaseKind::LearnerRun);
            QVERIFY(r.phases[i].run >= 0);
            QVERIFY(r.phases[i].label.find("Post run " + std::to_string(r.phases[i].run + 1)) == 0);
            runs.insert(r.phases[i].run);
        }
        QVERIFY(runs.size() >= 2);                                    // a race
        QVERIFY(r.phases[2].label.find("warm") != std::string::npos); // the climbed placement's run first
    }

    // With `walk` 0 the last part is the local search with kicks, after the whole race.
    void kicksInsteadOfTheWalk()
    {
        LearnerOptions kicks;
        kicks.plateauWalk = false;
        const PhaseRecorder r = run("post@best", 1200, kicks);
        QCOMPARE(r.phases.back().kind, PhaseKind::LocalSearch);
        QCOMPARE(r.phases.back().label, std::string("local search with kicks"));
        // On this graph a round of the race finds nothing faster: with the walk after it, that
        // ends the race there; before the kicks, the race runs all its rounds.
        QVERIFY(r.phases.size() > run("post@best", 1200).phases.size());
    }

    // Where the walk stalls (this small graph's, given most of a long run), the local search
    // with kicks takes what is left: the run's last two phases.
    void aStalledWalkHandsOverToKicks()
    {
        LearnerOptions longWalk;
        longWalk.kickShare = 0.9;
        const PhaseRecorder r = run("post@best", 60000, longWalk);
        QVERIFY(r.phases.size() >= 4);
        QCOMPARE(r.phases[r.phases.size() - 2].kind, PhaseKind::PlateauWalk);
        QCOMPARE(r.phases.back().kind, PhaseKind::LocalSearch);
        QCOMPARE(r.phases.back().label, std::string("local search with kicks"));
        QVERIFY(r.phases.back().firstSample > r.phases[r.phases.size() - 2].firstSample);
        QVERIFY(r.phases.back().firstSample < 60000);
    }

    // A budget the classical starts and the climb use up: no learner run is announced.
    void tinyBudgetNeverLearns()
    {
        const PhaseRecorder r = run("post@best", 40);
        for (const PhaseEvent& p : r.phases)
            QVERIFY(p.kind != PhaseKind::LearnerRun);
        QVERIFY(!r.phases.empty());
    }

    void localSearchHasTwoPhases()
    {
        const PhaseRecorder r = run("local-search", 200);
        QCOMPARE(r.phases.size(), size_t{2});
        QCOMPARE(r.phases[1].kind, PhaseKind::LocalSearch);
    }

    // Learners with one search announce nothing (the chart then shows no marks).
    void plainLearnerHasNone() { QVERIFY(run("post", 100).phases.empty()); }
};

QTEST_APPLESS_MAIN(TestRacePhases)
#include "test_race_phases.moc"
