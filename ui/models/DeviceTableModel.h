#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/document/SimulatedStep.h"

#include <QAbstractTableModel>

#include <vector>

namespace post {

// One row per cluster device: name, kind, speed, memory, what the placement puts on it (op
// count, compute time, collectives' time, parameter bytes) and, once the step is simulated,
// how the device spends it, as a profiler's per-thread table does: busy and idle time, peak
// memory, and the bytes and transfers it sends and receives.
//
// Speed is one scale for the whole cluster: how fast the device runs the graph's ops against
// the cluster's fastest device for them (1 = the fastest), from the op times the simulator
// takes. (The cluster file's `speed` is relative to a speed-1 device of the same kind, so a
// CPU's and a GPU's could not be compared.) Compute and Busy count the device's compute lane
// alike, as post-cli simulate's busy does: a collective runs on the device's communication
// channel beside it and is counted in Collectives instead, so once simulated Busy equals
// Compute.
class DeviceTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Name,
        Kind,
        Speed,
        Memory,
        Ops,
        ComputeTime,
        Collectives,
        ParamBytes,
        Busy,
        Idle,
        PeakMemory,
        BytesIn,
        BytesOut,
        TransfersIn,
        TransfersOut,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, DeviceIdRole };

    explicit DeviceTableModel(QObject* parent = nullptr);

    // Whether the graph has collectives (the Collectives column is empty otherwise).
    bool hasCollectives() const { return hasCollectives_; }
    // Device d's speed as the Speed column gives it: the summed time of the graph's ops on the
    // fastest device over their summed time on d (ops that run anywhere: no collective, no
    // CPU-only op); NaN when the graph has no such op with a time.
    double relativeSpeed(DeviceId d) const;

    // Another placement of the same graph on the same cluster keeps the rows (dataChanged);
    // anything else resets the model.
    void setDocument(DocumentPtr document);
    // The simulated step (StepSimulation::simulated) of the document shown; a step of another
    // document is ignored, and a new document empties the step columns until its own arrives.
    void setStep(post::StepPtr step);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // The step's peak memory on `d` is over the device's memory.
    bool overMemory(DeviceId d) const;
    struct Load {
        int ops = 0;
        double computeUs = 0.0;    // ops on its compute lane
        double collectiveUs = 0.0; // collectives, on its communication channel
        double paramBytes = 0.0;
    };

    struct Traffic {
        double bytesIn = 0.0;
        double bytesOut = 0.0;
        int transfersIn = 0;
        int transfersOut = 0;
    };

    DocumentPtr document_;
    std::vector<Load> load_; // per device, from the placement
    StepPtr step_;
    std::vector<Traffic> traffic_; // per device, from the step's transfers
    // Op op's time on device d at [op * devices + d] (NaN: not yet needed), for this graph and cluster.
    std::vector<double> opTimes_;
    std::vector<double> opParams_; // each op's parameter bytes
    // Per device: the summed time of the ops any device may run (relativeSpeed), and the
    // fastest device for them.
    std::vector<double> graphUs_;
    DeviceId fastest_ = kNoDevice;
    bool hasCollectives_ = false;
    bool memoryKnown_ = true; // hasMemorySizes of the graph, taken when the graph changes
    std::uint64_t timesGraph_ = 0;
    std::shared_ptr<const Cluster> timesCluster_;
};

} // namespace post
