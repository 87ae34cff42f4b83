// The learner in the desktop app against post-cli on identical work (issue 28 item 2,
// docs/performance.md, "The GUI learner against the CLI"): the same graph, cluster,
// algorithm, sample budget and seed, run
//   1. through the CLI's path: makePlacer + place() on the calling thread, as `post-cli place`;
//   2. through the GUI's path: the whole main window, the learner panel's Start (its worker
//      thread, its snapshots feeding the learning chart, new bests recolouring the graph),
//      with the reference lines (the classical placers) computed before the learner as the
//      app does, and timed apart from the learner's own run.
// Prints, for each, the placer's wall time and samples per second, the process's CPU time
// and the CPU time of the threads that ran the search, the result (identical runs give the
// identical best), and the load average: on a shared machine the wall times move with it,
// CPU times much less.
//   bench_gui_learner_speed [GRAPH] [--cluster C] [--algo A] [--samples N] [--seed S] [--rounds R]
// GRAPH defaults to PipeDream's nasnetamobile under the shared data folder; QT_QPA_PLATFORM=
// offscreen works. --dirty runs the CLI path a second time with the calling thread's upper AVX
// state made dirty first (core/util/VectorState.h): the cost of the state the GUI thread had.
#include "core/place/Placer.h"
#include "core/run/PlacerRegistry.h"
#include "core/util/VectorState.h"
#include "ui/MainWindow.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/LearnerController.h"
#include "ui/learn/LearnerOptionsEditor.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/learn/SamplePlacements.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

using namespace post;

