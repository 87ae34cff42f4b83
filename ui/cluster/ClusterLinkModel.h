#pragma once

#include <QAbstractTableModel>

namespace post {

struct ClusterDraft;

// The links of a ClusterDraft: the default link first, then every ordered pair of
// devices (italic while it follows the default). Bandwidth (GB/s, 10^9 B/s, > 0) and
// latency (µs, >= 0) are editable; a bad value is refused and editRejected says why.
// Editing the default moves every link that follows it.
class ClusterLinkModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { From, To, Bandwidth, Latency, ColumnCount };

    explicit ClusterLinkModel(ClusterDraft* draft, QObject* parent = nullptr);

    void reload();
    // The row of the link from -> to (0 is the default link).
    int rowOf(int from, int to) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void edited();
    void editRejected(const QString& message);

private:
    // Row r >= 1 -> (from, to).
    std::pair<int, int> ends(int row) const;

    ClusterDraft* draft_;
};

} // namespace post
