#pragma once

#include "ui/document/GraphDocument.h"

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace post {

class OpTableModel;

// The op table: a filter box over a sortable table; the selected row follows the graph.
class OpTablePanel : public QWidget {
    Q_OBJECT

public:
    explicit OpTablePanel(QWidget* parent = nullptr);

    void setDocument(DocumentPtr document);
    // Selects and reveals the op's row without emitting opSelected.
    void selectOp(OpId op);

    OpTableModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* filter() const { return filter_; }

signals:
    void opSelected(post::OpId op);

private:
    OpTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLineEdit* filter_;
    bool selectingFromCode_ = false;
    std::uint64_t graphId_ = 0; // the graph the filter was typed for
};

} // namespace post
