#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportOptions.h"
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

// --dim NAME=N and --input-shape INPUT=d0,d1,... as given (parsed when the graph is read).
struct GraphShapeArgs {
    std::vector<std::string> dims;
    std::vector<std::string> inputShapes;
};

// Whether a command may go on with graph-input dimensions nothing gave a value: `info`
// lists them; the commands that time the graph refuse (exit 1), naming each and the
// option that sets it.
enum class UnresolvedDims { List, Refuse };

// --format, --batch, --dim and --input-shape, shared by every command that reads a graph file.
void addGraphInputOptions(CLI::App& cmd, std::string& format, std::int64_t& batch, GraphShapeArgs& shapes);
GraphFormat graphFormatArg(const std::string& format);
// The import options the arguments give; a UsageError for a malformed --dim or --input-shape.
ImportOptions importOptionsArg(std::int64_t batch, const GraphShapeArgs& shapes);
Graph loadGraphArg(const std::string& path, const std::string& format, std::int64_t batch = 1,
                   const GraphShapeArgs& shapes = {}, UnresolvedDims unresolved = UnresolvedDims::Refuse);
// The graph with the placement its file gives (TensorFlow device fields), if any.
ImportedGraph loadImportedGraphArg(const std::string& path, const std::string& format, std::int64_t batch = 1,
                                   const GraphShapeArgs& shapes = {}, UnresolvedDims unresolved = UnresolvedDims::Refuse);
// Throws InputError naming every unresolved dimension of `imported` and how to set it.
void refuseUnresolvedDims(const ImportedGraph& imported);
// "input 'x' dimension 2 ('height')" for messages and listings.
std::string describeUnresolvedDim(const UnresolvedDim& d);
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
