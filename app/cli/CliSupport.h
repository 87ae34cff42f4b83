#pragma once

#include "core/sim/SimOptions.h"
#include "core/sim/SimResult.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"
#include "core/learn/LearnerOptions.h"
#include "core/util/InputError.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Validator;
} // namespace CLI

namespace post::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

// A usage problem found after parsing (e.g. a device name that doesn't exist): exit 2.
struct UsageError {
    std::string message;
};

// --dim NAME=N and --input-shape INPUT=d0,d1,... as given (parsed when the graph is read).
struct GraphShapeArgs {
    std::vector<std::string> dims;
    std::vector<std::string> inputShapes;
    std::vector<std::string> counts; // --count NODE=N: ImportOptions::counts
    bool countMax = false;           // --count-max: ImportOptions::countsAtMost
    bool fusion = false;             // --fusion: ImportOptions::fuseElementwise on
    bool noFusion = false;           // --no-fusion: ImportOptions::fuseElementwise off (neither: the framework's)
    std::string optimizer = "sgd";   // --optimizer: ImportOptions::optimizer
    bool msrPipelined = false;       // --msr-pipelined: ImportOptions::msrPipelined
    double inputCopyGBps = 10.0;     // --input-copy-GBps: ImportOptions::inputCopyGBps
};

// --input-copy-GBps on `cmd` (shared by the graph commands and `zoo generate`): a finite rate > 0.
void addInputCopyOption(CLI::App& cmd, double& gbps);

// Whether a command may go on with graph-input dimensions nothing gave a value: `info`
// lists them; the commands that time the graph refuse (exit 1), naming each and the
// option that sets it.
enum class UnresolvedDims { List, Refuse };

// --format, --batch, --dim and --input-shape, shared by every command that reads a graph file.
void addGraphInputOptions(CLI::App& cmd, std::string& format, std::int64_t& batch, GraphShapeArgs& shapes);
// --costs FILE (measured op times, docs/pytorch.md): one per process, read by loadGraphArg.
void addCostsOption(CLI::App& cmd);
// The formats of the importer table (core/io/ImporterTable), one line each: name, title,
// extensions, options, docs. post-cli --help shows it.
std::string graphFormatsHelp();
GraphFormat graphFormatArg(const std::string& format);
// The import options the arguments give; a UsageError for a malformed --dim or --input-shape.
ImportOptions importOptionsArg(std::int64_t batch, const GraphShapeArgs& shapes);
Graph loadGraphArg(const std::string& path, const std::string& format, std::int64_t batch = 1,
                   const GraphShapeArgs& shapes = {}, UnresolvedDims unresolved = UnresolvedDims::Refuse);
// The graph with the placement its file gives (TensorFlow device fields), if any.
ImportedGraph loadImportedGraphArg(const std::string& path, const std::string& format, std::int64_t batch = 1,
                                   const GraphShapeArgs& shapes = {}, UnresolvedDims unresolved = UnresolvedDims::Refuse);
// The graph argument "-" is standard input (read once, format sniffed); errors name it
// kStdinSource.
inline constexpr const char* kStdinSource = "<stdin>";
std::string graphSourceName(const std::string& path);
// A file through readGraphText (junk and files over their format's limit refused unread);
// `format` as --format gives it ("auto": sniffed from the file's start).
std::string readGraphArgText(const std::string& path, const std::string& format = "auto");
// The same for a graph that must be a TensorFlow GraphDef .pbtxt (what `option` writes back
// with devices); UsageError naming `option` otherwise.
std::string readPbtxtArgText(const std::string& path, const std::string& format, const std::string& option);
// Imports graph text read from `source`, printing the importer's notes and warnings on stderr.
ImportedGraph importGraphText(std::string_view text, const std::string& source, GraphFormat format,
                              const ImportOptions& options, UnresolvedDims unresolved = UnresolvedDims::Refuse);
