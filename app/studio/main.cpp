// post-studio [FILE] [--cluster C] [--precision MODE] [--dispatch RULE] [--costs TRACE]... [--costs-partial]
//             [--batch N] [--placement P] [--palette light|dark] [--colour-by WHAT]
//             [--select OP] [--algo A [--samples N] [--time S]] [--compare [--algos LIST] [--samples N] [--time S] [--seeds N]]
//             [--critical-path] [--diff P]
//             [--tab graph|learning|timeline|compare] [--dock learner|hyperparameters|cluster|inspector|devices]
//             [--screenshot OUT.png]
// Thin: parses the command line and shows ui/MainWindow. With --screenshot it opens
// FILE, waits for the layout, saves the window as a PNG and exits (works headless with
// QT_QPA_PLATFORM=offscreen). --algo runs a placer once FILE is shown (with --screenshot:
// to completion, then the window is saved showing the learning curve).
#include "core/run/PlacerRegistry.h"
#include "core/util/AtomicFile.h"
#include "ui/MainWindow.h"
#include "ui/charts/LearningChart.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentLoader.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/session/SessionController.h"
#include "ui/theme/AppPalette.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QMap>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

namespace {

constexpr int kScreenshotTimeoutMs = 300000;

int fail(const QString& message, int code)
{
    std::fprintf(stderr, "post-studio: %s\n", qPrintable(message));
    return code;
}

// A whole-number option >= 1: `fallback` when absent, nullopt (after a message) when invalid.
std::optional<int> positiveOption(const QCommandLineParser& parser, const QCommandLineOption& option, int fallback)
{
    if (!parser.isSet(option))
        return fallback;
    bool ok = false;
    const int value = parser.value(option).toInt(&ok);
    if (ok && value >= 1)
        return value;
    fail(QStringLiteral("--%1 takes a positive whole number").arg(option.names().constFirst()), 2);
    return std::nullopt;
}

// Whether the command line only asks for text (--help, --version): that needs no display.
bool printsOnly(int argc, char* argv[])
{
    static const QByteArrayList kTextOnly = {"-h", "--help", "--help-all", "-?", "-v", "--version"};
    for (int i = 1; i < argc; ++i)
        if (kTextOnly.contains(QByteArray(argv[i])))
            return true;
    return false;
}

// The command line's options (QCommandLineParser keeps references to them).
struct Options {
    QCommandLineOption cluster{QStringLiteral("cluster"), QStringLiteral("Cluster preset name or post-cluster file."),
                               QStringLiteral("C")};
    QCommandLineOption precision{
        QStringLiteral("precision"),
        QStringLiteral("How FP32 matrix products and convolutions run: fp32, tf32, pytorch or amp (post-cli "
                       "--precision)."),
        QStringLiteral("MODE")};
    QCommandLineOption dispatch{QStringLiteral("dispatch"),
                                QStringLiteral("Which ready op an idle device starts: ready or critical-path (post-cli "
                                               "--dispatch)."),
                                QStringLiteral("RULE")};
    QCommandLineOption costs{QStringLiteral("costs"),
                             QStringLiteral("Measured op times for FILE: a torch.profiler trace or post_torch's "
                                            ".costs.json (post-cli --costs; TYPE=FILE for one device type's; may be "
                                            "given more than once)."),
                             QStringLiteral("TRACE")};
    QCommandLineOption costsPartial{
        QStringLiteral("costs-partial"),
        QStringLiteral("Take a --costs trace that covers too little of the graph (post-cli --costs-partial).")};
    QCommandLineOption batch{QStringLiteral("batch"),
                             QStringLiteral("ONNX: batch size given to the symbolic batch dimension (default 1)."),
                             QStringLiteral("N")};
    QCommandLineOption palette{QStringLiteral("palette"),
                               QStringLiteral("Use the Fusion style with a light or dark palette."),
                               QStringLiteral("light|dark")};
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Open FILE, wait for the layout, save the window to OUT.png and exit."),
        QStringLiteral("OUT.png")};
    QCommandLineOption select{QStringLiteral("select"),
                              QStringLiteral("Select (and centre) the op with this name once shown."),
                              QStringLiteral("OP")};
    QCommandLineOption colour{QStringLiteral("colour-by"),
                              QStringLiteral("Node colours: device, type, time or memory."), QStringLiteral("WHAT")};
    QCommandLineOption placement{QStringLiteral("placement"), QStringLiteral("Show this post-placement file of FILE."),
                                 QStringLiteral("P")};
    QCommandLineOption algo{QStringLiteral("algo"),
                            QStringLiteral("Run this placer (post, ce, ppo, m-etf, ...) once FILE is shown."),
                            QStringLiteral("A")};
    QCommandLineOption samples{QStringLiteral("samples"), QStringLiteral("Sample budget for --algo (default 2400)."),
                               QStringLiteral("N")};
    QCommandLineOption time{
        QStringLiteral("time"),
        QStringLiteral("Wall-time budget in seconds of the --algo run, or of each --compare run, as post-cli "
                       "--time: alone it lifts the sample budget to the largest the panels take (1,000,000); "
                       "with --samples a run ends at whichever of them ends first (default none)."),
        QStringLiteral("S")};
    QCommandLineOption compare{
        QStringLiteral("compare"),
        QStringLiteral("Run the comparison (Compare tab) once FILE is shown; with --screenshot, to completion.")};
    QCommandLineOption algos{QStringLiteral("algos"),
                             QStringLiteral("Comma-separated algorithms for --compare (default all)."),
                             QStringLiteral("LIST")};
    QCommandLineOption seeds{QStringLiteral("seeds"), QStringLiteral("Runs per learner for --compare (default 3)."),
                             QStringLiteral("N")};
    QCommandLineOption tab{QStringLiteral("tab"),
                           QStringLiteral("Central tab to show: graph, learning, timeline or compare."),
                           QStringLiteral("NAME")};
    QCommandLineOption dock{
        QStringLiteral("dock"),
        QStringLiteral(
            "Dock to bring to the front: learner, hyperparameters (the learner, unfolded), cluster, inspector or "
            "devices."),
        QStringLiteral("NAME")};
    QCommandLineOption critical{
        QStringLiteral("critical-path"),
        QStringLiteral("Show the critical path of the shown placement's simulated step on the graph.")};
    QCommandLineOption diff{
        QStringLiteral("diff"),
        QStringLiteral("Diff the shown placement with this post-placement or session file once FILE is shown."),
        QStringLiteral("P")};

