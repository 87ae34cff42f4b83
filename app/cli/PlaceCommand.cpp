#include "app/cli/PlaceCommand.h"

#include "app/cli/CliSupport.h"
#include "app/cli/JsonFormats.h"
#include "app/cli/SearchInterrupt.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/PlacementFile.h"
#include "core/io/tf/PbtxtExport.h"
#include "core/io/torch/TorchModules.h"
#include "core/run/PlacerRegistry.h"
#include "core/run/RunLog.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/AtomicFile.h"
#include "core/util/Beside.h"
#include "core/util/FileText.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <future>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace post::cli {
namespace {

struct PlaceOptions : GraphClusterArgs {
    std::string algo = "post@best";
    int samples = 2400;
    double seconds = 0.0;
    bool samplesGiven = false;
    bool secondsGiven = false;
    std::uint64_t seed = 1;
    int threads = 0;
    std::string out;
    std::string log;
    std::string pbtxtOut;
    std::string modules; // post-torch-modules/1 sidecar; default: GRAPH.modules.json when present
    std::string start;   // a post-placement/1 file to start the search from
    std::vector<std::string> settings;
    bool json = false;
    bool force = false;
};

// What the search gets of `budget` (0: none) counted from `commandStart`: what is left, at least a
// tenth (never 0, which would mean no limit). Where reading (and, `bounded`, bounding) took most
// of it, a note says why the search is short (a 53 MB execution trace takes 2.7 s to read) and
// that the run overshoots --time.
double searchSeconds(double budget, std::chrono::steady_clock::time_point commandStart, bool bounded)
{
    if (!(budget > 0.0))
        return budget;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - commandStart).count();
    const double seconds = std::max(budget - spent, 0.1 * budget);
    if (spent > 0.5 * budget) {
        char text[160];
        std::snprintf(text, sizeof text, "reading the graph%s took %.2f s of --time %g s; the search gets %.2f s%s",
                      bounded ? " and bounding it" : "", spent, budget, seconds,
                      budget - spent < 0.1 * budget ? " (a tenth of the budget, so the run takes longer)" : "");
        std::cerr << "post-cli: note: " << text << "\n";
    }
    return seconds;
}

// What place prints of its run (--json or the text lines).
struct PlaceReport {
    const ImportedGraph& imported;
    const Cluster& cluster;
    Dispatch dispatch;
    const PlaceResult& result;
    ReportedBound bound;                 // the largest valid one
    double budgetSeconds;                // --time as given (0: none)
    double commandSeconds;               // from the command's start to the report, the --time budget's span
    std::optional<PlacementStart> start; // --start's file and step
    std::string overMemory;              // an infeasible best: the device furthest over its memory, and by how much
    // How far the best can be from the optimum, where it is feasible (the bound holds for
    // placements that fit in memory); NaN otherwise.
    double gap() const
    {
        return result.feasible ? certifiedGap(result.bestStepTimeUs, bound.us) : std::numeric_limits<double>::quiet_NaN();
    }
    std::vector<int> opsPerDevice() const
    {
        std::vector<int> count(static_cast<size_t>(cluster.deviceCount()), 0);
        for (DeviceId d : result.best)
            ++count[static_cast<size_t>(d)];
        return count;
    }
};

void printPlaceJson(const PlaceOptions& o, const PlaceReport& report)
{
    const PlaceResult& r = report.result;
    const Cluster& c = report.cluster;
    const ReportedBound& lb = report.bound;
    const double gap = report.gap();
    nlohmann::json j;
    j["format"] = kPlaceJsonFormat;
    j["algo"] = o.algo;
    j["graph"] = report.imported.graph.name();
    j["cluster"] = c.name();
    j["dispatch"] = dispatchName(report.dispatch);
    j["precision"] = toString(c.precision());
    j["seed"] = o.seed;
    j["best_step_time_ms"] = r.bestStepTimeUs / 1000.0;
    if (report.start)
        j["start_step_time_ms"] = *report.start->stepTimeUs / 1000.0;
    j["feasible"] = r.feasible;
    j["samples"] = r.samplesUsed;
    j["time_budget_s"] = report.budgetSeconds;
    j["wall_s"] = r.wallSeconds;
    j["command_s"] = report.commandSeconds;
    j["lower_bound_ms"] = lb.us / 1000.0;
    j["lower_bound_source"] = lb.source;
    if (!std::isnan(gap))
        j["certified_gap"] = gap;
    if (r.bounds.hasSolverBound()) {
        j["solver_bound_ms"] = r.bounds.solverBoundUs / 1000.0;
        j["solver_bound_scope"] = r.bounds.solverBoundOpLevel ? "op-level" : "grouping";
    }
    j["proven_optimal"] = r.bounds.provenOptimal;
    addHostDispatchJson(report.imported, &c, j);
    if (r.bounds.hasGroupedBound()) { // a bound of the coarse graph only, never lower_bound_ms
        j["grouped_bound_ms"] = r.bounds.groupedBoundUs / 1000.0;
        j["grouped_bound_groups"] = r.bounds.groupedBoundGroups;
        j["grouped_optimal"] = r.bounds.groupedOptimal;
    }
    const std::vector<int> opsPerDevice = report.opsPerDevice();
    auto& per = j["ops_per_device"] = nlohmann::json::object();
    for (DeviceId d = 0; d < c.deviceCount(); ++d)
        per[c.device(d).name] = opsPerDevice[static_cast<size_t>(d)];
    std::cout << j.dump(2) << "\n";
}

