#include "ui/MainWindow.h"

#include "ui/charts/LearningChart.h"
#include "ui/charts/RunChartLink.h"
#include "ui/compare/ComparisonModel.h"
#include "ui/compare/ComparisonView.h"
#include "ui/compare/PlacementDiff.h"
#include "ui/document/DocumentHub.h"
#include "ui/document/DocumentLoader.h"
#include "ui/document/GraphFileFilters.h"
#include "ui/document/RecentFiles.h"
#include "ui/document/StepSimulation.h"
#include "ui/export/ExportMenu.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/import/InputDimensionsDialog.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/layout/LayoutController.h"
#include "ui/layout/LayoutEngine.h"
#include "ui/learn/BestPlacementFeed.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/panels/DeviceTablePanel.h"
#include "ui/panels/OpTablePanel.h"
#include "ui/session/RunRecorder.h"
#include "ui/session/SessionAutosave.h"
#include "ui/session/SessionController.h"
#include "ui/theme/AppPalette.h"
#include "ui/theme/ViewTheme.h"
#include "ui/timeline/StepStatusLabel.h"
#include "ui/timeline/TimelinePanel.h"
#include "ui/timeline/TimelineView.h"

#include "core/cost/HostDispatch.h"
#include "core/cost/OpTime.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/PlacementFile.h"
#include "core/util/InputError.h"
#include "ui/util/ElidingLabel.h"
#include "ui/util/ErrorText.h"
#include "ui/util/Format.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <limits>
#include <tuple>
#include <utility>

namespace post {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , hub_(new DocumentHub(this))
{
    setWindowTitle(tr("Post Studio"));
    setAcceptDrops(true);
    setDockOptions(AnimatedDocks | AllowTabbedDocks | AllowNestedDocks);
    resize(1400, 880);

    createPanels();
    followDocuments();
    createActions();
    createMenus();
    createToolBar();
    createStatusBar();
    createLearner();
    createTimeline();
    createSession();
    createClusterTools();
    createDiffTools();

    connect(hub_, &DocumentHub::loadFailed, this, &MainWindow::reportError);
    connect(hub_, &DocumentHub::loadProgress, this, &MainWindow::showLoadProgress);

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    const QString cluster = settings.value(QStringLiteral("cluster")).toString();
    if (!cluster.isEmpty()) {
        const QString problem = DocumentLoader::clusterProblem(cluster);
        if (problem.isEmpty()) {
            hub_->setClusterName(cluster);
        } else { // e.g. a cluster file edited or deleted since: not every launch should fail
            settings.remove(QStringLiteral("cluster"));
            setStatus(tr("The cluster kept from last time cannot be read: %1").arg(problem));
        }
    }
    learner_->setClusterName(hub_->clusterName());
    if (const auto mode = parsePrecisionMode(settings.value(QStringLiteral("precision")).toString().toStdString())) {
        hub_->setPrecision(*mode);
        learner_->setPrecision(*mode);
    }
    if (const auto dispatch = dispatchFromName(settings.value(QStringLiteral("dispatch")).toString().toStdString())) {
        hub_->setDispatch(*dispatch);
        learner_->setDispatch(*dispatch);
    }
    hub_->setBatch(std::max<qlonglong>(1, settings.value(QStringLiteral("import/batch"), 1).toLongLong()));
}

namespace {

// Room for the window manager's title bar and borders, which a window does not know before
// it is first shown.
constexpr int kFrameWidth = 16;
constexpr int kFrameHeight = 40;

} // namespace

QSize MainWindow::fittedSize(QSize wanted, QSize available)
{
    return {std::max(1, std::min(wanted.width(), available.width() - kFrameWidth)),
            std::max(1, std::min(wanted.height(), available.height() - kFrameHeight))};
}

void MainWindow::fitToScreen()
{
    const QScreen* shown = screen();
    if (!shown)
        return;
    const QRect available = shown->availableGeometry();
    const QSize size = fittedSize(this->size(), available.size());
    if (size != this->size())
        resize(size);
    // Onto the screen: a window whose frame would leave it is centred on it (at its top left
    // when even the window's minimum size is larger).
    const QRect frame(pos(), this->size() + QSize(kFrameWidth, kFrameHeight));
    if (!available.contains(frame))
        move(available.x() + std::max(0, (available.width() - frame.width()) / 2),
             available.y() + std::max(0, (available.height() - frame.height()) / 2));
}

MainWindow::~MainWindow()
{
    // Diff windows (children) outlive the panels in ~QWidget: they must not call back.
    for (PlacementDiffDialog* dialog : findChildren<PlacementDiffDialog*>())
        dialog->disconnect();
}

void MainWindow::createPanels()
{
    graphPanel_ = new GraphPanel(this);
    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    tabs_->tabBar()->setAutoHide(true); // one tab: no tab bar
    tabs_->addTab(graphPanel_, tr("Graph"));
    setCentralWidget(tabs_);

    inspector_ = new InspectorPanel(this);
    opTable_ = new OpTablePanel(this);
    deviceTable_ = new DeviceTablePanel(this);

    inspectorDock_ = newDock(tr("Inspector"), QStringLiteral("inspectorDock"), inspector_);
    inspectorDock_->setMinimumWidth(260);
    opTableDock_ = newDock(tr("Ops"), QStringLiteral("opTableDock"), opTable_);
    deviceDock_ = newDock(tr("Devices"), QStringLiteral("deviceDock"), deviceTable_);

    // Panels menu entries are added as docks are added; the menu is created later.
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);
    addDockWidget(Qt::BottomDockWidgetArea, opTableDock_);
    tabifyDockWidget(opTableDock_, deviceDock_);
    opTableDock_->raise();
    resizeDocks({inspectorDock_}, {320}, Qt::Horizontal);
    resizeDocks({opTableDock_}, {210}, Qt::Vertical);

    connect(graphPanel_, &GraphPanel::opSelected, this, [this](OpId op) { selectOp(op, false); });
    connect(opTable_, &OpTablePanel::opSelected, this, [this](OpId op) { selectOp(op, true); });
    connect(inspector_, &InspectorPanel::opActivated, this, [this](OpId op) { selectOp(op, true); });
    connect(graphPanel_, &GraphPanel::layoutBusyChanged, this, &MainWindow::updateBusy);
    connect(graphPanel_, &GraphPanel::layoutApplied, this, [this] {
        if (statusText_->text() == tr("Layout cancelled")) // a later layout (an expand) made it
            setStatus(idleStatus());
        updateSummary();
        updateBusy();
        emit documentShown();
    });
    connect(graphPanel_, &GraphPanel::layoutFailed, this, [this](const QString& message) {
        reportError(hub_->document() ? hub_->document()->path : QString(), tr("layout failed: %1").arg(message));
        emit layoutFailed(message);
    });
    connect(graphPanel_, &GraphPanel::layoutCancelled, this, [this] { setStatus(tr("Layout cancelled")); });
}

