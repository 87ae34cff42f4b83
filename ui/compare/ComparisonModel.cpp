#include "ui/compare/ComparisonModel.h"

#include "core/sim/LowerBound.h"
#include "ui/util/Format.h"

#include <QBrush>
#include <QColor>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <limits>

namespace post {

double bestRunUs(const ComparisonRow& row)
{
    return row.bestUs.empty() ? 0.0 : *std::min_element(row.bestUs.begin(), row.bestUs.end());
}

ComparisonModel::ComparisonModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ComparisonModel::clear(double lowerBoundUs, const QString& source)
{
    beginResetModel();
    rows_.clear();
    lowerBoundUs_ = lowerBoundUs;
    lowerBoundSource_ = source;
    endResetModel();
}

double ComparisonModel::lowerBoundUs() const
{
    double lb = lowerBoundUs_;
    for (const ComparisonRow& r : rows_)
        if (r.bounds.provesOpLevel())
            lb = std::max(lb, r.bounds.solverBoundUs);
    return lb;
}

QString ComparisonModel::lowerBoundSource() const
{
    for (const ComparisonRow& r : rows_)
        if (r.bounds.provesOpLevel() && r.bounds.solverBoundUs > lowerBoundUs_ && r.bounds.solverBoundUs >= lowerBoundUs())
            return QStringLiteral("milp");
    return lowerBoundSource_;
}

int ComparisonModel::bestRow() const
{
    int best = -1;
    for (size_t i = 0; i < rows_.size(); ++i) {
        const ComparisonRow& r = rows_[i];
        if (r.bestFeasible && !r.bestUs.empty()
            && (best < 0 || r.bestUsOverRuns < rows_[static_cast<size_t>(best)].bestUsOverRuns))
            best = static_cast<int>(i);
    }
    return best;
}

double ComparisonModel::bestUs() const
{
    const int b = bestRow();
    return b < 0 ? 0.0 : rows_[static_cast<size_t>(b)].bestUsOverRuns;
}

double ComparisonModel::certifiedGap() const { return post::certifiedGap(bestUs(), lowerBoundUs()); }

double ComparisonModel::rowCertifiedGap(int index) const
{
    const ComparisonRow& r = rows_[static_cast<size_t>(index)];
    if (!r.bestFeasible || r.bestUs.empty())
        return std::numeric_limits<double>::quiet_NaN();
    return post::certifiedGap(r.bestUsOverRuns, lowerBoundUs());
}

bool ComparisonModel::bestProvenOptimal() const
{
    const double best = bestUs();
    for (const ComparisonRow& r : rows_)
        if (r.bounds.provenOptimal && r.bestFeasible && r.bestUsOverRuns <= best * (1 + 1e-9))
            return true;
    return false;
}

QString ComparisonModel::summary() const
{
    const double lb = lowerBoundUs();
    if (!(lb > 0.0))
        return {};
    const QString source = lowerBoundSource();
    QString text = source.isEmpty()
        ? tr("Lower bound %1 ms").arg(lb / 1000.0, 0, 'f', 3)
        : tr("Lower bound %1 ms (%2)").arg(lb / 1000.0, 0, 'f', 3).arg(boundSourceLabel(source));
    const int b = bestRow();
    if (b >= 0) {
        const double gap = certifiedGap();
        text += tr("; best %1 ms (%2), certified gap %3%")
                    .arg(bestUs() / 1000.0, 0, 'f', 3)
                    .arg(QString::fromStdString(rows_[static_cast<size_t>(b)].algorithm))
                    .arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1);
        if (bestProvenOptimal())
            text += tr(", proven optimal");
    }
    for (const ComparisonRow& r : rows_)
        if (r.bounds.hasGroupedBound())
            text += tr("; %1's grouped bound %2 ms on %3 chunks holds for that grouping only, not for this graph")
                        .arg(QString::fromStdString(r.algorithm))
                        .arg(r.bounds.groupedBoundUs / 1000.0, 0, 'f', 3)
                        .arg(r.bounds.groupedBoundGroups);
    return text;
}