// Throws InputError(source) when no op has any cost: no placement is better than another.
void requireSomeCompute(const Graph& graph, const std::string& source);
// Throws InputError naming every unresolved dimension of `imported` and how to set it.
void refuseUnresolvedDims(const ImportedGraph& imported);
// Throws InputError naming how many tensors have no inferred shape and where the first is
// made: the commands that time a graph refuse it as they refuse unresolved dimensions.
void refuseUnshapedTensors(const ImportedGraph& imported);
// "input 'x' dimension 2 ('height')" for messages and listings.
std::string describeUnresolvedDim(const UnresolvedDim& d);
// The cluster preset or file; a non-empty `precision` ("fp32", "tf32", "amp", "pytorch")
// replaces the cluster's precision mode (docs/cost-model.md, "Precision"). Without one, a
// cluster whose file gives no "precision" (every preset) takes `graph`'s framework default
// (pytorch for ONNX exports and PyTorch execution traces), said on stderr where it matters (a GPU with TF32 peaks).
Cluster loadClusterArg(const std::string& nameOrPath, const std::string& precision = {},
                       const ImportedGraph* graph = nullptr);
// What a placement file records of the precision mode its step time was timed under
// (post-placement/1 "precision"), for the commands that time its placement again.
struct RecordedPrecision {
    std::string file;                  // as given
    std::optional<PrecisionMode> mode; // none: the file does not say
    std::optional<double> stepTimeUs;  // the file's step_time_us, for the notes
};
// loadClusterArg's choice of `cluster`'s precision mode (`nameOrPath` is the --cluster it was
// loaded from), where a placement file is timed again (simulate --placement, place --start):
// without --precision the mode the file `recorded` (a note says so where another would have been
// taken); with a --precision of another mode, a note names the file's. A --precision that changes
// no op's time (a graph whose times are measured) is said on stderr, once.
void setPrecisionArg(Cluster& cluster, const std::string& nameOrPath, const std::string& precision,
                     const ImportedGraph* graph, const RecordedPrecision& recorded = {});
// A note on stderr when the placement `file` was made for a cluster of another name
// (`recordedCluster`, its "cluster"; nothing when empty) than `cluster` (--cluster `clusterArg`).
void noteOtherCluster(const std::string& file, const std::string& recordedCluster, const Cluster& cluster,
                      const std::string& clusterArg);
// A note on stderr when the graph's per-type times and the cluster's device types do not
// match (core/cluster/DeviceTypes.h: times for a type no device has, typed devices without times,
// times scaled by speed, or a --costs trace recorded on another GPU than the cluster's).
void noteDeviceTypes(const ImportedGraph& imported, const Cluster& cluster);
// For a graph eager PyTorch runs (ImportedGraph::eagerHost), the note that its simulated step
// `stepUs` on `cluster` is shorter than the host thread's dispatch of its ops at the cluster's
// rate (cost/HostDispatch.h).
void noteHostBound(const ImportedGraph& imported, const Cluster& cluster, double stepUs);
// For such a graph, `host_dispatched_ops`, `host_dispatch_us_per_op` and `host_dispatch_ms`
// (about how long the host thread takes to issue them, at `cluster`'s rate: null for none) in a
// command's --json object; nothing for other graphs.
void addHostDispatchJson(const ImportedGraph& imported, const Cluster* cluster, nlohmann::json& out);
// --precision fp32|tf32|amp|pytorch into `precision`.
void addPrecisionOption(CLI::App& cmd, std::string& precision);

// A graph file as a command reads it: the path and the input options of
// addGraphInputOptions (info, convert; GraphClusterArgs for the others).
struct GraphArgs {
    std::string graph;
    std::string format = "auto";
    std::int64_t batch = 1;
    GraphShapeArgs shapes;
};

