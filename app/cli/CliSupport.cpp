#include "app/cli/CliSupport.h"

#include "core/cluster/DeviceTypes.h"
#include "core/cost/HostDispatch.h"
#include "core/cost/OpTime.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/torch/CostsFiles.h"
#include "core/io/torch/TorchModules.h"
#include "core/learn/LearnerOptionSetter.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/Simulator.h"
#include "core/util/AtomicFile.h"
#include "core/util/FileKind.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"
#include "core/util/TextNumber.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

namespace post::cli {

namespace {
std::vector<std::string> costsArgs; // --costs of the one subcommand that runs, in order
bool costsPartial = false;          // --costs-partial
} // namespace

void addGraphInputOptions(CLI::App& cmd, std::string& format, std::int64_t& batch, GraphShapeArgs& shapes)
{
    cmd.add_option("--format", format, "Input format: " + formatNamesText() + " (post-cli --help lists them)")
        ->capture_default_str();
    cmd.add_option("--batch", batch,
                   "ONNX, pbtxt: batch size given to the leading symbolic dimension of the inputs (other formats "
                   "ignore it)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))
        ->capture_default_str();
    cmd.add_option(
        "--dim", shapes.dims,
        "ONNX, pbtxt: NAME=N gives the symbolic dimension NAME the value N wherever it appears (repeatable)");
    cmd.add_option("--input-shape", shapes.inputShapes,
                   "ONNX, pbtxt: INPUT=d0,d1,... gives a graph input (placeholder) its whole shape (repeatable)");
    cmd.add_option("--count", shapes.counts,
                   "ONNX: NODE=N gives the op NODE's size that depends on the data (a NonZero's count, the boxes a "
                   "NonMaxSuppression keeps) the value N (repeatable; post-cli info lists them)");
    cmd.add_flag("--count-max", shapes.countMax,
                 "ONNX: every size that depends on the data and that --count does not give at the most its op can "
                 "give: the step is then a worst case (docs/importers.md)");
    CLI::Option* fuse = cmd.add_flag(
        "--fusion", shapes.fusion,
        "ONNX, pbtxt: cost chains of element-wise ops as one kernel (kernel fusion, docs/cost-model.md); the default "
        "for TensorFlow graphs and ONNX not exported by PyTorch");
    cmd.add_flag("--no-fusion", shapes.noFusion,
                 "ONNX, pbtxt: cost every element-wise op as its own kernel, as eager PyTorch runs it; the default for "
                 "ONNX exported by PyTorch and for graphs given --costs")
        ->excludes(fuse);
    cmd.add_option("--optimizer", shapes.optimizer,
                   "ONNX, pbtxt: the optimizer whose update ops the training step gets: sgd (with momentum), adam, "
                   "none (docs/cost-model.md)")
        ->check(CLI::IsMember({"sgd", "adam", "none"}))
        ->capture_default_str();
    addInputCopyOption(cmd, shapes.inputCopyGBps);
    cmd.add_flag("--msr-pipelined", shapes.msrPipelined,
                 "MSR: keep a training graph in the file's pipelined (throughput) form, whose backward nodes no "
                 "edge orders after the forward pass; by default every forward sink feeds every backward source, "
                 "so that the graph is one training step (docs/importers.md#msr)");
    addCostsOption(cmd);
}

void addInputCopyOption(CLI::App& cmd, double& gbps)
{
    cmd.add_option(
           "--input-copy-GBps", gbps,
           "ONNX, pbtxt, zoo: the rate of the batch's host-to-device copy in GB/s: 10 is a pageable copy from a "
           "single-process data loader; multi-process loaders without pin_memory were measured at 2.5-6.7, a "
           "pinned copy runs near the link's rate (docs/cost-model.md)")
        ->check(finiteRange(0.001, 1e6))
        ->capture_default_str();
}

namespace {

// `text` as an integer from `least` to `most`, else a usage error naming `what` it should be.
std::int64_t integerArg(const std::string& text, const std::string& option, const std::string& item, long long least,
                        long long most, const std::string& what)
{
    std::size_t used = 0;
    long long value = 0;
    try {
        value = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || value < least || value > most)
        throw UsageError{option + " " + item + ": '" + text + "' is not " + what};
    return value;
}

std::int64_t dimValueArg(const std::string& text, const std::string& option, const std::string& item)
{
    return integerArg(text, option, item, 1, 1LL << 30, "a dimension (an integer from 1 to 2^30)");
}

} // namespace

ImportOptions importOptionsArg(std::int64_t batch, const GraphShapeArgs& shapes)
{
    ImportOptions options;
    options.batch = batch;
    if (shapes.fusion || shapes.noFusion)
        options.fuseElementwise = shapes.fusion;
    else if (!costsArgs.empty()) {
        // Measured times are eager PyTorch's kernels, one per op: fusing would book them on fusion roots.
        options.fuseElementwise = false;
        options.fusionGivenBy = "--costs: measured times are per op, as eager PyTorch runs them";
    }
    const auto optimizer = parseOptimizerKind(shapes.optimizer);
    if (!optimizer)
        throw UsageError{"--optimizer: unknown optimizer '" + shapes.optimizer + "' (sgd, adam or none)"};
    options.optimizer = *optimizer;
    options.msrPipelined = shapes.msrPipelined;
    options.inputCopyGBps = shapes.inputCopyGBps;
    for (const std::string& item : shapes.dims) {
        const auto eq = item.rfind('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError{"--dim " + item + ": expected NAME=N"};
        options.dims[item.substr(0, eq)] = dimValueArg(item.substr(eq + 1), "--dim", item);
    }
    for (const std::string& item : shapes.counts) {
        const auto eq = item.rfind('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError{"--count " + item + ": expected NODE=N"};
        options.counts[item.substr(0, eq)] = integerArg(item.substr(eq + 1), "--count", item, 0, 1LL << 40,
                                                        "a count (an integer from 0 to 2^40)");
    }
    options.countsAtMost = shapes.countMax;
    for (const std::string& item : shapes.inputShapes) {
        const auto eq = item.rfind('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw UsageError{"--input-shape " + item + ": expected INPUT=d0,d1,... (e.g. images=1,3,960,960)"};
        std::vector<std::int64_t> dims;
        std::size_t from = eq + 1;
        while (from <= item.size()) {
            const auto comma = std::min(item.find(',', from), item.size());
            dims.push_back(dimValueArg(item.substr(from, comma - from), "--input-shape", item));
            from = comma + 1;
        }
        options.inputShapes[item.substr(0, eq)] = std::move(dims);
    }
    return options;
}

std::string describeUnresolvedDim(const UnresolvedDim& d)
{
    std::string text = "input '" + d.tensor + "' dimension " + std::to_string(d.axis);
    if (!d.symbol.empty())
        text += " ('" + d.symbol + "')";
    return text;
}

void refuseUnresolvedDims(const ImportedGraph& imported)
{
    if (imported.unresolvedDims.empty())
        return;
    std::string text = std::to_string(imported.unresolvedDims.size())
        + " input dimension(s) have no value, and every cost that depends on them would be a guess:";
    for (const UnresolvedDim& d : imported.unresolvedDims) {
        text.append("\n  ").append(describeUnresolvedDim(d)).append(": give it with ");
        if (!d.symbol.empty())
            text.append("--dim ").append(d.symbol).append("=N or ");
        text.append("--input-shape ").append(d.tensor).append("=");
        for (int i = 0; i < d.rank; ++i) {
            if (i > 0)
                text.append(",");
            text.append(i == d.axis ? std::string("N") : std::string("d").append(std::to_string(i)));
        }
    }
    throw InputError(imported.source, "input dimensions", text);
}

void refuseUnshapedTensors(const ImportedGraph& imported)
{
    if (const std::string problem = unshapedTensorsProblem(imported); !problem.empty())
        throw InputError(imported.source, "tensor shapes", problem + "; post-cli info lists them");
}

void addCostsOption(CLI::App& cmd)
{
    cmd.add_option("--costs", costsArgs,
                   "Measured op times: a torch.profiler trace (.pt.trace.json[.gz], CPU or GPU; PyTorch 1.8 or 2.x) "
                   "or post_torch's .costs.json (docs/pytorch.md); TYPE=FILE gives the times of the cluster's "
                   "devices of that type (--costs v100=a.pt.trace.json.gz --costs t4=b.pt.trace.json.gz)");
    cmd.add_flag("--costs-partial", costsPartial,
                 "Take a --costs trace that covers too little of the graph or whose operators are not this model's "
                 "(refused otherwise)");
}

std::string graphFormatsHelp()
{
    std::string text = "Graph formats (--format NAME; auto sniffs the content):";
    for (const ImporterRow& row : importerTable()) {
        std::string extensions;
        for (std::string_view e : row.extensions)
            extensions.append(extensions.empty() ? "" : " ").append(e);
        text.append("\n  ").append(toString(row.format));
        text.append(std::max<std::size_t>(2, 13 - toString(row.format).size()), ' ');
        text.append(row.title).append(" (").append(extensions).append(")");
        if (!row.options.empty())
            text.append("; options: ").append(row.options);
        text.append("; docs/importers.md#").append(row.docsAnchor);
    }
    return text;
}

GraphFormat graphFormatArg(const std::string& format)
{
    auto parsed = parseGraphFormat(format);
    if (!parsed)
        throw UsageError{"--format: unknown format '" + format + "' (" + formatNamesText() + ")"};
    return *parsed;
}

Graph loadGraphArg(const std::string& path, const std::string& format, std::int64_t batch, const GraphShapeArgs& shapes,
                   UnresolvedDims unresolved)
{
    return std::move(loadImportedGraphArg(path, format, batch, shapes, unresolved).graph);
}

ImportedGraph loadImportedGraphArg(const std::string& path, const std::string& format, std::int64_t batch,
                                   const GraphShapeArgs& shapes, UnresolvedDims unresolved)
{
    return importGraphText(readGraphArgText(path, format), graphSourceName(path), graphFormatArg(format),
                           importOptionsArg(batch, shapes), unresolved);
}
std::string graphSourceName(const std::string& path) { return path == "-" ? std::string(kStdinSource) : path; }

std::string readGraphArgText(const std::string& path, const std::string& format)
{
    if (path != "-")
        return readGraphText(path, graphFormatArg(format));
    // Standard input can be read once; a second read gets the same text.
    static std::optional<std::string> cached;
    if (cached)
        return *cached;
    constexpr std::size_t kMaxBytes = std::size_t(2) << 30; // as readFileText
    std::string text;
    std::array<char, 1 << 16> buffer{};
    while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), stdin)) {
        text.append(buffer.data(), n);
        if (text.size() > kMaxBytes)
            throw InputError(kStdinSource, {}, "input is too large (over " + std::to_string(kMaxBytes) + " bytes)");
    }
    if (std::ferror(stdin))
        throw InputError(kStdinSource, {}, "read error");
    text = gunzipIfCompressed(std::move(text), kStdinSource, kMaxBytes); // as readFileText
    cached = text;
    return text;
}

std::string readPbtxtArgText(const std::string& path, const std::string& format, const std::string& option)
{
    std::string text = readGraphArgText(path, format);
    const std::string source = graphSourceName(path);
    GraphFormat given = graphFormatArg(format);
    if (given == GraphFormat::Auto)
        given = sniffGraphFormat(text, source);
    if (given != GraphFormat::TfPbtxt)
        throw UsageError{option + " needs a TensorFlow GraphDef .pbtxt graph; " + source + " is "
                         + std::string(toString(given))};
    return text;
}

ImportedGraph importGraphText(std::string_view text, const std::string& source, GraphFormat format,
                              const ImportOptions& options, UnresolvedDims unresolved)
{
    ImportedGraph imported = parseGraphWithPlacement(text, source, format, options);
    if (unresolved == UnresolvedDims::Refuse) {
        refuseUnresolvedDims(imported);
        refuseUnshapedTensors(imported);
    }
    // Costs that are guesses should not pass unnoticed (stderr: --json output stays clean).
    for (const auto& [type, count] : imported.unknownOpTypes)
        std::cerr << "post-cli: note: " << source << ": " << count << " " << type
                  << " op(s) have no cost formula; costed by the element-wise fallback (docs/cost-model.md)\n";
    for (const std::string& warning : imported.warnings)
        std::cerr << "post-cli: warning: " << source << ": " << warning << "\n";
    for (const std::string& note : imported.notes)
        std::cerr << "post-cli: note: " << source << ": " << note << "\n";
    std::vector<CostsFile> costs;
    for (const std::string& value : costsArgs)
        costs.push_back(parseCostsFile(value));
    for (const std::string& note : applyCostsFiles(imported, costs, {.partial = costsPartial}))
        std::cerr << "post-cli: note: " << note << "\n";
    if (costsArgs.empty() && costsPartial) {
        throw UsageError{"--costs-partial needs --costs TRACE"};
    }
    if (!imported.unshapedTensors.empty() && imported.unresolvedDims.empty())
        std::cerr << "post-cli: warning: " << source << ": " << imported.unshapedTensors.size()
                  << " tensor(s) have no inferred shape (the first made at "
                  << (imported.unshapedFrom.empty() ? "'" + imported.unshapedTensors.front() + "'" : imported.unshapedFrom)
                  << "); their unknown dimensions count as 1, and simulate, place, compare and convert refuse the "
                     "graph (post-cli info lists them)\n";
    return imported;
}

void requireSomeCompute(const Graph& graph, const std::string& source)
{
    for (const Op& op : graph.ops())
        if (op.time(DeviceKind::Gpu) > 0.0 || op.time(DeviceKind::Cpu) > 0.0 || op.flops > 0.0 || op.memoryBytes > 0.0
            || std::any_of(op.typedTimes.begin(), op.typedTimes.end(), [](const TypedTime& t) { return t.us > 0.0; }))
            return;
    throw InputError(source, {},
                     "the graph's total compute is zero (no op has a time, FLOPs or memory traffic): only transfers "
                     "would cost time, so every op on one device (0 ms) is already the best placement and there is "
                     "nothing to search; give the ops costs (docs/importers.md)");
}

namespace {

// Whether a cluster file (not a preset) gives its own "precision".
bool clusterFileGivesPrecision(const std::string& nameOrPath)
{
    if (clusterPresetJson(nameOrPath))
        return false; // presets leave it to the default
    try {
        const nlohmann::json root = nlohmann::json::parse(readFileText(nameOrPath));
        return root.is_object() && root.contains("precision");
    } catch (const std::exception&) {
        return false; // loadCluster read it already; nothing more to learn here
    }
}

} // namespace

Cluster loadClusterArg(const std::string& nameOrPath, const std::string& precision, const ImportedGraph* graph)
{
    Cluster cluster = loadCluster(nameOrPath);
    setPrecisionArg(cluster, nameOrPath, precision, graph);
    return cluster;
}

namespace {

// Whether some op's time on some device of `cluster` changes with the precision mode: only the
// roofline's does (docs/cost-model.md, "Precision"), and there only where the device has a
// tensor-core peak that a mode picks or leaves. A graph whose op times are all measured or given
// by its file (PipeDream, MSR, DOT with times) has none.
bool someTimeDependsOnPrecision(const Graph& graph, const Cluster& cluster)
{
    constexpr PrecisionMode kModes[] = {PrecisionMode::Fp32, PrecisionMode::Tf32, PrecisionMode::Amp,
                                        PrecisionMode::Pytorch};
    for (const Device& device : cluster.devices()) {
        Device in = device;
        for (const Op& op : graph.ops()) {
            if (!usesRoofline(op, device))
                continue;
            in.precision = kModes[0];
            const double first = opTimeUs(op, in);
            for (const PrecisionMode mode : kModes) {
                in.precision = mode;
                if (opTimeUs(op, in) != first)
                    return true;
            }
        }
    }
    return false;
}

// --precision given where it changes no op's time: said once, with why.
void notePrecisionIgnored(const ImportedGraph& graph, const Cluster& cluster)
{
    if (someTimeDependsOnPrecision(graph.graph, cluster))
        return;
    const bool roofline = std::any_of(graph.graph.ops().begin(), graph.graph.ops().end(), [&](const Op& op) {
        return std::any_of(cluster.devices().begin(), cluster.devices().end(),
                           [&](const Device& d) { return usesRoofline(op, d); });
    });
    std::cerr << "post-cli: note: --precision " << toString(cluster.precision()) << " changes no op's time here: "
              << (roofline ? "no device of cluster '" + cluster.name()
                          + "' has the tensor-core peaks a precision mode picks between"
                           : "the op times of '" + graph.graph.name()
                          + "' are measured (given by its file or --costs, not estimated from FLOPs and bytes)")
              << ", so the precision is ignored\n";
}

} // namespace

void setPrecisionArg(Cluster& cluster, const std::string& nameOrPath, const std::string& precision,
                     const ImportedGraph* graph, const RecordedPrecision& recorded)
{
    std::optional<PrecisionMode> given;
    if (!precision.empty()) {
        given = parsePrecisionMode(precision);
        if (!given)
            throw UsageError{"--precision: unknown mode '" + precision + "' (expected "
                             + std::string(kPrecisionModeNames) + ")"};
    }
    const std::string timedUnder = recorded.mode
        ? recorded.file + " was timed under precision " + std::string(toString(*recorded.mode))
            + (recorded.stepTimeUs ? " (its step_time_us, " + formatMs(*recorded.stepTimeUs) + ")" : std::string())
        : std::string();
    if (given) {
        cluster.setPrecision(*given);
        if (recorded.mode && *recorded.mode != *given)
            std::cerr << "post-cli: note: " << timedUnder << "; using --precision " << precision
                      << " as asked, so its step times differ from the file's\n";
        if (graph)
            notePrecisionIgnored(*graph, cluster);
        return;
    }
    // Without --precision: the cluster file's mode, else the graph's framework's.
    const bool framework = graph && !clusterFileGivesPrecision(nameOrPath);
    const PrecisionMode fallback = framework ? graph->frameworkPrecision() : cluster.precision();
    if (recorded.mode && *recorded.mode != fallback) {
        cluster.setPrecision(*recorded.mode);
        std::cerr << "post-cli: note: " << timedUnder << "; using that mode, not " << toString(fallback) << " ("
                  << (framework ? "the default for this graph" : "cluster '" + cluster.name() + "'s")
                  << "; --precision " << toString(fallback) << " uses it)\n";
        return;
    }
    if (fallback == cluster.precision())
        return;
    cluster.setPrecision(fallback);
    const bool matters = std::any_of(cluster.devices().begin(), cluster.devices().end(),
                                     [](const Device& d) { return d.peakTf32Flops > 0.0; });
    if (matters)
        std::cerr << "post-cli: note: precision " << toString(cluster.precision()) << ", the default for "
                  << toString(graph->originFormat())
                  << " graphs (PyTorch's: convolutions in TF32, matrix products in FP32); --precision tf32 "
                     "runs every matrix product in TF32\n";
}

void noteOtherCluster(const std::string& file, const std::string& recordedCluster, const Cluster& cluster,
                      const std::string& clusterArg)
{
    if (recordedCluster.empty() || recordedCluster == cluster.name())
        return;
    std::cerr << "post-cli: note: " << file << " was made for cluster '" << recordedCluster << "', not '"
              << cluster.name() << "' (--cluster" << (clusterArg == cluster.name() ? "" : " " + clusterArg)
              << "): its devices are taken by name here, and the step times it records are not this cluster's\n";
}

void noteDeviceTypes(const ImportedGraph& imported, const Cluster& cluster)
{
    const Graph& graph = imported.graph;
    if (const std::string note = deviceTypeNote(graph, cluster); !note.empty())
        std::cerr << "post-cli: note: " << note << "\n";
    if (const std::string note = measuredSpeedNote(graph, cluster); !note.empty())
        std::cerr << "post-cli: note: " << note << "\n";
    if (const std::string note = hopperEstimateNote(graph, cluster); !note.empty())
        std::cerr << "post-cli: note: " << note << "\n";
    if (const std::string note = measuredGpuNote(imported.measuredGpu, graph, cluster); !note.empty())
        std::cerr << "post-cli: note: " << note << "\n";
}

void noteHostBound(const ImportedGraph& imported, const Cluster& cluster, double stepUs)
{
    if (!imported.eagerHost)
        return;
    if (const std::string note = hostBoundNote(imported.graph, cluster, stepUs); !note.empty())
        std::cerr << "post-cli: note: " << note << "\n";
}

void addHostDispatchJson(const ImportedGraph& imported, const Cluster* cluster, nlohmann::json& out)
{
    if (!imported.eagerHost)
        return;
    out["host_dispatched_ops"] = dispatchedOps(imported.graph);
    out["host_dispatch_us_per_op"] = dispatchUsPerOp(cluster);
    out["host_dispatch_ms"] = eagerDispatchUs(imported.graph, cluster) / 1000.0;
}

void addGraphClusterOptions(CLI::App& cmd, GraphClusterArgs& args)
{
    cmd.add_option("graph", args.graph, "Graph file, or - for standard input (format sniffed)")->required();
    addGraphInputOptions(cmd, args.format, args.batch, args.shapes);
    cmd.add_option("--cluster", args.cluster, "Cluster preset name or post-cluster/1 file")->required();
    addPrecisionOption(cmd, args.precision);
    cmd.add_option("--dispatch", args.dispatch,
                   "Which ready op an idle device starts: ready (the one that became ready first, as TensorFlow's "
                   "executor does) or critical-path (the one with the longest path to the end of the step, as a "
                   "static list scheduler orders them; docs/simulator.md)")
        ->default_str("ready")
        ->check(CLI::IsMember({"ready", "critical-path"}));
    cmd.add_option("--optimizer-factor", args.optimizerFactor,
                   "Parameter memory = param bytes x this (weights, gradients, optimizer state); default: 4 for a "
                   "graph with Adam updates, else 3 (SGD with momentum)")
        ->default_str("3 or 4")
        ->check(finiteRange(0.0, 1e6));
}

SimOptions simOptionsArg(const GraphClusterArgs& args, std::optional<Dispatch> unless)
{
    SimOptions options;
    options.dispatch = dispatchFromName(args.dispatch).value_or(unless.value_or(Dispatch::ReadyOrder));
    if (args.optimizerFactor >= 0.0)
        options.optimizerStateFactor = args.optimizerFactor;
    if (options.dispatch == Dispatch::CriticalPath)
        std::cerr << "post-cli: note: --dispatch critical-path: every step time here assumes that each device "
                     "starts its ready op with the longest path to the end first; TensorFlow's executor starts the "
                     "one that became ready first (--dispatch ready), PyTorch runs ops in program order. The lower "
                     "bound holds for both (docs/simulator.md)\n";
    return options;
}

void addPrecisionOption(CLI::App& cmd, std::string& precision)
{
    cmd.add_option("--precision", precision,
                   "How FP32 matrix products and convolutions run: fp32 (no tensor cores), tf32 (TF32 tensor cores "
                   "for all of them where the GPU has them, TensorFlow's default), pytorch (PyTorch's default: "
                   "convolutions in TF32, matrix products in FP32), amp (mixed precision, FP16 tensor cores); "
                   "default: the cluster's \"precision\", else pytorch for ONNX graphs and PyTorch execution traces, "
                   "tf32 for the rest")
        ->check(CLI::IsMember({"fp32", "tf32", "amp", "pytorch"}));
}

DeviceId deviceArg(const Cluster& cluster, const std::string& name)
{
    if (auto id = cluster.find(name))
        return *id;
    // TensorFlow's full name, as placement files may give it (/job:localhost/replica:0/task:0/device:GPU:0).
    if (const auto at = name.find("/device:"); name.starts_with("/job:") && at != std::string::npos)
        if (auto id = cluster.find(std::string_view(name).substr(at)))
            return *id;
    std::string known;
    for (const Device& d : cluster.devices())
        known += (known.empty() ? "" : ", ") + d.name;
    throw UsageError{"no device '" + name + "' in cluster '" + cluster.name() + "' (devices: " + known + ")"};
}

LearnerOptions learnerOptionsArg(const std::vector<std::string>& settings)
{
    LearnerOptions options;
    for (const std::string& item : settings) {
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw UsageError{"--set expects KEY=VALUE, got '" + item + "'"};
        if (auto problem = setLearnerOption(options, item.substr(0, eq), item.substr(eq + 1)))
            throw UsageError{"--set: " + *problem};
    }
    return options;
}

std::string learnerOptionsHelp()
{
    std::string text = "Set a learner constant, repeatable. Keys:";
    for (const LearnerOptionInfo& k : learnerOptionKeys())
        text += "\n  " + k.key + ": " + k.help;
    return text;
}

std::vector<std::string> implicitInputsOf(const std::vector<std::string>& inputs)
{
    std::vector<std::string> implicit;
    for (const std::string& value : costsArgs)
        implicit.push_back(parseCostsFile(value).path);
    for (const std::string& input : inputs)
        if (!input.empty() && input != "-")
            if (std::optional<std::string> sidecar = moduleSidecarOf(input))
                implicit.push_back(std::move(*sidecar));
    return implicit;
}

void checkOutputArgs(const std::vector<OutputArg>& outputs, const std::vector<std::string>& named, bool force)
{
    std::vector<std::string> inputs = named;
    for (std::string& implicit : implicitInputsOf(named))
        inputs.push_back(std::move(implicit));
    for (size_t i = 0; i < outputs.size(); ++i) {
        const OutputArg& out = outputs[i];
        if (out.path.empty())
            continue;
        if (out.path == "-") // a file literally named "-" would surprise, and standard output carries the report
            throw InputError(out.path, out.option,
                             "standard output is not an output of " + out.option
                                 + "; give a file name (./- for a file named -)");
        for (const std::string& input : inputs)
            if (std::error_code ec;
                !input.empty() && input != "-" && std::filesystem::exists(input, ec) && sameFile(out.path, input))
                throw InputError(out.path, out.option,
                                 "is also an input (" + input + "): refusing to overwrite it; write elsewhere");
        for (size_t k = 0; k < i; ++k)
            if (!outputs[k].path.empty() && sameFile(out.path, outputs[k].path))
                throw InputError(out.path, out.option,
                                 "is also the " + outputs[k].option + " output: each output needs its own file");
        try {
            checkWriteTarget(out.path, force);
        } catch (const InputError& e) {
            const bool readOnly = e.message().find("is read-only") != std::string::npos;
            throw InputError(e.file(), out.option, e.message() + (readOnly ? " (--force replaces it)" : ""));
        }
    }
}

CLI::Validator finiteRange(double low, double high)
{
    char text[64];
    std::snprintf(text, sizeof text, "[%g - %g]", low, high);
    const std::string range = text;
    return CLI::Validator(
        [low, high, range](std::string& text) -> std::string {
            const std::optional<double> value = parseDecimal(text);
            if (!value)
                return "'" + text + "' is not a number";
            if (!std::isfinite(*value))
                return "'" + text + "' is not a finite number";
            if (*value < low || *value > high)
                return "Value " + text + " not in range " + range;
            return {};
        },
        "NUMBER in " + range);
}

void addForceOption(CLI::App& cmd, bool& force)
{
    cmd.add_flag("--force", force, "Replace output files that are read-only");
}

std::string joinedPlacerNames()
{
    std::string text;
    for (const std::string& n : placerNames())
        text += (text.empty() ? "" : ", ") + n;
    return text;
}

std::string placerTableHelp()
{
    std::string text;
    for (const PlacerInfo& row : placerTable())
        text.append("\n  ").append(row.name).append(": ").append(row.description);
    return text;
}

std::string formatMs(double us)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", us / 1000.0);
    return buf;
}

std::string formatGap(double gap)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f%%", gap < 0.1 ? 2 : 1, 100.0 * gap);
    return buf;
}

std::string formatBytes(double bytes)
{
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
    return buf;
}

std::string formatSeconds(double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", seconds);
    return buf;
}

std::string overMemoryText(const Cluster& cluster, const SimResult& result)
{
    const DeviceId worst = mostOverMemory(cluster, result);
    if (worst == kNoDevice)
        return "out of memory";
    return cluster.device(worst).name + " needs " + formatBytes(result.peakMemoryBytes[static_cast<size_t>(worst)])
        + " of " + formatBytes(cluster.device(worst).memoryBytes);
}

} // namespace post::cli
