#include "ui/models/OpTableModel.h"

#include "ui/theme/CategoryPalette.h"
#include "ui/theme/ViewTheme.h"
#include "ui/util/Format.h"

#include <utility>
#include <vector>

namespace post {

OpTableModel::OpTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void OpTableModel::setDocument(DocumentPtr document)
{
    const bool sameGraph = document && document_ && document->graphId == document_->graphId;
    if (sameGraph) {
        // Only the device column can change, and on a new best of a big graph only a few
        // of its rows: those rows, in runs (a proxy re-filters every row a dataChanged
        // names, 107k rows took 2 ms), or the whole column when the runs are many.
        const DocumentPtr before = std::exchange(document_, std::move(document));
        const int rows = rowCount();
        if (rows == 0)
            return;
        if (before->cluster != document_->cluster) { // device names may have changed
            emit dataChanged(index(0, Device), index(rows - 1, Device));
            return;
        }
        // Both placed on one cluster: equal device numbers show equal (deviceOf, per op, is slower).
        const bool raw = before->isPlaced() && document_->isPlaced();
        std::vector<std::pair<int, int>> runs; // [first, last] rows whose device changed
        for (OpId op = 0; op < rows; ++op) {
            const auto i = static_cast<size_t>(op);
            if (raw ? before->placement[i] == document_->placement[i] : before->deviceOf(op) == document_->deviceOf(op))
                continue;
            if (!runs.empty() && runs.back().second == op - 1)
                runs.back().second = op;
            else if (runs.size() == kMaxChangedRuns) {
                emit dataChanged(index(0, Device), index(rows - 1, Device));
                return;
            } else
                runs.emplace_back(op, op);
        }
        for (const auto& [first, last] : runs)
            emit dataChanged(index(first, Device), index(last, Device));
        return;
    }
    beginResetModel();
    document_ = std::move(document);
    endResetModel();
}

int OpTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !document_ ? 0 : document_->opCount();
}

int OpTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString OpTableModel::deviceName(OpId op) const
{
    const DeviceId d = document_->deviceOf(op);
    return d == kNoDevice ? tr("unplaced") : QString::fromStdString(document_->cluster->device(d).name);
}

QVariant OpTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !document_)
        return {};
    const OpId id = index.row();
    const Op& op = document_->graph->op(id);
    if (role == OpIdRole)
        return id;
    if (role == Qt::TextAlignmentRole)
        return index.column() >= GpuTime ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::DecorationRole && index.column() == Device) {
        const DeviceId d = document_->deviceOf(id);
        return d == kNoDevice ? ViewTheme::light().unplaced : CategoryPalette::colour(d);
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(op.name);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case Name:
        return QString::fromStdString(op.name);
    case Type:
        return QString::fromStdString(op.type);
    case Device:
        return display ? QVariant(deviceName(id)) : QVariant(document_->deviceOf(id));
    case GpuTime:
        return display ? QVariant(formatMicroseconds(op.time(DeviceKind::Gpu))) : QVariant(op.time(DeviceKind::Gpu));
    case CpuTime:
        return display ? QVariant(formatMicroseconds(op.time(DeviceKind::Cpu))) : QVariant(op.time(DeviceKind::Cpu));
    case OutputBytes:
        return display ? QVariant(formatBytes(op.outputBytes)) : QVariant(op.outputBytes);
    case ParamBytes:
        return display ? QVariant(formatBytes(op.paramBytes)) : QVariant(op.paramBytes);
    default:
        return {};
    }
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::TextAlignmentRole)
        return section >= GpuTime ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case GpuTime:
            return tr("Compute time on a GPU of speed 1");
        case CpuTime:
            return tr("Compute time on a CPU of speed 1");
        case OutputBytes:
            return tr("Size of the op's output tensors");
        case ParamBytes:
            return tr("Size of the parameters the op owns");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Op");
    case Type:
        return tr("Type");
    case Device:
        return tr("Device");
    case GpuTime:
        return tr("GPU time");
    case CpuTime:
        return tr("CPU time");
    case OutputBytes:
        return tr("Output");
    case ParamBytes:
        return tr("Parameters");
    default:
        return {};
    }
}

QModelIndex OpTableModel::indexOfOp(OpId op, int column) const
{
    if (op < 0 || op >= rowCount())
        return {};
    return index(op, column);
}

} // namespace post
