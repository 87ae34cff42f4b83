#include "ui/panels/DeviceTablePanel.h"

#include "ui/document/DocumentHub.h"
#include "ui/document/StepSimulation.h"
#include "ui/models/DeviceTableModel.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

namespace post {

DeviceTablePanel::DeviceTablePanel(QWidget* parent)
    : QTableView(parent)
    , model_(new DeviceTableModel(this))
{
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(DeviceTableModel::SortRole);
    setModel(proxy);
    setSortingEnabled(true);
    sortByColumn(-1, Qt::AscendingOrder);
    setSelectionBehavior(SelectRows);
    setEditTriggers(NoEditTriggers);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    // The name in full: with the step's columns the table is wider than the dock (it scrolls).
    horizontalHeader()->setSectionResizeMode(DeviceTableModel::Name, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(DeviceTableModel::Speed, QHeaderView::ResizeToContents); // its scale
    horizontalHeader()->setStretchLastSection(true);
}

void DeviceTablePanel::setDocument(DocumentPtr document)
{
    model_->setDocument(std::move(document));
    // Collectives only where the graph has some (a Chakra or PyTorch trace's).
    setColumnHidden(DeviceTableModel::Collectives, !model_->hasCollectives());
}

void DeviceTablePanel::followHub(DocumentHub* hub)
{
    connect(hub, &DocumentHub::documentChanged, this, &DeviceTablePanel::setDocument);
    connect(hub->steps(), &StepSimulation::simulated, model_, &DeviceTableModel::setStep);
}

} // namespace post