void MainWindow::followDocuments()
{
    // In this order: the window's title and colour mode, the central panels, then the
    // status bar (which reads what the graph panel started). Panels created later
    // (learner, timeline, cluster editor, comparison, session) connect after these.
    connect(hub_, &DocumentHub::documentChanged, this, &MainWindow::expireStatus);
    connect(hub_, &DocumentHub::documentChanged, this, &MainWindow::documentArriving);
    connect(hub_, &DocumentHub::documentChanged, graphPanel_, &GraphPanel::showDocument);
    connect(hub_, &DocumentHub::documentChanged, opTable_, &OpTablePanel::setDocument);
    deviceTable_->followHub(hub_);
    connect(hub_, &DocumentHub::documentChanged, inspector_, &InspectorPanel::setDocument);
    connect(hub_, &DocumentHub::documentChanged, this, &MainWindow::documentArrived);
}

void MainWindow::createActions()
{
    openAction_ = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this);
    openAction_->setShortcut(QKeySequence::Open);
    openAction_->setToolTip(tr("Open a graph (Post Studio, ONNX, TensorFlow GraphDef .pbtxt, PipeDream, MSR or DOT)"));
    connect(openAction_, &QAction::triggered, this, &MainWindow::openDialog);

    openPlacementAction_ = new QAction(tr("Open &Placement…"), this);
    openPlacementAction_->setToolTip(tr("Show a post-placement file of this graph"));
    openPlacementAction_->setEnabled(false);
    connect(openPlacementAction_, &QAction::triggered, this, &MainWindow::openPlacementDialog);

    batchAction_ = new QAction(tr("&Batch Size…"), this);
    batchAction_->setToolTip(tr("The batch size an ONNX model's symbolic batch dimension gets"));
    batchAction_->setEnabled(false);
    connect(batchAction_, &QAction::triggered, this, &MainWindow::batchDialog);
    costsAction_ = new QAction(tr("Measured &Costs…"), this);
    costsAction_->setObjectName(QStringLiteral("measuredCosts"));
    costsAction_->setToolTip(tr("Read the graph again with the op times of a torch.profiler trace or a post_torch "
                                ".costs.json file of its run (post-cli --costs)"));
    costsAction_->setEnabled(false);
    connect(costsAction_, &QAction::triggered, this, &MainWindow::measuredCostsDialog);
    forgetCostsAction_ = new QAction(tr("Forget Measured Costs"), this);
    forgetCostsAction_->setObjectName(QStringLiteral("forgetMeasuredCosts"));
    forgetCostsAction_->setToolTip(tr("Read the graph again with its estimated costs"));
    forgetCostsAction_->setEnabled(false);
    connect(forgetCostsAction_, &QAction::triggered, this, [this] {
        if (const DocumentPtr document = hub_->document())
            setMeasuredCosts(document->path, {});
    });
    connect(hub_, &DocumentHub::loadFailed, this, [this](const QString& path) {
        if (!costsTriedFor_.isEmpty() && QFileInfo(path) == QFileInfo(costsTriedFor_))
            hub_->setCosts(costsTriedFor_, costsBefore_); // the graph shown keeps what it was read with
        costsTriedFor_.clear();
    });
    dimensionsPrompt_ = new InputDimensionsPrompt(hub_, this); // asks when a model leaves input dimensions open
    connect(dimensionsPrompt_, &InputDimensionsPrompt::reopenRequested, this, [this](const QString& path) {
        if (session_->confirmReplace(SessionController::Replace::Reread, tr("with the input dimensions given")))
            readFile(path);
    });

    closeAction_ = new QAction(tr("&Close"), this);
    closeAction_->setObjectName(QStringLiteral("closeDocument"));
    closeAction_->setShortcut(Qt::CTRL | Qt::Key_W);
    closeAction_->setToolTip(tr("Close the graph (asks first when its learning run is in no session file)"));
    closeAction_->setEnabled(false);
    connect(closeAction_, &QAction::triggered, this, &MainWindow::closeDocument);

    quitAction_ = new QAction(tr("&Quit"), this);
    quitAction_->setObjectName(QStringLiteral("quit"));
    quitAction_->setShortcut(QKeySequence::Quit);
    quitAction_->setMenuRole(QAction::QuitRole);
    quitAction_->setToolTip(tr("Close every Post Studio window (each with an unsaved run asks first)"));
    connect(quitAction_, &QAction::triggered, this, &MainWindow::quit);

    fitAction_ = new QAction(tr("&Fit to Window"), this);
    fitAction_->setShortcut(Qt::CTRL | Qt::Key_0);
    connect(fitAction_, &QAction::triggered, graphPanel_, &GraphPanel::fitToWindow);

    actualSizeAction_ = new QAction(tr("&Actual Size"), this);
    actualSizeAction_->setShortcut(Qt::CTRL | Qt::Key_1);
    connect(actualSizeAction_, &QAction::triggered, graphPanel_, &GraphPanel::actualSize);

    overviewAction_ = new QAction(tr("&Overview"), this);
    overviewAction_->setCheckable(true);
    overviewAction_->setChecked(QSettings().value(QStringLiteral("view/overview"), true).toBool());
    overviewAction_->setToolTip(tr("Bird's-eye view of large graphs"));
    graphPanel_->setOverviewWanted(overviewAction_->isChecked());
    connect(overviewAction_, &QAction::toggled, this, [this](bool on) {
        graphPanel_->setOverviewWanted(on);
        QSettings().setValue(QStringLiteral("view/overview"), on);
    });

    criticalPathAction_ = new QAction(tr("Show &Critical Path"), this);
    criticalPathAction_->setObjectName(QStringLiteral("showCriticalPath"));
    criticalPathAction_->setIconText(tr("Critical Path"));
    criticalPathAction_->setCheckable(true);
    criticalPathAction_->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_C);
    criticalPathAction_->setToolTip(tr("Outline the ops and edges of the simulated step's critical path on the graph; "
                                       "boxes and scopes count the ops of it they hold"));
    criticalPathAction_->setChecked(QSettings().value(QStringLiteral("view/criticalPath"), false).toBool());
    connect(criticalPathAction_, &QAction::toggled, this, [this](bool on) {
        graphPanel_->scene()->setCriticalPathShown(on);
        if (!settingCriticalPath_) // the user's choice, kept for next time
            QSettings().setValue(QStringLiteral("view/criticalPath"), on);
    });
    graphPanel_->scene()->setCriticalPathShown(criticalPathAction_->isChecked());

    findAction_ = new QAction(tr("&Find Op…"), this);
    findAction_->setShortcut(QKeySequence::Find);
    connect(findAction_, &QAction::triggered, graphPanel_, &GraphPanel::showSearch);

    groupingGroup_ = new QActionGroup(this);
    const std::pair<Grouping, QString> groupings[] = {{Grouping::Auto, tr("&Automatic")},
                                                      {Grouping::Ops, tr("&Every Op")},
                                                      {Grouping::Groups, tr("&Groups")},
                                                      {Grouping::Scopes, tr("Name &Scopes")}};
    for (const auto& [grouping, label] : groupings) {
        auto* action = new QAction(label, groupingGroup_);
        action->setCheckable(true);
        action->setData(static_cast<int>(grouping));
        action->setChecked(grouping == graphPanel_->grouping());
    }
    groupingGroup_->actions().at(0)->setToolTip(
        tr("Every op when the graph is small and its edges short; above 300 ops with name scopes, one box per "
           "scope; else one box per colocation group or chain"));
    connect(groupingGroup_, &QActionGroup::triggered, this,
            [this](QAction* action) { graphPanel_->setGrouping(static_cast<Grouping>(action->data().toInt())); });

    colourGroup_ = new QActionGroup(this);
    for (ColourMode mode : kColourModes) {
        auto* action = new QAction(toString(mode), colourGroup_);
        action->setCheckable(true);
        action->setData(static_cast<int>(mode));
        action->setChecked(mode == graphPanel_->colourMode());
    }
    connect(colourGroup_, &QActionGroup::triggered, this,
            [this](QAction* action) { chooseColourMode(static_cast<ColourMode>(action->data().toInt())); });
}