void ComparisonModel::addRow(const ComparisonRow& row)
{
    const int at = static_cast<int>(rows_.size());
    beginInsertRows({}, at, at);
    rows_.push_back(row);
    endInsertRows();
    // A row's proven bound may raise the lower bound every row is measured against.
    emit dataChanged(index(0, VsLowerBound), index(at, ColumnCount - 1));
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
    const double lowerBound = lowerBoundUs();
    const double ratio = lowerBound > 0.0 ? mean / lowerBound : 0.0;
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
        case Bound:
            return r.bounds.provesOpLevel() ? r.bounds.solverBoundUs : r.bounds.groupedBoundUs;
        case CertifiedGap: {
            const double gap = rowCertifiedGap(index.row());
            return std::isnan(gap) ? std::numeric_limits<double>::infinity() : gap;
        }
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
        case Std: // a standard deviation needs two runs
            return r.runs() > 1 ? QString::number(r.stddevUs() / 1000.0, 'f', 3) : QStringLiteral("–");
        case VsLowerBound:
            return lowerBound > 0.0 ? QStringLiteral("%1×").arg(ratio, 0, 'f', 2) : QString();
        case Feasible:
            return QStringLiteral("%1/%2").arg(r.feasibleRuns).arg(r.runs());
        case Time:
            return QString::number(r.wallSeconds, 'f', 2);
        case Bound: {
            // A grouped bound says so wherever it is shown, also beside an op-level one (milp's
            // grouped mode proves its best optimal when it meets the polynomial bound).
            QStringList parts;
            if (r.bounds.provesOpLevel())
                parts << QString::number(r.bounds.solverBoundUs / 1000.0, 'f', 3)
                        + (r.bounds.provenOptimal ? tr(" (proven optimal)") : QString());
            if (r.bounds.hasGroupedBound())
                parts << tr("%1 grouped (%2 chunks)")
                             .arg(r.bounds.groupedBoundUs / 1000.0, 0, 'f', 3)
                             .arg(r.bounds.groupedBoundGroups);
            return parts.join(QStringLiteral("; "));
        }
        case CertifiedGap: {
            const double gap = rowCertifiedGap(index.row());
            if (std::isnan(gap))
                return QString();
            return tr("%1% (%2)").arg(100.0 * gap, 0, 'f', gap < 0.1 ? 2 : 1).arg(boundSourceLabel(lowerBoundSource()));
        }
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != Algorithm)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == Feasible && !r.allFeasible())
        return QBrush(QColor(210, 60, 50));
    if (role == Qt::ToolTipRole && index.column() == Bound && r.bounds.hasGroupedBound()) {
        QString tip = tr("The solver's bound on the graph coarsened into %1 chunks (%2 ms): valid for that grouping "
                         "only, not a lower bound of this graph")
                          .arg(r.bounds.groupedBoundGroups)
                          .arg(r.bounds.groupedBoundUs / 1000.0, 0, 'f', 3);
        if (r.bounds.provesOpLevel())
            tip += tr(". The first figure is of the graph: %1 ms%2")
                       .arg(r.bounds.solverBoundUs / 1000.0, 0, 'f', 3)
                       .arg(r.bounds.provenOptimal ? tr(", the best placement meets the graph's lower bound, so it is "
                                                        "proven optimal")
                                                   : QString());
        return tip;
    }
    if (role == Qt::ToolTipRole && index.column() == CertifiedGap && !std::isnan(rowCertifiedGap(index.row()))) {
        QString tip = tr("%1's fastest feasible run is at most %2% above the best possible step: certified by the %3 "
                         "bound, %4 ms")
                          .arg(QString::fromStdString(r.algorithm))
                          .arg(100.0 * rowCertifiedGap(index.row()), 0, 'f', 2)
                          .arg(boundSourceLabel(lowerBoundSource()))
                          .arg(lowerBound / 1000.0, 0, 'f', 3);
        if (lowerBoundSource() == QLatin1String("ready-order"))
            tip += tr(" (it bounds runs under ready-order dispatch, the rule these rows are timed by: the CPU runs "
                      "its operators in the order they become ready)");
        return tip;
    }
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
            return tr("Sample standard deviation over the runs (– for one run)");
        case VsLowerBound:
            return tr("Mean step time over the lower bound (1× would be optimal)");
        case Feasible:
            return tr("Runs whose best placement fits in memory");
        case Time:
            return tr("Wall time per run");
        case Bound:
            return tr("The bound the row's placer proved (milp): of the graph, or of a grouping only (grouped)");
        case CertifiedGap:
            return tr("The fastest feasible run over the largest valid lower bound, minus 1, and the bound that "
                      "certifies it: the row is at most that far above the best possible step");
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
    case Bound:
        return tr("Proven bound (ms)");
    case CertifiedGap:
        return tr("Certified gap");
    default:
        return {};
    }
}

} // namespace post