    QList<QCommandLineOption> all() const
    {
        return {cluster,    precision, dispatch, costs,     costsPartial, batch,    palette,
                screenshot, select,    colour,   placement, algo,         samples,  time,
                compare,    algos,     seeds,    tab,       dock,         critical, diff};
    }
};

// What the command line asks for, checked.
struct Request {
    QString file; // empty: none
    QString screenshot;
    QString algo;
    int samples = 2400;
    double seconds = 0.0; // --time; 0: none
    int seeds = 3;
    int batch = 1;
    bool compare = false;
    QString tab;
    QString dock;
    std::optional<post::ColourMode> colour;
    std::optional<post::PrecisionMode> precision;
    std::optional<post::Dispatch> dispatch;
    QString placement;
    QString diff;
    QString select;
};

// The options that need a FILE, and the values each option takes: the request, or the exit
// code after a message.
std::variant<Request, int> readRequest(const QCommandLineParser& parser, const Options& o)
{
    Request r;
    const QStringList files = parser.positionalArguments();
    if (files.size() > 1)
        return fail(QStringLiteral("give at most one file"), 2);
    r.file = files.value(0);
    if (parser.isSet(o.palette) && !post::applyAppPalette(parser.value(o.palette)))
        return fail(QStringLiteral("--palette takes light or dark"), 2);
    if (!parser.isSet(o.palette) && QSettings().value(QStringLiteral("view/palette")).toString() == "dark")
        post::applyAppPalette(QStringLiteral("dark")); // View > Dark Palette, remembered
    r.screenshot = parser.value(o.screenshot);
    r.algo = parser.value(o.algo);
    r.compare = parser.isSet(o.compare);
    r.placement = parser.value(o.placement);
    r.diff = parser.value(o.diff);
    for (const auto& [given, name] :
         {std::pair{!r.screenshot.isEmpty(), "--screenshot"}, std::pair{!r.algo.isEmpty(), "--algo"},
          std::pair{r.compare, "--compare"}, std::pair{!r.placement.isEmpty(), "--placement"},
          std::pair{!r.diff.isEmpty(), "--diff"}, std::pair{parser.isSet(o.costs), "--costs"}})
        if (given && r.file.isEmpty())
            return fail(QLatin1String(name) + QStringLiteral(" needs a FILE to open"), 2);
    // A session opens as it was saved: its graph read with its options, on its cluster, in its
    // precision and dispatch. These options were ignored there without a word.
    if (!r.file.isEmpty() && post::SessionController::isSessionFile(r.file)) {
        QStringList ignored;
        for (const QCommandLineOption* option : {&o.cluster, &o.precision, &o.dispatch, &o.batch, &o.costs})
            if (parser.isSet(*option))
                ignored << QStringLiteral("--") + option->names().first();
        if (!ignored.isEmpty())
            return fail(r.file
                            + QStringLiteral(" is a session: it opens with the cluster, precision, dispatch and "
                                             "costs it was saved with, so ")
                            + ignored.join(QStringLiteral(", "))
                            + QStringLiteral(" would not apply; change them in the Cluster and Learner docks once "
                                             "it is open"),
                        2);
    }
    if (parser.isSet(o.costsPartial) && !parser.isSet(o.costs))
        return fail(QStringLiteral("--costs-partial needs --costs TRACE"), 2);
    if (!r.algo.isEmpty() && !post::makePlacer(r.algo.toStdString()))
        return fail(QStringLiteral("unknown --algo ") + r.algo, 2);
    const std::optional<int> samples = positiveOption(parser, o.samples, 2400);
    const std::optional<int> seeds = positiveOption(parser, o.seeds, 3);
    const std::optional<int> batch = positiveOption(parser, o.batch, 1);
    if (!samples || !seeds || !batch)
        return 2;
    r.samples = *samples;
    if (parser.isSet(o.time)) {
        bool ok = false;
        r.seconds = parser.value(o.time).toDouble(&ok); // "nan" and "inf" fail the range check below
        if (!ok || !(r.seconds > 0.0 && r.seconds <= 3600.0))
            return fail(QStringLiteral("--time takes seconds from 0 to 3600 (not 0)"), 2);
        if (r.algo.isEmpty() && !parser.isSet(o.compare))
            return fail(QStringLiteral("--time needs --algo or --compare"), 2);
        if (!parser.isSet(o.samples))
            r.samples = post::LearnerPanel::kMaxSamples;
    }
    r.seeds = *seeds;
    r.batch = *batch;
    if (r.compare && !r.algo.isEmpty())
        return fail(QStringLiteral("give --algo or --compare, not both"), 2);
    // --diff P diffs the placement on show once FILE is shown; --algo's run starts then too and
    // replaces that placement with each new best, so which placement the diff is of would
    // depend on timing (and on an unplaced FILE there is none yet: the diff used to fail with
    // no reason given).
    if (!r.diff.isEmpty() && !r.algo.isEmpty())
        return fail(QStringLiteral("--diff and --algo cannot be combined: --diff P diffs the placement shown when FILE "
                                   "opens (--placement, or the one FILE gives) with P, and --algo A's run replaces "
                                   "that placement as it goes; diff the run's result afterwards (File > Diff "
                                   "Placement with File) or give --diff with --placement"),
                    2);
    r.tab = parser.value(o.tab);
    static const QStringList kTabs = {QStringLiteral("graph"), QStringLiteral("learning"), QStringLiteral("timeline"),
                                      QStringLiteral("compare")};
    if (!r.tab.isEmpty() && !kTabs.contains(r.tab))
        return fail(QStringLiteral("--tab takes graph, learning, timeline or compare"), 2);
    r.dock = parser.value(o.dock);
    static const QStringList kDocks = {QStringLiteral("learner"), QStringLiteral("hyperparameters"),
                                       QStringLiteral("cluster"), QStringLiteral("inspector"), QStringLiteral("devices")};
    if (!r.dock.isEmpty() && !kDocks.contains(r.dock))
        return fail(QStringLiteral("--dock takes learner, hyperparameters, cluster, inspector or devices"), 2);
    if (parser.isSet(o.colour)) {
        static const QMap<QString, post::ColourMode> kModes = {{QStringLiteral("device"), post::ColourMode::Device},
                                                               {QStringLiteral("type"), post::ColourMode::OpType},
                                                               {QStringLiteral("time"), post::ColourMode::ComputeTime},
                                                               {QStringLiteral("memory"), post::ColourMode::Memory}};
        if (!kModes.contains(parser.value(o.colour)))
            return fail(QStringLiteral("--colour-by takes device, type, time or memory"), 2);
        r.colour = kModes.value(parser.value(o.colour));
    }
    if (parser.isSet(o.precision) && !(r.precision = post::parsePrecisionMode(parser.value(o.precision).toStdString())))
        return fail(QStringLiteral("--precision takes fp32, tf32, pytorch or amp"), 2);
    if (parser.isSet(o.dispatch) && !(r.dispatch = post::dispatchFromName(parser.value(o.dispatch).toStdString())))
        return fail(QStringLiteral("--dispatch takes ready or critical-path"), 2);
    r.select = parser.value(o.select);
    return r;
}