void MainWindow::createMenus()
{
    QMenu* file = fileMenu_ = menuBar()->addMenu(tr("&File"));
    file->addAction(openAction_);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addAction(openPlacementAction_);
    file->addAction(batchAction_);
    file->addAction(dimensionsPrompt_->action());
    file->addAction(costsAction_);
    file->addAction(forgetCostsAction_);
    clusterMenu_ = file->addMenu(tr("&Cluster"));
    connect(clusterMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildClusterMenu);
    rebuildClusterMenu();
    exportMenu_ = file->addMenu(tr("&Export"));
    exportMenu_->setObjectName(QStringLiteral("exportMenu"));
    file->addSeparator();
    file->addAction(closeAction_);
    file->addAction(quitAction_);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(fitAction_);
    view->addAction(actualSizeAction_);
    view->addSeparator();
    QMenu* colour = view->addMenu(tr("&Colour By"));
    colour->addActions(colourGroup_->actions());
    QMenu* show = view->addMenu(tr("&Show"));
    show->addActions(groupingGroup_->actions());
    view->addAction(overviewAction_);
    view->addAction(criticalPathAction_);
    view->addAction(findAction_);
    QAction* dark = view->addAction(tr("&Dark Palette"));
    dark->setObjectName(QStringLiteral("darkPalette"));
    dark->setCheckable(true);
    dark->setChecked(ViewTheme::isDark(QApplication::palette()));
    connect(dark, &QAction::toggled, this, [](bool on) {
        const QString name = on ? QStringLiteral("dark") : QStringLiteral("light");
        applyAppPalette(name);
        QSettings().setValue(QStringLiteral("view/palette"), name); // post-studio starts with it
    });
    view->addSeparator();
    panelsMenu_ = view->addMenu(tr("&Panels"));
    for (QDockWidget* dock : {inspectorDock_, opTableDock_, deviceDock_})
        panelsMenu_->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setObjectName(QStringLiteral("keyboardShortcuts"));
    keys->setShortcut(Qt::CTRL | Qt::Key_Slash);
    help->addAction(tr("&About Post Studio"), this, [this] {
        QMessageBox::about(this, tr("About Post Studio"),
                           tr("<b>Post Studio %1</b><p>Finds fast device placements for neural-network training "
                              "with Post (Gao, Chen, Li, NeurIPS 2018) on a fast execution simulator.</p>")
                               .arg(QLatin1String(POST_VERSION)));
    });
}

void MainWindow::createToolBar()
{
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(openAction_);
    bar->addSeparator();
    bar->addAction(fitAction_);
    bar->addAction(actualSizeAction_);
    bar->addAction(criticalPathAction_);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Colour by "), bar));
    colourCombo_ = new QComboBox(bar);
    for (ColourMode mode : kColourModes)
        colourCombo_->addItem(toString(mode), static_cast<int>(mode));
    colourCombo_->setCurrentIndex(colourCombo_->findData(static_cast<int>(graphPanel_->colourMode())));
    connect(colourCombo_, &QComboBox::activated, this,
            [this](int index) { chooseColourMode(static_cast<ColourMode>(colourCombo_->itemData(index).toInt())); });
    bar->addWidget(colourCombo_);
    bar->addSeparator();
    bar->addAction(findAction_);
}

void MainWindow::createStatusBar()
{
    // The status bar's sections share its width: each takes what its text needs, and where
    // the window is too narrow for all of them they are cut short with "…" (the whole text in
    // the tooltip), never clipped or drawn over each other. The step's figures give way last.
    statusText_ = new ElidingLabel(this);
    statusText_->setText(tr("Ready"));
    statusText_->setObjectName(QStringLiteral("statusText"));
    statusText_->setMinimumTextWidth(120);
    summary_ = new ElidingLabel(this);
    summary_->setObjectName(QStringLiteral("graphSummary"));
    summary_->setMinimumTextWidth(160);
    busyBar_ = new QProgressBar(this);
    busyBar_->setRange(0, 0); // busy indicator: layout has no measurable progress
    busyBar_->setFixedWidth(140);
    busyBar_->setMaximumHeight(14);
    busyBar_->setTextVisible(false);
    cancelButton_ = new QToolButton(this);
    cancelButton_->setText(tr("Cancel"));
    cancelButton_->setAutoRaise(true);
    cancelButton_->setObjectName(QStringLiteral("statusCancel"));
    connect(cancelButton_, &QToolButton::clicked, this, &MainWindow::cancelBusy);
    autosaveWarning_ = new QLabel(this);
    autosaveWarning_->setObjectName(QStringLiteral("autosaveWarning"));
    autosaveWarning_->setStyleSheet(QStringLiteral("QLabel { color: #d03030; font-weight: bold; }"));
    statusBar()->addWidget(statusText_, 1);
    statusBar()->addPermanentWidget(autosaveWarning_);
    statusBar()->addPermanentWidget(summary_);
    statusBar()->addPermanentWidget(busyBar_);
    statusBar()->addPermanentWidget(cancelButton_);
    busyBar_->hide();
    cancelButton_->hide();
    autosaveWarning_->hide();
}

