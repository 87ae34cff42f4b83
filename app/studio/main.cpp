// post-studio [FILE] [--cluster C] [--batch N] [--placement P] [--palette light|dark] [--colour-by WHAT]
//             [--select OP] [--algo A [--samples N]] [--compare [--algos LIST] [--seeds N]]
//             [--critical-path] [--diff P]
//             [--tab graph|learning|timeline|compare] [--dock learner|hyperparameters|cluster|inspector]
//             [--screenshot OUT.png]
// Thin: parses the command line and shows ui/MainWindow. With --screenshot it opens
// FILE, waits for the layout, saves the window as a PNG and exits (works headless with
// QT_QPA_PLATFORM=offscreen). --algo runs a placer once FILE is shown (with --screenshot:
// to completion, then the window is saved showing the learning curve).
#include "core/run/PlacerRegistry.h"
#include "core/util/AtomicFile.h"
#include "ui/AppPalette.h"
#include "ui/MainWindow.h"
#include "ui/compare/ComparisonView.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentLoader.h"
#include "ui/learn/LearnerPanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QMap>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <optional>

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
    const QCommandLineOption clusterOption(
        QStringLiteral("cluster"), QStringLiteral("Cluster preset name or post-cluster file."), QStringLiteral("C"));
    const QCommandLineOption batchOption(
        QStringLiteral("batch"), QStringLiteral("ONNX: batch size given to the symbolic batch dimension (default 1)."),
        QStringLiteral("N"));
    const QCommandLineOption paletteOption(QStringLiteral("palette"),
                                           QStringLiteral("Use the Fusion style with a light or dark palette."),
                                           QStringLiteral("light|dark"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("Open FILE, wait for the layout, save the window to OUT.png and exit."),
        QStringLiteral("OUT.png"));
    const QCommandLineOption selectOption(QStringLiteral("select"),
                                          QStringLiteral("Select (and centre) the op with this name once shown."),
                                          QStringLiteral("OP"));
    const QCommandLineOption colourOption(QStringLiteral("colour-by"),
                                          QStringLiteral("Node colours: device, type, time or memory."),
                                          QStringLiteral("WHAT"));
    const QCommandLineOption placementOption(
        QStringLiteral("placement"), QStringLiteral("Show this post-placement file of FILE."), QStringLiteral("P"));
    const QCommandLineOption algoOption(
        QStringLiteral("algo"), QStringLiteral("Run this placer (post, ce, ppo, m-etf, ...) once FILE is shown."),
        QStringLiteral("A"));
    const QCommandLineOption samplesOption(
        QStringLiteral("samples"), QStringLiteral("Sample budget for --algo (default 2400)."), QStringLiteral("N"));
    const QCommandLineOption compareOption(
        QStringLiteral("compare"),
        QStringLiteral("Run the comparison (Compare tab) once FILE is shown; with --screenshot, to completion."));
    const QCommandLineOption algosOption(QStringLiteral("algos"),
                                         QStringLiteral("Comma-separated algorithms for --compare (default all)."),
                                         QStringLiteral("LIST"));
    const QCommandLineOption seedsOption(
        QStringLiteral("seeds"), QStringLiteral("Runs per learner for --compare (default 3)."), QStringLiteral("N"));
    const QCommandLineOption tabOption(QStringLiteral("tab"),
                                       QStringLiteral("Central tab to show: graph, learning, timeline or compare."),
                                       QStringLiteral("NAME"));
    const QCommandLineOption dockOption(
        QStringLiteral("dock"),
        QStringLiteral(
            "Dock to bring to the front: learner, hyperparameters (the learner, unfolded), cluster or inspector."),
        QStringLiteral("NAME"));
    const QCommandLineOption criticalOption(
        QStringLiteral("critical-path"),
        QStringLiteral("Show the critical path of the shown placement's simulated step on the graph."));
    const QCommandLineOption diffOption(
        QStringLiteral("diff"),
        QStringLiteral("Diff the shown placement with this post-placement or session file once FILE is shown."),
        QStringLiteral("P"));
    parser.addOptions({clusterOption, batchOption, paletteOption, screenshotOption, selectOption, colourOption,
                       placementOption, algoOption, samplesOption, compareOption, algosOption, seedsOption, tabOption,
                       dockOption, criticalOption, diffOption});
    parser.process(app); // --help and --version print and exit here
    if (!qobject_cast<QApplication*>(&app))
        return fail(QStringLiteral("give --help or --version alone"), 2);

    const QStringList files = parser.positionalArguments();
    if (files.size() > 1)
        return fail(QStringLiteral("give at most one file"), 2);
    if (parser.isSet(paletteOption) && !post::applyAppPalette(parser.value(paletteOption)))
        return fail(QStringLiteral("--palette takes light or dark"), 2);
    if (!parser.isSet(paletteOption) && QSettings().value(QStringLiteral("view/palette")).toString() == "dark")
        post::applyAppPalette(QStringLiteral("dark")); // View > Dark Palette, remembered
    const QString screenshot = parser.value(screenshotOption);
    if (!screenshot.isEmpty() && files.isEmpty())
        return fail(QStringLiteral("--screenshot needs a FILE to open"), 2);

    const QString algo = parser.value(algoOption);
    if (!algo.isEmpty() && files.isEmpty())
        return fail(QStringLiteral("--algo needs a FILE to open"), 2);
    if (!algo.isEmpty() && !post::makePlacer(algo.toStdString()))
        return fail(QStringLiteral("unknown --algo ") + algo, 2);
    const std::optional<int> samples = positiveOption(parser, samplesOption, 2400);
    const std::optional<int> seeds = positiveOption(parser, seedsOption, 3);
    const std::optional<int> batch = positiveOption(parser, batchOption, 1);
    if (!samples || !seeds || !batch)
        return 2;

    const bool compare = parser.isSet(compareOption);
    if (compare && files.isEmpty())
        return fail(QStringLiteral("--compare needs a FILE to open"), 2);
    if (compare && !algo.isEmpty())
        return fail(QStringLiteral("give --algo or --compare, not both"), 2);
    const QString tab = parser.value(tabOption);
    static const QStringList kTabs = {QStringLiteral("graph"), QStringLiteral("learning"), QStringLiteral("timeline"),
                                      QStringLiteral("compare")};
    if (!tab.isEmpty() && !kTabs.contains(tab))
        return fail(QStringLiteral("--tab takes graph, learning, timeline or compare"), 2);
    const QString dock = parser.value(dockOption);
    static const QStringList kDocks = {QStringLiteral("learner"), QStringLiteral("hyperparameters"),
                                       QStringLiteral("cluster"), QStringLiteral("inspector")};
    if (!dock.isEmpty() && !kDocks.contains(dock))
        return fail(QStringLiteral("--dock takes learner, hyperparameters, cluster or inspector"), 2);

    post::MainWindow window;
    // The panels the options drive, as the window assembled them.
    auto* comparison = window.findChild<post::ComparisonView*>();
    auto* learner = window.findChild<post::LearnerPanel*>();
    if (compare) {
        comparison->setSamples(*samples);
        comparison->setSeeds(*seeds);
        if (!comparison->setAlgorithms(parser.value(algosOption)))
            return fail(QStringLiteral("--algos: ") + comparison->statusText(), 2);
        auto started = std::make_shared<bool>(false);
        QObject::connect(&window, &post::MainWindow::documentShown, &window, [&window, comparison, started] {
            if (!*started) {
                *started = true;
                window.showCentralTab(QStringLiteral("compare"));
                comparison->start();
            }
        });
    }
    // Tab and dock once the window is set up (a run brings its own tab forward first).
    auto arrange = [&window, learner, tab, dock] {
        if (!tab.isEmpty())
            window.showCentralTab(tab); // tabs are titled by these names
        if (dock == QLatin1String("hyperparameters"))
            learner->showOptions(true);
        // Docks are named <name>Dock (saveState needs the names).
        const QString name = dock == QLatin1String("hyperparameters") ? QStringLiteral("learner") : dock;
        QDockWidget* d = dock.isEmpty() ? nullptr : window.findChild<QDockWidget*>(name + QStringLiteral("Dock"));
        if (d) {
            d->show();
            d->raise();
        }
    };
    if (parser.isSet(clusterOption)) {
        // A cluster that cannot be read is an error here, and never kept in the settings.
        const QString problem = post::DocumentLoader::clusterProblem(parser.value(clusterOption));
        if (!problem.isEmpty())
            return fail(QStringLiteral("--cluster: ") + problem, 1); // bad input, as post-cli: not usage
        window.setClusterName(parser.value(clusterOption));
    }
    if (parser.isSet(batchOption))
        window.setBatch(*batch);
    if (parser.isSet(colourOption)) {
        static const QMap<QString, post::ColourMode> kModes = {{QStringLiteral("device"), post::ColourMode::Device},
                                                               {QStringLiteral("type"), post::ColourMode::OpType},
                                                               {QStringLiteral("time"), post::ColourMode::ComputeTime},
                                                               {QStringLiteral("memory"), post::ColourMode::Memory}};
        const QString name = parser.value(colourOption);
        if (!kModes.contains(name))
            return fail(QStringLiteral("--colour-by takes device, type, time or memory"), 2);
        window.chooseColourMode(kModes.value(name));
    }

    const QString placement = parser.value(placementOption);
    if (!placement.isEmpty() && files.isEmpty())
        return fail(QStringLiteral("--placement needs a FILE to open"), 2);
    if (!placement.isEmpty()) {
        // Once per run: the first document shown is the one the placement is for.
        auto applied = std::make_shared<bool>(false);
        QObject::connect(window.hub(), &post::DocumentHub::documentChanged, &window, [&window, placement, applied] {
            if (!*applied) {
                *applied = true;
                window.openPlacement(placement);
            }
        });
    }
    if (parser.isSet(criticalOption))
        window.setCriticalPathShown(true);
    const QString diff = parser.value(diffOption);
    if (!diff.isEmpty() && files.isEmpty())
        return fail(QStringLiteral("--diff needs a FILE to open"), 2);
    // A --diff that cannot be shown (a truncated or foreign placement file) ends the run with
    // exit 1 whatever else succeeds (a --screenshot, the window closed normally).
    auto diffFailed = std::make_shared<bool>(false);
    if (!diff.isEmpty()) {
        auto diffed = std::make_shared<bool>(false);
        QObject::connect(&window, &post::MainWindow::documentShown, &window, [&window, diff, diffed, diffFailed] {
            if (!*diffed) {
                *diffed = true;
                if (!window.diffWithPlacementFile(diff)) {
                    *diffFailed = true;
                    fail(QStringLiteral("--diff: no diff with ") + diff, 1);
                }
            }
        });
    }
    const QString select = parser.value(selectOption);
    if (!select.isEmpty()) {
        QObject::connect(&window, &post::MainWindow::documentShown, &window, [&window, select] {
            const auto op = window.hub()->document()->graph->find(select.toStdString());
            if (op)
                window.selectOp(*op, true);
            else
                fail(QStringLiteral("no op named ") + select, 0);
        });
    }
    if (!algo.isEmpty()) {
        learner->setAlgorithm(algo);
        learner->setSamples(*samples);
        auto started = std::make_shared<bool>(false);
        QObject::connect(&window, &post::MainWindow::documentShown, &window, [learner, started] {
            if (!*started) {
                *started = true;
                learner->start();
            }
        });
    }
    int exitCode = 0;
    // Outside the block below: the lambdas connected there call it later.
    auto quitWith = [&](int code) {
        exitCode = code;
        QTimer::singleShot(0, &app, [&app, code] { app.exit(code); });
    };
    if (!screenshot.isEmpty()) {
        window.setInteractiveErrors(false);
        window.resize(1400, 880);
        QObject::connect(&window, &post::MainWindow::loadFailed, &app, [&](const QString& path, const QString& message) {
            fail(path + QStringLiteral(": ") + message, 1);
            quitWith(1);
        });
        QObject::connect(&window, &post::MainWindow::layoutFailed, &app, [&](const QString& message) {
            fail(QStringLiteral("layout failed: ") + message, 1);
            quitWith(1);
        });
        auto grabSoon = [&app, &window, &screenshot, &quitWith, arrange] {
            // A run brings its own tab forward: --tab and --dock still decide what is saved.
            arrange();
            // One more turn of the event loop so docks and overlays settle before grabbing.
            QTimer::singleShot(50, &app, [&] {
                if (!window.grab().save(screenshot))
                    quitWith(fail(QStringLiteral("could not write ") + screenshot, 1));
                else
                    quitWith(0);
            });
        };
        if (compare)
            QObject::connect(comparison, &post::ComparisonView::runFinished, &app, grabSoon);
        else if (algo.isEmpty())
            QObject::connect(&window, &post::MainWindow::documentShown, &app, grabSoon);
        else
            QObject::connect(learner, &post::LearnerPanel::finished, &app, grabSoon);
        QTimer::singleShot(kScreenshotTimeoutMs, &app, [&] {
            fail(QStringLiteral("timed out waiting for the layout or the learner"), 3);
            quitWith(3);
        });
    }
    window.show();
    if (screenshot.isEmpty())
        QObject::connect(&window, &post::MainWindow::documentShown, &window, arrange, Qt::SingleShotConnection);
    if (!files.isEmpty())
        window.openFile(files.first());
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
