#include "app/cli/InfoCommand.h"

#include "app/cli/CliSupport.h"
#include "app/cli/JsonFormats.h"
#include "core/cost/HostDispatch.h"
#include "core/graph/CriticalPath.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace post::cli {
namespace {

struct InfoOptions : GraphArgs {
    bool json = false;
    bool listOps = false;
};

// Where an op's time on devices of `kind` comes from: "measured" (--costs), "estimated" by
// the cost model from shapes, "derived" from the other kind's time (Op::derivedKinds: a
// PipeDream profile's CPU times) or "given" by the file (a PipeDream or MSR profile, a post-graph).
const char* timeSource(const Op& op, DeviceKind kind)
{
    if (op.measured(kind))
        return "measured";
    if (op.flops > 0.0 || op.memoryBytes > 0.0)
        return "estimated";
    return op.derived(kind) ? "derived" : "given";
}

// " from the GPU times x 10": the factor the derived times of `kind` share, or none when
// they differ (a capped time) or no op has both times.
std::string derivedFactor(const Graph& g, DeviceKind kind)
{
    const DeviceKind other = kind == DeviceKind::Gpu ? DeviceKind::Cpu : DeviceKind::Gpu;
    std::optional<double> factor;
    for (const Op& op : g.ops()) {
        if (!op.derived(kind) || op.time(other) <= 0.0)
            continue;
        const double f = op.time(kind) / op.time(other);
        if (factor && std::abs(f - *factor) > 1e-9 * *factor)
            return " from the " + std::string(kind == DeviceKind::Gpu ? "CPU" : "GPU") + " times";
        factor = f;
    }
    if (!factor)
        return std::string();
    char text[64];
    std::snprintf(text, sizeof text, " x %g", *factor);
    return " from the " + std::string(kind == DeviceKind::Gpu ? "CPU" : "GPU") + " times" + text;
}

// "GPU: 340 measured (trace.json.gz), 10 estimated; CPU: 350 estimated"
std::string timeSourceSummary(const Graph& g)
{
    std::string text;
    for (DeviceKind kind : {DeviceKind::Gpu, DeviceKind::Cpu}) {
        std::map<std::string, int> counts;
        std::set<std::string> files;
        for (const Op& op : g.ops()) {
            ++counts[timeSource(op, kind)];
            if (op.measured(kind) && !op.measuredBy.empty())
                files.insert(op.measuredBy);
        }
        text += text.empty() ? "" : "; ";
        text += kind == DeviceKind::Gpu ? "GPU:" : "CPU:";
        bool first = true;
        for (const char* source : {"measured", "estimated", "given", "derived"}) {
            if (!counts.count(source))
                continue;
            text += std::string(first ? " " : ", ") + std::to_string(counts[source]) + " " + source;
            if (std::string_view(source) == "derived")
                text += derivedFactor(g, kind);
            first = false;
            if (std::string_view(source) == "measured" && !files.empty()) {
                text += " (";
                for (const std::string& f : files)
                    text += (f == *files.begin() ? "" : ", ") + f;
                text += ")";
            }
        }
    }
    // Per device type (--costs TYPE=TRACE, "time_us": {"v100": ...}): measured or given, and
    // how many ops have none (they take the kind's time there).
    for (const std::string& type : g.deviceTypes()) {
        int measured = 0, given = 0;
        std::set<std::string> files;
        for (const Op& op : g.ops())
            if (const TypedTime* t = op.typedTime(type)) {
                ++(t->measured ? measured : given);
                if (t->measured && !op.measuredBy.empty())
                    files.insert(op.measuredBy);
            }
        text += "; " + type + ":";
        if (measured > 0) {
            text += " " + std::to_string(measured) + " measured";
            if (!files.empty()) {
                text += " (";
                for (const std::string& f : files)
                    text += (f == *files.begin() ? "" : ", ") + f;
                text += ")";
            }
        }
        if (given > 0)
            text += std::string(measured > 0 ? "," : "") + " " + std::to_string(given) + " given";
        if (const int none = g.opCount() - measured - given; none > 0)
            text += ", " + std::to_string(none) + " without (the kind's time)";
    }
    return text;
}

nlohmann::json opTimesJson(const Graph& g)
{
    nlohmann::json ops = nlohmann::json::array();
    for (const Op& op : g.ops()) {
        nlohmann::json o{{"name", op.name},
                         {"type", op.type},
                         {"gpu_us", op.time(DeviceKind::Gpu)},
                         {"cpu_us", op.time(DeviceKind::Cpu)},
                         {"gpu_time", timeSource(op, DeviceKind::Gpu)},
                         {"cpu_time", timeSource(op, DeviceKind::Cpu)},
                         {"measured_by", op.measuredBy.empty() ? nlohmann::json() : nlohmann::json(op.measuredBy)}};
        if (!op.typedTimes.empty()) {
            nlohmann::json typed = nlohmann::json::object();
            for (const TypedTime& t : op.typedTimes)
                typed[t.type] = {{"us", t.us}, {"time", t.measured ? "measured" : "given"}};
            o["typed_times"] = std::move(typed);
        }
        ops.push_back(std::move(o));
    }
    return ops;
}

int runInfo(const InfoOptions& o)
{
    const ImportedGraph imported = loadImportedGraphArg(o.graph, o.format, o.batch, o.shapes, UnresolvedDims::List);
    const Graph& g = imported.graph;
    std::vector<double> gpuTimes;
    gpuTimes.reserve(static_cast<size_t>(g.opCount()));
    double outputBytes = 0.0;
    for (const Op& op : g.ops()) {
        gpuTimes.push_back(op.time(DeviceKind::Gpu));
        outputBytes += op.outputBytes;
    }
    const CriticalPath path = criticalPath(g, gpuTimes);
    const double gpuTotal = g.totalTimeUs(DeviceKind::Gpu);
    const double cpuTotal = g.totalTimeUs(DeviceKind::Cpu);

    if (o.json) {
        nlohmann::json j;
        j["format"] = kInfoJsonFormat;
        j["name"] = g.name();
        j["ops"] = g.opCount();
        j["edges"] = g.edgeCount();
        j["colocation_groups"] = g.colocationGroupCount();
        j["total_gpu_time_ms"] = gpuTotal / 1000.0;
        j["total_cpu_time_ms"] = cpuTotal / 1000.0;
        j["param_bytes"] = g.totalParamBytes();
        j["resident_bytes"] = g.totalResidentBytes();
        j["output_bytes"] = outputBytes;
        j["critical_path_gpu_ms"] = path.lengthUs / 1000.0;
        j["critical_path_ops"] = path.ops.size();
        // Shape-based imports (ONNX, pbtxt) know their FLOPs; other formats give null.
        j["forward_flops"] = imported.forwardFlops >= 0.0 ? nlohmann::json(imported.forwardFlops) : nlohmann::json();
        nlohmann::json unknown = nlohmann::json::object();
        for (const auto& [type, count] : imported.unknownOpTypes)
            unknown[type] = count;
        j["ops_without_formula"] = unknown;
        nlohmann::json dims = nlohmann::json::array();
        for (const UnresolvedDim& d : imported.unresolvedDims)
            dims.push_back({{"input", d.tensor},
                            {"axis", d.axis},
                            {"name", d.symbol.empty() ? nlohmann::json() : nlohmann::json(d.symbol)}});
        j["unresolved_dims"] = dims;
        j["unshaped_tensors"] = imported.unshapedTensors;
        nlohmann::json sizes = nlohmann::json::array();
        for (const DataDependentSize& d : imported.dataDependentSizes)
            sizes.push_back({{"node", d.node},
                             {"location", d.location},
                             {"what", d.what},
                             {"largest", d.largest},
                             {"value", d.value < 0 ? nlohmann::json() : nlohmann::json(d.value)},
                             {"at_most", d.atMost}});
        j["data_dependent_sizes"] = sizes;
        j["kernel_fusion"] = imported.fused ? nlohmann::json{{"on", *imported.fused}, {"why", imported.fusionWhy}}
                                            : nlohmann::json();
        // What the importer decided (also printed on stderr as "note:" / "warning:" lines).
        j["notes"] = imported.notes;
        j["warnings"] = imported.warnings;
        j["op_times"] = opTimesJson(g);
        addHostDispatchJson(imported, nullptr, j);
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    std::cout << "graph              " << g.name() << "\n"
              << "ops                " << g.opCount() << "\n"
              << "edges              " << g.edgeCount() << "\n"
              << "colocation groups  " << g.colocationGroupCount() << "\n"
              << "total compute      " << formatMs(gpuTotal) << " on a speed-1 GPU, " << formatMs(cpuTotal)
              << " on a speed-1 CPU\n"
              << "parameters         " << formatBytes(g.totalParamBytes()) << "\n";
    if (g.totalResidentBytes() != 0.0) // only some sources (MSR) give it; keep other listings short
        std::cout << "resident memory    " << formatBytes(g.totalResidentBytes()) << "\n";
    if (imported.fused)
        std::cout << "kernel fusion      " << (*imported.fused ? "on" : "off") << " (" << imported.fusionWhy << ")\n";
    std::cout << "op times           " << timeSourceSummary(g) << "\n"
              << "outputs            " << formatBytes(outputBytes) << "\n"
              << "critical path      " << formatMs(path.lengthUs) << " on a speed-1 GPU, " << path.ops.size() << " ops";
    if (!path.ops.empty())
        std::cout << " ('" << g.op(path.ops.front()).name << "' .. '" << g.op(path.ops.back()).name << "')";
    std::cout << "\n";
    if (imported.eagerHost)
        std::cout << "host dispatch      " << formatMs(eagerDispatchUs(g, nullptr))
                  << " (eager PyTorch: " << dispatchedOps(g) << " ops at about " << dispatchUsPerOp(nullptr)
                  << " us each from one host thread, " << dispatchRateSource(nullptr)
                  << "; a shorter simulated step is likely bound by the host)\n";
    if (imported.forwardFlops >= 0.0) {
        char flops[64];
        std::snprintf(flops, sizeof flops, "%.4g GFLOP (%.4g G multiply-adds)", imported.forwardFlops / 1e9,
                      imported.forwardFlops / 2e9);
        std::cout << "forward FLOPs      " << flops << "\n";
    }
    if (!imported.unknownOpTypes.empty()) {
        std::cout << "without a formula  ";
        for (const auto& [type, count] : imported.unknownOpTypes)
            std::cout << " " << type << " x" << count;
        std::cout << "  (element-wise fallback)\n";
    }
    for (const UnresolvedDim& d : imported.unresolvedDims)
        std::cout << "unresolved         " << describeUnresolvedDim(d) << " (--dim / --input-shape)\n";
    for (const DataDependentSize& d : imported.dataDependentSizes)
        std::cout << "data-dependent     " << d.location << ": " << d.what << ", at most " << d.largest << ": "
                  << (d.value < 0    ? std::string("no value (--count " + d.node + "=N, or --count-max)")
                          : d.atMost ? "its most, " + std::to_string(d.value) + " (--count-max: a worst case)"
                                     : std::to_string(d.value) + " (--count)")
                  << "\n";
    if (!imported.unshapedTensors.empty()) {
        std::cout << "no inferred shape  " << imported.unshapedTensors.size() << " tensor(s):";
        const size_t shown = std::min<size_t>(imported.unshapedTensors.size(), 8);
        for (size_t i = 0; i < shown; ++i)
            std::cout << " '" << imported.unshapedTensors[i] << "'";
        std::cout << (shown < imported.unshapedTensors.size() ? " ..." : "")
                  << (imported.unresolvedDims.empty() ? "" : " (the unresolved dimensions leave them unknown)") << "\n";
    }
    if (o.listOps)
        for (const Op& op : g.ops()) {
            std::cout << "  " << op.name << "  " << op.type << "  GPU " << formatMs(op.time(DeviceKind::Gpu)) << " "
                      << timeSource(op, DeviceKind::Gpu) << ", CPU " << formatMs(op.time(DeviceKind::Cpu)) << " "
                      << timeSource(op, DeviceKind::Cpu);
            if (!op.measuredBy.empty())
                std::cout << " (measured by " << op.measuredBy << ")";
            std::cout << "\n";
        }
    return kExitOk;
}

} // namespace

void addInfoCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<InfoOptions>();
    CLI::App* cmd = app.add_subcommand("info", "Summarise a graph: ops, edges, compute, parameters, critical path");
    cmd->add_option("graph", opts->graph,
                    "Graph file in any format post-cli --help lists (ONNX, .pbtxt, DOT, PipeDream, MSR, post-graph, "
                    "PyTorch execution and Chakra traces), or - for "
                    "standard input")
        ->required();
    addGraphInputOptions(*cmd, opts->format, opts->batch, opts->shapes);
    cmd->add_flag("--json", opts->json, "Print one JSON object");
    cmd->add_flag("--ops", opts->listOps,
                  "List every op with its GPU and CPU time and where each comes from: measured (which --costs file), "
                  "estimated from shapes, or given by the file");
    cmd->callback([opts, &exitCode] { exitCode = runInfo(*opts); });
}

} // namespace post::cli
