#include "app/cli/ZooCommand.h"

#include "app/cli/CliSupport.h"
#include "app/cli/JsonFormats.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/util/AtomicFile.h"
#include "core/zoo/ZooRegistry.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace post::cli {
namespace {

struct ZooOptions {
    bool json = false;
    std::string name;
    int batch = 0;
    int steps = 0;
    std::string out;
    bool force = false;
    bool fusion = false; // the zoo's default; the flag is there so that the pair works on every command
    bool noFusion = false;
    std::string optimizer = "sgd";
    double inputCopyGBps = 10.0;
};

int runList(const ZooOptions& o)
{
    if (o.json) {
        nlohmann::json j;
        j["format"] = kZooListJsonFormat;
        nlohmann::json& list = j["models"] = nlohmann::json::array();
        for (const ZooModelInfo& m : ZooRegistry::models())
            list.push_back({{"name", m.name}, {"description", m.description}, {"default_batch", m.defaultBatch}});
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    for (const ZooModelInfo& m : ZooRegistry::models())
        std::printf("%-14s batch %-4d %s\n", m.name.c_str(), m.defaultBatch, m.description.c_str());
    return kExitOk;
}

int runGenerate(const ZooOptions& o)
{
    if (!ZooRegistry::find(o.name))
        throw UsageError{"no model '" + o.name + "' in the zoo (models: " + ZooRegistry::joinedNames() + ")"};
    if (o.steps > 0 && ZooRegistry::find(o.name)->defaultSteps == 0)
        throw UsageError{
            "--steps: model '" + o.name
            + "' has no time steps (only the rnnlm-* and nmt-* models do, and bert-base's sequence length)"};
    checkOutputArgs({{"--out", o.out == "-" ? std::string{} : o.out}}, {}, o.force);
    CostReport report;
    CostModelOptions costOptions;
    costOptions.fuseElementwise = !o.noFusion;
    costOptions.optimizer = *parseOptimizerKind(o.optimizer);
    costOptions.inputCopyGBps = o.inputCopyGBps;
    const Graph g = [&] {
        try {
            return ZooRegistry::generate(o.name, o.batch, costOptions, &report, o.steps);
        } catch (const std::invalid_argument& e) {
            throw UsageError{std::string(o.steps > 0 ? "--steps: " : "") + e.what()}; // a graph over the zoo's cap
        }
    }();
    const std::string text = nativeGraphJson(g);
    // Say which op types the cost model had to guess (docs/cost-model.md, unknown types).
    for (const auto& [type, count] : report.unknownTypes)
        std::cerr << "post-cli: note: " << count << " " << type << " ops costed by the element-wise fallback\n";
    if (o.out.empty() || o.out == "-") {
        std::cout << text;
        return kExitOk;
    }
    writeFileAtomically(o.out, text, o.force);
    std::cerr << o.out << ": " << g.opCount() << " ops, " << g.edgeCount() << " edges, "
              << formatBytes(g.totalParamBytes()) << " of parameters, " << formatMs(g.totalTimeUs(DeviceKind::Gpu))
              << " on a speed-1 GPU";
    if (report.fusionGroups > 0)
        std::cerr << "; " << report.fusedOps << " ops fused into " << report.fusionGroups << " kernels";
    std::cerr << "\n";
    return kExitOk;
}

} // namespace

void addZooCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<ZooOptions>();
    CLI::App* zoo = app.add_subcommand("zoo", "The benchmark models of Post and its predecessors, as training graphs");
    zoo->require_subcommand(1);
    CLI::App* list = zoo->add_subcommand("list", "List the models with their default batch");
    list->add_flag("--json", opts->json, "Print one JSON object (post-zoo-list/1)");
    list->callback([opts, &exitCode] { exitCode = runList(*opts); });
    CLI::App* gen = zoo->add_subcommand("generate", "Write a model's training step as post-graph/1");
    gen->add_option("name", opts->name, "Model name (see `post-cli zoo list`)")->required();
    gen->add_option("--batch", opts->batch, "Batch size (default: the model's)")->check(CLI::Range(1, 65536));
    gen->add_option("--steps", opts->steps,
                    "Unrolled time steps of an rnnlm-* or nmt-* model (default: 20 and 30; 200 make nmt-8 ~100k ops), "
                    "or bert-base's sequence length (default 128, at most 512)")
        ->check(CLI::Range(1, ZooRegistry::kMaxSteps));
    CLI::Option* fuse = gen->add_flag("--fusion", opts->fusion,
                                      "Cost chains of element-wise ops as one kernel (kernel fusion, the zoo's "
                                      "default: its graphs stand for tuned TensorFlow-style runtimes)");
    gen->add_flag("--no-fusion", opts->noFusion,
                  "Cost every element-wise op as its own kernel (no kernel fusion: the model before it was "
                  "modelled, docs/cost-model.md)")
        ->excludes(fuse);
    gen->add_option("--optimizer", opts->optimizer,
                    "The update ops of the step: sgd (with momentum), adam, none; the GPT models always use adam "
                    "(unless none)")
        ->check(CLI::IsMember({"sgd", "adam", "none"}))
        ->capture_default_str();
    addInputCopyOption(*gen, opts->inputCopyGBps);
    gen->add_option("--out", opts->out, "Output file, replaced atomically (default, or -: standard output)");
    addForceOption(*gen, opts->force);
    gen->callback([opts, &exitCode] { exitCode = runGenerate(*opts); });
}

} // namespace post::cli
