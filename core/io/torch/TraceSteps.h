#pragma once

#include "core/io/torch/KinetoTrace.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace post {

// What a top-level operator of a training step is (docs/pytorch.md, "Measured costs").
enum class OperatorRole {
    Forward,  // on the forward thread, outside the optimizer
    Backward, // autograd's backward nodes ("autograd::engine::evaluate_function: XBackward0",
              // 1.8's bare "CudnnConvolutionBackward", ...) and what runs between them
              // on their thread
    Optimizer // Optimizer.step / Optimizer.zero_grad and what runs inside them, AccumulateGrad
};

// A top-level CPU operator (not inside another operator of its thread) with what it cost:
// its own duration on the CPU and the GPU work (kernels, memcpy, memset) it and the
// operators nested in it launched.
struct StepOperator {
    int index = 0; // into KinetoTrace::operators
    OperatorRole role = OperatorRole::Forward;
    double cpuUs = 0.0;
    double gpuUs = 0.0;
    double memcpyUs = 0.0; // of gpuUs, memory copies (the step's input copy to the GPU is one)
    // Autograd's sequence numbers: of a backward node, the forward operator it differentiates
    // (its own number, else the first nested one; -1: none); `sequences` holds every number
    // the operator or one nested in it carries (a forward aten::linear creates two nodes).
    std::int64_t sequence = -1;
    std::vector<std::int64_t> sequences;
    // A Backward operator that is no autograd node: an operator of the backward pass's thread
    // between its first and last node (the engine's gradient accumulation, aten::add).
    bool betweenNodes = false;
};

struct TraceStep {
    std::string name;              // "ProfilerStep#6", or "step 3" where steps are cut at Optimizer.step
    std::vector<StepOperator> ops; // time order
    double gpuUs = 0.0;            // all GPU work launched in the step
    double cpuUs = 0.0;            // all top-level operator time of the step
    double gpuSpanUs = 0.0;        // first GPU work start to last end (0 without GPU work)
};

struct TraceSteps {
    std::vector<TraceStep> steps;
    std::string stepsFrom; // "ProfilerStep#N", "Optimizer.step", or "the whole trace"
    bool hasGpuWork = false;
    double unlaunchedGpuUs = 0.0; // GPU work whose launch lies in no operator of any step
};

// Cuts the trace into steps (ProfilerStep#N ranges; else one step per Optimizer.step, ending
// with it; else the whole trace), finds each step's top-level operators, gives each its role,
// and attributes every kernel, memcpy and memset to the top-level operator that launched it:
// its correlation id to the runtime call (or, without one, its flow arrow, or its external id
// to the operator), the call to the operator enclosing it on its thread.
TraceSteps splitTraceSteps(const KinetoTrace& trace);

// For each of the trace's GPU work items (kernels, memcpy, memset), the operator that launched
// it, or -1: `operatorAt(thread, ts)` (the operator a caller attributes to, running on that
// thread at that time) of its runtime call (found by correlation id), else of its flow arrow's
// start; failing both, `byExternal` (external id -> operator) of its external id. Shared by the
// step split (top-level operators) and the record-function link (innermost operators).
std::vector<int> gpuWorkLaunchers(const KinetoTrace& trace, const std::function<int(int, double)>& operatorAt,
                                  const std::unordered_map<std::int64_t, int>& byExternal);

// "12.34 ms" (one decimal from 10 ms) and "94%": the figures of the --costs reports.
std::string formatTraceMs(double us);
std::string formatShare(double share);

} // namespace post
