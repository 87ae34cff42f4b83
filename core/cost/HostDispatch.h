#pragma once

#include <string>

namespace post {

class Graph;
class Cluster;

// Eager PyTorch issues every op of a step from one host thread, one after another, whatever
// device runs it; the simulator times what the devices do (kernels, transfers), not that
// thread. What the thread takes per op was measured on the project's device machine (an H200's
// host, PyTorch 2.11, ten torchvision training steps at batch 2, where the kernels are too
// small to matter): 38-52 us, 47 the fit (their host times 0.81-1.10x of ops x 47,
// geometric mean 1.01; docs/cost-model.md, "Host dispatch").
inline constexpr double kEagerDispatchUsPerOp = 47.0;

// The ops eager PyTorch issues for `graph`: every op that does work (a time, FLOPs, bytes or
// a collective), not graph inputs and constants.
int dispatchedOps(const Graph& graph);

// The host's time per op: the cluster's own (Cluster::hostDispatchUsPerOp, its file's
// "host_dispatch_us_per_op"), else kEagerDispatchUsPerOp; `cluster` may be null (no cluster).
double dispatchUsPerOp(const Cluster* cluster);
// Where that figure comes from, for notes: "this cluster's host_dispatch_us_per_op" or the
// default's measurement.
std::string dispatchRateSource(const Cluster* cluster);

// About how long the host takes to issue them: dispatchedOps x dispatchUsPerOp(cluster).
double eagerDispatchUs(const Graph& graph, const Cluster* cluster);

// For a graph that eager PyTorch runs (ImportedGraph::eagerHost): a note when the host's
// dispatch takes longer than `stepUs`, a simulated step of it on `cluster` (the step is then
// likely bound by that thread, about the dispatch's time, which the simulated step does not
// say); empty otherwise.
std::string hostBoundNote(const Graph& graph, const Cluster& cluster, double stepUs);

} // namespace post
