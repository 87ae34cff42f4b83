#pragma once

#include "core/graph/Ids.h"
#include "core/graph/Placement.h"
#include "core/sim/SimOptions.h"

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace post {

class Graph;
class Cluster;

// A running estimate of each device's peak memory while a placer assigns ops, in the
// simulator's terms: parameters x optimizerStateFactor plus resident bytes for the whole
// step, plus the peak of live tensors. Ops are taken to run in the order they are placed (list
// schedulers place in start-time order, the splitters in topological order), as in
// Baechi's m-ETF: an op's output is live on its device from its placement until its
// last consumer is placed, and a device that consumes it from elsewhere holds one copy
// (the producer's largest outgoing edge) for as long. A colocation group's parameters
// are reserved whole on the device where its first op lands, so later members always
// find room for them.
class MemoryLedger {
public:
    // `budgets` (bytes per device) replace the devices' capacities when given.
    MemoryLedger(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                 std::span<const double> budgets = {});

    // Parameters x factor plus resident bytes plus output: what m-TOPO balances (the group's total for a
    // grouped op).
    double footprint(OpId op) const;

    DeviceId deviceOf(OpId op) const { return device_[static_cast<std::size_t>(op)]; }
    // The device's budget: its capacity unless budgets were given.
    double capacity(DeviceId d) const { return capacity_[static_cast<std::size_t>(d)]; }
    double peakBytes(DeviceId d) const;
    double freeBytes(DeviceId d) const { return capacity(d) - peakBytes(d); }
    bool overflows(DeviceId d) const { return peakBytes(d) > capacity(d); }

    // d's peak if `op` were placed there next.
    double peakAfter(OpId op, DeviceId d) const;
    // Whether d's peak stays within min(capacity, limit) with `op` placed there next.
    bool fits(OpId op, DeviceId d, double limit = std::numeric_limits<double>::infinity()) const
    {
        return peakAfter(op, d) <= std::min(capacity(d), limit);
    }
    void place(OpId op, DeviceId d);
    // Back to nothing placed (as constructed), without reallocating.
    void reset();

    // Per-device peak of a whole placement, its ops placed in topological order.
    static std::vector<double> placementPeaks(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                                              const Placement& placement);

private:
    std::size_t at(OpId op, DeviceId d) const
    {
        return static_cast<std::size_t>(op) * static_cast<std::size_t>(deviceCount_) + static_cast<std::size_t>(d);
    }
    // Whole-step bytes (parameters x factor + resident) placing `op` on d adds (its
    // group's on the group's first op).
    double newParams(OpId op, DeviceId d) const;
    // Tensor bytes placing `op` on d allocates: its output and copies of remote inputs.
    double newTensors(OpId op, DeviceId d) const;
    void release(OpId producer);

    const Graph& graph_;
    int deviceCount_;
    std::vector<double> params_, output_, copy_, groupParams_, groupFootprint_;
    std::vector<double> capacity_, paramLoad_, live_, peakLive_;
    std::vector<DeviceId> device_, groupDevice_;
    std::vector<int> unplacedConsumers_; // per op: outgoing edges whose consumer is not placed
    std::vector<char> hasCopy_;          // per (producer, device)
    // Per op, its producers whose copy takes bytes (copy_ > 0), one entry per such input edge:
    // the others add nothing to newTensors, and a trace without tensor sizes (a Chakra step,
    // hundreds of inputs per op) then skips its inputs altogether.
    std::vector<int> copyInOffset_;
    std::vector<OpId> copyInFrom_;
    // Scratch of newTensors (a ledger is used by one thread, like place()): per op, the
    // stamp of the last call that counted it as a producer.
    mutable std::vector<unsigned> seenAt_;
    mutable unsigned stamp_ = 0;
};

} // namespace post
