#include "app/cli/InfoCommand.h"

#include "app/cli/CliSupport.h"
#include "app/cli/JsonFormats.h"
#include "core/graph/CriticalPath.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace post::cli {
namespace {

struct InfoOptions {
    std::string graph;
    std::string format = "auto";
    std::int64_t batch = 1;
    bool json = false;
};

int runInfo(const InfoOptions& o)
{
    const Graph g = loadGraphArg(o.graph, o.format, o.batch);
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
    std::cout << "outputs            " << formatBytes(outputBytes) << "\n"
              << "critical path      " << formatMs(path.lengthUs) << " on a speed-1 GPU, " << path.ops.size() << " ops";
    if (!path.ops.empty())
        std::cout << " ('" << g.op(path.ops.front()).name << "' .. '" << g.op(path.ops.back()).name << "')";
    std::cout << "\n";
    return kExitOk;
}

} // namespace

void addInfoCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<InfoOptions>();
    CLI::App* cmd = app.add_subcommand("info", "Summarise a graph: ops, edges, compute, parameters, critical path");
    cmd->add_option(
           "graph", opts->graph,
           "Graph file (post-graph JSON, PipeDream graph.txt, MSR JSON, DOT, ONNX, TensorFlow .pbtxt), or - for "
           "standard input")
        ->required();
    addGraphInputOptions(*cmd, opts->format, opts->batch);
    cmd->add_flag("--json", opts->json, "Print one JSON object");
    cmd->callback([opts, &exitCode] { exitCode = runInfo(*opts); });
}

} // namespace post::cli
