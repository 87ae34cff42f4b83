#pragma once

#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace post {

// What reading an execution trace found, for tests, notes and the docs' figures.
struct ExecutionTraceReport {
    std::string schema;        // the trace's "schema" ("1.0.1", "1.1.0-chakra.0.0.4")
    int traceNodes = 0;        // nodes in the file
    int profilerSteps = 0;     // ProfilerStep#N nodes; the graph is the last one's
    std::string step;          // the step read ("ProfilerStep#8"), empty when the trace has none
    int forwardOps = 0;        // ops of the graph by phase
    int backwardOps = 0;       // inside autograd::engine::evaluate_function
    int optimizerOps = 0;      // inside Optimizer.step / Optimizer.zero_grad
    int collectiveOps = 0;     // c10d collectives (each also counted in its phase)
    int graphCollectives = 0;  // of them, collectives of the graph (Op::collective): all but send, recv, ...
    int foldedBookkeeping = 0; // views, allocations, detach, no-op copies folded away
    int nestedOps = 0;         // operators inside an op of the graph, counted with it
    int dataEdges = 0;
    double forwardFlops = 0.0;
    double totalFlops = 0.0;
};

// A PyTorch execution trace (torch.profiler.ExecutionTraceObserver, ExecutionGraphObserver
// in torch 1.13; JSON with "schema" and "nodes") as a training step, op for op:
// docs/importers.md "PyTorch execution traces". Each op is the outermost operator that
// computes (its nested operators are its implementation and counted with it); views,
// allocations and other bookkeeping are folded away; data edges follow tensor storages from
// the operator that last wrote one to each reader; forward, backward and optimizer ops are
// told apart; costs come from the recorded shapes and types through the cost model's
// formulas. `imported.recordFunctionIds` gives each op's rf_ids for a Kineto trace of the same
// run. Throws InputError naming the file and the field.
ImportedGraph parseExecutionTrace(std::string_view text, const std::string& source, const ImportOptions& options,
                                  ExecutionTraceReport* report = nullptr);

// Measured times by record-function id, from a Kineto trace of the same run: per rf_id, the
// CPU operator's duration and the summed duration of the GPU kernels it launched (its
// correlation / external id). Reading the Kineto trace is core/io/torch/MeasuredCosts' part.
struct RecordFunctionTimes {
    std::unordered_map<std::uint64_t, double> cpuUs;
    std::unordered_map<std::uint64_t, double> gpuUs;
};

// The execution trace's graph with measured times where `times` has them: an op's GPU time
// is the sum of the kernel times of all its rf_ids (its operator's and the nested ones': a
// kernel is attributed to the innermost operator that launched it), its CPU time the duration
// of its own operator (its smallest rf_id, which encloses the nested ones) where the op has no
// GPU time (else that duration is the host's dispatch of its kernels); each becomes
// measured (Op::measuredKinds) and, where `source` is given, measured by it (Op::measuredBy).
// `matched` counts the ops that got a time. Linking a Kineto trace by rf_id:
// core/io/torch/RecordFunctionLink. Throws std::invalid_argument when `imported` has no
// record-function ids (not a trace).
Graph applyRecordFunctionTimes(const ImportedGraph& imported, const RecordFunctionTimes& times, int* matched = nullptr,
                               const std::string& source = {});

// The sniffer's test: a JSON object with "schema" and "nodes" among its first keys.
bool looksLikeExecutionTrace(std::string_view text);

} // namespace post
