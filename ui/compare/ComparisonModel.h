#pragma once

#include "core/run/ComparisonRunner.h"

#include <QAbstractTableModel>
#include <QMetaType>

#include <vector>

namespace post {

// The comparison table: one row per algorithm with mean / best / std of the best step
// time over its runs, the mean against the lower bound, feasible runs and time taken.
class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Algorithm, Mean, Best, Std, VsLowerBound, Feasible, Time, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ComparisonModel(QObject* parent = nullptr);

    void clear(double lowerBoundUs = 0.0);
    void addRow(const ComparisonRow& row);
    const ComparisonRow& row(int index) const { return rows_[static_cast<size_t>(index)]; }
    const std::vector<ComparisonRow>& rows() const { return rows_; }
    double lowerBoundUs() const { return lowerBoundUs_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ComparisonRow> rows_;
    double lowerBoundUs_ = 0.0;
};

// The fastest of a row's runs (µs).
double bestRunUs(const ComparisonRow& row);

} // namespace post

Q_DECLARE_METATYPE(post::ComparisonRow)
