#include "ui/compare/ComparisonModel.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace post {

double bestRunUs(const ComparisonRow& row)
{
    return row.bestUs.empty() ? 0.0 : *std::min_element(row.bestUs.begin(), row.bestUs.end());
}

ComparisonModel::ComparisonModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ComparisonModel::clear(double lowerBoundUs)
{
    beginResetModel();
    rows_.clear();
    lowerBoundUs_ = lowerBoundUs;
    endResetModel();
}

void ComparisonModel::addRow(const ComparisonRow& row)
{
    const int at = static_cast<int>(rows_.size());
    beginInsertRows({}, at, at);
    rows_.push_back(row);
    endInsertRows();
}

int ComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const ComparisonRow& r = rows_[static_cast<size_t>(index.row())];
    const double mean = r.meanUs();
    const double ratio = lowerBoundUs_ > 0.0 ? mean / lowerBoundUs_ : 0.0;
    if (role == SortRole) {
        switch (index.column()) {
        case Algorithm:
            return QString::fromStdString(r.algorithm);
        case Mean:
            return mean;
        case Best:
            return bestRunUs(r);
        case Std:
            return r.stddevUs();
        case VsLowerBound:
            return ratio;
        case Feasible:
            return r.runs() > 0 ? static_cast<double>(r.feasibleRuns) / r.runs() : 0.0;
        case Time:
            return r.wallSeconds;
        default:
            return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Algorithm:
            return QString::fromStdString(r.algorithm) + (r.stopped ? tr(" (cancelled)") : QString());
        case Mean:
            return QString::number(mean / 1000.0, 'f', 3);
        case Best:
            return QString::number(bestRunUs(r) / 1000.0, 'f', 3);
        case Std:
            return QString::number(r.stddevUs() / 1000.0, 'f', 3);
        case VsLowerBound:
            return lowerBoundUs_ > 0.0 ? QStringLiteral("%1×").arg(ratio, 0, 'f', 2) : QString();
        case Feasible:
            return QStringLiteral("%1/%2").arg(r.feasibleRuns).arg(r.runs());
        case Time:
            return QString::number(r.wallSeconds, 'f', 2);
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != Algorithm)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Feasible && !r.allFeasible())
        return QBrush(QColor(210, 60, 50));
    if (role == Qt::ToolTipRole)
        return tr("Double-click to show %1's best placement in the graph").arg(QString::fromStdString(r.algorithm));
    return {};
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Mean:
            return tr("Mean over the runs of each run's best step time");
        case Best:
            return tr("The fastest run's step time");
        case Std:
            return tr("Sample standard deviation over the runs (0 for one run)");
        case VsLowerBound:
            return tr("Mean step time over the lower bound (1× would be optimal)");
        case Feasible:
            return tr("Runs whose best placement fits in memory");
        case Time:
            return tr("Wall time per run");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Algorithm:
        return tr("Algorithm");
    case Mean:
        return tr("Mean (ms)");
    case Best:
        return tr("Best (ms)");
    case Std:
        return tr("± std (ms)");
    case VsLowerBound:
        return tr("vs lower bound");
    case Feasible:
        return tr("Feasible");
    case Time:
        return tr("Time (s)");
    default:
        return {};
    }
}

} // namespace post
