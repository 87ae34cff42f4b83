// The learning chart tells what happened (issue 28 item 4): out-of-memory samples at the top
// whatever their penalised value, a race's runs never joined into one line, round ticks and
// numbers written out ("20,230"), and a title that says what the run did.
#include "tests/support/ScratchSettings.h"
#include "ui/charts/ChartTicks.h"
#include "ui/charts/LearningChart.h"
#include "ui/util/Format.h"

#include <QChart>
#include <QLineSeries>
#include <QLocale>
#include <QTest>
#include <QValueAxis>

#include <cmath>

using namespace post;

namespace {

// Whether `v` is a whole multiple of a step of 1, 2, 2.5 or 5 times a power of ten.
bool isRoundStep(double step)
{
    const double decade = std::pow(10.0, std::floor(std::log10(step)));
    const double m = step / decade;
    return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 2.5) < 1e-9 || std::abs(m - 5) < 1e-9;
}

bool isMultiple(double v, double step) { return std::abs(v / step - std::round(v / step)) < 1e-6; }

// A NASNet-like run: feasible samples between 20,230 and 26,000 ms, and out-of-memory ones
// whose penalised values (6,351 ms among them) are lower than the best.
LearnerSnapshot runWithOutOfMemory()
{
    LearnerSnapshot s;
    for (int i = 0; i < 60; ++i)
        s.samples.push_back({i, 26000.0 - i * 96.0, true});
    s.samples.push_back({60, 6351.0, false});
    s.samples.push_back({61, 30000.0, false});
    s.samples.push_back({62, 20230.0, true});
    s.samplesDone = 63;
    return s;
}

// post@best's phases: classical starts, local search, then a race: run 1, run 2, run 1 again.
LearnerSnapshot raceRun()
{
    LearnerSnapshot s;
    for (int i = 0; i < 120; ++i)
        s.samples.push_back({i, 100.0 - i * 0.2, true});
    s.phases = {{0, PhaseKind::ClassicalStarts, -1, QStringLiteral("classical starts")},
                {10, PhaseKind::LocalSearch, -1, QStringLiteral("local search")},
                {30, PhaseKind::LearnerRun, 0, QStringLiteral("Post run 1 (warm: local search's best)")},
                {60, PhaseKind::LearnerRun, 1, QStringLiteral("Post run 2 (cold)")},
                {90, PhaseKind::LearnerRun, 0, QStringLiteral("Post run 1 (warm: local search's best)")}};
    for (int after : {40, 50, 60, 70, 80, 90, 100, 110, 120})
        s.updates.push_back({after, UpdateKind::CrossEntropy, 100.0 - after * 0.1, 90.0, after < 60 ? 0.9 : 0.3});
    s.samplesDone = 120;
    return s;
}

// The chart on screen at the size these tests read positions at.
bool showAtTestSize(LearningChart& chart)
{
    chart.resize(900, 600);
    chart.show();
    return QTest::qWaitForWindowExposed(&chart);
}

} // namespace

