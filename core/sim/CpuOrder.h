#pragma once

#include "core/sim/SimOptions.h"

#include <vector>

namespace post {

class Graph;
class Cluster;

// The CPU work that ready-order dispatch puts before and after each op (docs/simulator.md,
// "ready-order"). Under Dispatch::ReadyOrder a device starts its queued ops in the order they
// became ready, ties by OpId. On a cluster with one CPU, every op pinned to a CPU shares that
// CPU's queue in every valid placement, so some pinned ops start before others whatever the
// placement: an ancestor before its descendant; a source before every op that cannot be ready
// at time 0; and u before v when u's inputs all come from pinned ops that end before one and
// the same pinned input p of v starts (p takes time), so u is ready before p ends and v is
// ready. Every such u runs on the CPU before v starts, and its CPU time counts in v's beforeUs.
//
// `fastestUs`: each op's least time on a device it may use. Per op (empty where nothing
// applies: another dispatch, no CPU or several, no op pinned, or more than about 32 MB of the
// sets it keeps):
//   - beforeUs: the CPU time that ends before the op starts in every placement, so its start
//     is at least that;
//   - afterUs: the CPU time that starts after the op ends in every placement, so the step
//     runs at least that long after it.
struct CpuOrderWork {
    std::vector<double> beforeUs, afterUs;
};
CpuOrderWork cpuOrderWork(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                          const std::vector<double>& fastestUs);

} // namespace post
