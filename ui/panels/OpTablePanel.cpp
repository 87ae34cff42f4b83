#include "ui/panels/OpTablePanel.h"

#include "ui/models/OpTableModel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QScopedValueRollback>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace post {

OpTablePanel::OpTablePanel(QWidget* parent)
    : QWidget(parent)
    , model_(new OpTableModel(this))
    , proxy_(new QSortFilterProxyModel(this))
    , table_(new QTableView(this))
    , filter_(new QLineEdit(this))
{
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(OpTableModel::SortRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(-1);
    filter_->setPlaceholderText(tr("Filter ops by name, type or device"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder); // graph order until the user picks a column
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // The name takes the spare width; the rest keep widths that fit their values.
    table_->horizontalHeader()->setDefaultSectionSize(100);
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->horizontalHeader()->setSectionResizeMode(OpTableModel::Name, QHeaderView::Stretch);
    table_->horizontalHeader()->resizeSection(OpTableModel::Type, 150);
    table_->horizontalHeader()->resizeSection(OpTableModel::Device, 150);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(filter_);
    layout->addWidget(table_);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (selectingFromCode_ || !current.isValid())
            return;
        emit opSelected(current.data(OpTableModel::OpIdRole).toInt());
    });
}

void OpTablePanel::setDocument(DocumentPtr document)
{
    // A filter typed for one graph would hide another's ops without a word: it goes with the graph.
    const std::uint64_t graphId = document ? document->graphId : 0;
    if (graphId != graphId_) {
        graphId_ = graphId;
        filter_->clear();
    }
    model_->setDocument(std::move(document));
}

void OpTablePanel::selectOp(OpId op)
{
    QScopedValueRollback guard(selectingFromCode_, true);
    const QModelIndex index = proxy_->mapFromSource(model_->indexOfOp(op));
    if (!index.isValid()) {
        table_->clearSelection();
        return;
    }
    table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

} // namespace post