class TestChartTruth : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        testsupport::useScratchSettings();
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    }

    void outOfMemorySamplesAreAtTheTop()
    {
        LearningChart chart;
        QVERIFY(showAtTestSize(chart));
        chart.reset(100);
        chart.addSnapshot(runWithOutOfMemory());
        chart.flush();
        const QList<QPointF> pinned = chart.infeasibleSeries()->points();
        QCOMPARE(pinned.size(), 2);
        for (const QPointF& p : pinned)
            QCOMPARE(p.y(), chart.outOfMemoryY());
        QVERIFY(chart.outOfMemoryY() > 0.98 * chart.stepAxisMax());
        // On screen: at the plot's top edge, above every feasible sample (the 6,351 ms one
        // no longer looks three times faster than the best).
        const QRectF plot = chart.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea())).boundingRect();
        const auto oom = chart.samplePosition(60);
        QVERIFY(oom.has_value());
        QVERIFY2(std::abs(oom->y() - plot.top()) <= 8,
                 qPrintable(QStringLiteral("%1 vs %2").arg(oom->y()).arg(plot.top())));
        QVERIFY(oom->y() < chart.samplePosition(0)->y());
        // Zoomed into the band of the best, they follow the top edge.
        chart.zoomTo(0, 63, 20000, 22000);
        chart.flush();
        QCOMPARE(chart.infeasibleSeries()->points().front().y(), chart.outOfMemoryY());
        QVERIFY(chart.outOfMemoryY() > 21900 && chart.outOfMemoryY() < 22000);
    }

    // The phases' labels ("local search", "run 1", …) have a row of their own under the one the
    // out-of-memory samples take at the top of the plot: they were drawn in it, over the
    // markers. Each still starts where its phase does.
    void phaseLabelsStayOutOfTheOutOfMemoryRow()
    {
        LearningChart chart;
        QVERIFY(showAtTestSize(chart));
        chart.reset(120);
        chart.setRunTitle(QStringLiteral("post@best"), 120);
        LearnerSnapshot s = raceRun();
        for (const int i : {11, 31, 61, 91}) // one just after each labelled phase begins
            s.samples[static_cast<size_t>(i)].feasible = false;
        chart.addSnapshot(s);
        chart.flush();
        QTest::qWait(50);
        const QRectF row = chart.outOfMemoryRow();
        QVERIFY(!row.isEmpty());
        const QRectF plot = chart.mapFromScene(chart.chart()->mapToScene(chart.chart()->plotArea())).boundingRect();
        QCOMPARE(row.top(), plot.top());
        const std::vector<LearningChart::PhaseLabel> labels = chart.phaseLabels();
        QStringList texts;
        for (const LearningChart::PhaseLabel& label : labels) {
            texts << label.text;
            QVERIFY2(!label.rect.intersects(row),
                     qPrintable(QStringLiteral("%1 at y %2-%3, the row %4-%5")
                                    .arg(label.text)
                                    .arg(label.rect.top())
                                    .arg(label.rect.bottom())
                                    .arg(row.top())
                                    .arg(row.bottom())));
            QVERIFY(plot.contains(label.rect));
        }
        // (The classical starts' 10 samples are too narrow for their label.)
        QCOMPARE(texts,
                 (QStringList{QStringLiteral("local search"), QStringLiteral("run 1"), QStringLiteral("run 2"),
                              QStringLiteral("run 1")}));
        // Every out-of-memory marker is inside the row, and so under no label.
        for (const int i : {11, 31, 61, 91}) {
            const auto at = chart.samplePosition(i);
            QVERIFY(at.has_value());
            QVERIFY2(row.contains(QPointF(*at)), qPrintable(QStringLiteral("sample %1 at y %2").arg(i).arg(at->y())));
            for (const LearningChart::PhaseLabel& label : labels)
                QVERIFY(!label.rect.adjusted(-2, -2, 2, 2).contains(QPointF(*at)));
        }
        // The label of the phase starting at sample 30 starts at its dashed line.
        const double x30 = plot.left()
            + (30 - chart.sampleAxis()->min()) / (chart.sampleAxis()->max() - chart.sampleAxis()->min()) * plot.width();
        QVERIFY(std::abs(labels[1].rect.left() - (x30 + 3.0)) < 1.0);
        // On the log axis too.
        chart.setLogScale(true);
        chart.flush();
        QTest::qWait(50);
        QVERIFY(!chart.phaseLabels().empty());
        for (const LearningChart::PhaseLabel& label : chart.phaseLabels())
            QVERIFY(!label.rect.intersects(chart.outOfMemoryRow()));
        QVERIFY(chart.outOfMemoryRow().contains(QPointF(*chart.samplePosition(61))));
    }

    void raceRunsAreNeverJoined()
    {
        LearningChart chart;
        QVERIFY(showAtTestSize(chart));
        chart.reset(120);
        chart.setRunTitle(QStringLiteral("post@best"), 120);
        chart.addSnapshot(raceRun());
        chart.flush();
        // Elite threshold: one series per phase it has points in, each within its phase.
        QList<QLineSeries*> parts;
        for (QLineSeries* s : chart.eliteSeries())
            if (s->count() > 0)
                parts << s;
        QCOMPARE(parts.size(), 3); // run 1, run 2, run 1 again
        const QList<std::pair<double, double>> phaseRanges = {{30, 60}, {60, 90}, {90, 120}};
        for (qsizetype i = 0; i < parts.size(); ++i)
            for (const QPointF& p : parts[i]->points())
                QVERIFY(p.x() > phaseRanges[i].first && p.x() <= phaseRanges[i].second);
        QTest::qWait(50); // the legend lays out the markers of the series added for the phases
        QCOMPARE(chart.legendNames().count(QStringLiteral("elite threshold")), 1);

        // Entropy: the strip draws one line per phase (never across the jump at sample 60).
        const QList<QVector<QPointF>> entropy = chart.phases().split(chart.entropyPoints());
        QCOMPARE(entropy.size(), 3);
        QCOMPARE(entropy[1].front().x(), 70.0);
        QVERIFY(chart.title().contains(QStringLiteral("race of 2 Post runs")));
        QVERIFY(!chart.title().contains(QStringLiteral("kicks")));
        QVERIFY(chart.title().startsWith(QStringLiteral("Learning curve: post@best, 120 samples")));

        // The title of a post@best run of 120 samples whose phases end with `last`.
        const auto titleEndingWith = [&](std::initializer_list<LearnerPhase> last) {
            LearnerSnapshot run = raceRun();
            run.phases.insert(run.phases.end(), last);
            chart.reset(120);
            chart.setRunTitle(QStringLiteral("post@best"), 120);
            chart.addSnapshot(run);
            chart.flush();
            return chart.title();
        };
        // post@best ends with a local search with kicks: the title names it after the race.
        QString title = titleEndingWith({{100, PhaseKind::LocalSearch, -1, QStringLiteral("local search with kicks")}});
        QVERIFY2(title.contains(QStringLiteral("local search, race of 2 Post runs, local search with kicks")),
                 qPrintable(title));

        // By default it ends with the plateau walk instead: the title names what ran.
        title = titleEndingWith({{100, PhaseKind::PlateauWalk, -1, QStringLiteral("plateau walk")}});
        QVERIFY2(title.endsWith(QStringLiteral("local search, race of 2 Post runs, plateau walk")), qPrintable(title));

        // Where the walk stalls, the local search with kicks takes over: both are named.
        title = titleEndingWith({{100, PhaseKind::PlateauWalk, -1, QStringLiteral("plateau walk")},
                                 {110, PhaseKind::LocalSearch, -1, QStringLiteral("local search with kicks")}});
        QVERIFY2(
            title.endsWith(QStringLiteral("local search, race of 2 Post runs, plateau walk, local search with kicks")),
            qPrintable(title));
    }

    // At NASNet's 2,400 samples the default run never gets past its local search: the title
    // says so once the run is over, rather than calling it learning.
    void titleSaysWhenNothingWasLearned()
    {
        LearningChart chart;
        chart.reset(2400);
        chart.setRunTitle(QStringLiteral("post@best"), 2400);
        LearnerSnapshot s;
        for (int i = 0; i < 50; ++i)
            s.samples.push_back({i, 900.0 - i, true});
        s.phases = {{0, PhaseKind::ClassicalStarts, -1, QStringLiteral("classical starts")},
                    {20, PhaseKind::LocalSearch, -1, QStringLiteral("local search")}};
        chart.addSnapshot(s);
        QCOMPARE(chart.title(),
                 QStringLiteral("Learning curve: post@best, 2,400 samples — classical starts, local search"));
        chart.finishRun(850.0);
        // Its time limit ended it at 50 samples: the title says so rather than the 2,400 planned.
        QCOMPARE(chart.title(),
                 QStringLiteral("Learning curve: post@best, 50 of 2,400 samples — classical starts and local "
                                "search only (the budget ran out before any learning)"));
        chart.reset(100); // a new run names itself
        QCOMPARE(chart.title(), QStringLiteral("Learning curve"));
    }

    // milp has no sample budget: its chart is a search, titled with what it simulated and the
    // parts it went through, never "2,400 samples" of learning.
    void exactSearchIsTitledByWhatItDid()
    {
        LearningChart chart;
        chart.reset(0);
        chart.setRunTitle(QStringLiteral("milp"), 0);
        QCOMPARE(chart.title(), QStringLiteral("Search: milp"));
        LearnerSnapshot s;
        for (int i = 0; i < 189; ++i)
            s.samples.push_back({i, 200.0 - i / 10.0, true});
        s.phases = {{0, PhaseKind::ClassicalStarts, -1, QStringLiteral("classical starts")},
                    {12, PhaseKind::LocalSearch, -1, QStringLiteral("hill climb")},
                    {40, PhaseKind::ExactSolve, -1, QStringLiteral("MILP solves")}};
        chart.addSnapshot(s);
        QCOMPARE(chart.title(), QStringLiteral("Search: milp — classical starts, local search, MILP solves"));
        chart.finishRun(181.2);
        QCOMPARE(chart.title(),
                 QStringLiteral("Search: milp, 189 simulations — classical starts, local search, MILP solves"));
        chart.flush();
        QVERIFY(!chart.bestPoints().isEmpty()); // the best so far is drawn from its samples
        QCOMPARE(chart.bestPoints().back().x(), 188.0);
        QVERIFY(qFuzzyCompare(chart.bestPoints().back().y(), 181.2));
    }

    void ticksAreRound()
    {
        QCOMPARE(niceTickStep(54.76), 10.0);
        QCOMPARE(niceTickStep(13000), 2500.0);
        QCOMPARE(niceTickStep(11000), 2000.0);
        QCOMPARE(niceTickStep(0.9), 0.2);
        QCOMPARE(tickLabelFormat(500), QStringLiteral("%.0f"));
        QCOMPARE(tickLabelFormat(2.5), QStringLiteral("%.1f"));
        QCOMPARE(tickLabelFormat(0.05), QStringLiteral("%.2f"));

        LearningChart chart;
        chart.resize(900, 600);
        chart.reset(2400);
        LearnerSnapshot s;
        for (int i = 0; i < 2400; ++i)
            s.samples.push_back({i, 867.11 + std::fmod(i * 7.3, 54.76), true});
        chart.addSnapshot(s);
        chart.flush();
        const auto check = [&](const char* what) {
            auto* y = qobject_cast<QValueAxis*>(chart.stepAxis());
            QVERIFY(y);
            QCOMPARE(y->tickType(), QValueAxis::TicksDynamic);
            QVERIFY2(isRoundStep(y->tickInterval()), what);
            QCOMPARE(y->tickAnchor(), 0.0);
            QCOMPARE(y->labelFormat(), tickLabelFormat(y->tickInterval()));
            QValueAxis* x = chart.sampleAxis();
            QCOMPARE(x->tickType(), QValueAxis::TicksDynamic);
            QVERIFY2(isRoundStep(x->tickInterval()) && x->tickInterval() >= 1.0, what);
            QVERIFY(chart.chart()->localizeNumbers()); // "20,230", never "2.023e+04"
        };
        check("fitted");
        auto* y = qobject_cast<QValueAxis*>(chart.stepAxis());
        QVERIFY(isMultiple(y->min(), y->tickInterval()) && isMultiple(y->max(), y->tickInterval()));
        chart.zoomTo(13.7, 977.3, 867.11, 921.87); // the range: ticks stay round
        check("zoomed");
        QCOMPARE(numberLocale().toString(20230.0, 'f', 0), QStringLiteral("20,230"));
    }

    // An empty chart's axes are round too: whole numbers, every tick labelled (the log axis
    // showed only "1" over 0.1-1 ms, the linear one 0.0, 0.2, ... 1.0 ms).
    void emptyAxesHaveRoundTicks()
    {
        LearningChart chart;
        chart.resize(900, 600);
        chart.reset(0);
        auto* y = qobject_cast<QValueAxis*>(chart.stepAxis());
        QVERIFY(y);
        QCOMPARE(y->min(), 0.0);
        QCOMPARE(y->max(), 10.0);
        QCOMPARE(y->tickType(), QValueAxis::TicksDynamic);
        QCOMPARE(y->tickInterval(), 2.0);
        QCOMPARE(y->labelFormat(), QStringLiteral("%.0f"));
        QValueAxis* x = chart.sampleAxis();
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(x->max(), 10.0);
        QCOMPARE(x->tickInterval(), 2.0);
        chart.setLogScale(true);
        QCOMPARE(chart.stepAxisMin(), 1.0);
        QCOMPARE(chart.stepAxisMax(), 100.0); // 1, 10 and 100 ms labelled
        chart.setLogScale(false);
        QCOMPARE(chart.stepAxisMax(), 10.0);
        // The first samples replace the empty range.
        LearnerSnapshot s;
        s.samples.push_back({0, 867.0, true});
        chart.addSnapshot(s);
        chart.flush();
        QVERIFY(chart.stepAxisMax() >= 867.0);
    }

    void stepTimesAreWrittenOut()
    {
        QCOMPARE(formatMilliseconds(20230.0), QStringLiteral("20,230 ms"));
        QCOMPARE(formatMilliseconds(1097.4), QStringLiteral("1,097 ms"));
        QCOMPARE(formatMilliseconds(921.87), QStringLiteral("921.9 ms"));
        QCOMPARE(formatMilliseconds(0.85249), QStringLiteral("0.8525 ms"));
    }
};

QTEST_MAIN(TestChartTruth)
#include "test_chart_truth.moc"
