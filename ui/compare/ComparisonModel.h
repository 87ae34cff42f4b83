#pragma once

#include "core/run/ComparisonRunner.h"

#include <QAbstractTableModel>
#include <QMetaType>

#include <vector>

namespace post {

// The comparison table: one row per algorithm with mean / best / std of the best step
// time over its runs, the mean against the lower bound, feasible runs, time taken, the
// bound a row's placer proved (milp: op-level, or grouped, which is never the lower bound),
// and the row's certified gap with the bound that certifies it.
// The lower bound is the largest valid one: the polynomial bound or a row's op-level proven one.
class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Algorithm, Mean, Best, Std, VsLowerBound, Feasible, Time, Bound, CertifiedGap, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ComparisonModel(QObject* parent = nullptr);

    // `lowerBoundUs`: the polynomial bound (core lowerBound()), `source` what gives it.
    void clear(double lowerBoundUs = 0.0, const QString& source = {});
    void addRow(const ComparisonRow& row);
    const ComparisonRow& row(int index) const { return rows_[static_cast<size_t>(index)]; }
    const std::vector<ComparisonRow>& rows() const { return rows_; }
    // The largest bound valid for the graph (µs; 0: none) and its source ("milp" when a row's
    // proven op-level bound is the largest).
    double lowerBoundUs() const;
    QString lowerBoundSource() const;
    // The polynomial bound clear() was given (what a session saves; rows carry their own).
    double polynomialBoundUs() const { return lowerBoundUs_; }
    // The fastest feasible run over the rows (µs; 0: none), its row, the certified gap
    // (best - lower bound) / lower bound (NaN when either is unknown), and whether a row
    // proved that best optimal.
    double bestUs() const;
    int bestRow() const;
    double certifiedGap() const;
    // A row's certified gap: its fastest feasible run over lowerBoundUs(), minus 1 (NaN when the
    // row has no feasible run or there is no bound); lowerBoundSource() certifies it.
    double rowCertifiedGap(int index) const;
    bool bestProvenOptimal() const;
    // One line for above the table: the lower bound and its source, the best and its gap,
    // "proven optimal", and any grouped bound labelled as valid for its grouping only.
    QString summary() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ComparisonRow> rows_;
    double lowerBoundUs_ = 0.0; // polynomial
    QString lowerBoundSource_;
};

// The fastest of a row's runs (µs).
double bestRunUs(const ComparisonRow& row);

} // namespace post

Q_DECLARE_METATYPE(post::ComparisonRow)
