#include "ui/import/InputDimensionsDialog.h"

#include "ui/document/DocumentHub.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <set>

namespace post {
namespace {

QSpinBox* valueBox(QWidget* parent, std::int64_t value, const QString& name)
{
    auto* box = new QSpinBox(parent);
    box->setRange(1, INT_MAX);
    box->setValue(static_cast<int>(std::clamp<std::int64_t>(value, 1, INT_MAX)));
    box->setObjectName(name);
    return box;
}

} // namespace

InputDimensionsDialog::InputDimensionsDialog(const GraphDocument& document, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Input Dimensions"));
    setMinimumWidth(460);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("%1 leaves these dimensions open. Until they have values, every shape and cost that "
                                "depends on them is a guess.")
                                 .arg(QFileInfo(document.path).fileName()),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    layout->addLayout(form);

    const InputDimensions& given = document.dimensions;
    std::set<std::string> symbols;
    std::set<std::pair<std::string, int>> axes;
    auto addNamed = [&](const std::string& symbol, const QString& where) {
        if (!symbols.insert(symbol).second)
            return;
        const auto it = given.dims.find(symbol);
        Row row;
        row.symbol = QString::fromStdString(symbol);
        row.box = valueBox(this, it != given.dims.end() ? it->second : 1, QStringLiteral("dim-") + row.symbol);
        form->addRow(tr("%1 (%2)").arg(row.symbol, where), row.box);
        rows_.push_back(row);
    };
    auto addAxis = [&](const std::string& tensor, int axis, std::int64_t value) {
        if (!axes.insert({tensor, axis}).second)
            return;
        Row row;
        row.tensor = QString::fromStdString(tensor);
        row.axis = axis;
        row.box = valueBox(this, value, QStringLiteral("dim-%1:%2").arg(row.tensor).arg(axis));
        form->addRow(tr("input '%1', dimension %2").arg(row.tensor).arg(axis), row.box);
        rows_.push_back(row);
    };
    for (const UnresolvedDim& d : document.unresolvedDims) {
        const QString where = tr("input '%1', dimension %2").arg(QString::fromStdString(d.tensor)).arg(d.axis);
        if (!d.symbol.empty()) {
            addNamed(d.symbol, where);
        } else if (!d.shape.empty()) {
            shapes_.emplace(d.tensor, d.shape);
            addAxis(d.tensor, d.axis, 1);
        }
    }
    // What was given before, so it can be changed.
    for (const auto& [symbol, value] : given.dims)
        addNamed(symbol, tr("given"));
    for (const auto& [tensor, shape] : given.inputShapes) {
        shapes_[tensor] = shape;
        for (size_t axis = 0; axis < shape.size(); ++axis)
            addAxis(tensor, static_cast<int>(axis), shape[axis]);
    }
    // Sizes that depend on the data: each op the read reached, with what it was given.
    if (!document.dataSizes.empty()) {
        if (rows_.empty()) // no dimension to ask for: the sizes are the whole question
            intro->setText(tr("%1 has ops whose output size depends on the data it reads (how many elements a "
                              "NonZero finds, how many boxes a NonMaxSuppression keeps). Until they have values, "
                              "the shapes after them are unknown and runs are off.")
                               .arg(QFileInfo(document.path).fileName()));
        auto* about = new QLabel(tr("These sizes depend on the data the model reads. Give each the size an input "
                                    "of yours makes, or leave it at its most: the step is then a worst case."),
                                 this);
        about->setWordWrap(true);
        layout->addWidget(about);
        auto* sizes = new QFormLayout;
        layout->addLayout(sizes);
        for (const DataDependentSize& d : document.dataSizes) {
            SizeRow row;
            row.node = QString::fromStdString(d.node);
            row.box = new QSpinBox(this);
            row.box->setRange(-1, static_cast<int>(std::min<std::int64_t>(d.largest, INT_MAX)));
            row.box->setSpecialValueText(tr("its most, %1").arg(d.largest));
            row.box->setValue(d.value < 0 || d.atMost ? -1 : static_cast<int>(std::min<std::int64_t>(d.value, INT_MAX)));
            row.box->setObjectName(QStringLiteral("count-") + row.node);
            row.box->setToolTip(QString::fromStdString(d.location + ": " + d.what));
            sizes->addRow(tr("%1 (%2)").arg(row.node, QString::fromStdString(d.what)), row.box);
            sizeRows_.push_back(row);
        }
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Read Again"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

InputDimensions InputDimensionsDialog::dimensions() const
{
    InputDimensions out;
    for (const Row& row : rows_) {
        if (!row.symbol.isEmpty()) {
            out.dims[row.symbol.toStdString()] = row.box->value();
            continue;
        }
        std::vector<std::int64_t>& shape = out.inputShapes[row.tensor.toStdString()];
        if (shape.empty())
            shape = shapes_.at(row.tensor.toStdString());
        shape[static_cast<size_t>(row.axis)] = row.box->value();
    }
    for (auto& [tensor, shape] : out.inputShapes)
        for (std::int64_t& d : shape)
            if (d < 0)
                d = 1; // a dimension no row covers (none should be left): as the reader counts it
    for (const SizeRow& row : sizeRows_) {
        if (row.box->value() < 0)
            out.countsAtMost = true;
        else
            out.counts[row.node.toStdString()] = row.box->value();
    }
    return out;
}

QSpinBox* InputDimensionsDialog::sizeField(const QString& node) const
{
    for (const SizeRow& row : sizeRows_)
        if (row.node == node)
            return row.box;
    return nullptr;
}

QSpinBox* InputDimensionsDialog::field(const QString& symbol) const
{
    for (const Row& row : rows_)
        if (row.symbol == symbol)
            return row.box;
    return nullptr;
}

QSpinBox* InputDimensionsDialog::field(const QString& tensor, int axis) const
{
    for (const Row& row : rows_)
        if (row.symbol.isEmpty() && row.tensor == tensor && row.axis == axis)
            return row.box;
    return nullptr;
}

InputDimensionsPrompt::InputDimensionsPrompt(DocumentHub* hub, QWidget* window)
    : QObject(window)
    , hub_(hub)
    , window_(window)
    , action_(new QAction(tr("Input &Dimensions…"), this))
{
    action_->setToolTip(tr("Values for the unknown input dimensions of an ONNX or TensorFlow model, and for the "
                           "sizes an ONNX model's ops take from its data"));
    action_->setEnabled(false);
    connect(action_, &QAction::triggered, this, [this] { showDialog(); });
    connect(hub, &DocumentHub::documentChanged, this, &InputDimensionsPrompt::follow);
}

void InputDimensionsPrompt::follow(const DocumentPtr& document)
{
    const bool shaped = document && (document->format == GraphFormat::Onnx || document->format == GraphFormat::TfPbtxt);
    const bool open = document && (!document->unresolvedDims.empty() || document->hasOpenDataSizes());
    action_->setEnabled(shaped && (open || !document->dimensions.empty() || !document->dataSizes.empty()));
    // Asked once per read that leaves dimensions or sizes open (not again for its new placements).
    if (!shaped || !open || document->graphId == askedGraphId_)
        return;
    askedGraphId_ = document->graphId;
    if (interactive_)
        showDialog();
}

InputDimensionsDialog* InputDimensionsPrompt::showDialog()
{
    const DocumentPtr& document = hub_->document();
    if (!document)
        return nullptr;
    auto* dialog = new InputDimensionsDialog(*document, window_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    QPointer<InputDimensionsDialog> guard(dialog);
    connect(dialog, &QDialog::accepted, this, [this, guard] {
        if (guard)
            apply(guard->dimensions());
    });
    dialog->open();
    return dialog;
}

void InputDimensionsPrompt::apply(const InputDimensions& dimensions)
{
    const DocumentPtr& document = hub_->document();
    if (!document)
        return;
    hub_->setDimensions(document->path, dimensions);
    emit reopenRequested(document->path);
}

} // namespace post