void printPlaceText(const PlaceOptions& o, const PlaceReport& report)
{
    const PlaceResult& r = report.result;
    const Cluster& c = report.cluster;
    const ReportedBound& lb = report.bound;
    const double gap = report.gap();
    std::cout << "algorithm    " << o.algo << "\n"
              << "best step    " << formatMs(r.bestStepTimeUs) << (r.feasible ? "" : "  (INFEASIBLE: out of memory)")
              << (report.dispatch == Dispatch::ReadyOrder ? "" : "  (critical-path dispatch)") << "\nlower bound  "
              << formatMs(lb.us) << " (" << lb.source << ")" << (r.bounds.provenOptimal ? "\nproven       optimal" : "")
              << "\n";
    if (!std::isnan(gap) && !r.bounds.provenOptimal)
        std::cout << "certified    within " << formatGap(gap) << " of the optimum (best / lower bound - 1)\n";
    if (!r.feasible)
        std::cout << "memory       no placement found fits: " << report.overMemory
                  << " (the lower bound holds for placements that fit)\n";
    if (report.start)
        std::cout << "start        " << formatMs(*report.start->stepTimeUs) << "  (" << o.start << ")\n";
    if (r.bounds.hasGroupedBound())
        std::cout << "grouped bound " << formatMs(r.bounds.groupedBoundUs) << " on " << r.bounds.groupedBoundGroups
                  << " chunks" << (r.bounds.groupedOptimal ? ", optimal there" : "")
                  << " (a bound of that grouping only, not of this graph)\n";
    const std::vector<int> opsPerDevice = report.opsPerDevice();
    std::cout << "samples      " << r.samplesUsed
              << (o.samplesGiven && r.samplesUsed > o.samples ? " (more than the " + std::to_string(o.samples)
                          + " asked: the placements made before any search, its classical starts or one per "
                            "device, are each simulated)"
                                                              : std::string())
              << "\n"
              << "wall time    " << formatSeconds(report.commandSeconds) << " (the search "
              << formatSeconds(r.wallSeconds) << ")\n"
              << "ops/device  ";
    for (DeviceId d = 0; d < c.deviceCount(); ++d)
        std::cout << " " << c.device(d).name << "=" << opsPerDevice[static_cast<size_t>(d)];
    std::cout << "\n";
    if (!o.out.empty())
        std::cout << "wrote        " << o.out << "\n";
    if (!o.pbtxtOut.empty())
        std::cout << "wrote        " << o.pbtxtOut << "\n";
}

