#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <QDialog>
#include <QString>

#include <memory>
#include <vector>

class QLabel;
class QTableWidget;
class QListWidget;

namespace post {

// What differs between two placements of one graph: the ops that move and, per ordered
// device pair, how many ops go from the first device to the second (the diagonal: ops that
// stay).
struct PlacementDiff {
    std::vector<OpId> moved;             // in op order
    std::vector<std::vector<int>> pairs; // [from][to]
};

// Both placements must cover the graph on `devices` devices (an op out of range is left out).
PlacementDiff diffPlacements(const Placement& from, const Placement& to, int devices);

// Per op, the device `to` gives it where it differs from `from`, else kNoDevice (what the
// graph view marks as moved).
std::vector<DeviceId> movedDevices(const Placement& from, const Placement& to, int devices);

// The diff as a window: the count per device pair (rows: the first placement's devices,
// columns: the second's) and the moved ops; activating an op selects it in the window.
class PlacementDiffDialog : public QDialog {
    Q_OBJECT

public:
    PlacementDiffDialog(std::shared_ptr<const Graph> graph, std::shared_ptr<const Cluster> cluster, const Placement& from,
                        const Placement& to, const QString& fromName, const QString& toName, QWidget* parent = nullptr);

    // New placements of the same graph (a side that follows the shown placement, or another
    // window's, changed); the cluster may have changed too.
    void setPlacements(std::shared_ptr<const Cluster> cluster, const Placement& from, const Placement& to);

    const PlacementDiff& diff() const { return diff_; }
    const Placement& from() const { return from_; }
    const Placement& to() const { return to_; }
    QString summary() const;
    QTableWidget* pairTable() const { return pairs_; }
    QListWidget* movedList() const { return moved_; }

signals:
    void opActivated(post::OpId op);

private:
    void rebuild();

    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const Cluster> cluster_;
    Placement from_;
    Placement to_;
    QString fromName_;
    QString toName_;
    PlacementDiff diff_;
    QLabel* summary_;
    QTableWidget* pairs_;
    QListWidget* moved_;
};

} // namespace post
