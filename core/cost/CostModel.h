#pragma once

#include "core/cost/DeviceSpec.h"
#include "core/cost/OpCost.h"
#include "core/cost/ShapedGraph.h"
#include "core/graph/DeviceKind.h"
#include "core/graph/Graph.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// The optimizer whose update ops a training step gets (docs/cost-model.md, "Optimizer").
enum class OptimizerKind : std::uint8_t { None, Sgd, Adam };
std::string_view toString(OptimizerKind kind);
// "none", "sgd", "adam"; nullopt for anything else.
std::optional<OptimizerKind> parseOptimizerKind(std::string_view text);

// Options of the shape-based cost model (documented in docs/cost-model.md).
struct CostModelOptions {
    // The reference device of each kind (speed 1.0 in the cluster presets: a V100 for
    // GPUs, the notional CPU of docs/clusters.md), indexed by DeviceKind.
    std::array<DeviceSpec, kDeviceKindCount> reference = defaultReferenceDevices();
    // Backward FLOPs and bytes of a matrix product, convolution or normalisation = forward x
    // this (gradients w.r.t. inputs and weights; half of it where no input needs a gradient).
    // Element-wise, pass-through and data-movement ops have their own rules
    // (docs/cost-model.md, "Training step").
    double backwardFactor = 2.0;
    // Update ops per op that owns parameters, after its backward op (SGD with momentum by
    // default; None: no update ops, as before).
    OptimizerKind optimizer = OptimizerKind::Sgd;
    // A host-to-device copy op per graph input (an activation no op writes): the batch over
    // PCIe before the forward pass (docs/cost-model.md, "Input copy").
    bool inputCopy = true;
    // The copy's rate in GB/s (10^9 bytes/s): 10, a pageable copy fed by a single-process data
    // loader (9.9-11.6 GB/s in the V100 traces); multi-process loaders without pin_memory were
    // measured at 2.5-6.7 GB/s (docs/cost-model.md, "Input copy"). Finite and > 0.
    double inputCopyGBps = 10.0;
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
    // Ops added by the training step: optimizer updates, input copies; forward ops that get
    // no backward op (no gradient reaches them: moving averages, shape arithmetic on inputs).
    int optimizerOps = 0;
    int inputCopies = 0;
    int opsWithoutGradient = 0;
};

// How the backward pass of an op type is costed (docs/cost-model.md, "Training step").
enum class BackwardClass : std::uint8_t {
    Matrix,      // products, convolutions: data gradient + weight gradient (backwardFactor)
    PassThrough, // Add: the gradient goes to every input unchanged, no kernel
    Elementwise, // one pass: reads the incoming gradient and what the forward read, writes the input gradients
    Movement,    // data movement, reductions: the inverse movement, as much traffic as the forward
    Free,        // metadata only
    Other,       // normalisation, softmax, pooling, unknown types: backwardFactor x forward
};
BackwardClass backwardClassOf(std::string_view type);

// Matrix products and convolutions: the work tensor cores run (docs/cost-model.md,
// "Precision"). Depthwise convolutions are not: cuDNN runs them on the plain units.
bool isMatrixType(std::string_view type);

// Whether ops of this type run a streaming element-wise kernel (one read of each input, one
// write: DeviceSpec::streamingMemoryEfficiency): the cost model's element-wise types (Add,
// Relu, Mul, Sigmoid, ...) and their gradients ("ReluGrad", "AddGrad", TF's "ReluGrad"), also
// as the root of a fusion group; pooling and its gradients (one pass over the input). Not
// normalisation, softmax, global pooling and other reductions, data movement or optimizer
// updates (docs/cost-model.md, "Reference devices").
bool isStreamingOpType(std::string_view type);

// ATen's max pooling in a training step (ShapedGraph::atenKernels; docs/cost-model.md,
// "Pooling"): the forward also writes each output's int64 argmax index, and the backward
// zeroes the input gradient (a kernel of its own: passBytes), then every input element reads
// the index of each window that covers it and the gradient of the one that chose it.
struct AtenMaxPoolCosts {
    double indexBytes = 0.0; // written by the forward op, besides its output
    OpCost backward;
};
// nullopt: the op is no max pooling with shaped input and output.
std::optional<AtenMaxPoolCosts> atenMaxPoolCosts(const ShapedGraph& graph, const ShapedOp& op);

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
