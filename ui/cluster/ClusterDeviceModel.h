#pragma once

#include <QAbstractTableModel>

namespace post {

struct ClusterDraft;

// The devices of a ClusterDraft: name, kind, speed and memory (GB, 10^9 bytes, as
// post-cli and the rest of the studio write it; empty = unlimited),
// all editable. Values are checked as they are set: a bad one is refused (setData returns
// false) and editRejected says why.
class ClusterDeviceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Name, Kind, Speed, Memory, ColumnCount };
    static constexpr double kBytesPerGB = 1e9; // the Memory column's unit
    static constexpr int kGBPower = 9;         // 10^9 bytes

    explicit ClusterDeviceModel(ClusterDraft* draft, QObject* parent = nullptr);

    // The draft was replaced or its devices added or removed.
    void reload();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void edited(); // a value changed in the draft
    void editRejected(const QString& message);

private:
    bool reject(const QString& message);

    ClusterDraft* draft_;
};

} // namespace post