int runPlace(const PlaceOptions& o)
{
    const auto commandStart = std::chrono::steady_clock::now();
    std::unique_ptr<Placer> placer = makePlacer(o.algo, learnerOptionsArg(o.settings));
    if (!placer)
        throw UsageError{"--algo: unknown algorithm '" + o.algo + "' (" + joinedPlacerNames() + ")"};
    if (const PlacerInfo* row = findPlacer(o.algo); row && row->kind == PlacerKind::Classical && !o.settings.empty())
        std::cerr << "post-cli: note: --set sets the constants of learners and searches; " << o.algo
                  << " is a classical placer and has none, so it ignores them\n";
    // Before the search: a run whose result cannot be written is lost at the end.
    checkOutputArgs({{"--out", o.out}, {"--log", o.log}, {"--pbtxt-out", o.pbtxtOut}},
                    {o.graph, o.cluster, o.modules, o.start}, o.force);
    const StartUse startUse = placerStartUse(o.algo);
    if (!o.start.empty() && startUse == StartUse::None)
        throw UsageError{"--start: " + o.algo
                         + " does not start from a placement (post@best, local-search and the learners but "
                           "random do)"};
    const std::string source = graphSourceName(o.graph);
    std::string pbtxtText; // the input, to write back with devices filled in
    if (!o.pbtxtOut.empty())
        pbtxtText = readPbtxtArgText(o.graph, o.format, "--pbtxt-out");
    const auto pbtxtGraph = [&] {
        return importGraphText(pbtxtText, source, GraphFormat::TfPbtxt, importOptionsArg(o.batch, o.shapes));
    };
    ImportedGraph imported = o.pbtxtOut.empty() ? loadImportedGraphArg(o.graph, o.format, o.batch, o.shapes)
                                                : pbtxtGraph();
    // A PyTorch export's module paths (its .modules.json, or --modules): read before the search,
    // so that a missing or broken sidecar fails now, not after the budget. Each module's ops are
    // searched as one group, as post_torch.apply runs them (docs/pytorch.md), and the placement
    // written carries each op's module.
    OpModules modules;
    if (std::optional<ModuleGroups> groups = groupByModules(imported.graph, o.graph, o.modules)) {
        if (const std::string note = groups->note(); !note.empty())
            std::cerr << "post-cli: note: " << note << "\n";
        modules = std::move(groups->modules);
    }
    const Graph& g = imported.graph;
    requireSomeCompute(g, source);
    // --start's file first: without --precision the search runs under the mode it was timed under.
    Cluster c = loadCluster(o.cluster);
    std::optional<PlacementWithProvenance> given;
    if (!o.start.empty()) {
        given = readPlacementFileWithProvenance(o.start, g, c);
        noteOtherCluster(o.start, given->clusterName, c, o.cluster);
    }
    setPrecisionArg(c, o.cluster, o.precision, &imported,
                    given ? RecordedPrecision{o.start, recordedPrecision(given->made), given->made.stepTimeUs}
                          : RecordedPrecision{});
    noteDeviceTypes(imported, c);

    RunLog log;
    const SimOptions simOptions = simOptionsArg(o);
    PlaceContext ctx{g, c, simOptions};
    Placement start;
    std::optional<PlacementStart> startMade; // reported, and recorded in --out: the file, its step, its fingerprint
    if (given) {
        if (const auto rule = recordedDispatch(given->made); rule && *rule != simOptions.dispatch)
            std::cerr << "post-cli: note: " << o.start << " was timed under " << dispatchName(*rule)
                      << " dispatch; the search times it under " << dispatchName(simOptions.dispatch)
                      << " dispatch (--dispatch)\n";
        start = std::move(given->placement);
        placer = makePlacerFrom(o.algo, learnerOptionsArg(o.settings), start, ctx);
        startMade = PlacementStart{o.start, Simulator(g, c, simOptions).run(start).stepTimeUs,
                                   placementFingerprint(g, c, start)};
    }
    // Neither budget given: the default time budget; one given: that one alone.
    ctx.samples = o.samplesGiven ? o.samples : kUnlimitedSamples;
    const double budget = o.secondsGiven ? o.seconds : (o.samplesGiven ? 0.0 : kDefaultPlaceSeconds);
    ctx.seed = o.seed;
    ctx.threads = o.threads;
    ctx.observer = o.log.empty() ? nullptr : &log;
    std::optional<SearchInterrupt> interrupt(std::in_place); // Ctrl-C ends the search, not the command
    ctx.stop = interrupt->flag();
    // The budget counts from the command's start: reading the graph is part of the wall time a
    // user gives, and the search gets what is left (at least a tenth of the budget, never 0,
    // which would mean no limit). milp builds the bound into its model, so it is computed
    // first there (2 s for a 3,664-op, 181,878-edge Chakra step on a loaded machine, within
    // the budget); every other placer only reports it, so it is computed beside the search.
    const bool boundFirst = placerUsesLowerBound(o.algo);
    LowerBound polynomial;
    std::future<LowerBound> later;
    if (boundFirst) {
        polynomial = lowerBound(g, c, simOptions);
        ctx.lowerBoundUs = polynomial.valueUs();
    } else {
        later = beside([&] { return lowerBound(g, c, simOptions); });
    }
    ctx.seconds = searchSeconds(budget, commandStart, boundFirst);
    const PlaceResult r = runClusterNamed(o.cluster, c, [&] { return placer->place(ctx); });
    if (later.valid())
        polynomial = later.get();
    const int interruptedBy = interrupt->signal();
    interrupt.reset(); // from here on a signal ends the command (and removes temporary files)
    if (interruptedBy != 0 && r.best.size() != static_cast<size_t>(g.opCount())) {
        std::cerr << "post-cli: interrupted before the search had a placement; nothing written\n";
        return 128 + interruptedBy;
    }
    ReportedBound lb = largestBound(polynomial, r.bounds.solverBoundUs, r.bounds.solverBoundOpLevel);
    if (r.feasible)
        lb.us = boundBelowStep(lb.us, r.bestStepTimeUs);
    noteHostBound(imported, c, r.bestStepTimeUs);

    if (!o.out.empty()) {
        // What made it, as Post Studio's export of the same placement writes it (byte for byte).
        PlacementProvenance made{o.algo, o.seed, Simulator(g, c, simOptions).run(r.best).stepTimeUs,
                                 simOptions.dispatch, startMade};
        made.precision = c.precision();
        writeFileAtomically(o.out, placementJson(g, c, r.best, modules, made), o.force);
    }
    if (!o.log.empty())
        writeFileAtomically(o.log, log.toCsv(), o.force);
    if (!o.pbtxtOut.empty()) {
        writeFileAtomically(o.pbtxtOut, pbtxtWithPlacement(pbtxtText, source, g, c, r.best), o.force);
        if (simOptions.dispatch != Dispatch::ReadyOrder)
            std::cerr << "post-cli: note: " << o.pbtxtOut << " gives each node its device, not the order the search "
                      << "timed: TensorFlow's executor starts the op that became ready first, so its step may "
                      << "differ from the critical-path dispatch's (docs/simulator.md, \"Dispatch\")\n";
    }

    const std::string overMemory = r.feasible ? std::string{}
                                              : overMemoryText(c, Simulator(g, c, simOptions).run(r.best));
    const PlaceReport report{imported,
                             c,
                             simOptions.dispatch,
                             r,
                             lb,
                             budget,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - commandStart).count(),
                             startMade,
                             overMemory};
    if (o.json)
        printPlaceJson(o, report);
    else
        printPlaceText(o, report);
    if (interruptedBy != 0) {
        std::cerr << "post-cli: interrupted (" << (interruptedBy == SIGINT ? "SIGINT" : "SIGTERM")
                  << "): the search ended early; what is reported" << (o.out.empty() ? "" : " and written")
                  << " is the best placement it had found\n";
        return 128 + interruptedBy;
    }
    return kExitOk;
}

} // namespace

void addPlaceCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<PlaceOptions>();
    CLI::App* cmd = app.add_subcommand("place", "Search for a fast placement and write the best one");
    addGraphClusterOptions(*cmd, *opts);
    CLI::Option* precision = cmd->get_option("--precision");
    precision->description(precision->get_description()
                           + ". Without it, a search from a --start file runs in the mode the file records (its "
                             "\"precision\")");
    cmd->add_option("--algo", opts->algo,
                    "Algorithm (default post@best); LEARNER@PLACER starts a learner from a classical placement:"
                        + placerTableHelp());
    CLI::Option* samples = cmd->add_option("--samples", opts->samples,
                                           "Evaluation budget of learners and searches (for equal-sample comparisons; "
                                           "default: none when --time is given, else the time budget alone)")
                               ->check(CLI::Range(1, kUnlimitedSamples));
    CLI::Option* seconds = cmd->add_option("--time", opts->seconds,
                                           "Wall-time budget in seconds, counted from the command's start: reading the "
                                           "graph and the search, the lower bound computed beside it (before it for "
                                           "milp) (default 2 unless --samples is given)")
                               ->type_name("SECONDS")
                               ->check(finiteRange(0.001, 1e6));
    cmd->add_option("--seed", opts->seed, "Random seed")->capture_default_str();
    cmd->add_option("--threads", opts->threads, "Evaluation threads (0: all cores)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--out", opts->out, "Write the best placement (post-placement/1 JSON)");
    cmd->add_option("--pbtxt-out", opts->pbtxtOut,
                    "Write the input .pbtxt again with every node's device set from the best placement (CPU-only "
                    "kernels on the CPU, loc:@ colocation kept: it runs without soft placement)");
    cmd->add_option("--log", opts->log, "Write one CSV row per sample and per update");
    cmd->add_option("--modules", opts->modules,
                    "PyTorch module paths of the ops (post-torch-modules/1) to write into --out; "
                    "default: GRAPH.modules.json when it exists");
    cmd->add_option("--start", opts->start,
                    "Start the search from this placement (post-placement/1 of the graph and cluster): local-search "
                    "and post@best climb from it when it beats every classical placement, a learner starts its policy "
                    "on it; the result is never slower")
        ->type_name("FILE");
    cmd->add_option("--set", opts->settings, learnerOptionsHelp())->type_name("KEY=VALUE");
    cmd->add_flag("--json", opts->json, "Print one JSON object");
    addForceOption(*cmd, opts->force);
    cmd->callback([opts, samples, seconds, &exitCode] {
        opts->samplesGiven = samples->count() > 0;
        opts->secondsGiven = seconds->count() > 0;
        exitCode = runPlace(*opts);
    });
}

} // namespace post::cli
