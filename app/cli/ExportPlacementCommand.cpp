#include "app/cli/ExportPlacementCommand.h"

#include "app/cli/CliSupport.h"
#include "core/io/json/JsonInput.h"
#include "core/io/native/PlacementFile.h"
#include "core/io/tf/PbtxtExport.h"
#include "core/io/torch/TorchModules.h"
#include "core/util/AtomicFile.h"
#include "core/util/FileText.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace post::cli {
namespace {

struct ExportOptions {
    std::string placement;
    std::string to = "torch";
    std::string out;
    bool force = false;
    // --to tf: the GraphDef the placement was made for, read as place reads it, and the cluster.
    GraphArgs graph;
    std::string cluster;
};

// --to tf: the .pbtxt the placement was made for, every node's device set from it, as place
// --pbtxt-out writes it (the placement read against the graph and cluster, as simulate
// --placement reads it).
std::string tfExport(const ExportOptions& o, PlacementProvenance& made)
{
    if (o.graph.graph.empty() || o.cluster.empty())
        throw UsageError{"--to tf needs --graph MODEL.pbtxt (the graph the placement was made for) and --cluster"};
    const std::string source = graphSourceName(o.graph.graph);
    const std::string text = readPbtxtArgText(o.graph.graph, o.graph.format, "--to tf");
    const ImportedGraph imported = importGraphText(text, source, GraphFormat::TfPbtxt,
                                                   importOptionsArg(o.graph.batch, o.graph.shapes));
    const Cluster c = loadClusterArg(o.cluster, {}, &imported);
    PlacementWithProvenance read = readPlacementFileWithProvenance(o.placement, imported.graph, c);
    noteOtherCluster(o.placement, read.clusterName, c, o.cluster);
    made = read.made;
    return pbtxtWithPlacement(text, source, imported.graph, c, read.placement);
}

int runExport(const ExportOptions& o)
{
    if (!o.out.empty() && o.out != "-")
        checkOutputArgs({{"--out", o.out}}, {o.placement, o.graph.graph, o.cluster}, o.force);
    const bool torch = o.to == "torch";
    if (torch && (!o.graph.graph.empty() || !o.cluster.empty()))
        throw UsageError{"--graph and --cluster are for --to tf: a torch map needs only the placement's module paths"};
    PlacementProvenance made;
    const std::string text = torch
        ? torchMapJson(JsonInput::readFile(o.placement, JsonInput::kMaxPlacementBytes), o.placement, &made)
        : tfExport(o, made);
    // The export carries the devices, not the order a placement found under critical-path
    // dispatch was timed in.
    if (made.dispatch == Dispatch::CriticalPath)
        std::cerr << "post-cli: note: " << o.placement << " was placed under critical-path dispatch; "
                  << (torch ? "PyTorch runs the ops in program order"
                            : "TensorFlow's executor starts the op that became ready first")
                  << ", so the step it takes may differ from the file's step_time_us (docs/simulator.md, "
                  << "\"Dispatch\")\n";
    if (o.out.empty() || o.out == "-") {
        std::cout << text;
        return kExitOk;
    }
    writeFileAtomically(o.out, text, o.force);
    std::cout << "wrote " << o.out << "\n";
    return kExitOk;
}

} // namespace

void addExportPlacementCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<ExportOptions>();
    CLI::App* cmd = app.add_subcommand("export-placement",
                                       "Write a placement for the framework that runs it (torch: module -> device "
                                       "map; tf: the .pbtxt with every node's device)");
    cmd->add_option("placement", opts->placement, "post-placement/1 file written by `place`")->required();
    cmd->add_option("--to", opts->to,
                    "Target: torch (post-torch-map/1, for post_torch.apply) or tf (the --graph .pbtxt with every "
                    "node's device set, as place --pbtxt-out writes it)")
        ->capture_default_str()
        ->check(CLI::IsMember({"torch", "tf"}));
    cmd->add_option("--graph", opts->graph.graph, "--to tf: the TensorFlow GraphDef .pbtxt the placement was made for")
        ->type_name("FILE");
    addGraphInputOptions(*cmd, opts->graph.format, opts->graph.batch, opts->graph.shapes);
    cmd->add_option("--cluster", opts->cluster, "--to tf: the cluster the placement was made for (preset or file)");
    cmd->add_option("--out", opts->out, "Output file (default: standard output)");
    cmd->add_flag("--force", opts->force, "Replace a read-only --out file");
    cmd->callback([cmd, opts, &exitCode] {
        // The graph's reading options serve --to tf's --graph; a torch map reads no graph, so
        // one given there would change nothing (they were accepted without a word).
        if (opts->to == "torch")
            for (const CLI::Option* option : cmd->get_options())
                if (option->count() > 0 && option->get_name() != "placement" && option->get_name() != "--to"
                    && option->get_name() != "--out" && option->get_name() != "--force"
                    && option->get_name() != "--graph" && option->get_name() != "--cluster")
                    throw UsageError{option->get_name()
                                     + " is for --to tf's --graph: a torch map reads no graph, only "
                                       "the placement's module paths"};
        exitCode = runExport(*opts);
    });
}

} // namespace post::cli