// Runs `then` once, the first time `signal` of `sender` fires.
template <typename Sender, typename Signal, typename Then>
void once(post::MainWindow& window, Sender* sender, Signal signal, Then then)
{
    auto done = std::make_shared<bool>(false);
    QObject::connect(sender, signal, &window, [done, then] {
        if (!std::exchange(*done, true))
            then();
    });
}

// Brings --tab and --dock to the front.
void arrange(post::MainWindow& window, const Request& r)
{
    if (!r.tab.isEmpty())
        window.showCentralTab(r.tab); // tabs are titled by these names
    if (r.dock == QLatin1String("hyperparameters"))
        window.findChild<post::LearnerPanel*>()->showOptions(true);
    // Docks are named <name>Dock (saveState needs the names); the Devices dock is deviceDock.
    const QString name = r.dock == QLatin1String("hyperparameters") ? QStringLiteral("learner")
        : r.dock == QLatin1String("devices")                        ? QStringLiteral("device")
                                                                    : r.dock;
    QDockWidget* d = r.dock.isEmpty() ? nullptr : window.findChild<QDockWidget*>(name + QStringLiteral("Dock"));
    if (d) {
        d->show();
        d->raise();
    }
}

// What the options do once FILE is shown: --compare, --placement, --diff (a diff that cannot
// be shown sets `diffFailed`), --select, --algo. Nonzero: the exit code after a message.
int followFile(post::MainWindow& window, const Request& r, const QCommandLineParser& parser, const Options& o,
               const std::shared_ptr<bool>& diffFailed)
{
    if (r.compare) {
        auto* comparison = window.findChild<post::ComparisonView*>();
        comparison->setSamples(r.samples);
        comparison->setTimeLimit(r.seconds);
        comparison->setSeeds(r.seeds);
        if (!comparison->setAlgorithms(parser.value(o.algos)))
            return fail(QStringLiteral("--algos: ") + comparison->statusText(), 2);
        once(window, &window, &post::MainWindow::documentShown, [&window, comparison] {
            window.showCentralTab(QStringLiteral("compare"));
            comparison->start();
        });
    }
    if (!r.placement.isEmpty()) // the first document shown is the one the placement is for
        once(window, window.hub(), &post::DocumentHub::documentChanged,
             [&window, path = r.placement] { window.openPlacement(path); });
    // A --diff that cannot be shown (a truncated or foreign placement file) ends the run with
    // exit 1 whatever else succeeds (a --screenshot, the window closed normally).
    if (!r.diff.isEmpty())
        once(window, &window, &post::MainWindow::documentShown, [&window, path = r.diff, diffFailed] {
            const post::DocumentPtr shown = window.hub()->document();
            if (!shown || !shown->isPlaced()) { // nothing to diff: say so, and how to give one
                *diffFailed = true;
                fail(QStringLiteral("--diff %1: the graph opened without a placement to diff it with; give --placement "
                                    "P (or open a file that gives its own placement)")
                         .arg(path),
                     1);
            } else if (!window.diffWithPlacementFile(path)) { // the file's error went to loadFailed
                *diffFailed = true;
                fail(QStringLiteral("--diff: no diff with ") + path, 1);
            }
        });
    if (!r.select.isEmpty())
        QObject::connect(&window, &post::MainWindow::documentShown, &window, [&window, select = r.select] {
            const auto op = window.hub()->document()->graph->find(select.toStdString());
            if (op)
                window.selectOp(*op, true);
            else
                fail(QStringLiteral("no op named ") + select, 0);
        });
    if (!r.algo.isEmpty()) {
        auto* learner = window.findChild<post::LearnerPanel*>();
        learner->setAlgorithm(r.algo);
        learner->setSamples(r.samples); // (which clears the time limit)
        learner->setTimeLimit(r.seconds);
        once(window, &window, &post::MainWindow::documentShown, [learner] { learner->start(); });
    }
    return 0;
}

