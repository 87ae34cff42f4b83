#include "app/cli/ConvertCommand.h"

#include "app/cli/CliSupport.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/util/AtomicFile.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace post::cli {
namespace {

struct ConvertOptions : GraphArgs {
    std::string out;
    bool force = false;
};

int runConvert(const ConvertOptions& o)
{
    // The written costs are fixed numbers, so a dimension without a value is refused
    // rather than baked in as 1.
    const bool toStdout = o.out == "-";
    checkOutputArgs({{"--out", toStdout ? std::string{} : o.out}}, {o.graph}, o.force);
    const ImportedGraph imported = loadImportedGraphArg(o.graph, o.format, o.batch, o.shapes, UnresolvedDims::Refuse);
    const Graph& g = imported.graph;
    // With its origin: the format it was read from decides its default precision mode, and
    // whether eager PyTorch's host dispatch applies (docs/formats.md, post-graph/1 "origin").
    if (toStdout)
        std::cout << nativeGraphJson(imported);
    else
        writeFileAtomically(o.out, nativeGraphJson(imported), o.force);
    std::cerr << o.out << ": " << g.opCount() << " ops, " << g.edgeCount() << " edges, "
              << formatBytes(g.totalParamBytes()) << " of parameters, " << formatMs(g.totalTimeUs(DeviceKind::Gpu))
              << " on a speed-1 GPU\n";
    return kExitOk;
}

} // namespace

void addConvertCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<ConvertOptions>();
    CLI::App* cmd = app.add_subcommand("convert", "Write any importable graph as post-graph/1 (its training step)");
    cmd->add_option("graph", opts->graph,
                    "Graph file in any format post-cli --help lists (ONNX, .pbtxt, DOT, PipeDream, MSR, post-graph, "
                    "PyTorch execution and Chakra traces), "
                    "or - for standard input")
        ->required();
    addGraphInputOptions(*cmd, opts->format, opts->batch, opts->shapes);
    cmd->add_option("--out", opts->out, "Output file (post-graph/1 JSON), replaced atomically; - for standard output")
        ->required();
    cmd->add_flag("--force", opts->force, "Replace a read-only --out file");
    cmd->callback([opts, &exitCode] { exitCode = runConvert(*opts); });
}

} // namespace post::cli
