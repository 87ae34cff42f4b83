#pragma once

#include "core/graph/Placement.h"
#include "core/sim/SimOptions.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace post {

class Graph;
class Cluster;
struct Timeline;

// The exact placement-and-schedule problem of docs/placers.md ("milp"), prepared once per
// graph and cluster: placement units (colocation groups, free ops), per-op durations per
// device, which op pairs are ordered by the graph, the fork-join windows, interchangeable
// devices. solveMilp() turns it into a mixed-integer program for CBC.
struct MilpInstance {
    int opCount = 0;
    int deviceCount = 0;
    int unitCount = 0;
    std::vector<int> unitOf;                    // op -> placement unit
    std::vector<std::vector<char>> unitAllowed; // unit -> device -> may host it
    std::vector<double> durationUs;             // op * devices + device
    std::vector<double> headUs, tailUs;         // fork-join windows (core/sim/LowerBound.h)
    std::vector<std::vector<char>> ordered;     // ordered[i][j]: a path joins i and j
    std::vector<double> unitStaticBytes;        // params x factor + resident, per unit
    std::vector<double> deviceMemoryBytes;      // per device (infinity: unlimited)
    struct Consumer {
        int op;
        double bytes; // the largest bytes of the edges producer -> op
    };
    std::vector<std::vector<Consumer>> consumers;      // producer -> distinct consumers
    std::vector<int> producers;                        // ops with a consumer in another unit
    std::vector<double> linkLatencyUs, linkBytesPerUs; // from * devices + to
    std::vector<std::vector<int>> symmetricClasses;    // interchangeable devices, in index order
    double lowerBoundUs = 0.0;                         // lowerBound(graph, cluster).valueUs()
    double safeHorizonUs = 0.0;                        // no simulated schedule of any placement lasts longer

    double duration(int op, int device) const
    {
        return durationUs[static_cast<size_t>(op) * static_cast<size_t>(deviceCount) + static_cast<size_t>(device)];
    }
    double transferUs(int from, int to, double bytes) const
    {
        const size_t l = static_cast<size_t>(from) * static_cast<size_t>(deviceCount) + static_cast<size_t>(to);
        return linkLatencyUs[l] + bytes / linkBytesPerUs[l];
    }
    // The device of every unit of a placement (units of one colocation group agree).
    std::vector<int> unitDevices(const Placement& placement) const;
    Placement placementOf(const std::vector<int>& unitDevice) const;
};

MilpInstance prepareMilp(const Graph& graph, const Cluster& cluster, const SimOptions& sim);

// How many binary variables and rows solveMilp() would create (for the size limit).
struct MilpSize {
    std::int64_t binaries = 0;
    std::int64_t rows = 0;
};
MilpSize milpSize(const MilpInstance& instance);

struct MilpRequest {
    double horizonUs = 0.0; // every schedule of interest ends by then (C <= horizon)
    double seconds = 10.0;  // CBC's wall-time limit
    const std::atomic<bool>* stop = nullptr;
    // Placements (unit -> device) that are cut off: no solution may repeat one of them.
    std::vector<std::vector<int>> excluded;
    // A start for CBC: the placement and the simulator's timeline of it (orders on devices
    // and links are read from it).
    const Placement* startPlacement = nullptr;
    const Timeline* startTimeline = nullptr;
};

struct MilpOutcome {
    enum class Status : std::uint8_t {
        Optimal,    // the best solution below the horizon is proven
        Infeasible, // no solution (not excluded) ends by the horizon
        Stopped,    // time limit or stop flag: bestBoundUs is what was proven
    };
    Status status = Status::Stopped;
    std::optional<std::vector<int>> unitDevice; // the incumbent, when there is one
    // The other placements among CBC's saved solutions (the incumbents it replaced, each
    // within the horizon), distinct, best first: more placements to time with the simulator.
    std::vector<std::vector<int>> others;
    double objectiveUs = 0.0; // its makespan in the model
    double bestBoundUs = 0.0; // no solution of the model ends sooner
    bool stopFlag = false;    // ended by the stop flag
};

// Builds the model of `instance` with `request`'s cuts and horizon and solves it with CBC
// (calls are serialised: CBC's solver front end keeps global state).
MilpOutcome solveMilp(const MilpInstance& instance, const MilpRequest& request);

} // namespace post
