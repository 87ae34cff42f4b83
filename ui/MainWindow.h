#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/graphview/ColourMode.h"

#include <QMainWindow>
#include <QPointer>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace post {

class ClusterEditor;
class ComparisonView;
class DeviceTablePanel;
class DocumentHub;
class GraphPanel;
class InputDimensionsPrompt;
class BestPlacementFeed;
class InspectorPanel;
class LearnerPanel;
class LearningChart;
class OpTablePanel;
class PlacementDiffController;
class PlacementDiffDialog;
class RunChartLink;
class StepSimulation;
class StepStatusLabel;
class ElidingLabel;
class TimelinePanel;
class SessionController;

// Post Studio's window: it assembles the widgets (the graph in the centre, inspector and
// tables in docks, learner, timeline, comparison, cluster editor) and the menus. The open
// document lives in the DocumentHub: every panel and controller follows its one route,
// DocumentHub::documentChanged. Panels are reached as children of the window
// (findChild<LearnerPanel*>(), docks by object name: "learnerDock", "clusterDock", …).
// Panels that come later plug in through addCentralTab() and addPanelDock().
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The current document, its placement and cluster, and the reading of new ones.
    DocumentHub* hub() const { return hub_; }

    // The window (1400x880 at first, or its saved geometry) shrunk to the available geometry
    // of its screen where that is smaller, room left for the window manager's frame, and
    // moved onto it: called before the first show (post-studio, File ▸ New Window).
    void fitToScreen();
    // The size fitToScreen gives a window of `wanted` size on a screen of `available` size.
    static QSize fittedSize(QSize wanted, QSize available);

    // Reads the file off the GUI thread; errors are reported, never thrown. Sessions
    // (post-session files) are restored whole. A document holding an unsaved run is
    // replaced only after Save / Discard / Cancel (SessionController::confirmReplace):
    // false when the answer was Cancel (nothing read).
    bool openFile(const QString& path);
    // File ▸ Close (Ctrl+W): the window goes empty, after the same question. False: Cancel.
    bool closeDocument();
    // The cluster of the files read from now on (kept in the settings); the open graph is
    // read again on it. A cluster that cannot be read is reported (naming its file),
    // neither used nor kept: false.
    bool setClusterName(const QString& nameOrPath);
    // ONNX: the size given to the symbolic batch dimension; the open ONNX model is read
    // again with it. (File ▸ Batch Size also keeps it in the settings.)
    void setBatch(std::int64_t batch);
    // The precision mode (fp32, tf32, amp) of the cluster in use and of later reads (kept in
    // the settings): the shown placement is timed again in that mode. The run and comparison
    // timed in the other mode go, after the Save / Discard / Cancel question (Cancel: nothing
    // changes), as for a read on another cluster.
    void setPrecision(PrecisionMode mode);
    // The simulator's dispatch rule (post-cli --dispatch) of the shown document and later reads
    // (kept in the settings): everything shown is timed again under it; results of the other
    // rule go, as for setPrecision.
    void setDispatch(Dispatch dispatch);
    // Measured op times for `path` (post-cli --costs values: torch.profiler traces or
    // post-costs/1 files, "TYPE=PATH" for one device type's); the open graph, when it is
    // `path`, is read again with them. Empty: its estimated costs again. A read that fails
    // (a trace of another model, say) leaves the costs it had. `partial` as --costs-partial.
    void setMeasuredCosts(const QString& path, const MeasuredCostsFiles& costs);
    // Reads a post-placement file for the current graph; false (and an error report) if
    // it does not fit the graph and cluster.
    bool openPlacement(const QString& path);
    // The shown placement against a post-placement file, or a session file's placement, of
    // this graph (matched by op and device names), in a Placement Diff window; nullptr (and
    // the error reported) when it cannot be read or does not fit.
    PlacementDiffDialog* diffWithPlacementFile(const QString& path);
    // The shown placement against another window's (File ▸ Diff with Window), matched by op
    // and device names. Refused (nullptr, the reason in the status bar, a message box when
    // errors are interactive, and diffRefused) when either shows no placement or the two
    // graphs differ (op count, op names) or the clusters' device names do.
    PlacementDiffDialog* diffWithWindow(MainWindow* other);
    // The diff on show (the last one opened; one at a time), nullptr when none. Its moved ops
    // are marked on the graph; a side that is "the shown placement" or another window's
    // follows that placement as it changes (a run's new best, a Compare row chosen).
    PlacementDiffDialog* activeDiff() const;
    // The other open Post Studio windows, in the order they were opened.
    QList<MainWindow*> otherWindows() const;
    // The name the window's document goes by: its file name ("" when nothing is open), with
    // its folder when the name says nothing (PipeDream's graph.txt: "resnet50/graph.txt").
    QString documentName() const;
    static QString displayName(const QString& path);
    // File ▸ Quit (Ctrl+Q): closes every Post Studio window, this one first, each asking about
    // its unsaved run; false when one was kept open (Cancel).
    bool quit();
    // File ▸ New Window: another window on its own (errors as interactive as this one's).
    MainWindow* newWindow();
    // View ▸ Show Critical Path: the simulated step's critical path on the graph view (set
    // here, e.g. by --critical-path, it is not kept in the settings as the user's toggle is).
    void setCriticalPathShown(bool on);
    bool isCriticalPathShown() const;

    // The status bar's message and its graph summary.
    QString statusMessage() const;
    // The document's notes and, computed for its graph on its cluster now (so a cluster change
    // never leaves it stale), what post-cli notes of the pair: roofline estimates on a
    // Hopper-class GPU at the reference efficiencies (cost/OpTime.h, hopperEstimateNote).
    QStringList documentNotes() const;
    // The autosave's failure on show in the status bar (SessionController::autosaveFailed),
    // empty when it works.
    QString autosaveWarning() const;
    // The status bar's progress of the file being read (0-100), or -1 while none is shown.
    int loadProgressPercent() const;
    QString summaryText() const;
    // Brings the graph (0) or another central tab to the front.
    void showCentralTab(int index);
    // The same by tab title, ignoring case and '&' (false when there is no such tab).
    bool showCentralTab(const QString& title);

    // Extension points: another tab next to the graph, another dock (tabbed with
    // `tabifyWith` when given). Both get a toggle in View ▸ Panels for docks.
    int addCentralTab(QWidget* widget, const QString& title);
    void addPanelDock(QDockWidget* dock, Qt::DockWidgetArea area, QDockWidget* tabifyWith = nullptr);
    // A dock holding `widget`, named for saveState(); not yet added to the window.
    QDockWidget* newDock(const QString& title, const QString& objectName, QWidget* widget);

    // Errors go to a QMessageBox unless turned off (tests, --screenshot); loadFailed is
    // emitted either way.
    void setInteractiveErrors(bool on);
    bool interactiveErrors() const { return interactiveErrors_; }

