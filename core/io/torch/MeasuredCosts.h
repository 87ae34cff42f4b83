#pragma once

#include "core/graph/Graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace post {

struct MeasuredCostsOptions {
    // --costs-partial: take a trace that covers too little of the graph, or whose operator
    // sequence does not look like this model's, rather than refusing it. Zero matched ops
    // are refused all the same.
    bool partial = false;
};

// What --costs did to a graph (docs/pytorch.md, "Measured costs").
struct MeasuredCostsReport {
    std::string source;
    std::string kind;     // "GPU" (the trace has kernels) or "CPU"
    std::string layout;   // "post-costs/1", "PyTorch 1.8", "PyTorch 2.x", "CPU-only"
    std::string gpuName;  // the traced GPU (deviceProperties), or empty
    int forwardOps = 0;   // ops that are neither "X/grad" nor optimizer ops
    int matchableOps = 0; // forward ops of a kind some operator can match (aten_of_onnx.json)
    int matched = 0;      // forward ops with a measured time
    int measuredOps = 0;  // ops of any role with a measured time
    // Of those, "X/grad" ops timed as X's measured time x the cost model's backward/forward
    // ratio, where the measurement has no backward (post-costs/1): counted as measured (the
    // simulator takes their time as it is), named as scaled in the note.
    int scaledBackward = 0;
    int graphOps = 0;                   // all ops
    std::vector<std::string> unmatched; // forward ops without one, in graph order
    // Steps (traces only): how many were profiled, which were used (steady state: all but
    // the first when there are several), and how they were found.
    int steps = 0;
    std::vector<std::string> stepsUsed;
    std::string stepsFrom;
    // Per step (median over the steps used), in µs: all the GPU work launched in the step (a
    // GPU trace) or all its top-level operator time (a CPU trace), the part that landed on
    // graph ops, and the GPU's busy span (first kernel start to last end).
    double stepUs = 0.0;
    double mappedUs = 0.0;
    double gpuSpanUs = 0.0;
    // What did not land on the graph, biggest first: (what, µs per step).
    std::vector<std::pair<std::string, double>> unattributed;
    bool partial = false; // the trace was taken under --costs-partial despite failing a check
    // post-costs/1's "x-inputs" (python/post_torch records them): the shape of each forward
    // argument profiled, nullopt for one that is no tensor; empty when the file has none.
    std::vector<std::optional<std::vector<std::int64_t>>> profiledInputs;
};

// Replaces estimated op times by measured ones (docs/pytorch.md "Measured costs"). `path` is
//  - a post-costs/1 file (python/post_torch's profile=True output): op name -> forward CPU µs;
//  - or a torch.profiler Chrome trace (Kineto, gzip or plain, PyTorch 1.8 or 2.x layout, or
//    the CPU-only bare array): per profiled step, each kernel, memcpy and memset goes to the
//    top-level CPU operator that launched it; forward operators are aligned with the graph's
//    forward ops by kind (python/post_torch/aten_of_onnx.json), backward operators go to the
//    "X/grad" of the forward op autograd's sequence number names, optimizer work to the
//    graph's optimizer ops (Apply*); a trace with GPU work gives GPU times, one without CPU
//    times. Several steps: the median of each op over the steady steps (all but the first).
// A trace is refused (InputError naming the file, with the figure) when it matches no op, and
// unless options.partial when it matches under 90% of the graph's matchable forward ops or
// under 80% of the step's time lands on the graph.
Graph applyMeasuredCosts(const Graph& graph, const std::string& path, MeasuredCostsReport* report = nullptr,
                         const MeasuredCostsOptions& options = {});
// The same for the file's text already read (decompressed); `path` names it in errors and as
// the measured times' source.
Graph applyMeasuredCostsText(const Graph& graph, std::string text, const std::string& path,
                             MeasuredCostsReport* report = nullptr, const MeasuredCostsOptions& options = {});

// The one-paragraph account of a report, for the CLI's note: what was measured, the coverage
// as time, what did not land on the graph.
std::string describeMeasuredCosts(const MeasuredCostsReport& report);

// The one place a measured time enters an op: sets its time on devices of `kind`, marks the
// kind measured and names the source (Op::measuredBy).
void setMeasuredTime(Op& op, DeviceKind kind, double us, const std::string& source);

// An optimizer update op of a training step (ApplyMomentum, ApplyAdam, ResourceApply*, ...).
bool isOptimizerOp(const Op& op);

} // namespace post
