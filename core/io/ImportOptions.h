#pragma once

#include "core/cost/CostModel.h"
#include "core/graph/GraphBuilder.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

struct ImportOptions {
    // Where an input gives only accelerator (GPU) times, CPU time = GPU time x this.
    // 10 matches the ratio MSR's inputs use for most nodes; see docs/formats.md.
    double cpuSlowdown = 10.0;
    // ONNX: the value given to the symbolic batch dimension (the leading dim of the graph
    // inputs) before shape inference; must be >= 1. Other formats carry fixed costs.
    std::int64_t batch = 1;
    // ONNX and TF: values of named symbolic dimensions (`--dim NAME=N`), wherever the
    // name appears; each must be >= 1 and appear in the model.
    std::map<std::string, std::int64_t> dims;
    // ONNX and TF: whole shapes of graph inputs / placeholders (`--input-shape
    // INPUT=1,3,960,960`), over what the file says; the rank must match.
    std::map<std::string, std::vector<std::int64_t>> inputShapes;
    // ONNX: the sizes ops take from the data they read (a NonZero's count, the boxes a
    // NonMaxSuppression keeps), by node name (`--count NODE=N`); each must be at most what
    // the op can give, and name such an op (docs/importers.md, "Sizes that depend on the data").
    std::map<std::string, std::int64_t> counts;
    // ONNX: every such size `counts` does not give at the most the op can give (`--count-max`):
    // the step is then a worst case, and the import says so.
    bool countsAtMost = false;
    // ONNX and TF forward graphs: kernel fusion in the cost model
    // (CostModelOptions::fuseElementwise, docs/cost-model.md "Kernel fusion"). Not set: the
    // framework's default (fusionChoice): off for ONNX exported by PyTorch (eager mode runs each
    // op as its own kernel), on for TensorFlow graphs and other ONNX producers. Set: `--fusion`
    // / `--no-fusion`, or the CLI's choice for graphs costed by measured traces (--costs).
    std::optional<bool> fuseElementwise;
    // Why fuseElementwise is set, for ImportedGraph::fusionWhy; empty: "--fusion" / "--no-fusion".
    std::string fusionGivenBy;
    // Called now and then while a large file is read (execution traces, Chakra traces):
    // what is being done and the fraction done so far (0 to 1). From the reading thread;
    // empty: nobody listens.
    std::function<void(std::string_view stage, double fraction)> progress;
    // ONNX and TF forward graphs: the optimizer whose update ops the training step gets
    // (CostModelOptions::optimizer, `--optimizer sgd|adam|none`).
    OptimizerKind optimizer = OptimizerKind::Sgd;
    // ONNX and TF forward graphs: the rate of the batch's host-to-device copy in GB/s
    // (CostModelOptions::inputCopyGBps, `--input-copy-GBps`).
    double inputCopyGBps = 10.0;
    // MSR training graphs in the file's pipelined (throughput) form, whose backward nodes no edge
    // orders after the forward ones: false (the default) joins every forward sink to every
    // backward source, so that the graph is one training step, forward then backward; true
    // (`--msr-pipelined`) keeps the file's edges alone. docs/importers.md, "MSR".
    bool msrPipelined = false;
};

// Whether a shape-based import models kernel fusion, and why (ImportedGraph::fused, fusionWhy):
// the option where one is set, else `frameworkFuses` for the reason `framework` gives
// ("PyTorch export: eager mode runs each op as its own kernel").
struct FusionChoice {
    bool fused = true;
    std::string why;
};
inline FusionChoice fusionChoice(const ImportOptions& options, bool frameworkFuses, std::string framework)
{
    if (options.fuseElementwise)
        return {*options.fuseElementwise,
                options.fusionGivenBy.empty() ? std::string(*options.fuseElementwise ? "--fusion" : "--no-fusion")
                                              : options.fusionGivenBy};
    return {frameworkFuses, std::move(framework)};
}

// The cost options a shape-based import (ONNX, pbtxt) builds its training graph with.
inline CostModelOptions importCostOptions(const ImportOptions& options, const FusionChoice& fusion)
{
    CostModelOptions cost;
    cost.fuseElementwise = fusion.fused;
    cost.optimizer = options.optimizer;
    cost.inputCopyGBps = options.inputCopyGBps;
    return cost;
}

// A CPU time an input does not give, from its GPU time: x cpuSlowdown, capped at
// GraphBuilder's bound, so that a GPU time within the bounds is never refused as a CPU time
// the file never wrote (the GPU time itself is checked where it is read).
inline double derivedCpuTimeUs(double gpuUs, const ImportOptions& options)
{
    return std::min(gpuUs * options.cpuSlowdown, GraphBuilder::kMaxTimeUs);
}

} // namespace post
