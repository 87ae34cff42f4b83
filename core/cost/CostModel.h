#pragma once

#include "core/cost/DeviceSpec.h"
#include "core/cost/OpCost.h"
#include "core/cost/ShapedGraph.h"
#include "core/graph/DeviceKind.h"
#include "core/graph/Graph.h"

#include <array>
#include <string>
#include <vector>

namespace post {

// Options of the shape-based cost model (documented in docs/cost-model.md).
struct CostModelOptions {
    // The reference device of each kind (speed 1.0 in the cluster presets: a V100 for
    // GPUs, the notional CPU of docs/clusters.md), indexed by DeviceKind.
    std::array<DeviceSpec, kDeviceKindCount> reference = defaultReferenceDevices();
    // Backward FLOPs and bytes = forward x this (gradients w.r.t. inputs and weights).
    double backwardFactor = 2.0;
    // Kernel fusion (docs/cost-model.md, "Kernel fusion"): chains of element-wise and
    // normalisation ops are costed as one kernel and colocated (cost/Fusion.h). false: every
    // op is its own kernel, as before fusion was modelled.
    bool fuseElementwise = true;
    static std::array<DeviceSpec, kDeviceKindCount> defaultReferenceDevices();
};

// What building a training graph found out, for reports and the CLI.
struct CostReport {
    int opCount = 0;        // ops of the training graph (forward and backward)
    int forwardOpCount = 0; // ops of the forward graph
    double totalForwardFlops = 0.0;
    double parameterBytes = 0.0;
    // Op types that had no formula and got the fallback, with how many ops each.
    std::vector<std::pair<std::string, int>> unknownTypes;
    // Graph-input dimensions nothing gave a value (ShapedGraph::unresolved).
    std::vector<UnresolvedDim> unresolved;
    // Activations whose shape nobody could infer (an op without a shape rule upstream):
    // named, costed as one element per unknown dimension.
    std::vector<std::string> unshapedTensors;
    // Graph inputs the importer took as weights (ShapedGraph::weightInputs).
    int weightInputs = 0;
    // Kernel fusion (CostModelOptions::fuseElementwise): fusion groups of two or more forward
    // ops, and how many forward ops they hold.
    int fusionGroups = 0;
    int fusedOps = 0;
};

// FLOPs and bytes of one forward op from its shapes; unknown types fall back to an
// element-wise estimate over the outputs and are marked known = false.
OpCost estimateOpCost(const ShapedGraph& graph, const ShapedOp& op);

// Roofline time in microseconds of `cost` on `device`:
//   max(flops / (peakFlops x computeEfficiency), bytes / (memoryBandwidth x memoryEfficiency))
//   + launchOverheadUs, and 0 for an op with neither FLOPs nor bytes. Throws
// std::invalid_argument for a device without positive figures.
double rooflineTimeUs(const OpCost& cost, const DeviceSpec& device);

// One training step: the forward ops, then a backward op per forward op (colocated with
// it, about backwardFactor x its cost) along the reversed edges; parameter bytes from
// parameter tensors; edge bytes from tensor shapes. Throws InputError (naming
// graph.source and the op's location) for a cycle or an edge to an unknown tensor.
// Details (op names, edges, what is free) in docs/cost-model.md.
Graph buildTrainingGraph(const ShapedGraph& graph, const CostModelOptions& options = {}, CostReport* report = nullptr);

} // namespace post