// What every command that times a graph on a cluster reads: the graph file and its input
// options, --cluster and --precision (simulate, place, compare).
struct GraphClusterArgs : GraphArgs {
    std::string cluster;
    std::string precision;
    std::string dispatch;          // --dispatch as given; empty when not given (ready order unless said otherwise)
    double optimizerFactor = -1.0; // --optimizer-factor; negative: not given (by the graph's optimizer)
};
void addGraphClusterOptions(CLI::App& cmd, GraphClusterArgs& args);
// The simulator's options the args give: --dispatch's rule, or `unless` when --dispatch is not
// given (simulate --placement: the rule the file was placed under), ready order when neither.
// Notes on standard error what a dispatch other than ready order means for the step times printed.
SimOptions simOptionsArg(const GraphClusterArgs& args, std::optional<Dispatch> unless = std::nullopt);
DeviceId deviceArg(const Cluster& cluster, const std::string& name);
// `--set KEY=VALUE` items applied to the default learner options.
LearnerOptions learnerOptionsArg(const std::vector<std::string>& settings);
// Help text listing every KEY.
std::string learnerOptionsHelp();

// An output option of a command: its flag ("--out") and the path given ("" when none).
struct OutputArg {
    std::string option;
    std::string path;
};
// Checks, before a command reads or computes anything, that each given output can be written
// (core/util/AtomicFile's checkWriteTarget: a regular file or a new one, not read-only
// unless `force`) and is neither one of `inputs` (paths that may also be preset names: only
// existing files count), nor a file read implicitly (implicitInputsOf), nor another output;
// "the same" by device and inode (symlinks, hard links) or, for new files, by canonical path.
// Throws InputError naming the path, the option and the input it would replace.
void checkOutputArgs(const std::vector<OutputArg>& outputs, const std::vector<std::string>& inputs, bool force);
// The files a command reads without their being named as its inputs: the --costs file and,
// for each named input, the PyTorch sidecar read beside it (MODEL.onnx.modules.json). The one
// list checkOutputArgs adds to the inputs it is given, so no output can replace them either.
std::vector<std::string> implicitInputsOf(const std::vector<std::string>& inputs);
// --force, shared by every command that writes files.
void addForceOption(CLI::App& cmd, bool& force);

// Runs `work` (a placer run); an InputError a placer raises against the cluster (placers
// know its name only) is raised again naming `clusterArg`, the preset or file given.
template <class Work> auto runClusterNamed(const std::string& clusterArg, const Cluster& cluster, Work&& work)
{
    try {
        return work();
    } catch (const InputError& e) {
        if (e.file() != cluster.name() || clusterArg == cluster.name())
            throw;
        throw InputError(clusterArg, e.location(), e.message() + " (cluster '" + cluster.name() + "')");
    }
}

// The one range check of every floating-point option: refuses NaN and infinities (which
// compare false with any bound, so CLI::Range lets them through: `--time nan` never ended)
// and values outside [low, high], naming both ends.
CLI::Validator finiteRange(double low, double high);

// "post, ce, ppo, ..." for help texts and errors.
std::string joinedPlacerNames();
// One line per algorithm of the placer table: "  name: description" (for --help).
std::string placerTableHelp();

// The default budget of `place` (and the GUI) when neither --samples nor --time is given:
// about 2 s of wall time (docs/learners.md); a sample count stands for "no sample limit".
inline constexpr double kDefaultPlaceSeconds = 2.0;
inline constexpr int kUnlimitedSamples = 100000000;

std::string formatMs(double us);
// A certified gap (best / bound - 1) as a percentage: "2.82%", "13.2%".
std::string formatGap(double gap);
std::string formatBytes(double bytes);
std::string formatSeconds(double seconds); // "1.82 s"
// An out-of-memory run: "/device:GPU:0 needs 19.60 GB of 12.88 GB", the device furthest over
// its memory (SimResult::peakMemoryBytes against the cluster's).
std::string overMemoryText(const Cluster& cluster, const SimResult& result);

} // namespace post::cli