void MainWindow::rebuildRecentMenu()
{
    recentMenu_->clear();
    const QStringList files = RecentFiles::files();
    for (const QString& path : files) {
        QAction* action = recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    if (files.isEmpty()) {
        recentMenu_->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear List"), this, [] { RecentFiles::clear(); });
}

void MainWindow::openDialog()
{
    const QString dir = QSettings().value(QStringLiteral("lastDir")).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Graph"), dir,
                                                      graphOpenFilters()); // one filter per importer-table row
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::rebuildClusterMenu()
{
    clusterMenu_->clear();
    auto* group = new QActionGroup(clusterMenu_);
    for (const std::string& name : clusterPresetNames()) {
        const QString preset = QString::fromStdString(name);
        QAction* action = clusterMenu_->addAction(preset, this, [this, preset] { setClusterName(preset); });
        action->setCheckable(true);
        action->setChecked(preset == hub_->clusterName());
        group->addAction(action);
    }
    clusterMenu_->addSeparator();
    clusterMenu_->addAction(tr("From &File…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Cluster"), QString(),
                                                          tr("Clusters (*.json);;All files (*)"));
        if (!path.isEmpty())
            setClusterName(path);
    });
    if (clusterDock_)
        clusterMenu_->addAction(tr("&Edit…"), this, [this] {
            clusterDock_->show();
            clusterDock_->raise();
        });
}

void MainWindow::openPlacementDialog()
{
    const QString dir = QSettings().value(QStringLiteral("lastDir")).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Placement"), dir,
                                                      tr("Placements (*.json);;All files (*)"));
    if (!path.isEmpty())
        openPlacement(path);
}

bool MainWindow::openPlacement(const QString& path)
{
    const DocumentPtr document = hub_->document();
    if (!document)
        return false;
    PlacementWithProvenance read;
    try {
        read = readPlacementFileWithProvenance(path.toStdString(), *document->graph, *document->cluster);
    } catch (const InputError& e) {
        reportError(path, readErrorText(e));
        return false;
    }
    // A file that says how it was timed (post-cli place --out, File ▸ Export) is shown under
    // that rule, as post-cli simulate --placement times it: its step time is then the file's.
    // While a run goes on the rule stays the run's (its samples and best are timed under it).
    // The same for the precision mode its step time was timed under (its "precision").
    const std::optional<Dispatch> recorded = recordedDispatch(read.made);
    const Dispatch placedUnder = read.made.dispatch;
    const bool otherRule = recorded && *recorded != document->sim.dispatch;
    const std::optional<PrecisionMode> mode = recordedPrecision(read.made);
    const bool otherMode = mode && document->cluster && *mode != document->cluster->precision();
    const bool running = learner_->controller()->isActive();
    // Another rule or mode times the graph anew: the run and comparison of this one go (asked
    // first, as for a change in the learner panel).
    if ((otherRule || otherMode) && !running) {
        QStringList changes;
        if (otherRule)
            changes << tr("the dispatch rule to %1").arg(QString::fromLatin1(dispatchName(placedUnder)));
        if (otherMode)
            changes << tr("the precision to %1").arg(precisionName(*mode));
        if (!session_->confirmReplace(
                SessionController::Replace::Retime,
                tr("%1 (as %2 was timed)").arg(changes.join(tr(" and ")), QFileInfo(path).fileName())))
            return false;
    }
    if (otherRule && !running) {
        hub_->setDispatch(placedUnder);
        learner_->setDispatch(placedUnder);
    }
    if (otherMode && !running) {
        hub_->setPrecision(*mode);
        learner_->setPrecision(*mode);
    }
    hub_->setPlacement(std::move(read.placement), std::move(read.made));
    const QString name = QFileInfo(path).fileName();
    const QString rule = QString::fromLatin1(dispatchName(placedUnder));
    const QString precision = otherMode ? precisionName(*mode) : QString();
    QString status = !otherRule ? tr("Showing placement %1").arg(name)
        : running ? tr("Showing placement %1, placed under %2 dispatch but timed under the run's rule").arg(name, rule)
                  : tr("Showing placement %1, timed by %2 dispatch as it was placed").arg(name, rule);
    if (otherMode)
        status += running ? tr(" (timed in precision %1, shown in the run's)").arg(precision)
                          : tr(" (in precision %1, as it was timed)").arg(precision);
    setStatus(status, StatusScope::Placement);
    return true;
}

bool MainWindow::openFile(const QString& path)
{
    const bool session = SessionController::isSessionFile(path);
    if (!session_->confirmReplace(session ? SessionController::Replace::OpenSession : SessionController::Replace::Open,
                                  displayName(path)))
        return false;
    readFile(path);
    return true;
}

void MainWindow::readFile(const QString& path)
{
    if (SessionController::isSessionFile(path)) {
        session_->open(path); // the status bar follows SessionController::opening
        return;
    }
    setStatus(tr("Reading %1…").arg(displayName(path)));
    hub_->load(path);
    updateBusy();
}

bool MainWindow::closeDocument()
{
    const DocumentPtr document = hub_->document();
    if (!document && !hub_->isLoading())
        return true;
    if (!session_->confirmReplace(SessionController::Replace::CloseDocument, documentName()))
        return false;
    hub_->close();
    updateBusy();
    return true;
}

bool MainWindow::setClusterName(const QString& nameOrPath)
{
    if (nameOrPath == hub_->clusterName())
        return true;
    const QString problem = DocumentLoader::clusterProblem(nameOrPath);
    if (!problem.isEmpty()) {
        reportError(nameOrPath, tr("The cluster cannot be read: %1").arg(problem));
        learner_->setClusterName(hub_->clusterName()); // its picker goes back to the cluster in use
        return false;
    }
    // The graph is read again on it: a run of the graph on show goes with it.
    const QString cluster = QFileInfo::exists(nameOrPath) ? QFileInfo(nameOrPath).fileName() : nameOrPath;
    if (hub_->document()
        && !session_->confirmReplace(SessionController::Replace::Reread, tr("on cluster %1").arg(cluster))) {
        learner_->setClusterName(hub_->clusterName());
        return false;
    }
    hub_->setClusterName(nameOrPath); // the learner's picker follows clusterNameChanged
    QSettings().setValue(QStringLiteral("cluster"), nameOrPath);
    // Devices change under the graph: read it again (any placement no longer applies).
    if (hub_->document())
        readFile(hub_->document()->path);
    return true;
}

