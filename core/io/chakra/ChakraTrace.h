#pragma once

#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <string>
#include <string_view>

namespace post {

// What reading a Chakra trace found, for tests and notes.
struct ChakraReport {
    int nodes = 0;
    int cpuOps = 0;      // is_cpu_op: pinned to the CPU
    int gpuOps = 0;      // GPU kernels (and copies)
    int collectives = 0; // COMM_COLL_NODE
    // Of them, the GPU ones (not is_cpu_op: NCCL kernels), collectives of the graph
    // (Op::collective): timed by their measured runtime, or by the ring model where the trace
    // gives none (a runtime of 0 counts as none).
    int gpuCollectives = 0;
    int modelledCollectives = 0;
    int ranks = 0;    // the group size the trace states (JSON "ngpus"); 0: not stated
    int sendRecv = 0; // COMM_SEND_NODE, COMM_RECV_NODE
    int withoutRuntime = 0;
    int dataDeps = 0;
    int ctrlDeps = 0;
    int droppedCtrlDeps = 0; // on nodes the trace does not have
    int sizedDataDeps = 0;   // data dependencies that carry the bytes of the tensors they pass
    double sizedBytes = 0.0; // and those bytes
    double cpuUs = 0.0;      // total measured runtime of the CPU ops
    double gpuUs = 0.0;      // and of the others
};

// A Chakra execution trace (MLCommons Chakra; ASTRA-sim's input) as a training step, node for
// node, with its measured runtimes: docs/importers.md "Chakra traces".
//  - JSON: {"workload_graph": [{"Id", "Name", "NodeType", "runtime", "data_deps", "is_cpu_op",
//    "ctrl_deps" or "ctrlDeps"}, ...]} (Chakra's JSON form);
//  - .et: the protobuf form, a GlobalMetadata message then Node messages, each preceded by its
//    length as a varint (core/io/chakra/et_def.proto).
// A CPU operator (is_cpu_op) gets its runtime as a measured CPU time and is pinned to the CPU;
// any other node its runtime as a measured GPU time (CPU time = that x cpuSlowdown, an
// estimate). A GPU collective (COMM_COLL_NODE, not is_cpu_op) is a collective of the graph
// (Op::collective: it runs on its device's communication channel, beside compute) of its
// measured runtime, or where it has none timed by the ring model from comm_size (else its
// tensors' bytes) for the trace's "ngpus" ranks (else the cluster's GPUs); the
// other ranks are not in the graph. A CPU-side collective call (c10d, is_cpu_op) is a CPU
// operator; send and receive nodes are ops of their runtime. A data dependency carries the bytes of the tensors the
// consumer reads from the producer's outputs, where both nodes list their tensors (IOInfo
// `values`: PyTorch's [tensor_id, storage_id, offset, numel, itemsize, device], as the
// converter writes them); other dependencies, and control dependencies, are edges without bytes.
// Throws InputError naming the file and the field (JSON) or the node and byte offset (.et).
ImportedGraph parseChakraJson(std::string_view text, const std::string& source, const ImportOptions& options,
                              ChakraReport* report = nullptr);
ImportedGraph parseChakraEt(std::string_view bytes, const std::string& source, const ImportOptions& options,
                            ChakraReport* report = nullptr);

// Sniffing: a JSON object with "workload_graph" near its start; a binary file whose first
// length-delimited message is a GlobalMetadata with a version ("0.0.4").
bool looksLikeChakraJson(std::string_view text);
bool looksLikeChakraEt(std::string_view bytes);

} // namespace post
