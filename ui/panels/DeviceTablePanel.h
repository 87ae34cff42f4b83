#pragma once

#include "ui/document/GraphDocument.h"

#include <QTableView>

namespace post {

class DeviceTableModel;
class DocumentHub;

// The cluster's devices and what the placement puts on each, sortable by any column.
class DeviceTablePanel : public QTableView {
    Q_OBJECT

public:
    explicit DeviceTablePanel(QWidget* parent = nullptr);

    void setDocument(DocumentPtr document);
    // Follows the hub's documents and their simulated steps (the step's columns).
    void followHub(DocumentHub* hub);
    DeviceTableModel* model() const { return model_; }

private:
    DeviceTableModel* model_;
};

} // namespace post