namespace {

struct Args {
    QString graph;
    std::string cluster = "k80x4";
    std::string algo = "post";
    int samples = 2400;
    std::uint64_t seed = 1;
    int rounds = 1;
    bool dirty = false;
    bool cli = true;
    bool gui = true;
    bool worker = true;
};

double processCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
        + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// CPU seconds per thread name, threads alive now (/proc/self/task/*/stat; clock ticks).
std::map<std::string, double> threadCpuByName()
{
    std::map<std::string, double> out;
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    for (const QString& tid : QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        std::ifstream in(("/proc/self/task/" + tid + "/stat").toStdString());
        std::string line;
        std::getline(in, line);
        const auto open = line.find('(');
        const auto close = line.rfind(')');
        if (open == std::string::npos || close == std::string::npos)
            continue;
        const std::string name = line.substr(open + 1, close - open - 1);
        std::istringstream rest(line.substr(close + 2));
        std::string field;
        double utime = 0, stime = 0;
        for (int i = 3; i <= 15 && rest >> field; ++i) {
            if (i == 14)
                utime = std::atof(field.c_str());
            if (i == 15)
                stime = std::atof(field.c_str());
        }
        out[name] += (utime + stime) / tick;
    }
    return out;
}

double loadAverage()
{
    double load[1] = {0.0};
    return getloadavg(load, 1) == 1 ? load[0] : 0.0;
}

struct Figures {
    double wallS = 0.0; // the placer's own wall time (PlaceResult::wallSeconds)
    double jobS = 0.0;  // the whole job (GUI: reference lines included)
    double cpuS = 0.0;  // the process's CPU time over the job
    int samples = 0;
    double bestMs = 0.0;
    std::size_t bestHash = 0;
};

std::size_t hashOf(const Placement& p)
{
    std::size_t h = p.size();
    for (DeviceId d : p)
        h = h * 1000003u + static_cast<std::size_t>(d);
    return h;
}

void print(const char* what, const Figures& f, double load)
{
    std::printf("  %-34s placer %6.2f s  %7.0f samples/s  (job %6.2f s, process CPU %6.2f s)  %d samples, best "
                "%.3f ms [%zx]  load %.1f\n",
                what, f.wallS, f.samples / std::max(f.wallS, 1e-9), f.jobS, f.cpuS, f.samples, f.bestMs,
                f.bestHash & 0xffffff, load);
}

Figures runCli(const Graph& graph, const Cluster& cluster, const Args& a, const LearnerOptions& options)
{
    Figures f;
    const double cpu0 = processCpuSeconds();
    QElapsedTimer timer;
    timer.start();
    std::unique_ptr<Placer> placer = makePlacer(a.algo, options);
    PlaceContext ctx{graph, cluster, SimOptions{}};
    ctx.samples = a.samples;
    ctx.seconds = 0.0;
    ctx.seed = a.seed;
    const PlaceResult r = placer->place(ctx);
    f.jobS = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    f.cpuS = processCpuSeconds() - cpu0;
    f.wallS = r.wallSeconds;
    f.samples = r.samplesUsed;
    f.bestMs = r.bestStepTimeUs / 1000.0;
    f.bestHash = hashOf(r.best);
    return f;
}

Figures runGui(MainWindow& window, const Args& a, std::map<std::string, double>& threadCpu)
{
    Figures f;
    auto* learner = window.findChild<LearnerPanel*>();
    learner->setAlgorithm(QString::fromStdString(a.algo));
    learner->setSamples(a.samples);
    learner->setTimeLimit(0.0);
    learner->setSeed(a.seed);
    const std::map<std::string, double> before = threadCpuByName();
    const double cpu0 = processCpuSeconds();
    QElapsedTimer timer;
    timer.start();
    QEventLoop loop;
    LearnerOutcome outcome;
    QObject::connect(learner, &LearnerPanel::finished, &loop, [&](const LearnerOutcome& o) {
        outcome = o;
        loop.quit();
    });
    QTimer::singleShot(600000, &loop, &QEventLoop::quit);
    learner->start();
    loop.exec();
    f.jobS = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    f.cpuS = processCpuSeconds() - cpu0;
    f.wallS = outcome.result.wallSeconds;
    f.samples = outcome.result.samplesUsed;
    f.bestMs = outcome.result.bestStepTimeUs / 1000.0;
    f.bestHash = hashOf(outcome.result.best);
    for (const auto& [name, seconds] : threadCpuByName()) {
        const auto it = before.find(name);
        threadCpu[name] += seconds - (it == before.end() ? 0.0 : it->second);
    }
    QObject::disconnect(learner, &LearnerPanel::finished, &loop, nullptr);
    return f;
}

// The panel's run without the window: the request LearnerPanel::start() makes (its options,
// a store for the sampled placements), on the learner's worker thread at background
// priority, without the reference lines (the classical placers the chart draws).
Figures runWorker(const DocumentPtr& document, const Args& a, const LearnerOptions& options,
                  std::map<std::string, double>& threadCpu)
{
    Figures f;
    LearnerController controller;
    LearnerRequest request;
    request.document = document;
    request.algorithm = a.algo;
    request.samples = a.samples;
    request.seed = a.seed;
    request.options = options;
    request.samplePlacements = std::make_shared<SamplePlacements>();
    request.classicalReference = false;
    const std::map<std::string, double> before = threadCpuByName();
    const double cpu0 = processCpuSeconds();
    QElapsedTimer timer;
    timer.start();
    QEventLoop loop;
    LearnerOutcome outcome;
    QObject::connect(&controller, &LearnerController::finished, &loop, [&](const LearnerOutcome& o) {
        outcome = o;
        loop.quit();
    });
    controller.start(request);
    loop.exec();
    f.jobS = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    f.cpuS = processCpuSeconds() - cpu0;
    f.wallS = outcome.result.wallSeconds;
    f.samples = outcome.result.samplesUsed;
    f.bestMs = outcome.result.bestStepTimeUs / 1000.0;
    f.bestHash = hashOf(outcome.result.best);
    for (const auto& [name, seconds] : threadCpuByName()) {
        const auto it = before.find(name);
        threadCpu[name] += seconds - (it == before.end() ? 0.0 : it->second);
    }
    return f;
}

Args parse(int argc, char* argv[])
{
    Args a;
    a.graph = QStringLiteral(POST_SHARED_DATA_DIR "/pipedream/nasnetamobile/graph.txt");
    for (int i = 1; i < argc; ++i) {
        const auto next = [&] { return i + 1 < argc ? argv[++i] : ""; };
        if (!std::strcmp(argv[i], "--cluster"))
            a.cluster = next();
        else if (!std::strcmp(argv[i], "--algo"))
            a.algo = next();
        else if (!std::strcmp(argv[i], "--samples"))
            a.samples = std::atoi(next());
        else if (!std::strcmp(argv[i], "--seed"))
            a.seed = std::strtoull(next(), nullptr, 10);
        else if (!std::strcmp(argv[i], "--rounds"))
            a.rounds = std::max(1, std::atoi(next()));
        else if (!std::strcmp(argv[i], "--dirty"))
            a.dirty = true;
        else if (!std::strcmp(argv[i], "--gui-only"))
            a.cli = false;
        else if (!std::strcmp(argv[i], "--window-only"))
            a.cli = a.worker = false;
        else if (!std::strcmp(argv[i], "--cli-only"))
            a.gui = false;
        else
            a.graph = QString::fromLocal8Bit(argv[i]);
    }
    return a;
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // scratch settings: the user's stay out of it
    QCoreApplication::setOrganizationName(QStringLiteral("PostStudioBench"));
    QSettings().clear();
    const Args a = parse(argc, argv);
    if (!QFile::exists(a.graph)) {
        std::fprintf(stderr, "%s: no such file (give a graph file)\n", qPrintable(a.graph));
        return 2;
    }

    MainWindow window;
    window.setInteractiveErrors(false);
    window.resize(1400, 880);
    window.show();
    if (!window.setClusterName(QString::fromStdString(a.cluster))) {
        std::fprintf(stderr, "%s: no such cluster\n", a.cluster.c_str());
        return 2;
    }
    {
        QSignalSpy shown(&window, &MainWindow::documentShown);
        window.openFile(a.graph);
        QEventLoop wait;
        QObject::connect(&window, &MainWindow::documentShown, &wait, &QEventLoop::quit);
        QObject::connect(&window, &MainWindow::loadFailed, &wait, &QEventLoop::quit);
        QTimer::singleShot(300000, &wait, &QEventLoop::quit);
        wait.exec();
        if (shown.isEmpty()) {
            std::fprintf(stderr, "%s: not shown\n", qPrintable(a.graph));
            return 1;
        }
    }
    const DocumentPtr doc = window.hub()->document();
    const Graph& graph = *doc->graph;
    const Cluster& cluster = *doc->cluster;
    // The options the GUI's run gets: the hyperparameter editor's, as the panel reads them.
    const LearnerOptions options = LearnerOptionsEditor().options();
    std::printf("%s: %d ops on %s; %s, %d samples, seed %llu; %d cores, GUI thread's upper AVX state %s\n",
                qPrintable(a.graph), graph.opCount(), cluster.name().c_str(), a.algo.c_str(), a.samples,
                static_cast<unsigned long long>(a.seed), QThread::idealThreadCount(),
                !canReadVectorState()         ? "unknown"
                    : upperVectorStateDirty() ? "dirty"
                                              : "clean");
    for (int round = 0; round < a.rounds; ++round) {
        std::map<std::string, double> threads;
        Figures cli, gui;
        if (a.cli) {
            cli = runCli(graph, cluster, a, options);
            print("CLI path (calling thread)", cli, loadAverage());
        }
        if (a.gui && a.worker) {
            std::map<std::string, double> workerThreads;
            const Figures worker = runWorker(doc, a, options, workerThreads);
            print("GUI worker (no window)", worker, loadAverage());
            std::printf("    worker threads' CPU:");
            for (const auto& [name, seconds] : workerThreads)
                if (seconds >= 0.01)
                    std::printf(" %s %.2f s;", name.c_str(), seconds);
            std::printf("\n");
            if (a.cli)
                std::printf("    worker/CLI placer wall %.2fx, identical result: %s\n",
                            worker.wallS / std::max(cli.wallS, 1e-9),
                            worker.bestHash == cli.bestHash && worker.samples == cli.samples ? "yes" : "NO");
        }
        if (a.gui) {
            gui = runGui(window, a, threads);
            print("GUI window (learner panel)", gui, loadAverage());
            std::printf("    GUI threads' CPU:");
            for (const auto& [name, seconds] : threads)
                if (seconds >= 0.01)
                    std::printf(" %s %.2f s;", name.c_str(), seconds);
            std::printf("\n");
        }
        if (a.cli && a.gui)
            std::printf("    window/CLI placer wall %.2fx, identical result: %s\n", gui.wallS / std::max(cli.wallS, 1e-9),
                        gui.bestHash == cli.bestHash && gui.samples == cli.samples ? "yes" : "NO");
        if (a.dirty) {
            dirtyUpperVectorState();
            const Figures d = runCli(graph, cluster, a, options);
            print("CLI path, upper AVX state dirty", d, loadAverage());
            clearUpperVectorState();
        }
    }
    return 0;
}
