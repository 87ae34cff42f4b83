// The learner panel's run and post-cli's run of the same algorithm, samples and seed get the
// same options and give the same result (issue 28 item 2: the GUI's run path does the CLI's
// work, no more; its speed is measured by bench/bench_gui_learner_speed, not timed here).
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/LearnerOptionSetter.h"
#include "core/run/PlacerRegistry.h"
#include "tests/support/ScratchSettings.h"
#include "ui/learn/LearnerOptionsEditor.h"
#include "ui/learn/LearnerPanel.h"

#include <QCheckBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include <tuple>

using namespace post;

namespace {

DocumentPtr inceptionDocument()
{
    auto doc = std::make_shared<GraphDocument>();
    doc->path = qEnvironmentVariable("POST_SOURCE_DIR") + QStringLiteral("/samples/graphs/inception-block.json");
    doc->graph = std::make_shared<const Graph>(readGraphFile(doc->path.toStdString()));
    doc->cluster = std::make_shared<const Cluster>(loadCluster("k80x4"));
    return doc;
}

// What `post-cli place GRAPH --cluster k80x4 --algo ALGO --samples N --seed S` runs.
PlaceResult cliRun(const GraphDocument& doc, const std::string& algo, int samples, std::uint64_t seed)
{
    auto placer = makePlacer(algo, LearnerOptions{});
    PlaceContext ctx{*doc.graph, *doc.cluster, SimOptions{}};
    ctx.samples = samples;
    ctx.seconds = 0.0;
    ctx.seed = seed;
    return placer->place(ctx);
}

} // namespace

