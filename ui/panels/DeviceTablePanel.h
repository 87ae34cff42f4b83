#pragma once

#include "ui/document/GraphDocument.h"

#include <QTableView>

namespace post {

class DeviceTableModel;

// The cluster's devices and what the placement puts on each, sortable by any column.
class DeviceTablePanel : public QTableView {
    Q_OBJECT

public:
    explicit DeviceTablePanel(QWidget* parent = nullptr);

    void setDocument(DocumentPtr document);
    DeviceTableModel* model() const { return model_; }

private:
    DeviceTableModel* model_;
};

} // namespace post
