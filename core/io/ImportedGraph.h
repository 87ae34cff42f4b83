#pragma once

#include "core/cluster/Cluster.h"
#include "core/cost/ShapedGraph.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"
#include "core/io/GraphFormat.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace post {

// A graph together with the placement its file gives, if any (TensorFlow GraphDef
// `device` fields): an expert's placement to simulate and compare with.
// A size an ONNX op's output takes from the values it reads (a NonZero's count, the boxes a
// NonMaxSuppression keeps): no shape rule knows it, so the user gives it (`--count NODE=N`)
// or takes the most the op can give (`--count-max`), else every shape after it is unknown.
struct DataDependentSize {
    std::string node;          // the node's name, which --count names (its first output's where it has none)
    std::string location;      // "node 1179 '/rpn/NonZero' (NonZero)"
    std::string what;          // "the nonzero elements of a [2, 4000] tensor"
    std::int64_t largest = -1; // the most it can be
    std::int64_t value = -1;   // the size used: given or `largest`; -1: none, its outputs have no shape
    bool atMost = false;       // value is `largest` (--count-max)
};

struct ImportedGraph {
    Graph graph;
    std::string source;
    GraphFormat format = GraphFormat::Auto; // as read (sniffed when not given)
    // Per OpId: the device the file gives the op, normalised ("/device:GPU:0", see
    // normalizeTfDeviceName), or empty. An empty vector: the file gives no devices.
    std::vector<std::string> givenDevices;
    // Per OpId: where that device is written ("line 12"), for errors.
    std::vector<std::string> givenDeviceLocations;
    // Op types the cost model had no formula for, with how many ops each (ONNX, pbtxt):
    // they got its element-wise fallback, and the CLI says so.
    std::vector<std::pair<std::string, int>> unknownOpTypes;
    // What the reader could not take in fully or what makes the result doubtful (a DOT
    // graph without costs, TensorFlow library functions kept opaque): the CLI prints them.
    std::vector<std::string> warnings;
    // What the reader decided that the user should know but that does not make the result
    // doubtful (graph inputs taken as weights): the CLI prints them as notes.
    std::vector<std::string> notes;
    // Shape-based imports (ONNX, pbtxt): FLOPs of the forward pass (2 per multiply-add),
    // or a negative value where the format carries no FLOPs.
    double forwardFlops = -1.0;
    // Graph-input dimensions nothing gave a value: the costs are not to be trusted until
    // they are given (--dim, --input-shape); the CLI refuses to time such a graph.
    std::vector<UnresolvedDim> unresolvedDims;
    // Activations whose shape could not be inferred (an op without a shape rule upstream).
    std::vector<std::string> unshapedTensors;
    // ONNX: every op whose output size depends on the data that the import reached, in file order.
    std::vector<DataDependentSize> dataDependentSizes;
    // PyTorch execution traces: per OpId, the record-function ids (`rf_id`) of the trace
    // nodes the op stands for (its operator and the operators nested in it), in trace order.
    // A Kineto trace of the same run names them in its CPU operators' "Record function id"
    // (args), which links measured kernel times to ops (--costs). Empty for other formats.
    std::vector<std::vector<std::uint64_t>> recordFunctionIds;
    // Where the first of them is made ("node 12 'x' (Mod), tensor 'y'"), where the reader
    // knows it (ONNX); the CLI names it when it refuses to time such a graph.
    std::string unshapedFrom;

    // Shape-based imports (ONNX, pbtxt forward graphs): whether the cost model fused
    // element-wise kernels (docs/cost-model.md, "Kernel fusion"), and why ("PyTorch export:
    // eager mode runs each op as its own kernel", "--no-fusion"); PyTorch execution traces: off,
    // op for op as they ran. Not set where the file gives its own costs (native files, profiles).
    std::optional<bool> fused;
    std::string fusionWhy;
    // Whether eager PyTorch runs the graph, one host thread issuing every op (PyTorch execution
    // traces; ONNX exported by PyTorch and costed unfused): its simulated step leaves that
    // thread out, which the CLI and Post Studio note where it takes longer (cost/HostDispatch.h).
    bool eagerHost = false;
    // A post-graph/1 file written by `post-cli convert`: the format the graph was first read
    // from, as its "origin" records it (with forwardFlops, fused, fusionWhy and eagerHost
    // above); Auto for every other file, and for post-graph/1 files without an "origin".
    GraphFormat origin = GraphFormat::Auto;
    // ONNX: the data inputs' shapes once --batch, --dim and --input-shape are applied, in the
    // file's order (-1 where a dimension is still symbolic); empty for other formats. A
    // post_torch profile made at other shapes is refused (applyCostsFiles).
    std::vector<std::vector<std::int64_t>> inputShapes;
    // The GPU an untyped --costs trace was recorded on (its deviceProperties name), or empty:
    // where the cluster's GPUs are another, the CLI says so (measuredGpuNote).
    std::string measuredGpu;

    bool hasGivenPlacement() const { return !givenDevices.empty(); }
    // The format the graph comes from: its origin where its file records one, else its own.
    GraphFormat originFormat() const { return origin != GraphFormat::Auto ? origin : format; }
    // The precision mode of the framework that wrote the file, used where neither the user
    // nor the cluster file chooses one (docs/cost-model.md, "Precision"): pytorch for ONNX
    // exports (PyTorch writes most of them) and PyTorch execution traces, tf32 (TensorFlow's
    // default) for the rest; a converted graph's is its origin's.
    PrecisionMode frameworkPrecision() const
    {
        const GraphFormat from = originFormat();
        return from == GraphFormat::Onnx || from == GraphFormat::TorchEt ? PrecisionMode::Pytorch : PrecisionMode::Tf32;
    }
};

// Why the graph cannot be timed for its shapes, or empty: how many tensors on the compute path
// have no inferred shape and where the first is made (post-cli's simulate, place, compare and
// convert refuse such a graph, and Post Studio does not run on it).
std::string unshapedTensorsProblem(const ImportedGraph& imported);
// A note of the sizes that depend on the data which were taken (given, or at their most: a
// worst case), or empty where none was: the ONNX import's, and a converted file's again.
std::string dataDependentSizesNote(const std::vector<DataDependentSize>& sizes);

// The given placement on `cluster`. An op without a device takes its colocation group's
// given device, else TensorFlow's default: the cluster's first GPU (first device when
// there is none); CPU-pinned ops go to the CPU (applyCpuPinning). Throws InputError(source, location, ...) for a device the cluster
// lacks, and std::logic_error when the graph gives no placement.
Placement givenPlacement(const ImportedGraph& imported, const Cluster& cluster);

} // namespace post
