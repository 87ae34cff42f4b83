// MainWindow's cluster editor dock, comparison tab and chart-click wiring (kept apart
// from MainWindow.cpp so the window's core stays small).
#include "ui/MainWindow.h"

#include "ui/charts/LearningChart.h"
#include "ui/cluster/ClusterEditor.h"
#include "ui/compare/ComparisonView.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/inspector/InspectorPanel.h"
#include "ui/learn/LearnerPanel.h"
#include "ui/panels/DeviceTablePanel.h"
#include "ui/panels/OpTablePanel.h"
#include "ui/util/Format.h"

#include <QDockWidget>
#include <QLabel>
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
    comparisonTab_ = addCentralTab(comparisonView_, tr("Compare"));

    connect(this, &MainWindow::documentChanged, clusterEditor_, &ClusterEditor::setDocument);
    connect(this, &MainWindow::documentChanged, comparisonView_, &ComparisonView::setDocument);
    connect(clusterEditor_, &ClusterEditor::clusterEdited, this,
            [this](std::shared_ptr<const Cluster> cluster, const Placement& placement) {
                setCluster(std::move(cluster), placement);
                const double us = clusterEditor_->shownStepUs();
                statusText_->setText(!std::isnan(us)
                                         ? tr("Cluster edited: shown placement %1%2")
                                               .arg(formatMicroseconds(us),
                                                    clusterEditor_->shownFeasible() ? QString() : tr(", out of memory"))
                                         : tr("Cluster edited"));
            });
    connect(clusterEditor_, &ClusterEditor::clusterFileOpened, this, &MainWindow::setClusterName);
    connect(learner_, &LearnerPanel::clusterChosen, this, &MainWindow::setClusterName);
    connect(comparisonView_, &ComparisonView::placementRequested, this, [this](const Placement& placement) {
        if (!userChoseColourMode_)
            setColourMode(ColourMode::Device);
        setPlacement(placement);
        showCentralTab(0);
    });
    connect(learningChart_, &LearningChart::sampleClicked, this, [this](int index) {
        int shown = -1;
        Placement placement = learner_->samplePlacement(index, &shown);
        if (placement.empty() || !document_ || placement.size() != static_cast<size_t>(document_->opCount())) {
            statusText_->setText(tr("Sample %1's placement was not kept").arg(index));
            return;
        }
        if (!userChoseColourMode_)
            setColourMode(ColourMode::Device);
        setPlacement(std::move(placement));
        statusText_->setText(shown == index
                                 ? tr("Showing sample %1's placement").arg(index)
                                 : tr("Showing sample %1's placement (the nearest kept to %2)").arg(shown).arg(index));
    });
}

void MainWindow::setCluster(std::shared_ptr<const Cluster> cluster, Placement placement)
{
    if (!document_ || !cluster)
        return;
    auto next = std::make_shared<GraphDocument>(*document_);
    next->cluster = std::move(cluster);
    next->placement = std::move(placement);
    document_ = std::move(next);
    graphPanel_->updateDocument(document_);
    opTable_->setDocument(document_);
    deviceTable_->setDocument(document_);
    inspector_->setDocument(document_);
    updateSummary();
    emit documentChanged(document_);
}

} // namespace post
