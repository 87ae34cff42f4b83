#pragma once

#include "core/graph/Placement.h"
#include "core/sim/SimOptions.h"
#include "core/sim/SimResult.h"

#include <cstdint>
#include <memory>
#include <span>

namespace post {

class Graph;
class Cluster;

// Re-times placements that differ from a reference placement in a few ops (a local search's
// moves) by resuming the reference's simulation instead of starting over
// (docs/simulator.md, "Incremental simulation"). While it simulates, it keeps checkpoints of
// the event loop at instant boundaries and every op's ready, start and end time. An op's
// device is first read when its first producer ends (0 for an op without inputs); before the
// earliest such time of the ops that moved, the two simulations are the same, so run()
// rebuilds the state at the last checkpoint before it from those records and simulates
// only the rest. The result equals Simulator::run(placement), bit for bit (no timeline).
// Not thread-safe: one per thread. The graph and cluster must outlive it.
class IncrementalSimulator {
public:
    IncrementalSimulator(const Graph& graph, const Cluster& cluster, SimOptions options = {});
    ~IncrementalSimulator();
    IncrementalSimulator(const IncrementalSimulator&) = delete;
    IncrementalSimulator& operator=(const IncrementalSimulator&) = delete;

    // Simulates `placement` (which must pass placementProblem()). Without a reference it
    // simulates from the start and makes `placement` the reference; with one it resumes
    // the reference's run where the difference can first matter. The reference stays.
    const SimResult& run(const Placement& placement);

    // Makes the placement of the last run() the reference, without simulating anything.
    void keepLastAsReference();
    // Makes `placement` the reference: free when it is the last run's or the reference
    // already, else one run() (resumed where it can be).
    void setReference(const Placement& placement);
    // Where run(placement) would resume: 0 when it would simulate from the start, the
    // reference's step time when `placement` is the reference.
    double resumeTimeUs(const Placement& placement) const;
    void clearReference();
    bool hasReference() const;
    const Placement& reference() const; // empty without one
    const SimResult& referenceResult() const;
    // The first time the simulation reads the device of an op on which `a` and `b` differ,
    // by the reference's times (exact when `b` is the reference; an estimate for a
    // neighbour of it): when the op's first producer ends, 0 without producers, infinity
    // when they do not differ. Stops scanning once at or below `floor`.
    double firstReadUs(const Placement& a, const Placement& b, double floor = 0.0) const;

    // Of the last run(): each op's start and end (µs).
    std::span<const double> opStartUs() const;
    std::span<const double> opEndUs() const;

    struct Stats {
        std::uint64_t runs = 0;      // run() calls
        std::uint64_t fromStart = 0; // simulated from time 0
        std::uint64_t unchanged = 0; // the reference itself: nothing simulated
        double resumedAtUs = 0.0;    // where the last run() resumed (0: from the start)
    };
    const Stats& stats() const;

    const Graph& graph() const { return graph_; }
    const Cluster& cluster() const { return cluster_; }

private:
    struct Impl;
    const Graph& graph_;
    const Cluster& cluster_;
    std::unique_ptr<Impl> impl_;
};

} // namespace post
