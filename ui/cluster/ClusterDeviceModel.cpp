#include "ui/cluster/ClusterDeviceModel.h"

#include "ui/cluster/ClusterDraft.h"
#include "ui/cluster/EditValue.h"

#include <QLocale>

#include <cmath>
#include <limits>

namespace post {

ClusterDeviceModel::ClusterDeviceModel(ClusterDraft* draft, QObject* parent)
    : QAbstractTableModel(parent)
    , draft_(draft)
{
}

void ClusterDeviceModel::reload()
{
    beginResetModel();
    endResetModel();
}

int ClusterDeviceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : draft_->deviceCount();
}

int ClusterDeviceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ClusterDeviceModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Device& d = draft_->devices[static_cast<size_t>(index.row())];
    const bool edit = role == Qt::EditRole;
    if (role == Qt::DisplayRole || edit) {
        // Edits go through text (a line edit), so any typed value reaches setData's checks.
        switch (index.column()) {
        case Name:
            return QString::fromStdString(d.name);
        case Kind:
            return QString::fromLatin1(toString(d.kind).data(), static_cast<qsizetype>(toString(d.kind).size()));
        case Speed:
            return edit ? QString::number(d.speed, 'g', QLocale::FloatingPointShortest)
                        : QString::number(d.speed, 'g', 4);
        case Memory:
            if (!std::isfinite(d.memoryBytes))
                return edit ? QString() : tr("unlimited");
            // The edit text is exact (it reads back as these bytes); the display has 4 digits.
            return edit ? decimalTimesPow10(d.memoryBytes, -kGBPower)
                        : QString::number(d.memoryBytes / kBytesPerGB, 'g', 4);
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Speed || index.column() == Memory))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Memory && std::isfinite(d.memoryBytes))
        return tr("%1 bytes").arg(d.memoryBytes, 0, 'f', 0);
    return {};
}

bool ClusterDeviceModel::reject(const QString& message)
{
    emit editRejected(message);
    return false;
}

bool ClusterDeviceModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole || index.row() >= rowCount())
        return false;
    Device& d = draft_->devices[static_cast<size_t>(index.row())];
    const QString text = value.toString().trimmed();
    switch (index.column()) {
    case Name: {
        if (text.isEmpty())
            return reject(tr("A device needs a name."));
        for (int i = 0; i < draft_->deviceCount(); ++i)
            if (i != index.row() && draft_->devices[static_cast<size_t>(i)].name == text.toStdString())
                return reject(tr("Device %1 already exists.").arg(text));
        d.name = text.toStdString();
        break;
    }
    case Kind: {
        const auto kind = parseDeviceKind(text.toLower().toStdString());
        if (!kind)
            return reject(tr("Kind must be cpu or gpu, not \"%1\".").arg(text));
        d.kind = *kind;
        break;
    }
    case Speed: {
        const auto v = positiveNumber(value);
        if (!v)
            return reject(tr("Speed must be a positive number, not \"%1\".").arg(text));
        d.speed = *v;
        break;
    }
    case Memory: {
        if (text.isEmpty() || text.compare(QStringLiteral("unlimited"), Qt::CaseInsensitive) == 0) {
            d.memoryBytes = std::numeric_limits<double>::infinity();
            break;
        }
        const auto v = positiveNumberTimesPow10(value, kGBPower);
        if (!v)
            return reject(tr("Memory must be a positive number of GB (empty for unlimited), not \"%1\".").arg(text));
        d.memoryBytes = *v;
        break;
    }
    default:
        return false;
    }
    emit dataChanged(index, index, {Qt::DisplayRole, Qt::EditRole, Qt::ToolTipRole});
    emit edited();
    return true;
}

Qt::ItemFlags ClusterDeviceModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

QVariant ClusterDeviceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Speed:
            return tr("An op takes its profiled time for this kind divided by the speed");
        case Memory:
            return tr("Capacity in GB (10^9 bytes, as post-cli and the Devices dock write it); empty for unlimited");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case Kind:
        return tr("Kind");
    case Speed:
        return tr("Speed");
    case Memory:
        return tr("Memory (GB)");
    default:
        return {};
    }
}

} // namespace post
