#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// The events of a torch.profiler (Kineto) Chrome trace that --costs uses (docs/pytorch.md,
// "Measured costs"), in both layouts PyTorch writes:
//  - PyTorch 1.8: categories "Operator" (CPU operators, ProfilerStep#N and Optimizer.* too),
//    "Runtime" (CUDA API calls), "Kernel", "Memcpy", "Memset"; string thread ids; a launch's
//    args "correlation" and "external id";
//  - PyTorch 1.9 and later ("2.x"): "cpu_op", "user_annotation" (ProfilerStep#N, Optimizer.*),
//    "cuda_runtime", "kernel", "gpu_memcpy", "gpu_memset", flow events "ac2g"; args
//    "correlation" and "External id";
//  - and a CPU-only trace without categories (PyTorch 1.13's export_chrome_trace, a bare
//    array): every complete event is a record function, ProfilerStep#N and Optimizer.* ones
//    annotations, the others operators.
struct TraceOperator {
    std::string name;
    int thread = 0; // index into KinetoTrace::threads
    double ts = 0.0, dur = 0.0;
    std::int64_t externalId = -1;
    std::int64_t sequence = -1; // autograd's "Sequence number": a backward op's forward op
    // The record function's id ("Record function id", PyTorch 2.1 and later): an execution
    // trace of the same run names its nodes by it (rf_id). -1: the trace does not say.
    std::int64_t recordFunctionId = -1;
    bool annotation = false; // a user annotation (ProfilerStep#N, Optimizer.step#...), not an operator
};

struct TraceLaunch { // a CUDA runtime call (cudaLaunchKernel, cudaMemcpyAsync, ...)
    int thread = 0;
    double ts = 0.0;
    std::int64_t correlation = -1;
    std::int64_t externalId = -1;
};

enum class GpuWorkKind { Kernel, Memcpy, Memset };

struct TraceGpuWork { // a kernel, memcpy or memset on a GPU stream
    GpuWorkKind kind = GpuWorkKind::Kernel;
    int thread = 0; // the stream, as a thread of the trace
    int device = -1;
    double ts = 0.0, dur = 0.0;
    std::int64_t correlation = -1;
    std::int64_t externalId = -1;
};

struct TraceFlow { // one end of a launch -> GPU work flow arrow ("ac2g", 1.8's "async" "launch")
    std::int64_t id = 0;
    bool start = false; // "s" (at the launch) or "f" (at the GPU work)
    int thread = 0;
    double ts = 0.0;
};

struct KinetoTrace {
    std::string source;
    std::string layout;               // "PyTorch 1.8", "PyTorch 2.x" or "CPU-only (no categories)"
    std::vector<std::string> threads; // "pid/tid"
    std::vector<TraceOperator> operators;
    std::vector<TraceLaunch> launches;
    std::vector<TraceGpuWork> gpuWork;
    std::vector<TraceFlow> flows;
    std::vector<std::string> deviceNames; // deviceProperties[i].name by device id; may be empty

    // The name of the GPU that ran most of the GPU work ("Tesla V100-DGXS-32GB"), or empty.
    std::string gpuName() const;
};

// Reads a Chrome trace's text (readFileText has decompressed a .gz already). Throws
// InputError naming `source` and the event for a document that is not a trace or an event
// whose fields have the wrong type.
KinetoTrace parseKinetoTrace(std::string_view text, const std::string& source);
// The same from a parsed document (an array of events or an object with "traceEvents").
KinetoTrace kinetoTraceFromJson(const nlohmann::json& root, const std::string& source);

// True when `text` (decompressed) looks like a torch.profiler Chrome trace rather than a
// graph: a JSON object with "traceEvents" near its start, or a JSON array whose first event
// has a "ph" field. Looks at the first 64 KB only.
bool looksLikeProfilerTrace(std::string_view text);

// Throws InputError naming `source` when `text` is a profiler trace: it holds measured op
// times for --costs, not a graph. For the graph readers' format sniffing.
void refuseProfilerTraceAsGraph(std::string_view text, const std::string& source);

} // namespace post