class TestLearnerParity : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { testsupport::useScratchSettings(); }

    // The hyperparameter editor starts from the CLI's defaults, every one of them.
    void editorDefaultsAreTheCliDefaults()
    {
        const LearnerOptions gui = LearnerOptionsEditor().options();
        const LearnerOptions cli;
        for (const LearnerOptionInfo& info : learnerOptionKeys()) {
            const auto g = learnerOptionValue(gui, info.key);
            const auto c = learnerOptionValue(cli, info.key);
            QVERIFY2(g && c, info.key.c_str());
            QVERIFY2(*g == *c,
                     qPrintable(QStringLiteral("%1: GUI %2, CLI %3")
                                    .arg(QString::fromStdString(info.key), QString::fromStdString(*g),
                                         QString::fromStdString(*c))));
        }
    }

    void panelRunIsTheCliRun_data()
    {
        QTest::addColumn<QString>("algo");
        QTest::addColumn<int>("samples");
        QTest::addColumn<int>("seed");
        QTest::newRow("post") << QStringLiteral("post") << 400 << 1;
        QTest::newRow("post@best") << QStringLiteral("post@best") << 600 << 2;
    }

    // Start in the learner panel (its worker thread, its options, its reference lines first)
    // against the CLI's placer on this thread: the same samples, best time and placement.
    void panelRunIsTheCliRun()
    {
        QFETCH(QString, algo);
        QFETCH(int, samples);
        QFETCH(int, seed);
        const DocumentPtr doc = inceptionDocument();
        LearnerPanel panel;
        panel.setDocument(doc);
        panel.setAlgorithm(algo);
        QCOMPARE(panel.algorithm(), algo);
        panel.setSamples(samples);
        panel.setTimeLimit(0.0);
        panel.setSeed(static_cast<std::uint64_t>(seed));
        QSignalSpy finished(&panel, &LearnerPanel::finished);
        panel.start();
        QVERIFY(finished.wait(120000));
        const auto outcome = finished.first().at(0).value<LearnerOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        const PlaceResult cli = cliRun(*doc, algo.toStdString(), samples, static_cast<std::uint64_t>(seed));
        QCOMPARE(outcome.result.samplesUsed, cli.samplesUsed);
        QCOMPARE(outcome.result.bestStepTimeUs, cli.bestStepTimeUs);
        QCOMPARE(outcome.result.feasible, cli.feasible);
        QVERIFY(outcome.result.best == cli.best);
    }

    // "From the shown placement" is post-cli place --start: the same run from the same start,
    // never slower than it; it is offered only with a placement on show and an algorithm that
    // can start from one.
    void fromTheShownPlacementIsTheCliStart()
    {
        const DocumentPtr plain = inceptionDocument();
        LearnerPanel panel;
        panel.setDocument(plain);
        QVERIFY(!panel.fromShownBox()->isEnabled()); // nothing placed
        auto placed = std::make_shared<GraphDocument>(*plain);
        const PlaceResult good = cliRun(*plain, "post", 1500, 4);
        placed->placement = good.best;
        panel.setDocument(placed);
        for (const auto& [algo, offered] :
             {std::pair{"m-etf", false}, std::pair{"random", false}, std::pair{"post@m-sct", false},
              std::pair{"post", true}, std::pair{"local-search", true}, std::pair{"post@best", true}}) {
            panel.setAlgorithm(QString::fromLatin1(algo));
            QVERIFY2(panel.fromShownBox()->isEnabled() == offered, algo);
        }
        panel.fromShownBox()->setChecked(true);
        for (const char* algo : {"local-search", "post"}) {
            panel.setAlgorithm(QString::fromLatin1(algo));
            panel.setSamples(30);
            panel.setTimeLimit(0.0);
            panel.setSeed(2);
            QSignalSpy finished(&panel, &LearnerPanel::finished);
            panel.start();
            QVERIFY(finished.wait(120000));
            QCOMPARE(panel.continuationNote(), QString::fromLatin1(algo) + " started from the shown placement");
            const auto* status = panel.findChild<QLabel*>(QStringLiteral("status"));
            // (on a loaded machine the line goes on with the time the reference lines took)
            QVERIFY2(status->text().contains(", from the shown placement"), qPrintable(status->text()));
            const auto outcome = finished.first().at(0).value<LearnerOutcome>();
            QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
            LearnerOptions options;
            PlaceContext ctx{*plain->graph, *plain->cluster, SimOptions{}};
            ctx.samples = 30;
            ctx.seed = 2;
            if (placerStartUse(algo) == StartUse::Policy)
                options.warmStart = good.best;
            else
                ctx.start = &good.best;
            const PlaceResult cli = makePlacer(algo, options)->place(ctx);
            QCOMPARE(outcome.result.bestStepTimeUs, cli.bestStepTimeUs);
            QVERIFY(outcome.result.best == cli.best);
            QVERIFY2(outcome.result.bestStepTimeUs <= good.bestStepTimeUs, algo);
        }
        // A shown placement no search may start from (a colocation group split) is refused by name.
        auto split = std::make_shared<GraphDocument>(*placed);
        const Graph& g = *plain->graph;
        OpId a = kNoOp, b = kNoOp;
        for (OpId x = 0; x < g.opCount() && b == kNoOp; ++x)
            for (OpId y = x + 1; y < g.opCount() && b == kNoOp; ++y)
                if (g.colocationGroup(x) >= 0 && g.colocationGroup(x) == g.colocationGroup(y))
                    std::tie(a, b) = std::pair{x, y};
        QVERIFY(b != kNoOp);
        split->placement[static_cast<size_t>(b)] = (split->placement[static_cast<size_t>(a)] + 1) % 4 + 1;
        panel.setDocument(split);
        panel.setAlgorithm(QStringLiteral("local-search"));
        QSignalSpy started(&panel, &LearnerPanel::runStarted);
        panel.start();
        QCOMPARE(started.count(), 0);
        const auto* status = panel.findChild<QLabel*>(QStringLiteral("status"));
        QVERIFY2(status->text().startsWith("The shown placement cannot be a start:"), qPrintable(status->text()));
    }
};

QTEST_MAIN(TestLearnerParity)
#include "test_learner_parity.moc"
