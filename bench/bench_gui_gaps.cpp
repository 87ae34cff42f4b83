// The GUI thread's responsiveness while a learner runs (issue 21 item 2): opens a graph file in
// the whole main window (graph panel, chart, tables, timeline, inspector), waits until it is
// drawn, starts the learner panel's default run (post@best) with a time limit of the
// measurement window, and records the event loop's gaps with a 5 ms precise timer: the time
// between two of its ticks minus 5 ms is how long the GUI thread could not answer. Prints the
// largest gap, the 99th and 50th percentiles, and how many gaps exceeded 16 and 50 ms, and
// the GUI thread's own CPU time per tick (a gap it did not spend running was a wait for a
// core). Then it stops the run and times one new best placement panel by panel and along
// the learner's whole route, with the gaps until that placement's step is shown
// (docs/performance.md, "Event-loop gaps during a run").
//   bench_gui_gaps FILE [SECONDS]   (default 20 s; QT_QPA_PLATFORM=offscreen works; e.g.
//   post-cli zoo generate nmt-8 --steps 200 --out nmt8-200.json)
// POST_BENCH_GAPS=FILE writes every gap over 16 ms as "time_s gap_ms" lines, to find what the
// GUI thread was doing then (run it under perf with the same window).
#include "core/place/Placer.h"
#include "core/run/PlacerRegistry.h"
#include "ui/MainWindow.h"
#include "ui/cluster/ClusterEditor.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/SimulatedStep.h"
#include "ui/document/StepSimulation.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/learn/PlacementCoalescer.h"
#include "ui/panels/DeviceTablePanel.h"
#include "ui/panels/OpTablePanel.h"
#include "ui/timeline/TimelinePanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>

using namespace post;

namespace {

double ms(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

// CPU time this thread has run (ms): a gap the GUI thread spent running is our code's; the
// rest of a gap it waited for a core (other processes, the learner's threads).
double threadCpuMs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double loadAverage()
{
    double load[1] = {0.0};
    return getloadavg(load, 1) == 1 ? load[0] : 0.0;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const auto k = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(k, v.size() - 1)];
}

constexpr int kTickMs = 5;

// Opens `file` in the window and waits until it is drawn; false, with a message, if it is not.
bool openAndWait(MainWindow& window, const char* file)
{
    QSignalSpy shown(&window, &MainWindow::documentShown);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openFile(QString::fromLocal8Bit(file));
    // An event loop that sleeps until the window is drawn (processEvents with a time
    // limit spins: it kept a core busy, slowing the read on a 2-core machine).
    QEventLoop wait;
    QObject::connect(&window, &MainWindow::documentShown, &wait, &QEventLoop::quit);
    QObject::connect(&window, &MainWindow::loadFailed, &wait, &QEventLoop::quit);
    QTimer::singleShot(300000, &wait, &QEventLoop::quit);
    wait.exec();
    if (!shown.isEmpty())
        return true;
    std::fprintf(stderr, "%s: not shown within 5 minutes%s\n", file,
                 failed.isEmpty() ? "" : qPrintable(": " + failed.first().at(1).toString()));
    return false;
}

// The event loop's gaps during the learner panel's default run of `seconds`, and a second
// after it (its end: final best, recolouring, autosave), printed. `sinceTick` is the tick
// clock the later probes restart; gaps over 16 ms go to `big` as (time s, gap ms).
struct RunGaps {
    bool finished = false;
    std::vector<std::pair<double, double>> big;
};

RunGaps measureRunGaps(MainWindow& window, LearnerPanel* learner, double seconds, QElapsedTimer& sinceTick)
{
    RunGaps out;
    learner->setTimeLimit(seconds); // the default run, long enough to fill the window
    std::vector<double> gaps;       // ms beyond the timer's interval
    std::vector<double> busy;       // the GUI thread's own CPU time between two ticks (ms)
    double cpuBefore = threadCpuMs();
    const double loadBefore = loadAverage();
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(kTickMs);
    QElapsedTimer clock;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const double gap = std::max(0.0, ms(sinceTick) - kTickMs);
        sinceTick.restart();
        gaps.push_back(gap);
        const double cpu = threadCpuMs();
        busy.push_back(cpu - cpuBefore);
        cpuBefore = cpu;
        if (gap > 16.0)
            out.big.emplace_back(ms(clock) / 1000, gap);
    });
    int snapshots = 0, bests = 0;
    double finishedAt = 0.0;
    QObject::connect(learner, &LearnerPanel::snapshot, [&] { ++snapshots; });
    QObject::connect(learner, &LearnerPanel::bestPlacement, [&] { ++bests; });
    QObject::connect(learner, &LearnerPanel::finished, [&] {
        out.finished = true;
        finishedAt = ms(clock) / 1000;
    });
    clock.start();
    sinceTick.start();
    tick.start();
    learner->start();
    const double startMs = ms(clock);
    QEventLoop loop;
    QTimer::singleShot(static_cast<int>(seconds * 1000) + 1000, &loop, &QEventLoop::quit);
    loop.exec();
    tick.stop();
    const double loadAfter = loadAverage();

    const double maxGap = gaps.empty() ? 0.0 : *std::max_element(gaps.begin(), gaps.end());
    const auto over = [&](double limit) {
        return std::count_if(gaps.begin(), gaps.end(), [&](double g) { return g > limit; });
    };
    std::printf("  %s for %.0f s (start() on the GUI thread %.0f ms): %d samples, %d snapshots, %d new bests, %s\n",
                qPrintable(learner->algorithm()), seconds, startMs, learner->samplesDone(), snapshots, bests,
                out.finished ? qPrintable(QStringLiteral("ended at %1 s").arg(finishedAt, 0, 'f', 1)) : "still running");
    if (const PlacementCoalescer* feed = window.findChild<PlacementCoalescer*>())
        std::printf("  new bests shown: %d of %d (%d superseded while waiting for a frame or the previous step)\n",
                    feed->appliedCount(), feed->offered(), feed->superseded());
    std::printf("  event-loop gaps over %zu ticks of %d ms: max %.1f ms, p99 %.1f ms, p50 %.1f ms; %ld over 16 ms, "
                "%ld over 50 ms\n",
                gaps.size(), kTickMs, maxGap, percentile(gaps, 0.99), percentile(gaps, 0.50), over(16.0), over(50.0));
    std::printf("  the GUI thread's own CPU time between two ticks: max %.1f ms, p99 %.1f ms; %ld ticks over 50 ms "
                "(load average %.1f before the run, %.1f after, on %d cores)\n",
                busy.empty() ? 0.0 : *std::max_element(busy.begin(), busy.end()), percentile(busy, 0.99),
                std::count_if(busy.begin(), busy.end(), [](double b) { return b > 50.0; }), loadBefore, loadAfter,
                QThread::idealThreadCount());
    return out;
}

