#pragma once

#include "core/sim/SimOptions.h"

#include <vector>

namespace post {

class Graph;
class Cluster;

struct LowerBound {
    // Each op's duration below is its least over the cluster's devices (cost/OpTime.h: its time
    // for the device's type, measured, roofline or time_us[kind] / speed), so every component
    // holds when devices differ per op (mixed clusters, docs/simulator.md).
    double criticalPathUs = 0.0; // longest path with every op on its fastest device, no transfers
    // Sum over ops of the least time x weight over devices / total weight: weights the speeds,
    // and where device types apply also the throughputs on this graph (the larger bound).
    double workUs = 0.0;
    // Heads and tails priced at joins and forks: an op's inputs either share its device (and
    // run one after another there) or pay a transfer; likewise its consumers (docs/simulator.md).
    double forkJoinUs = 0.0;
    // The fork-join splits over ancestors and descendants: an op's device runs its ancestors
    // there before it, the others reach it only along a path that crosses devices (and the
    // mirror image for descendants); at least forkJoinUs. Also the sum of that bound over an
    // op of a longest path's ancestors and over its descendants (docs/simulator.md, "Cut").
    double ancestryUs = 0.0;
    // Work against device windows: a device hosting no source starts only after its first op's
    // inputs all arrive, one hosting no sink ends before its last op's consumers elsewhere
    // (docs/simulator.md).
    double windowsUs = 0.0;
    // Memory split: a path whose ops (with their colocation groups) fit on no one device is cut
    // into segments that each fit, each cut paying a transfer (docs/simulator.md). Holds for
    // every placement that fits in memory, which is every placement a result is ranked by;
    // 0 when memory forces nothing.
    double memorySplitUs = 0.0;
    // Path loads: a longest path cut into segments as above, each segment's device also
    // running everything colocated with its ops (their least start + their time + the least
    // time after them), so a path kept on one device pays for the groups it carries there;
    // like the memory split, for every placement that fits in memory; 0 where it proves
    // nothing above the components before it (docs/simulator.md, `pathLoadsUs`).
    double pathLoadsUs = 0.0;
    // Blocks: the sum, over the stretches between ops every path passes through, of each
    // stretch's own bound (docs/simulator.md, "blocks"); 0 without such an op inside the graph.
    double blocksUs = 0.0;
    // Under ready-order dispatch on a cluster with one CPU (core/sim/CpuOrder.h): the heads and
    // tails raised by the CPU work that order puts before and after each op, their longest
    // path and the device windows with them (docs/simulator.md, "ready-order"); 0 elsewhere.
    double readyOrderUs = 0.0;
    double valueUs() const;
    // The name of the component that gives valueUs(): "critical-path", "work", "fork-join",
    // "ancestry", "device-windows", "memory-split", "path-loads", "blocks" or "ready-order" (the first of them on ties,
    // within rounding).
    const char* source() const;
};

// No valid placement on `cluster` (placementProblem(): ops pinned to a CPU on one, colocation
// groups whole) can run a step faster than this (no placement that fits in memory, with
// `options`' optimizer factor, for the memory-split component).
LowerBound lowerBound(const Graph& graph, const Cluster& cluster, const SimOptions& options = {});

// The largest valid bound of the op-level problem: `bound`, or a bound a placer proved
// (ProvenBounds::solverBoundUs, e.g. milp's) when that one holds for the op-level problem and
// is larger; `source` is bound.source() or `provenSource`. A bound valid only inside a
// grouping is never taken.
struct ReportedBound {
    double us = 0.0;
    const char* source = "";
};
ReportedBound largestBound(const LowerBound& bound, double provenUs, bool provenOpLevel,
                           const char* provenSource = "milp");

// The certified gap of a step time against a valid lower bound: step / bound - 1, how far the
// step can at most be from the optimum. NaN without a positive finite bound or step. A gap a
// rounding under 0 (a bound that proves the step optimal, computed another way) is 0.
double certifiedGap(double stepUs, double boundUs);
// A bound as shown beside a step it bounds: one above the step by rounding alone (as
// certifiedGap tolerates) is the step, so that the two print alike; any other is kept as is.
double boundBelowStep(double boundUs, double stepUs);

// The ancestry bound's windows, per op (empty for an empty graph or cluster; at least the
// fork-join bound's): no schedule of the simulator's semantics (any order on devices and
// links, not only the simulator's) of a valid placement starts the op before headUs[op], and
// none ends the step sooner than tailUs[op] after the op starts.
struct OpWindows {
    std::vector<double> headUs;
    std::vector<double> tailUs;
};
OpWindows opWindows(const Graph& graph, const Cluster& cluster);

} // namespace post