// --screenshot: errors end the program; once the layout, the run or the comparison is done,
// the window is saved and the program exits (`quitWith`).
void takeScreenshot(QCoreApplication& app, post::MainWindow& window, const Request& r,
                    const std::function<void(int)>& quitWith)
{
    window.setInteractiveErrors(false);
    window.resize(1400, 880);
    QObject::connect(&window, &post::MainWindow::loadFailed, &app,
                     [quitWith](const QString& path, const QString& message) {
                         fail(path + QStringLiteral(": ") + message, 1);
                         quitWith(1);
                     });
    QObject::connect(&window, &post::MainWindow::layoutFailed, &app, [quitWith](const QString& message) {
        fail(QStringLiteral("layout failed: ") + message, 1);
        quitWith(1);
    });
    auto grabSoon = [&app, &window, r, quitWith] {
        // A run brings its own tab forward: --tab and --dock still decide what is saved.
        arrange(window, r);
        // One more turn of the event loop so docks and overlays settle before grabbing.
        QTimer::singleShot(50, &app, [&app, &window, path = r.screenshot, quitWith] {
            // A chart redraws at most every 200 ms: what it was given is drawn before the grab
            // (a restored session's step times were missing from its picture), and its legend,
            // laid out a pass later, gets one more turn.
            for (post::LearningChart* chart : window.findChildren<post::LearningChart*>())
                chart->flush();
            QTimer::singleShot(50, &app, [&window, path, quitWith] {
                if (!window.grab().save(path))
                    quitWith(fail(QStringLiteral("could not write ") + path, 1));
                else
                    quitWith(0);
            });
        });
    };
    if (r.compare)
        QObject::connect(window.findChild<post::ComparisonView*>(), &post::ComparisonView::runFinished, &app, grabSoon);
    else if (r.algo.isEmpty())
        QObject::connect(&window, &post::MainWindow::documentShown, &app, grabSoon);
    else
        QObject::connect(window.findChild<post::LearnerPanel*>(), &post::LearnerPanel::finished, &app, grabSoon);
    QTimer::singleShot(kScreenshotTimeoutMs, &app, [quitWith] {
        fail(QStringLiteral("timed out waiting for the layout or the learner"), 3);
        quitWith(3);
    });
}