void timed(const char* what, const std::function<void()>& f)
{
    QElapsedTimer t;
    t.start();
    f();
    std::printf("    %-40s %7.1f ms\n", what, ms(t));
}

// Each panel's setDocument five times, a new placement each time (made before the clock
// starts): the median and the largest. Then the step simulation's own job.
void measurePanels(MainWindow& window, LearnerPanel* learner, const std::function<DocumentPtr()>& next)
{
    const auto panel = [&](const char* what, const std::function<void(DocumentPtr)>& f) {
        std::vector<double> t;
        for (int k = 0; k < 5; ++k) {
            DocumentPtr doc = next();
            QElapsedTimer one;
            one.start();
            f(std::move(doc));
            t.push_back(ms(one));
        }
        std::printf("    %-40s %7.1f ms (median of 5; max %.1f ms)\n", what, percentile(t, 0.5),
                    *std::max_element(t.begin(), t.end()));
    };
    std::printf("  one new placement on the GUI thread (device colours):\n");
    panel("graph panel (recolour)", [&](DocumentPtr d) { window.findChild<GraphPanel*>()->showDocument(d); });
    panel("op table", [&](DocumentPtr d) { window.findChild<OpTablePanel*>()->setDocument(d); });
    panel("device table", [&](DocumentPtr d) { window.findChild<DeviceTablePanel*>()->setDocument(d); });
    panel("inspector", [&](DocumentPtr d) { window.findChild<InspectorPanel*>()->setDocument(d); });
    panel("learner panel", [&](DocumentPtr d) { learner->setDocument(d); });
    timed("step simulation (starts its job)", [&] { window.findChild<StepSimulation*>()->setDocument(next()); });
    panel("cluster editor", [&](DocumentPtr d) { window.findChild<ClusterEditor*>()->setDocument(d); });
    panel("comparison view", [&](DocumentPtr d) { window.findChild<ComparisonView*>()->setDocument(d); });
    timed("SimulatedStep::simulate (its pool job)", [&] {
        const StepPtr step = SimulatedStep::simulate(next());
        if (!step)
            std::fprintf(stderr, "probe: no step\n");
    });
}

