#include "app/cli/CliSupport.h"

#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/LearnerOptionSetter.h"
#include "core/run/PlacerRegistry.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

namespace post::cli {

void addGraphInputOptions(CLI::App& cmd, std::string& format, std::int64_t& batch)
{
    cmd.add_option("--format", format, "Input format: auto, post-graph, pipedream, msr, dot, onnx, pbtxt")
        ->capture_default_str();
    cmd.add_option("--batch", batch, "ONNX: batch size given to the symbolic batch dimension (other formats ignore it)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))
        ->capture_default_str();
}

GraphFormat graphFormatArg(const std::string& format)
{
    auto parsed = parseGraphFormat(format);
    if (!parsed)
        throw UsageError{"--format: unknown format '" + format + "' (auto, post-graph, pipedream, msr, dot, onnx, pbtxt)"};
    return *parsed;
}

Graph loadGraphArg(const std::string& path, const std::string& format, std::int64_t batch)
{
    return std::move(loadImportedGraphArg(path, format, batch).graph);
}

ImportedGraph loadImportedGraphArg(const std::string& path, const std::string& format, std::int64_t batch)
{
    ImportOptions options;
    options.batch = batch;
    ImportedGraph imported = readGraphFileWithPlacement(path, graphFormatArg(format), options);
    // Costs that are guesses should not pass unnoticed (stderr: --json output stays clean).
    for (const auto& [type, count] : imported.unknownOpTypes)
        std::cerr << "post-cli: note: " << path << ": " << count << " " << type
                  << " op(s) have no cost formula; costed by the element-wise fallback (docs/cost-model.md)\n";
    return imported;
}

Cluster loadClusterArg(const std::string& nameOrPath) { return loadCluster(nameOrPath); }

DeviceId deviceArg(const Cluster& cluster, const std::string& name)
{
    if (auto id = cluster.find(name))
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

} // namespace post::cli
