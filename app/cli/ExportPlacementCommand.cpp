#include "app/cli/ExportPlacementCommand.h"

#include "app/cli/CliSupport.h"
#include "core/io/json/JsonInput.h"
#include "core/io/native/PlacementFile.h"
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
};

int runExport(const ExportOptions& o)
{
    if (!o.out.empty() && o.out != "-")
        checkOutputArgs({{"--out", o.out}}, {o.placement}, o.force);
    const std::string placement = JsonInput::readFile(o.placement, JsonInput::kMaxPlacementBytes);
    PlacementProvenance made;
    const std::string text = torchMapJson(placement, o.placement, &made);
    // The map carries the devices, not the order a placement found under critical-path dispatch
    // was timed in.
    if (made.dispatch == Dispatch::CriticalPath)
        std::cerr << "post-cli: note: " << o.placement << " was placed under critical-path dispatch; PyTorch runs "
                  << "the ops in program order, so the step it takes may differ from the file's step_time_us "
                  << "(docs/simulator.md, \"Dispatch\")\n";
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
    CLI::App* cmd = app.add_subcommand(
        "export-placement", "Write a placement for the framework that runs it (torch: module -> device map)");
    cmd->add_option("placement", opts->placement, "post-placement/1 file written by `place`")->required();
    cmd->add_option("--to", opts->to, "Target: torch (post-torch-map/1, for post_torch.apply)")
        ->capture_default_str()
        ->check(CLI::IsMember({"torch"}));
    cmd->add_option("--out", opts->out, "Output file (default: standard output)");
    cmd->add_flag("--force", opts->force, "Replace a read-only --out file");
    cmd->callback([opts, &exitCode] { exitCode = runExport(*opts); });
}

} // namespace post::cli