// The program; `app` is a QApplication unless the command line only asks for text.
int studio(QCoreApplication& app)
{
    post::removeTemporaryFilesOnSignals(); // a kill during a save leaves no .tmp file
    QApplication::setOrganizationName(QStringLiteral("PostStudio"));
    QApplication::setApplicationName(QStringLiteral("post-studio"));
    QApplication::setApplicationDisplayName(QStringLiteral("Post Studio"));
    QApplication::setApplicationVersion(QStringLiteral(POST_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Post Studio: device placement search for neural-network training."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("file"),
        QStringLiteral("Graph to open (post-graph, ONNX, TensorFlow .pbtxt, PipeDream, MSR, DOT)."),
        QStringLiteral("[FILE]"));
    const Options options;
    parser.addOptions(options.all());
    parser.process(app); // --help and --version print and exit here
    if (!qobject_cast<QApplication*>(&app))
        return fail(QStringLiteral("give --help or --version alone"), 2);
    const std::variant<Request, int> read = readRequest(parser, options);
    if (const int* code = std::get_if<int>(&read))
        return *code;
    const Request& request = std::get<Request>(read);

    post::MainWindow window;
    auto diffFailed = std::make_shared<bool>(false);
    if (const int code = followFile(window, request, parser, options, diffFailed))
        return code;
    if (parser.isSet(options.cluster)) {
        // A cluster that cannot be read is an error here, and never kept in the settings.
        const QString problem = post::DocumentLoader::clusterProblem(parser.value(options.cluster));
        if (!problem.isEmpty())
            return fail(QStringLiteral("--cluster: ") + problem, 1); // bad input, as post-cli: not usage
        window.setClusterName(parser.value(options.cluster));
    }
    if (request.precision)
        window.setPrecision(*request.precision);
    if (request.dispatch)
        window.setDispatch(*request.dispatch);
    if (parser.isSet(options.batch))
        window.setBatch(request.batch);
    if (parser.isSet(options.costs)) // read with the file (a costs file at fault is named, exit 1)
        window.setMeasuredCosts(request.file, {parser.values(options.costs), parser.isSet(options.costsPartial)});
    if (request.colour)
        window.chooseColourMode(*request.colour);
    if (parser.isSet(options.critical))
        window.setCriticalPathShown(true);
    int exitCode = 0;
    const std::function<void(int)> quitWith = [&app, &exitCode](int code) {
        exitCode = code;
        QTimer::singleShot(0, &app, [&app, code] { app.exit(code); });
    };
    if (!request.screenshot.isEmpty())
        takeScreenshot(app, window, request, quitWith); // 1400x880, whatever the screen
    else
        window.fitToScreen(); // a 1280x800 screen shows the whole window
    window.show();
    if (request.screenshot.isEmpty())
        QObject::connect(
            &window, &post::MainWindow::documentShown, &window, [&window, request] { arrange(window, request); },
            Qt::SingleShotConnection);
    if (!request.file.isEmpty())
        window.openFile(request.file);
    const int code = app.exec();
    if (exitCode == 0 && code == 0 && *diffFailed)
        return 1;
    return exitCode != 0 ? exitCode : code;
}

} // namespace

int main(int argc, char* argv[])
{
    // QApplication aborts when there is no display: --help and --version do without one.
    if (printsOnly(argc, argv)) {
        QCoreApplication app(argc, argv);
        return studio(app);
    }
    QApplication app(argc, argv);
    return studio(app);
}