// The learner's whole route for one new best (its bestPlacement signal: device colours,
// DocumentHub::setPlacement, the step simulated off the GUI thread and shown), round after
// round, with the largest gap until the step is shown.
void measureRoutes(MainWindow& window, LearnerPanel* learner, const std::function<DocumentPtr()>& next,
                   QElapsedTimer& sinceTick)
{
    StepSimulation* simulation = window.findChild<StepSimulation*>();
    // POST_BENCH_ROUTES=N: N rounds of the whole route (default 3), e.g. to profile it.
    const int rounds = std::max(
        1, qEnvironmentVariableIntValue("POST_BENCH_ROUTES") > 0 ? qEnvironmentVariableIntValue("POST_BENCH_ROUTES") : 3);
    std::vector<double> routeMs;
    for (int round = 0; round < rounds; ++round) {
        QEventLoop idle;
        QTimer::singleShot(500, &idle, &QEventLoop::quit);
        idle.exec();
        std::vector<double> after;
        QTimer probe;
        probe.setTimerType(Qt::PreciseTimer);
        probe.setInterval(kTickMs);
        QObject::connect(&probe, &QTimer::timeout, [&] {
            after.push_back(std::max(0.0, ms(sinceTick) - kTickMs));
            sinceTick.restart();
        });
        QEventLoop wait;
        QElapsedTimer route;
        const auto c = QObject::connect(simulation, &StepSimulation::simulated, &wait, [&](const StepPtr& step) {
            if (step && step->document == window.hub()->document())
                QTimer::singleShot(300, &wait, &QEventLoop::quit); // and what the step's arrival sets off
        });
        QTimer::singleShot(60000, &wait, &QEventLoop::quit);
        sinceTick.restart();
        probe.start();
        route.start();
        QElapsedTimer one;
        one.start();
        timed("learner's bestPlacement (whole route)", [&] { emit learner->bestPlacement(next()->placement); });
        routeMs.push_back(ms(one));
        wait.exec();
        probe.stop();
        QObject::disconnect(c);
        std::printf("    step shown %.0f ms after; largest gap meanwhile %.1f ms\n",
                    static_cast<double>(route.elapsed()) - 300,
                    after.empty() ? 0.0 : *std::max_element(after.begin(), after.end()));
    }
    std::printf("    whole route over %zu rounds: min %.1f ms, median %.1f ms, max %.1f ms\n", routeMs.size(),
                *std::min_element(routeMs.begin(), routeMs.end()), percentile(routeMs, 0.5),
                *std::max_element(routeMs.begin(), routeMs.end()));
    const StepPtr step = simulation->current();
    timed("timeline panel setStep", [&] { window.findChild<TimelinePanel*>()->setStep(step); });
}

// What one new best placement costs the GUI thread once the run is stopped: panel by panel,
// then along the learner's whole route.
void measureNewPlacement(MainWindow& window, LearnerPanel* learner, bool finished, QElapsedTimer& sinceTick)
{
    if (!finished) { // stop the run and let its last best land first
        QEventLoop settle;
        QObject::connect(learner, &LearnerPanel::finished, &settle,
                         [&] { QTimer::singleShot(1000, &settle, &QEventLoop::quit); });
        QTimer::singleShot(60000, &settle, &QEventLoop::quit);
        learner->controller()->stop();
        settle.exec();
    }
    window.setColourMode(ColourMode::Device); // what a learner's best switches to
    const DocumentPtr now = window.hub()->document();
    // A valid placement (colocation, CPU-only ops) to vary: round-robin's, its GPUs then
    // renumbered cyclically for each new one.
    PlaceContext ctx{*now->graph, *now->cluster, SimOptions{}};
    Placement other = makePlacer("round-robin")->place(ctx).best;
    const int devices = now->cluster->deviceCount();
    const std::function<DocumentPtr()> next = [&] {
        auto doc = std::make_shared<GraphDocument>(*now);
        for (DeviceId& d : other)
            if (now->cluster->device(d).kind == DeviceKind::Gpu) {
                do
                    d = (d + 1) % devices;
                while (now->cluster->device(d).kind != DeviceKind::Gpu);
            }
        doc->placement = other;
        if (const auto problem = placementProblem(*now->graph, *now->cluster, doc->placement))
            std::fprintf(stderr, "probe placement: %s\n", problem->c_str());
        return DocumentPtr(doc);
    };
    measurePanels(window, learner, next);
    // The GPUs renumber cyclically, so every (GPUs)-th placement repeats; the step
    // simulation's own job above had placement 26, and an equal placement is never
    // simulated again (nothing to redo): skip to one that differs from it (39 on 4 GPUs).
    (void)next();
    measureRoutes(window, learner, next, sinceTick);
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_gui_gaps FILE [SECONDS]\n");
        return 2;
    }
    // Scratch settings: the user's (cluster, precision, geometry, autosaves) stay out of it.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("PostStudioBench"));
    QSettings().clear();
    const double seconds = argc > 2 ? std::max(1.0, std::atof(argv[2])) : 20.0;

    MainWindow window;
    window.setInteractiveErrors(false);
    window.resize(1400, 880);
    window.show();
    QElapsedTimer timer;
    timer.start();
    if (!openAndWait(window, argv[1]))
        return 1;
    const DocumentPtr document = window.hub()->document();
    std::printf("%s: %d ops; read and drawn in %.1f s on %s\n", argv[1], document->opCount(), ms(timer) / 1000,
                document->cluster->name().c_str());

    LearnerPanel* learner = window.findChild<LearnerPanel*>();
    QElapsedTimer sinceTick;
    const RunGaps run = measureRunGaps(window, learner, seconds, sinceTick);
    measureNewPlacement(window, learner, run.finished, sinceTick);
    const QString out = qEnvironmentVariable("POST_BENCH_GAPS");
    if (!out.isEmpty()) {
        QFile f(out);
        if (f.open(QIODevice::WriteOnly | QIODevice::Text))
            for (const auto& [t, g] : run.big)
                f.write(QStringLiteral("%1 %2\n").arg(t, 0, 'f', 3).arg(g, 0, 'f', 1).toUtf8());
    }
    return 0;
}