void MainWindow::setBatch(std::int64_t batch)
{
    const bool reread = hub_->document() && hub_->document()->format == GraphFormat::Onnx;
    if (batch < 1 || batch == hub_->batch()
        || (reread && !session_->confirmReplace(SessionController::Replace::Reread, tr("batch %1").arg(batch))))
        return;
    hub_->setBatch(batch);
    // Shapes, and so every cost, change with the batch: read the model again.
    if (reread)
        readFile(hub_->document()->path);
}

bool MainWindow::hasTimedResults() const
{
    return learner_->showsRun() || learner_->hasRestoredRun() || session_->recorder()->hasRun()
        || (comparisonView_ && comparisonView_->model()->rowCount() > 0);
}

void MainWindow::setPrecision(PrecisionMode mode)
{
    // The graph on show is timed anew (a cluster of its own): the run and the comparison timed
    // in the other mode go with it, as when the graph is read again on another cluster.
    const DocumentPtr document = hub_->document();
    const bool retimes = document && document->cluster && document->cluster->precision() != mode;
    if (retimes
        && !session_->confirmReplace(SessionController::Replace::Retime,
                                     tr("the precision to %1").arg(precisionName(mode)))) {
        learner_->setPrecision(document->cluster->precision()); // its picker goes back
        return;
    }
    const bool cleared = retimes && hasTimedResults();
    QSettings().setValue(QStringLiteral("precision"), precisionName(mode));
    learner_->setPrecision(mode);
    if (hub_->setPrecision(mode) && hub_->document())
        setStatus(cleared ? tr("Precision %1: the step is timed again; the results timed in %2 are cleared")
                                .arg(precisionName(mode), precisionName(document->cluster->precision()))
                          : tr("Precision %1: the step is timed again").arg(precisionName(mode)),
                  StatusScope::Placement);
}

void MainWindow::setDispatch(Dispatch dispatch)
{
    const QString name = QString::fromLatin1(dispatchName(dispatch));
    const DocumentPtr document = hub_->document();
    const bool retimes = document && document->cluster && document->sim.dispatch != dispatch;
    if (retimes
        && !session_->confirmReplace(SessionController::Replace::Retime, tr("the dispatch rule to %1").arg(name))) {
        learner_->setDispatch(document->sim.dispatch); // its picker goes back
        return;
    }
    const bool cleared = retimes && hasTimedResults();
    QSettings().setValue(QStringLiteral("dispatch"), name);
    learner_->setDispatch(dispatch);
    if (hub_->setDispatch(dispatch) && hub_->document())
        setStatus(cleared ? tr("Dispatch %1: the step is timed again; the results timed by %2 dispatch are cleared")
                                .arg(name, QString::fromLatin1(dispatchName(document->sim.dispatch)))
                          : tr("Dispatch %1: the step is timed again").arg(name),
                  StatusScope::Placement);
}

void MainWindow::setMeasuredCosts(const QString& path, const MeasuredCostsFiles& costs)
{
    const DocumentPtr document = hub_->document();
    const bool shown = document && QFileInfo(document->path) == QFileInfo(path);
    if (shown
        && !session_->confirmReplace(SessionController::Replace::Reread,
                                     costs.empty() ? tr("with its estimated costs") : tr("with measured costs")))
        return;
    costsBefore_ = hub_->costs(path);
    costsTriedFor_ = path;
    hub_->setCosts(path, costs);
    if (shown)
        readFile(path);
}

void MainWindow::measuredCostsDialog()
{
    const DocumentPtr document = hub_->document();
    if (!document)
        return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Measured Costs"));
    auto* file = new QLineEdit(document->costs.files.value(0), &dialog);
    file->setObjectName(QStringLiteral("costsFile"));
    file->setPlaceholderText(tr("a torch.profiler trace or a post_torch .costs.json of this model's run"));
    file->setMinimumWidth(420);
    auto* browse = new QPushButton(tr("Browse…"), &dialog);
    connect(browse, &QPushButton::clicked, &dialog, [&dialog, file, document] {
        const QString dir =
            QSettings().value(QStringLiteral("lastCostsDir"), QFileInfo(document->path).absolutePath()).toString();
        const QString chosen = QFileDialog::getOpenFileName(
            &dialog, tr("Measured Costs"), dir,
            tr("Measured costs (*.pt.trace.json *.pt.trace.json.gz *.costs.json *.json *.json.gz);;All files (*)"));
        if (!chosen.isEmpty()) {
            QSettings().setValue(QStringLiteral("lastCostsDir"), QFileInfo(chosen).absolutePath());
            file->setText(chosen);
        }
    });
    auto* partial = new QCheckBox(tr("Take a trace that covers too little of the model (post-cli --costs-partial)"),
                                  &dialog);
    partial->setChecked(document->costs.partial);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* row = new QHBoxLayout;
    row->addWidget(file, 1);
    row->addWidget(browse);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("The graph is read again with the op times this file measured:"), &dialog));
    layout->addLayout(row);
    layout->addWidget(partial);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted || file->text().trimmed().isEmpty())
        return;
    setMeasuredCosts(document->path, {{file->text().trimmed()}, partial->isChecked()});
}

void MainWindow::batchDialog()
{
    bool ok = false;
    const int batch = QInputDialog::getInt(this, tr("Batch Size"),
                                           tr("Batch size for the symbolic batch dimension of ONNX models:"),
                                           static_cast<int>(hub_->batch()), 1, 1 << 20, 1, &ok);
    if (!ok)
        return;
    QSettings().setValue(QStringLiteral("import/batch"), batch); // chosen here, kept for next time
    setBatch(batch);
}

