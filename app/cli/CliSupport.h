#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportedGraph.h"
#include "core/learn/LearnerOptions.h"

#include <cstdint>
#include <string>
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
Cluster loadClusterArg(const std::string& nameOrPath);
DeviceId deviceArg(const Cluster& cluster, const std::string& name);
// `--set KEY=VALUE` items applied to the default learner options.
LearnerOptions learnerOptionsArg(const std::vector<std::string>& settings);
// Help text listing every KEY.
std::string learnerOptionsHelp();

// "post, ce, ppo, ..." for help texts and errors.
std::string joinedPlacerNames();
// One line per algorithm of the placer table: "  name: description" (for --help).
std::string placerTableHelp();

// The default budget of `place` (and the GUI) when neither --samples nor --time is given:
// about 2 s of wall time (docs/learners.md); a sample count stands for "no sample limit".
inline constexpr double kDefaultPlaceSeconds = 2.0;
inline constexpr int kUnlimitedSamples = 100000000;

std::string formatMs(double us);
std::string formatBytes(double bytes);

} // namespace post::cli
