#pragma once

#include "ui/document/GraphDocument.h"

#include <QAbstractTableModel>

namespace post {

// One row per op (in graph order): name, type, device, times, sizes.
// Display text is formatted; SortRole gives raw numbers so a proxy sorts numerically.
class OpTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Name, Type, Device, GpuTime, CpuTime, OutputBytes, ParamBytes, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, OpIdRole };

    explicit OpTableModel(QObject* parent = nullptr);

    // A different graph resets the model; the same graph with a new placement only
    // refreshes the device column: dataChanged for the runs of rows whose device changed
    // (the whole column when they are more than kMaxChangedRuns, or the cluster changed).
    void setDocument(DocumentPtr document);
    static constexpr size_t kMaxChangedRuns = 64;
    const DocumentPtr& document() const { return document_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QModelIndex indexOfOp(OpId op, int column = Name) const;

private:
    QString deviceName(OpId op) const;

    DocumentPtr document_;
};

} // namespace post
