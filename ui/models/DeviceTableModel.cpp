#include "ui/models/DeviceTableModel.h"

#include "ui/graphview/CategoryPalette.h"
#include "ui/util/Format.h"

#include <cmath>

namespace post {

DeviceTableModel::DeviceTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void DeviceTableModel::setDocument(DocumentPtr document)
{
    beginResetModel();
    document_ = std::move(document);
    load_.clear();
    if (document_ && document_->cluster) {
        load_.resize(static_cast<size_t>(document_->cluster->deviceCount()));
        for (OpId op = 0; op < document_->opCount(); ++op) {
            const DeviceId d = document_->deviceOf(op);
            if (d == kNoDevice)
                continue;
            Load& l = load_[static_cast<size_t>(d)];
            ++l.ops;
            l.computeUs += document_->placedTimeUs(op);
            l.paramBytes += document_->graph->op(op).paramBytes;
        }
    }
    endResetModel();
}

int DeviceTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(load_.size());
}

int DeviceTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DeviceTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DeviceId id = index.row();
    const Device& dev = document_->cluster->device(id);
    const Load& load = load_[static_cast<size_t>(id)];
    if (role == DeviceIdRole)
        return id;
    if (role == Qt::DecorationRole && index.column() == Name)
        return CategoryPalette::colour(id);
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Speed ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(dev.name);
    case Kind:
        return QString::fromLatin1(toString(dev.kind).data()).toUpper();
    case Speed:
        return display ? QVariant(QStringLiteral("%1×").arg(dev.speed)) : QVariant(dev.speed);
    case Memory:
        if (display)
            return std::isinf(dev.memoryBytes) ? tr("unlimited") : formatBytes(dev.memoryBytes);
        return dev.memoryBytes;
    case Ops:
        return load.ops;
    case ComputeTime:
        return display ? QVariant(formatMicroseconds(load.computeUs)) : QVariant(load.computeUs);
    case ParamBytes:
        return display ? QVariant(formatBytes(load.paramBytes)) : QVariant(load.paramBytes);
    default:
        return {};
    }
}

QVariant DeviceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Device");
    case Kind:
        return tr("Kind");
    case Speed:
        return tr("Speed");
    case Memory:
        return tr("Memory");
    case Ops:
        return tr("Ops");
    case ComputeTime:
        return tr("Compute");
    case ParamBytes:
        return tr("Parameters");
    default:
        return {};
    }
}

} // namespace post
