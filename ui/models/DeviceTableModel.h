#pragma once

#include "ui/document/GraphDocument.h"

#include <QAbstractTableModel>

#include <vector>

namespace post {

// One row per cluster device: name, kind, speed, memory, and what the placement puts
// on it (op count, compute time, parameter bytes).
class DeviceTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Name, Kind, Speed, Memory, Ops, ComputeTime, ParamBytes, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, DeviceIdRole };

    explicit DeviceTableModel(QObject* parent = nullptr);

    void setDocument(DocumentPtr document);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Load {
        int ops = 0;
        double computeUs = 0.0;
        double paramBytes = 0.0;
    };

    DocumentPtr document_;
    std::vector<Load> load_; // per device, from the placement
};

} // namespace post