void MainWindow::documentArriving(const DocumentPtr& document)
{
    // The host dispatch line is the graph's at the cluster's rate (another cluster may say
    // another rate); NaN hides it.
    const double hostDispatchMs = document && document->eagerHost && document->graph
        ? eagerDispatchUs(*document->graph, document->cluster.get()) / 1000.0
        : std::numeric_limits<double>::quiet_NaN();
    if (document && document->graphId == shownGraphId_) {
        // Another cluster of the graph (an edit, the precision, the dispatch rule): the run on
        // the chart was timed on the one before, so it goes as it would for another graph.
        if (hub_->change() == DocumentHub::Change::Cluster && !learningChart_->isEmpty()) {
            learningChart_->reset();
            learningChart_->chart()->setTitle(
                tr("Learning curve: no run on %1 on this cluster yet").arg(displayName(document->path)));
        }
        learningChart_->setHostDispatch(hostDispatchMs); // nothing to redraw if the same
        // Another placement (a learner's best, a Compare row, a chart click, a file): shown
        // coloured by device, unless the user chose the colours.
        if (hub_->change() == DocumentHub::Change::Placement && !userChoseColourMode_
            && graphPanel_->colourMode() != ColourMode::Device)
            setColourMode(ColourMode::Device);
        return; // another placement or cluster of the graph shown
    }
    // Another graph (or none): nothing of the previous one's run stays on show.
    learningChart_->reset();
    learningChart_->setHostDispatch(hostDispatchMs);
    learningChart_->chart()->setTitle(document ? tr("Learning curve: no run on %1 yet").arg(displayName(document->path))
                                               : tr("Learning curve"));
    closeAction_->setEnabled(document != nullptr);
    if (!document) {
        shownGraphId_ = 0;
        setWindowTitle(tr("Post Studio"));
        setWindowFilePath(QString());
        openPlacementAction_->setEnabled(false);
        batchAction_->setEnabled(false);
        costsAction_->setEnabled(false);
        forgetCostsAction_->setEnabled(false);
        setStatus(tr("No graph open"));
        updateSummary();
        return;
    }
    RecentFiles::add(document->path);
    costsTriedFor_.clear(); // read with them
    setWindowTitle(tr("%1 — Post Studio").arg(displayName(document->path)));
    setWindowFilePath(document->path);
    if (!userChoseColourMode_)
        setColourMode(document->isPlaced() ? ColourMode::Device : ColourMode::OpType);
    openPlacementAction_->setEnabled(true);
    batchAction_->setEnabled(document->format == GraphFormat::Onnx);
    // A graph read from its file (not one a session embeds) can be read again with costs.
    costsAction_->setEnabled(document->format != GraphFormat::Auto);
    forgetCostsAction_->setEnabled(document->format != GraphFormat::Auto && !document->costs.empty());
}

void MainWindow::documentArrived()
{
    const DocumentPtr& document = hub_->document();
    if (document && document->graphId != shownGraphId_) {
        shownGraphId_ = document->graphId;
        setStatus(tr("Laying out %1…").arg(displayName(document->path)));
        updateSummary();
        updateBusy();
        return;
    }
    updateSummary(); // the cluster's name may have changed
}

void MainWindow::createSession()
{
    session_ = new SessionController(hub_, learner_, learningChart_, this);
    fileMenu_->insertAction(clusterMenu_->menuAction(), session_->openAction());
    fileMenu_->insertAction(clusterMenu_->menuAction(), session_->saveAction());
    fileMenu_->insertAction(clusterMenu_->menuAction(), session_->saveAsAction());
    connect(session_, &SessionController::failed, this, &MainWindow::reportError);
    connect(session_, &SessionController::saved, this, [this](const QString& path) {
        setStatus(tr("Saved session %1").arg(QFileInfo(path).fileName()), StatusScope::Placement);
    });
    // A session read (an autosave of a long run: many MB) shows as busy, with Cancel.
    connect(session_, &SessionController::opening, this, [this](const QString& path) {
        const QFileInfo file(path);
        const QString size = QLocale().formattedDataSize(file.size());
        setStatus(file == QFileInfo(session_->autosave()->path())
                      ? tr("Restoring the autosave (%1)…").arg(size)
                      : tr("Reading session %1 (%2)…").arg(displayName(path), size));
        updateBusy();
    });
    connect(session_, &SessionController::restored, this, &MainWindow::updateBusy);
    connect(session_, &SessionController::autosaveFailed, this, &MainWindow::showAutosaveProblem);
    connect(session_, &SessionController::autosaveRecovered, this, [this] {
        autosaveWarning_->hide();
        autosaveBoxShown_ = false; // a later failure is shown again
    });
}

void MainWindow::showAutosaveProblem(const QString& message, bool asked)
{
    // Kept in view (the status line's message changes with the document): a warning in the
    // status bar until a write goes through, and once a box, where dialogs are allowed.
    autosaveWarning_->setText(tr("⚠ Autosave failed"));
    autosaveWarning_->setToolTip(message);
    autosaveWarning_->show();
    setStatus(message);
    statusText_->setToolTip(message);
    if (!interactiveErrors_ || std::exchange(autosaveBoxShown_, true) || asked)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Post Studio"), tr("The autosave is not working"),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("autosaveProblem"));
    box->setInformativeText(message.toHtmlEscaped());
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal, does not block the event loop (nor a run)
}

QString MainWindow::autosaveWarning() const
{
    return autosaveWarning_->isHidden() ? QString() : autosaveWarning_->toolTip();
}

void MainWindow::setInteractiveErrors(bool on)
{
    interactiveErrors_ = on;
    session_->setInteractive(on);
    dimensionsPrompt_->setInteractive(on);
}

void MainWindow::reportError(const QString& path, const QString& message)
{
    const QString file = path.isEmpty() ? tr("the graph") : displayName(path);
    setStatus(tr("Could not open %1").arg(file));
    updateBusy();
    if (!path.isEmpty() && !QFileInfo::exists(path))
        RecentFiles::remove(path);
    emit loadFailed(path, message);
    if (!interactiveErrors_)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Post Studio"), tr("Could not open %1").arg(file),
                                QMessageBox::Ok, this);
    box->setInformativeText(message.toHtmlEscaped());
    box->setDetailedText(path);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // window-modal, does not block the event loop
}

void MainWindow::showLoadProgress(const QString& stage, double fraction)
{
    if (!hub_->isLoading())
        return;
    busyBar_->setRange(0, 100);
    busyBar_->setValue(static_cast<int>(fraction * 100.0));
    busyBar_->show();
    statusText_->setText(tr("%1… %2%").arg(stage).arg(static_cast<int>(fraction * 100.0)));
}

int MainWindow::loadProgressPercent() const
{
    return hub_->isLoading() && busyBar_->maximum() == 100 ? busyBar_->value() : -1;
}

void MainWindow::updateBusy()
{
    const bool laying = graphPanel_->isLayoutBusy();
    const bool reading = hub_->isLoading() || (session_ && session_->isOpening());
    if (!reading)
        busyBar_->setRange(0, 0); // back to the busy indicator (layout has no measurable progress)
    busyBar_->setVisible(laying || reading);
    cancelButton_->setVisible(laying || reading);
    const DocumentPtr& document = hub_->document();
    if (!laying && !reading && document && graphPanel_->scene()->nodeItemCount() > 0
        && statusText_->text().endsWith(QStringLiteral("…"))) {
        // What the import decided (a placement from the file, op types without a cost
        // formula) stays in view rather than flashing past while the layout runs.
        setStatus(idleStatus());
        statusText_->setToolTip(documentNotes().join(QLatin1Char('\n')));
    }
}