public slots:
    void selectOp(post::OpId op, bool centre = true);
    void setColourMode(post::ColourMode mode);
    // As the user picking it: kept for every file opened afterwards.
    void chooseColourMode(post::ColourMode mode);

signals:
    void loadFailed(const QString& path, const QString& message);
    // The current document is drawn: loaded and laid out.
    void documentShown();
    void layoutFailed(const QString& message);
    // A diff that could not be made (File ▸ Diff with Window), and why.
    void diffRefused(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void createPanels();
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    void createLearner();
    void createTimeline();
    void createSession();
    void createClusterTools(); // MainWindowCluster.cpp: cluster editor, comparison, chart clicks
    void rebuildRecentMenu();
    void readFile(const QString& path); // openFile without the question
    // What the status bar's message is about: it is cleared when that changes.
    enum class StatusScope { Placement, Graph };
    void setStatus(const QString& text, StatusScope scope = StatusScope::Graph);
    void expireStatus(const DocumentPtr& document); // documentChanged: a message about the old one goes
    QString idleStatus() const;
    void showShortcuts();
    void showAutosaveProblem(const QString& message, bool asked);
    void mirrorRunActions(QMenu* run); // Run ▸ Start, Pause, … enabled as the learner's buttons
    void followDocuments();            // the window's and the central panels' part of the document route
    void documentArriving(const DocumentPtr& document);
    void documentArrived();
    void reportError(const QString& path, const QString& message);
    void updateBusy();
    void showLoadProgress(const QString& stage, double fraction);
    void cancelBusy(); // the status bar's Cancel: the read in progress, else the layout
    void updateSummary();
    // A run, a restored run or a Compare table is on show: another cluster clears it.
    bool hasTimedResults() const;
    void openDialog();
    void openPlacementDialog();
    void batchDialog();
    void measuredCostsDialog(); // File ▸ Measured Costs
    void rebuildClusterMenu();
    // MainWindowDiff.cpp: New Window, Diff with Window, Show Critical Path, the diff on show.
    void createDiffTools();
    void rebuildWindowMenu();
    void refuseDiff(const QString& message);

    DocumentHub* hub_;
    GraphPanel* graphPanel_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    InspectorPanel* inspector_ = nullptr;
    OpTablePanel* opTable_ = nullptr;
    DeviceTablePanel* deviceTable_ = nullptr;
    QDockWidget* inspectorDock_ = nullptr;
    QDockWidget* opTableDock_ = nullptr;
    QDockWidget* deviceDock_ = nullptr;
    LearnerPanel* learner_ = nullptr;
    BestPlacementFeed* bestFeed_ = nullptr; // the learner's new bests to the hub (and their provenance)
    LearningChart* learningChart_ = nullptr;
    RunChartLink* runChartLink_ = nullptr; // the chart's data route (learner, hub, clicks)
    QDockWidget* learnerDock_ = nullptr;
    TimelinePanel* timeline_ = nullptr;
    StepStatusLabel* stepStatus_ = nullptr;
    QMenu* exportMenu_ = nullptr;
    SessionController* session_ = nullptr;
    ClusterEditor* clusterEditor_ = nullptr;
    QDockWidget* clusterDock_ = nullptr;
    ComparisonView* comparisonView_ = nullptr;

    QAction* openAction_ = nullptr;
    QAction* openPlacementAction_ = nullptr;
    QAction* quitAction_ = nullptr;
    QAction* fitAction_ = nullptr;
    QAction* actualSizeAction_ = nullptr;
    QAction* overviewAction_ = nullptr;
    QAction* findAction_ = nullptr;
    QActionGroup* colourGroup_ = nullptr;
    QActionGroup* groupingGroup_ = nullptr;
    QMenu* fileMenu_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QMenu* clusterMenu_ = nullptr;
    QMenu* panelsMenu_ = nullptr;
    QComboBox* colourCombo_ = nullptr;

    ElidingLabel* statusText_ = nullptr;
    StatusScope statusScope_ = StatusScope::Graph;
    std::weak_ptr<const GraphDocument> statusDocument_; // the document the message is about
    std::uint64_t statusGraphId_ = 0;
    QAction* closeAction_ = nullptr;
    QAction* batchAction_ = nullptr;
    QAction* costsAction_ = nullptr;       // File ▸ Measured Costs
    QAction* forgetCostsAction_ = nullptr; // File ▸ Forget Measured Costs
    // A read with new measured costs under way: the graph's path and the costs it had before,
    // given back if the read fails.
    QString costsTriedFor_;
    MeasuredCostsFiles costsBefore_;
    InputDimensionsPrompt* dimensionsPrompt_ = nullptr; // File ▸ Input Dimensions
    ElidingLabel* summary_ = nullptr;
    QLabel* autosaveWarning_ = nullptr;
    bool autosaveBoxShown_ = false;
    QProgressBar* busyBar_ = nullptr;
    QToolButton* cancelButton_ = nullptr;

    std::uint64_t shownGraphId_ = 0; // GraphDocument::graphId of the graph the window shows
    bool interactiveErrors_ = true;
    bool userChoseColourMode_ = false;
    bool syncingSelection_ = false;

    QAction* criticalPathAction_ = nullptr;
    bool settingCriticalPath_ = false; // setCriticalPathShown(): not kept in the settings
    QMenu* windowDiffMenu_ = nullptr;
    PlacementDiffController* diffs_ = nullptr; // the diff on show (ui/compare)
};

} // namespace post
