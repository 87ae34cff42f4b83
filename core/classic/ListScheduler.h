#pragma once

#include "core/graph/Placement.h"
#include "core/sim/SimOptions.h"

#include <span>
#include <vector>

namespace post {

class Graph;
class Cluster;

// Longest path from each op to the end of the graph, each op timed at its fastest device of
// `devices` (opTimeOn), transfers free: the list schedulers' priority.
std::vector<double> bottomLevels(const Graph& graph, const Cluster& cluster, std::span<const DeviceId> devices);

struct ListSchedule {
    Placement placement;
    double makespanUs = 0.0; // the scheduler's own estimate, not the simulator's
};

// Memory-constrained list scheduling shared by Baechi's m-ETF and m-SCT.
//
// Repeatedly starts the (ready op, device) pair with the earliest start time, where an
// op's start on a device waits for the device to be free and for each input to arrive
// (producer's end, plus latency + bytes / bandwidth of Cluster::link when the producer
// is elsewhere; links are not modelled as busy). Devices are the GPUs (all devices
// without GPUs); a device whose memory would overflow is skipped (MemoryLedger), and
// when no GPU has room a CPU takes the op; a CPU-pinned op (Graph::cpuPinnedOps) goes to
// cpuPinDevice() and is timed there. The first op of a colocation group fixes
// the group's device. Ties go to the op with the longer path to the end (bottom
// level), then the earlier finish, then the lower op and device index.
//
// With favourite children (m-SCT), a device whose last op's favourite child is ready
// and starts earliest there is kept for that child: another op may start on it only
// once the op is "urgent", i.e. its inputs could have reached every device.
class ListScheduler {
public:
    // `budgets` (bytes per device) replace the devices' capacities when given.
    ListScheduler(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                  std::vector<double> budgets = {});

    // `favouriteChild[op]` is op's favourite child or kNoOp; empty for plain m-ETF.
    ListSchedule run(std::span<const OpId> favouriteChild = {}) const;

private:
    const Graph& graph_;
    const Cluster& cluster_;
    SimOptions options_;
    std::vector<double> budgets_;
};

} // namespace post