QString MainWindow::idleStatus() const
{
    const DocumentPtr& document = hub_->document();
    if (!document)
        return tr("No graph open");
    const QStringList notes = documentNotes();
    return notes.isEmpty() ? tr("Ready") : notes.join(QStringLiteral(" · "));
}

QStringList MainWindow::documentNotes() const
{
    const DocumentPtr& document = hub_->document();
    if (!document)
        return {};
    QStringList notes = document->notes;
    if (document->graph && document->cluster)
        if (const std::string note = hopperEstimateNote(*document->graph, *document->cluster); !note.empty())
            notes << QString::fromStdString(note);
    return notes;
}

void MainWindow::setStatus(const QString& text, StatusScope scope)
{
    statusText_->setText(text);
    statusText_->setToolTip(QString());
    statusScope_ = scope;
    statusDocument_ = hub_->document();
    statusGraphId_ = hub_->document() ? hub_->document()->graphId : 0;
}

void MainWindow::expireStatus(const DocumentPtr& document)
{
    // A message about a placement goes with it; one about a graph with the graph.
    const bool expired = statusScope_ == StatusScope::Placement ? statusDocument_.lock() != document
                                                                : (document ? document->graphId : 0) != statusGraphId_;
    if (expired && !statusText_->text().endsWith(QStringLiteral("…"))) // work in progress says so itself
        setStatus(idleStatus());
}

void MainWindow::cancelBusy()
{
    // The newer job first: a file being read replaces whatever is being laid out.
    if (hub_->isLoading() || session_->isOpening()) {
        hub_->cancelLoad(); // the pool thread finishes the read; its result is dropped
        session_->cancelOpen();
        setStatus(tr("Reading cancelled"));
        updateBusy();
        return;
    }
    graphPanel_->cancelLayout();
}

void MainWindow::updateSummary()
{
    const DocumentPtr& document = hub_->document();
    if (!document) {
        summary_->clear();
        return;
    }
    const Graph& g = *document->graph;
    QString text = tr("%1 ops · %2 edges · %3")
                       .arg(g.opCount())
                       .arg(g.edgeCount())
                       .arg(QString::fromStdString(document->cluster->name()));
    if (document->format == GraphFormat::Onnx)
        text += tr(" · batch %1").arg(document->batchText());
    const auto& view = graphPanel_->scene()->viewGraph();
    if (view.isScoped())
        text += tr(" · %1 boxes by scope").arg(view.nodeCount());
    else if (view.grouped)
        text += tr(" · %1 boxes (ops grouped by colocation)").arg(view.nodeCount());
    if (graphPanel_->scene()->nodeItemCount() > 0) {
        const GraphPanel::LayoutInfo info = graphPanel_->lastLayout();
        text += tr(" · layout %1, %2 s").arg(toString(info.engine)).arg(info.elapsedMs / 1000.0, 0, 'f', 2);
    }
    summary_->setText(text + QStringLiteral("  "));
}

QString MainWindow::statusMessage() const { return statusText_->text(); }

QString MainWindow::summaryText() const { return summary_->text().trimmed(); }

void MainWindow::selectOp(OpId op, bool centre)
{
    if (syncingSelection_)
        return;
    QScopedValueRollback guard(syncingSelection_, true);
    graphPanel_->selectOp(op, centre);
    opTable_->selectOp(op);
    inspector_->showOp(op);
    if (timeline_)
        timeline_->view()->selectOp(op);
    if (op != kNoOp)
        inspectorDock_->raise();
}

void MainWindow::setColourMode(ColourMode mode)
{
    graphPanel_->setColourMode(mode);
    for (QAction* action : colourGroup_->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(mode));
    if (colourCombo_)
        colourCombo_->setCurrentIndex(colourCombo_->findData(static_cast<int>(mode)));
}

void MainWindow::chooseColourMode(ColourMode mode)
{
    userChoseColourMode_ = true;
    setColourMode(mode);
}

void MainWindow::createLearner()
{
    learner_ = new LearnerPanel(this);
    // New bests go to the hub through the feed (ui/learn): first on the run's end, so its
    // final best is shown before anything else hears of the end.
    bestFeed_ = new BestPlacementFeed(hub_, learner_, this);
    learnerDock_ = newDock(tr("Learner"), QStringLiteral("learnerDock"), learner_);
    addPanelDock(learnerDock_, Qt::RightDockWidgetArea, inspectorDock_);
    inspectorDock_->raise();
    learningChart_ = new LearningChart(this);
    const int chartTab = addCentralTab(learningChart_, tr("Learning"));

    connect(hub_, &DocumentHub::documentChanged, learner_, &LearnerPanel::setDocument);
    connect(hub_, &DocumentHub::clusterNameChanged, learner_, &LearnerPanel::setClusterName);
    // The chart follows the learner, the hub's proven bounds and its own clicks by itself;
    // the window only brings it to the front and says how a continued run starts.
    runChartLink_ = new RunChartLink(
        learningChart_, learner_, hub_, bestFeed_, [this] { return session_->recorder()->extras().best; }, this);
    connect(runChartLink_, &RunChartLink::placementStatus, this,
            [this](const QString& text) { setStatus(text, StatusScope::Placement); });
    connect(learner_, &LearnerPanel::runStarted, this, [this, chartTab] {
        if (!learner_->continuationNote().isEmpty())
            setStatus(learner_->continuationNote());
        if (learner_->continuedFrom() > 0) {
            statusText_->setToolTip(tr("Sessions do not keep the learner's policy, so a restored run cannot resume "
                                       "exactly: its learner starts again from the restored best placement"));
        }
        showCentralTab(chartTab);
        learnerDock_->raise();
    });
    // Run menu: the learner panel's buttons by key, wherever the focus is and whether or
    // not the Learner dock is showing (a click on a disabled button does nothing).
    QMenu* run = new QMenu(tr("&Run"), this);
    menuBar()->insertMenu(menuBar()->actions().constLast(), run); // before Help
    for (const auto& [name, text, key] : {std::tuple{"start", tr("&Start"), QKeySequence(Qt::Key_F5)},
                                          std::tuple{"pause", tr("&Pause"), QKeySequence(Qt::Key_F6)},
                                          std::tuple{"resume", tr("&Resume"), QKeySequence(Qt::SHIFT | Qt::Key_F6)},
                                          std::tuple{"stop", tr("S&top"), QKeySequence(Qt::Key_F7)}}) {
        QPushButton* button = learner_->findChild<QPushButton*>(QLatin1String(name));
        QAction* action = run->addAction(text, button, &QPushButton::click);
        action->setShortcut(key);
        action->setObjectName(QStringLiteral("run-") + QLatin1String(name));
    }
    mirrorRunActions(run);
    run->addSeparator();
    QAction* best = run->addAction(tr("Show &Best"), learningChart_, &LearningChart::showBest);
    best->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    best->setToolTip(tr("Show the run's best placement and mark it on the learning chart"));
    best->setObjectName(QStringLiteral("run-show-best"));
    connect(learner_, &LearnerPanel::preparing, this, [this](const QString& what) {
        if (!what.isEmpty())
            setStatus(tr("Preparing the run: %1…").arg(what));
        else if (statusText_->text().startsWith(tr("Preparing the run")))
            setStatus(idleStatus());
    });
    connect(learner_, &LearnerPanel::finished, this, [this] {
        if (statusText_->text().startsWith(tr("Preparing the run"))) // stopped before its placer started
            setStatus(idleStatus());
    });
}

