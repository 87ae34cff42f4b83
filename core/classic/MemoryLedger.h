#pragma once

#include "graph/Ids.h"
#include "sim/SimOptions.h"

#include <cstddef>
#include <limits>
#include <vector>

namespace post {

class Graph;
class Cluster;

// A conservative running estimate of each device's memory while a placer assigns ops.
// An op holds its parameters x optimizerStateFactor plus its output on its own device,
// and every other device that consumes the output holds one copy of it. Counting every
// output as live at once over-estimates the simulator's peak of live tensors, so a
// placement that fits here fits there. A colocation group's whole footprint is
// reserved on the device where its first op lands, so the rest of the group always fits.
class MemoryLedger {
public:
    MemoryLedger(const Graph& graph, const Cluster& cluster, const SimOptions& options);

    double ownBytes(OpId op) const { return own_[static_cast<std::size_t>(op)]; }
    double copyBytes(OpId op) const { return copy_[static_cast<std::size_t>(op)]; }
    // Own bytes of all ops of the op's colocation group (its own bytes when free).
    double footprint(OpId op) const;

    DeviceId deviceOf(OpId op) const { return device_[static_cast<std::size_t>(op)]; }
    double loadBytes(DeviceId d) const { return load_[static_cast<std::size_t>(d)]; }
    double capacity(DeviceId d) const { return capacity_[static_cast<std::size_t>(d)]; }
    double freeBytes(DeviceId d) const { return capacity(d) - loadBytes(d); }
    bool overflows(DeviceId d) const { return loadBytes(d) > capacity(d); }

    // Bytes placing `op` on `d` now would add to d: its group's footprint when it is the
    // group's first op (nothing for later members), plus copies of inputs not yet on d.
    double addedBytes(OpId op, DeviceId d) const;
    // Whether `op` fits on `d` without d's load passing min(capacity, limit).
    bool fits(OpId op, DeviceId d, double limit = std::numeric_limits<double>::infinity()) const;

    void place(OpId op, DeviceId d);
    void unplace(OpId op);

private:
    int& consumers(OpId producer, DeviceId d)
    {
        return consumers_[static_cast<std::size_t>(producer) * static_cast<std::size_t>(deviceCount_) + static_cast<std::size_t>(d)];
    }
    int consumers(OpId producer, DeviceId d) const
    {
        return consumers_[static_cast<std::size_t>(producer) * static_cast<std::size_t>(deviceCount_) + static_cast<std::size_t>(d)];
    }

    const Graph& graph_;
    int deviceCount_;
    std::vector<double> own_, copy_, groupBytes_;
    std::vector<double> inputCopies_; // all of an op's inputs copied: bounds addedBytes cheaply
    std::vector<double> load_, capacity_;
    std::vector<DeviceId> device_;
    std::vector<DeviceId> groupDevice_;
    std::vector<int> groupPlaced_;
    std::vector<int> consumers_; // per (producer, device): consumers placed there
};

} // namespace post
