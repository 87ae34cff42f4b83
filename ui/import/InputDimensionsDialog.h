#pragma once

#include "ui/document/GraphDocument.h"

#include <QDialog>
#include <QObject>

#include <vector>

class QAction;
class QSpinBox;

namespace post {

class DocumentHub;

// The unknown input dimensions of an ONNX or TensorFlow model, one editable value each:
// a named (symbolic) dimension once, whatever inputs share it (post-cli's --dim NAME=N), an
// unnamed one per input and axis (--input-shape INPUT=d0,d1,..., the known dimensions kept);
// and an ONNX model's sizes that depend on the data, one per op (--count NODE=N, from 0 to
// the most the op can give), each at first "its most" (--count-max: a worst case).
// Values given earlier are listed too, so they can be changed.
class InputDimensionsDialog : public QDialog {
    Q_OBJECT

public:
    explicit InputDimensionsDialog(const GraphDocument& document, QWidget* parent = nullptr);

    // What the fields say.
    InputDimensions dimensions() const;
    // The field of named dimension `symbol`, or of axis `axis` of input `tensor` (nullptr when none).
    QSpinBox* field(const QString& symbol) const;
    QSpinBox* field(const QString& tensor, int axis) const;
    // The field of the size op `node` gives (its minimum, -1, reads "its most").
    QSpinBox* sizeField(const QString& node) const;
    int fieldCount() const { return static_cast<int>(rows_.size() + sizeRows_.size()); }

private:
    struct Row {
        QString symbol; // named: the dim_param
        QString tensor; // unnamed: the input and its axis
        int axis = 0;
        QSpinBox* box = nullptr;
    };
    struct SizeRow {
        QString node;
        QSpinBox* box = nullptr;
    };
    std::vector<Row> rows_;
    std::vector<SizeRow> sizeRows_;
    std::map<std::string, std::vector<std::int64_t>> shapes_; // each unnamed row's input, as known
};

// File ▸ Input Dimensions… and the question after opening a model with unknown input
// dimensions: the dialog, then a new read of the file with the values given (remembered
// for that file by the hub, so reading it again keeps them).
class InputDimensionsPrompt : public QObject {
    Q_OBJECT

public:
    InputDimensionsPrompt(DocumentHub* hub, QWidget* window);

    QAction* action() const { return action_; }
    // Dialogs may open by themselves (the window's setInteractiveErrors); otherwise only the
    // status bar's note says the dimensions are unknown.
    void setInteractive(bool on) { interactive_ = on; }
    // The dialog for the document on show (window-modal, not blocking); nullptr when none.
    InputDimensionsDialog* showDialog();
    // Reads the document's file again with `dimensions`.
    void apply(const InputDimensions& dimensions);

signals:
    void reopenRequested(const QString& path);

private:
    void follow(const DocumentPtr& document);

    DocumentHub* hub_;
    QWidget* window_;
    QAction* action_;
    bool interactive_ = true;
    std::uint64_t askedGraphId_ = 0;
};

} // namespace post
