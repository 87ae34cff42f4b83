// MainWindow's cluster editor dock, comparison tab and chart-click wiring (kept apart
// from MainWindow.cpp so the window's core stays small).
#include "ui/MainWindow.h"

#include "ui/cluster/ClusterEditor.h"
#include "ui/compare/ComparisonView.h"
#include "ui/compare/PlacementDiff.h"
#include "ui/compare/PlacementDiffController.h"
#include "ui/document/DocumentHub.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/session/SessionController.h"
#include "ui/util/Format.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>

#include <cmath>

namespace post {

void MainWindow::createClusterTools()
{
    // The learner panel with its hyperparameters unfolded is taller than most docks.
    auto* learnerScroll = new QScrollArea(learnerDock_);
    learnerScroll->setWidgetResizable(true);
    learnerScroll->setFrameShape(QFrame::NoFrame);
    learnerDock_->setWidget(learnerScroll);
    learnerScroll->setWidget(learner_);

    clusterEditor_ = new ClusterEditor(this);
    clusterDock_ = newDock(tr("Cluster"), QStringLiteral("clusterDock"), clusterEditor_);
    addPanelDock(clusterDock_, Qt::RightDockWidgetArea, learnerDock_);
    inspectorDock_->raise();

    comparisonView_ = new ComparisonView(this);
    addCentralTab(comparisonView_, tr("Compare")); // shown by title: showCentralTab("Compare")

    // The editor follows the hub (documents, steps) and gives it each edited cluster; the
    // window says what the edit did.
    clusterEditor_->followHub(hub_);
    session_->setComparison(comparisonView_); // sessions keep the Compare table
    connect(clusterEditor_, &ClusterEditor::clusterEdited, this, [this] {
        const double us = clusterEditor_->shownStepUs();
        setStatus(!std::isnan(us) ? tr("Cluster edited: shown placement %1%2")
                                        .arg(formatMicroseconds(us),
                                             clusterEditor_->shownFeasible() ? QString() : tr(", out of memory"))
                                  : tr("Cluster edited"),
                  StatusScope::Placement);
    });
    // An edit times the graph anew: an unsaved run timed on the cluster before goes only after
    // the question, as for the precision; while a run goes its cluster cannot change.
    clusterEditor_->setReplaceGuard(
        [this] { return session_->wouldAsk(); },
        [this] { return session_->confirmReplace(SessionController::Replace::Retime, tr("the cluster")); });
    connect(learner_, &LearnerPanel::runStarted, clusterEditor_, [this] {
        clusterEditor_->setEditable(false, tr("A run is going on this cluster: edit it when the run ends"));
    });
    connect(learner_, &LearnerPanel::finished, clusterEditor_, [this] { clusterEditor_->setEditable(true); });
    connect(clusterEditor_, &ClusterEditor::clusterFileOpened, this, &MainWindow::setClusterName);
    connect(learner_, &LearnerPanel::clusterChosen, this, &MainWindow::setClusterName);
    connect(learner_, &LearnerPanel::precisionChosen, this, &MainWindow::setPrecision);
    connect(learner_, &LearnerPanel::dispatchChosen, this, &MainWindow::setDispatch);
    // A row's placement goes to the hub from the view itself; the graph comes to the front.
    comparisonView_->setHub(hub_);
    connect(comparisonView_, &ComparisonView::placementRequested, this, [this] { showCentralTab(0); });
    // File ▸ Diff Placement with File…, after Open Placement.
    auto* diffFile = new QAction(tr("Di&ff Placement with File…"), this);
    diffFile->setToolTip(tr("Which ops move between the shown placement and a placement or session file"));
    diffFile->setObjectName(QStringLiteral("diffPlacementFile"));
    connect(diffFile, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Diff Placement with File"), QString(),
                                                          tr("Placements and sessions (*.json);;All files (*)"));
        if (!path.isEmpty())
            diffWithPlacementFile(path);
    });
    connect(hub_, &DocumentHub::documentChanged, diffFile,
            [diffFile](const DocumentPtr& doc) { diffFile->setEnabled(doc && doc->isPlaced()); });
    diffFile->setEnabled(false);
    const QList<QAction*> fileActions = fileMenu_->actions();
    const qsizetype at = fileActions.indexOf(openPlacementAction_);
    fileMenu_->insertAction(at >= 0 && at + 1 < fileActions.size() ? fileActions[at + 1] : nullptr, diffFile);
    connect(comparisonView_, &ComparisonView::diffRequested, this,
            [this](const Placement& from, const Placement& to, const QString& fromName, const QString& toName) {
                // One row against the shown placement: that side follows the shown placement.
                PlacementDiffController::Side a;
                a.fixed = from;
                a.shown = fromName == QStringLiteral("shown");
                PlacementDiffController::Side b;
                b.fixed = to;
                diffs_->show(std::move(a), std::move(b), fromName, toName);
            });
}

PlacementDiffDialog* MainWindow::diffWithPlacementFile(const QString& path)
{
    const DocumentPtr document = hub_->document();
    if (!document || !document->isPlaced())
        return nullptr;
    QString error;
    Placement other = PlacementDiffController::readPlacementToDiff(path, *document, &error);
    if (other.empty()) {
        reportError(path, error);
        return nullptr;
    }
    PlacementDiffController::Side shown;
    shown.shown = true;
    PlacementDiffController::Side file;
    file.fixed = std::move(other);
    return diffs_->show(std::move(shown), std::move(file), tr("shown"), QFileInfo(path).fileName());
}

} // namespace post
