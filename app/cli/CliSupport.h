#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportedGraph.h"
#include "core/learn/LearnerOptions.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace post::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

// A usage problem found after parsing (e.g. a device name that doesn't exist): exit 2.
struct UsageError {
    std::string message;
};

// --format and --batch, shared by every command that reads a graph file.
void addGraphInputOptions(CLI::App& cmd, std::string& format, std::int64_t& batch);
GraphFormat graphFormatArg(const std::string& format);
Graph loadGraphArg(const std::string& path, const std::string& format, std::int64_t batch = 1);
// The graph with the placement its file gives (TensorFlow device fields), if any.
ImportedGraph loadImportedGraphArg(const std::string& path, const std::string& format, std::int64_t batch = 1);
// The graph argument "-" is standard input (read once, format sniffed); errors name it
// kStdinSource.
inline constexpr const char* kStdinSource = "<stdin>";
std::string graphSourceName(const std::string& path);
std::string readGraphArgText(const std::string& path);
// Imports graph text read from `source`, printing the importer's notes and warnings on stderr.
ImportedGraph importGraphText(std::string_view text, const std::string& source, GraphFormat format,
                              std::int64_t batch = 1);
// Throws InputError(source) when no op has any cost: no placement is better than another.
void requireSomeCompute(const Graph& graph, const std::string& source);
Cluster loadClusterArg(const std::string& nameOrPath);
DeviceId deviceArg(const Cluster& cluster, const std::string& name);
// `--set KEY=VALUE` items applied to the default learner options.
LearnerOptions learnerOptionsArg(const std::vector<std::string>& settings);
// Help text listing every KEY.
std::string learnerOptionsHelp();

// "post, ce, ppo, ..." for help texts and errors.
std::string joinedPlacerNames();

std::string formatMs(double us);
std::string formatBytes(double bytes);

} // namespace post::cli
