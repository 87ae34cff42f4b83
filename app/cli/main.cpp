// post-cli: the headless face of Post Studio, for scripts and batch runs.
#include "app/cli/CliSupport.h"
#include "app/cli/CompareCommand.h"
#include "app/cli/ConvertCommand.h"
#include "app/cli/ExportPlacementCommand.h"
#include "app/cli/InfoCommand.h"
#include "app/cli/PlaceCommand.h"
#include "app/cli/SimulateCommand.h"
#include "app/cli/SweepCommand.h"
#include "app/cli/ZooCommand.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv)
{
    using namespace post::cli;
    post::removeTemporaryFilesOnSignals(); // Ctrl-C during a write leaves no .tmp file
    CLI::App app{"post-cli: find fast device placements for neural-network training"};
    app.set_version_flag("--version", std::string("post-cli ") + POST_VERSION);
    app.require_subcommand(1);
    app.footer(graphFormatsHelp());
    int exitCode = kExitOk;
    addInfoCommand(app, exitCode);
    addSimulateCommand(app, exitCode);
    addPlaceCommand(app, exitCode);
    addCompareCommand(app, exitCode);
    addZooCommand(app, exitCode);
    addExportPlacementCommand(app, exitCode);
    addConvertCommand(app, exitCode);
    addSweepCommand(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitUsage;
    } catch (const UsageError& e) {
        std::cerr << "post-cli: " << e.message << "\n";
        return kExitUsage;
    } catch (const post::InputError& e) {
        std::cerr << "post-cli: error: " << e.what() << "\n";
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "post-cli: error: out of memory\n";
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "post-cli: error: " << e.what() << "\n";
        return kExitBadInput;
    }
    return exitCode;
}
