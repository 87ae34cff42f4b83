#include "ui/compare/PlacementDiff.h"

#include "ui/document/SimulatedStep.h"
#include "ui/theme/CategoryPalette.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace post {

PlacementDiff diffPlacements(const Placement& from, const Placement& to, int devices)
{
    PlacementDiff diff;
    diff.pairs.assign(static_cast<size_t>(std::max(devices, 0)),
                      std::vector<int>(static_cast<size_t>(std::max(devices, 0)), 0));
    const size_t ops = std::min(from.size(), to.size());
    for (size_t op = 0; op < ops; ++op) {
        const DeviceId a = from[op];
        const DeviceId b = to[op];
        if (a < 0 || b < 0 || a >= devices || b >= devices)
            continue;
        ++diff.pairs[static_cast<size_t>(a)][static_cast<size_t>(b)];
        if (a != b)
            diff.moved.push_back(static_cast<OpId>(op));
    }
    return diff;
}

std::vector<DeviceId> movedDevices(const Placement& from, const Placement& to, int devices)
{
    std::vector<DeviceId> moved(std::min(from.size(), to.size()), kNoDevice);
    for (OpId op : diffPlacements(from, to, devices).moved)
        moved[static_cast<size_t>(op)] = to[static_cast<size_t>(op)];
    return moved;
}

PlacementDiffDialog::PlacementDiffDialog(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster,
                                         const Placement& from, const Placement& to, const QString& fromName,
                                         const QString& toName, QWidget* parent)
    : QDialog(parent)
    , graph_(std::move(graph))
    , cluster_(std::move(cluster))
    , from_(from)
    , to_(to)
    , fromName_(fromName)
    , toName_(toName)
    , summary_(new QLabel(this))
    , pairs_(new QTableWidget(this))
    , moved_(new QListWidget(this))
{
    setWindowTitle(tr("Placement Diff: %1 → %2").arg(fromName, toName));
    resize(640, 520);
    auto* layout = new QVBoxLayout(this);
    summary_->setObjectName(QStringLiteral("diffSummary"));
    layout->addWidget(summary_);
    pairs_->setToolTip(
        tr("Ops per device pair: rows are %1's devices, columns %2's; the diagonal stays put").arg(fromName, toName));
    pairs_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    pairs_->setSelectionMode(QAbstractItemView::NoSelection);
    pairs_->setFocusPolicy(Qt::NoFocus);
    layout->addWidget(new QLabel(tr("Ops per device pair (from %1, down; to %2, across):").arg(fromName, toName), this));
    layout->addWidget(pairs_);
    layout->addWidget(new QLabel(tr("Moved ops (double-click to select one):"), this));
    layout->addWidget(moved_, 2);
    connect(moved_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit opActivated(item->data(Qt::UserRole).toInt()); });
    rebuild();
}

void PlacementDiffDialog::setPlacements(std::shared_ptr<const Cluster> cluster, const Placement& from, const Placement& to)
{
    if (cluster)
        cluster_ = std::move(cluster);
    from_ = from;
    to_ = to;
    rebuild();
}

QString PlacementDiffDialog::summary() const { return summary_->text(); }

void PlacementDiffDialog::rebuild()
{
    const Graph& graph = *graph_;
    const Cluster& cluster = *cluster_;
    diff_ = diffPlacements(from_, to_, cluster.deviceCount());
    summary_->setText(
        tr("%1 of %2 ops move from %3 to %4.").arg(diff_.moved.size()).arg(graph.opCount()).arg(fromName_, toName_));
    const int devices = cluster.deviceCount();
    pairs_->clear();
    pairs_->setRowCount(devices);
    pairs_->setColumnCount(devices);
    QStringList names;
    for (DeviceId d = 0; d < devices; ++d)
        names << SimulatedStep::shortDeviceName(cluster.device(d).name);
    pairs_->setVerticalHeaderLabels(names);
    pairs_->setHorizontalHeaderLabels(names);
    for (int a = 0; a < devices; ++a)
        for (int b = 0; b < devices; ++b) {
            const int n = diff_.pairs[static_cast<size_t>(a)][static_cast<size_t>(b)];
            auto* item = new QTableWidgetItem(n == 0 ? QString() : QString::number(n));
            item->setData(Qt::UserRole, n);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setFlags(Qt::ItemIsEnabled);
            if (a == b)
                item->setForeground(palette().color(QPalette::PlaceholderText));
            else if (n > 0)
                item->setBackground(CategoryPalette::colour(b).lighter(170));
            pairs_->setItem(a, b, item);
        }
    pairs_->resizeRowsToContents();
    // Every pair in view (up to 12 devices; more scroll).
    const int shownRows = std::min(devices, 12);
    int height = pairs_->horizontalHeader()->sizeHint().height() + 2 * pairs_->frameWidth();
    for (int r = 0; r < shownRows; ++r)
        height += pairs_->rowHeight(r);
    pairs_->setMinimumHeight(height);
    pairs_->setMaximumHeight(devices <= 12 ? height : QWIDGETSIZE_MAX);
    moved_->clear();
    for (OpId op : diff_.moved) {
        const DeviceId a = from_[static_cast<size_t>(op)];
        const DeviceId b = to_[static_cast<size_t>(op)];
        auto* item = new QListWidgetItem(
            QStringLiteral("%1: %2 → %3").arg(QString::fromStdString(graph.op(op).name), names.value(a), names.value(b)),
            moved_);
        item->setData(Qt::UserRole, op);
        item->setIcon([&] {
            QPixmap swatch(12, 12);
            swatch.fill(CategoryPalette::colour(b));
            return QIcon(swatch);
        }());
    }
}

} // namespace post
