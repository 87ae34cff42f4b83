#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/graphview/ColourMode.h"

#include <QMainWindow>

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
class DocumentLoader;
class GraphPanel;
class InspectorPanel;
class LearnerPanel;
class LearningChart;
class OpTablePanel;
class StepSimulation;
class StepStatusLabel;
class TimelinePanel;
class SessionController;

// Post Studio's window: the graph in the centre, inspector and tables in docks.
// Panels that come later (learner, charts) plug in through addCentralTab() and
// addPanelDock() and follow the document through documentChanged().
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Reads the file off the GUI thread; errors are reported, never thrown. Sessions
    // (post-session files) are restored whole.
    void openFile(const QString& path);
    // Shows a document made in memory (a restored session) as if it had been read.
    void openDocument(DocumentPtr document);
    void setClusterName(const QString& nameOrPath);
    // ONNX: the size given to the symbolic batch dimension; the open ONNX model is read
    // again with it. (File ▸ Batch Size also keeps it in the settings.)
    void setBatch(std::int64_t batch);
    std::int64_t batch() const;
    // Shows a placement of the current graph (e.g. from a learner): recolours, no relayout.
    void setPlacement(Placement placement);
    // Reads a post-placement file for the current graph; false (and an error report) if
    // it does not fit the graph and cluster.
    bool openPlacement(const QString& path);

    const DocumentPtr& document() const { return document_; }
    // The status bar's message and its graph summary (for tests).
    QString statusMessage() const;
    QString summaryText() const;
    GraphPanel* graphPanel() const { return graphPanel_; }
    InspectorPanel* inspector() const { return inspector_; }
    OpTablePanel* opTable() const { return opTable_; }
    DeviceTablePanel* deviceTable() const { return deviceTable_; }
    LearnerPanel* learner() const { return learner_; }
    LearningChart* learningChart() const { return learningChart_; }
    QDockWidget* learnerDock() const { return learnerDock_; }
    TimelinePanel* timeline() const { return timeline_; }
    StepSimulation* stepSimulation() const { return stepSimulation_; }
    StepStatusLabel* stepStatus() const { return stepStatus_; }
    QMenu* exportMenu() const { return exportMenu_; }
    SessionController* session() const { return session_; }
    ClusterEditor* clusterEditor() const { return clusterEditor_; }
    QDockWidget* clusterDock() const { return clusterDock_; }
    ComparisonView* comparisonView() const { return comparisonView_; }
    int comparisonTab() const { return comparisonTab_; }
    // Shows the document on an edited cluster (same graph) with `placement` (mapped onto
    // its devices, or empty); learners use it from their next start.
    void setCluster(std::shared_ptr<const Cluster> cluster, Placement placement);
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
    QDockWidget* inspectorDock() const { return inspectorDock_; }
    QDockWidget* opTableDock() const { return opTableDock_; }

    // Errors go to a QMessageBox unless turned off (tests, --screenshot); loadFailed is
    // emitted either way.
    void setInteractiveErrors(bool on) { interactiveErrors_ = on; }
    bool interactiveErrors() const { return interactiveErrors_; }

public slots:
    void selectOp(post::OpId op, bool centre = true);
    void setColourMode(post::ColourMode mode);
    // As the user picking it: kept for every file opened afterwards.
    void chooseColourMode(post::ColourMode mode);

signals:
    void documentChanged(post::DocumentPtr document);
    void loadFailed(const QString& path, const QString& message);
    // The current document is drawn: loaded and laid out.
    void documentShown();
    void layoutFailed(const QString& message);

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
    void showDocument(DocumentPtr document);
    void reportError(const QString& path, const QString& message);
    void updateBusy();
    void cancelBusy(); // the status bar's Cancel: the read in progress, else the layout
    void updateSummary();
    void openDialog();
    void openPlacementDialog();
    void batchDialog();
    void rebuildClusterMenu();

    DocumentPtr document_;
    DocumentLoader* loader_;
    GraphPanel* graphPanel_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    InspectorPanel* inspector_ = nullptr;
    OpTablePanel* opTable_ = nullptr;
    DeviceTablePanel* deviceTable_ = nullptr;
    QDockWidget* inspectorDock_ = nullptr;
    QDockWidget* opTableDock_ = nullptr;
    QDockWidget* deviceDock_ = nullptr;
    LearnerPanel* learner_ = nullptr;
    LearningChart* learningChart_ = nullptr;
    QDockWidget* learnerDock_ = nullptr;
    TimelinePanel* timeline_ = nullptr;
    StepSimulation* stepSimulation_ = nullptr;
    StepStatusLabel* stepStatus_ = nullptr;
    QMenu* exportMenu_ = nullptr;
    SessionController* session_ = nullptr;
    ClusterEditor* clusterEditor_ = nullptr;
    QDockWidget* clusterDock_ = nullptr;
    ComparisonView* comparisonView_ = nullptr;
    int comparisonTab_ = -1;

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

    QLabel* statusText_ = nullptr;
    QAction* batchAction_ = nullptr;
    QLabel* summary_ = nullptr;
    QProgressBar* busyBar_ = nullptr;
    QToolButton* cancelButton_ = nullptr;

    QString loadingPath_;
    bool interactiveErrors_ = true;
    bool userChoseColourMode_ = false;
    bool syncingSelection_ = false;
};

} // namespace post
