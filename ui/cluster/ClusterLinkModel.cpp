#include "ui/cluster/ClusterLinkModel.h"

#include "ui/cluster/ClusterDraft.h"
#include "ui/cluster/EditValue.h"

#include <QFont>
#include <QLocale>

namespace post {
namespace {

constexpr int kGBpsPower = 3; // bytes per µs in a GB/s
static_assert(Link::kBytesPerUsPerGBps == 1e3);

// "/device:GPU:0" -> "GPU:0": the link table is narrow and the prefix is shared.
QString shortName(const std::string& name)
{
    QString text = QString::fromStdString(name);
    if (text.startsWith(QLatin1String("/device:")))
        text.remove(0, 8);
    return text;
}

bool same(const Link& a, const Link& b) { return a.bytesPerUs == b.bytesPerUs && a.latencyUs == b.latencyUs; }

} // namespace

ClusterLinkModel::ClusterLinkModel(ClusterDraft* draft, QObject* parent)
    : QAbstractTableModel(parent)
    , draft_(draft)
{
}

void ClusterLinkModel::reload()
{
    beginResetModel();
    endResetModel();
}

std::pair<int, int> ClusterLinkModel::ends(int row) const
{
    const int n = draft_->deviceCount();
    const int k = row - 1; // pairs in from-major order, skipping from == to
    const int from = k / (n - 1);
    int to = k % (n - 1);
    if (to >= from)
        ++to;
    return {from, to};
}

int ClusterLinkModel::rowOf(int from, int to) const
{
    if (from == to)
        return 0;
    const int n = draft_->deviceCount();
    return 1 + from * (n - 1) + (to > from ? to - 1 : to);
}

int ClusterLinkModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    const int n = draft_->deviceCount();
    return 1 + n * (n - 1);
}

int ClusterLinkModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ClusterLinkModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const bool isDefaultRow = index.row() == 0;
    const auto [from, to] = isDefaultRow ? std::pair{0, 0} : ends(index.row());
    const Link link = isDefaultRow ? draft_->defaultLink : draft_->link(from, to);
    const bool edit = role == Qt::EditRole;
    if (role == Qt::DisplayRole || edit) {
        switch (index.column()) {
        case From:
            if (isDefaultRow)
                return tr("default");
            return edit ? QString::fromStdString(draft_->devices[static_cast<size_t>(from)].name)
                        : shortName(draft_->devices[static_cast<size_t>(from)].name);
        case To:
            if (isDefaultRow)
                return tr("others");
            return edit ? QString::fromStdString(draft_->devices[static_cast<size_t>(to)].name)
                        : shortName(draft_->devices[static_cast<size_t>(to)].name);
        case Bandwidth:
            // The edit text is exact (it reads back as these bytes per µs); the display has 4 digits.
            return edit ? decimalTimesPow10(link.bytesPerUs, -kGBpsPower)
                        : QString::number(link.bytesPerUs / Link::kBytesPerUsPerGBps, 'g', 4);
        case Latency:
            return QString::number(link.latencyUs, 'g', edit ? QLocale::FloatingPointShortest : 4);
        default:
            return {};
        }
    }
    if (role == Qt::FontRole) {
        QFont font;
        if (isDefaultRow)
            font.setBold(true);
        else if (draft_->isDefault(from, to))
            font.setItalic(true);
        return font;
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Bandwidth || index.column() == Latency))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && isDefaultRow)
        return tr("Every pair of devices not set apart below");
    if (role == Qt::ToolTipRole)
        return tr("%1 → %2: %3")
            .arg(QString::fromStdString(draft_->devices[static_cast<size_t>(from)].name),
                 QString::fromStdString(draft_->devices[static_cast<size_t>(to)].name),
                 draft_->isDefault(from, to) ? tr("follows the default link") : tr("set apart from the default link"));
    return {};
}

bool ClusterLinkModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole || index.row() >= rowCount())
        return false;
    if (index.column() != Bandwidth && index.column() != Latency)
        return false;
    const bool bandwidth = index.column() == Bandwidth;
    // Bandwidth is typed in GB/s and stored in bytes per µs (10^3 of them a GB/s), the decimal
    // point moved in the text: one rounding, so a shown value typed back changes nothing.
    const auto v = bandwidth ? positiveNumberTimesPow10(value, kGBpsPower) : positiveNumber(value, true);
    if (!v) {
        emit editRejected(bandwidth ? tr("Bandwidth must be a positive number of GB/s, not \"%1\".").arg(value.toString())
                                    : tr("Latency must be a number of µs >= 0, not \"%1\".").arg(value.toString()));
        return false;
    }
    if (index.row() == 0) {
        // Links that followed the old default keep following it.
        Link next = draft_->defaultLink;
        (bandwidth ? next.bytesPerUs : next.latencyUs) = *v;
        const ClusterDraft before = *draft_;
        draft_->defaultLink = next;
        const int n = draft_->deviceCount();
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b)
                if (a != b)
                    draft_->setLink(a, b, same(before.link(a, b), before.defaultLink) ? next : before.link(a, b));
        emit dataChanged(this->index(0, 0), this->index(rowCount() - 1, ColumnCount - 1));
    } else {
        const auto [from, to] = ends(index.row());
        Link next = draft_->link(from, to);
        (bandwidth ? next.bytesPerUs : next.latencyUs) = *v;
        draft_->setLink(from, to, next);
        emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    }
    emit edited();
    return true;
}

Qt::ItemFlags ClusterLinkModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == Bandwidth || index.column() == Latency)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant ClusterLinkModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case From:
        return tr("From");
    case To:
        return tr("To");
    case Bandwidth:
        return tr("Bandwidth (GB/s)");
    case Latency:
        return tr("Latency (µs)");
    default:
        return {};
    }
}

} // namespace post