void MainWindow::mirrorRunActions(QMenu* run)
{
    // Each Run entry is enabled exactly when its button is (a disabled entry says at a
    // glance that nothing runs): the buttons' EnabledChange events drive the entries.
    class Mirror : public QObject {
    public:
        Mirror(QPushButton* button, QAction* action)
            : QObject(action)
            , action_(action)
        {
            button->installEventFilter(this);
            action->setEnabled(button->isEnabled());
        }
        bool eventFilter(QObject* watched, QEvent* event) override
        {
            if (event->type() == QEvent::EnabledChange)
                action_->setEnabled(static_cast<QWidget*>(watched)->isEnabled());
            return false;
        }

    private:
        QAction* action_;
    };
    for (QAction* action : run->actions()) {
        const QString name = action->objectName();
        if (!name.startsWith(QStringLiteral("run-")) || name == QStringLiteral("run-show-best"))
            continue;
        if (auto* button = learner_->findChild<QPushButton*>(name.mid(4)))
            new Mirror(button, action);
    }
}

void MainWindow::showShortcuts()
{
    // Built from the menus, so it cannot fall behind them; then the keys of the views.
    QString html = QStringLiteral("<table cellspacing=4>");
    const auto row = [&html](const QString& what, const QString& keys) {
        html += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>").arg(what.toHtmlEscaped(), keys.toHtmlEscaped());
    };
    std::function<void(QMenu*, const QString&)> walk = [&](QMenu* menu, const QString& path) {
        for (QAction* action : menu->actions()) {
            const QString text = action->text().remove(QLatin1Char('&'));
            if (action->menu())
                walk(action->menu(), path + text + QStringLiteral(" ▸ "));
            else if (!action->shortcuts().isEmpty()) {
                QStringList keys;
                for (const QKeySequence& key : action->shortcuts())
                    keys << key.toString(QKeySequence::NativeText);
                row(path + text, keys.join(QStringLiteral(", ")));
            }
        }
    };
    for (QAction* top : menuBar()->actions())
        if (top->menu())
            walk(top->menu(), top->text().remove(QLatin1Char('&')) + QStringLiteral(" ▸ "));
    html += QStringLiteral("<tr><td colspan=2><br><i>%1</i></td></tr>").arg(tr("In the views"));
    row(tr("Graph: open / close the selected scope"), tr("Return, Backspace"));
    row(tr("Graph: zoom, pan"), tr("Wheel, drag"));
    row(tr("Timeline: fit, zoom in, zoom out"), tr("F, +, -"));
    row(tr("Timeline: critical path"), tr("C"));
    row(tr("Timeline: pan time, scroll lanes"), tr("Shift+Wheel, Ctrl+Wheel"));
    row(tr("Learning chart: show best, log axis, reset zoom"), tr("B, L, Escape"));
    html += QStringLiteral("</table>");
    auto* box = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard Shortcuts"), html, QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("shortcutsDialog"));
    box->setTextFormat(Qt::RichText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showCentralTab(int index) { tabs_->setCurrentIndex(index); }

bool MainWindow::showCentralTab(const QString& title)
{
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->tabText(i).remove(QLatin1Char('&')).compare(title, Qt::CaseInsensitive) == 0) {
            tabs_->setCurrentIndex(i);
            return true;
        }
    return false;
}

void MainWindow::createTimeline()
{
    // The document's simulated step (the hub's) goes to the timeline, the status bar, the
    // device table, the cluster editor (createClusterTools) and the graph's critical path.
    StepSimulation* steps = hub_->steps();
    timeline_ = new TimelinePanel(this);
    timeline_->followSteps(steps);
    addCentralTab(timeline_, tr("Timeline"));
    stepStatus_ = new StepStatusLabel(this);
    stepStatus_->followSteps(steps);
    statusBar()->insertPermanentWidget(1, stepStatus_); // left of the graph summary
    new ExportMenu(exportMenu_, hub_, graphPanel_, steps, statusBar());
    connect(steps, &StepSimulation::simulated, this, [this](const StepPtr& step) {
        // The graph's critical path (drawn while View ▸ Show Critical Path is on); a step of
        // another graph or none clears it. The timeline outlines the selected op.
        if (step && step->document)
            graphPanel_->scene()->setCriticalPath(step->document->graphId, step->criticalOps);
        else
            graphPanel_->scene()->setCriticalPath(0, {});
        if (hub_->document())
            timeline_->view()->selectOp(graphPanel_->scene()->selectedOp());
    });
    connect(timeline_, &TimelinePanel::opClicked, this, [this](OpId op) { selectOp(op, true); });
}

int MainWindow::addCentralTab(QWidget* widget, const QString& title) { return tabs_->addTab(widget, title); }

QDockWidget* MainWindow::newDock(const QString& title, const QString& objectName, QWidget* widget)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(objectName); // saveState() needs a name
    dock->setWidget(widget);
    return dock;
}

void MainWindow::addPanelDock(QDockWidget* dock, Qt::DockWidgetArea area, QDockWidget* tabifyWith)
{
    if (dock->objectName().isEmpty())
        dock->setObjectName(dock->windowTitle()); // saveState() needs a name
    addDockWidget(area, dock);
    if (tabifyWith)
        tabifyDockWidget(tabifyWith, dock);
    panelsMenu_->addAction(dock->toggleViewAction());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

bool MainWindow::quit()
{
    // This window first, then the others in the order they were opened; each with an unsaved
    // run asks its own question, and Cancel in any stops the quit there (the windows closed
    // before it stay closed, as closing them one by one would).
    QList<QPointer<MainWindow>> windows{this};
    for (MainWindow* other : otherWindows())
        windows.push_back(other);
    for (const QPointer<MainWindow>& window : windows)
        if (window && !window->close())
            return false;
    return true;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!session_->confirmClose()) { // an unsaved run: Save / Discard / Cancel
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

} // namespace post
