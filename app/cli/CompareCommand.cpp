#include "app/cli/CompareCommand.h"

#include "app/cli/CliSupport.h"
#include "app/cli/JsonFormats.h"
#include "core/io/torch/TorchModules.h"
#include "core/run/ComparisonRunner.h"
#include "core/run/GivenPlacementRow.h"
#include "core/run/PlacerRegistry.h"
#include "core/run/WarmStartName.h"
#include "core/sim/LowerBound.h"
#include "core/util/InputError.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

namespace post::cli {
namespace {

struct CompareOptions : GraphClusterArgs {
    std::string algos;
    int samples = 2400;
    double seconds = 0.0;
    bool samplesGiven = false;
    int seeds = 5;
    std::uint64_t firstSeed = 1;
    int threads = 0;
    std::vector<std::string> settings;
    bool json = false;
};

// The budget of each learner and search run: samples, wall time, or both (the first reached
// ends the run); --time alone sets no sample limit.
int sampleLimit(const CompareOptions& o) { return o.seconds > 0.0 && !o.samplesGiven ? kUnlimitedSamples : o.samples; }

std::string budgetText(const CompareOptions& o)
{
    char text[96];
    if (o.seconds <= 0.0)
        std::snprintf(text, sizeof text, "%d samples", o.samples);
    else if (!o.samplesGiven)
        std::snprintf(text, sizeof text, "%g s a run", o.seconds);
    else
        std::snprintf(text, sizeof text, "%d samples or %g s a run, whichever ends it first", o.samples, o.seconds);
    return text;
}

std::vector<std::string> splitNames(const std::string& list)
{
    std::vector<std::string> names;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            names.push_back(item);
    return names;
}

// Why `algo` cannot run on `cluster` (compare leaves it out with this note), or "".
std::string notApplicable(const std::string& algo, const Cluster& cluster)
{
    // The cpu placer puts everything on a CPU; a warm start from it needs one too.
    const std::optional<WarmStartName> warm = splitWarmStartName(algo);
    if (algo == "cpu" || (warm && warm->starter == "cpu")) {
        for (const Device& d : cluster.devices())
            if (d.kind == DeviceKind::Cpu)
                return {};
        return "the cluster has no CPU device";
    }
    return {};
}

// Eager PyTorch's host thread against the fastest feasible row (cost/HostDispatch.h).
void noteHostBoundOfRows(const ImportedGraph& imported, const Cluster& cluster, const std::vector<ComparisonRow>& rows)
{
    double fastestUs = std::numeric_limits<double>::infinity();
    for (const ComparisonRow& r : rows)
        if (r.bestFeasible && !r.bestUs.empty())
            fastestUs = std::min(fastestUs, r.bestUsOverRuns);
    if (std::isfinite(fastestUs))
        noteHostBound(imported, cluster, fastestUs);
}

// The device that holds most of `placement`'s ops (`single`'s choice: ops pinned to a CPU stay
// there), or "" for none.
std::string mostUsedDevice(const Cluster& cluster, const Placement& placement)
{
    std::vector<int> count(static_cast<size_t>(cluster.deviceCount()), 0);
    for (DeviceId d : placement)
        if (d >= 0 && d < cluster.deviceCount())
            ++count[static_cast<size_t>(d)];
    const auto most = std::max_element(count.begin(), count.end());
    return most == count.end() || *most == 0 ? std::string{}
                                             : cluster.device(static_cast<DeviceId>(most - count.begin())).name;
}

// What runCompare found, for its two outputs.
struct CompareReport {
    const ImportedGraph& imported;
    const Cluster& cluster;
    const SimOptions& sim;
    std::vector<ComparisonRow> rows;
    std::vector<std::pair<std::string, std::string>> skipped; // (algorithm, why)
    double singleUs = 0.0;                                    // the speed-ups' reference: `single`'s step
    std::string singleDevice; // the device `single` chose (the CPU where no GPU holds the graph)
    ReportedBound bound;      // the largest valid one

    // The certified gap of a row: its fastest feasible run over the largest valid bound (every
    // row shares it). Absent without a bound or a feasible run.
    std::optional<double> certifiedGap(const ComparisonRow& r) const
    {
        const double gap = r.bestFeasible && !r.bestUs.empty() ? post::certifiedGap(r.bestUsOverRuns, bound.us) : NAN;
        return std::isnan(gap) ? std::nullopt : std::optional<double>(gap);
    }
};

void printCompareJson(const CompareOptions& o, const CompareReport& report)
{
    const double lb = report.bound.us;
    nlohmann::json j;
    j["format"] = kCompareJsonFormat;
    j["graph"] = report.imported.graph.name();
    j["cluster"] = report.cluster.name();
    j["dispatch"] = dispatchName(report.sim.dispatch);
    j["samples"] = sampleLimit(o);
    if (o.seconds > 0.0)
        j["time_s"] = o.seconds;
    j["seeds"] = o.seeds;
    j["lower_bound_ms"] = lb / 1000.0;
    j["lower_bound_source"] = report.bound.source;
    j["single_device_ms"] = report.singleUs / 1000.0;
    j["single_device"] = report.singleDevice;
    addHostDispatchJson(report.imported, &report.cluster, j);
    auto& results = j["results"] = nlohmann::json::array();
    for (const ComparisonRow& r : report.rows) {
        const double m = r.meanUs();
        results.push_back({{"algo", r.algorithm},
                           {"mean_step_time_ms", m / 1000.0},
                           {"mean_step_time_ms_std", r.stddevUs() / 1000.0},
                           {"best_step_time_ms", r.bestUsOverRuns / 1000.0},
                           {"runs", r.bestUs.size()},
                           {"feasible", r.allFeasible()},
                           {"feasible_runs", r.feasibleRuns},
                           {"samples", r.samples},
                           {"wall_s", r.wallSeconds},
                           {"speedup_vs_single", m > 0 ? report.singleUs / m : 0.0},
                           {"gap_to_lower_bound", lb > 0 ? m / lb - 1.0 : 0.0}});
        if (const std::optional<double> gap = report.certifiedGap(r)) {
            results.back()["certified_gap"] = *gap;
            results.back()["certified_by"] = report.bound.source;
        }
        if (r.bounds.hasSolverBound()) {
            results.back()["solver_bound_ms"] = r.bounds.solverBoundUs / 1000.0;
            results.back()["solver_bound_scope"] = r.bounds.solverBoundOpLevel ? "op-level" : "grouping";
            results.back()["proven_optimal"] = r.bounds.provenOptimal;
        }
        if (r.bounds.hasGroupedBound()) { // a bound of the coarse graph only, never lower_bound_ms
            results.back()["grouped_bound_ms"] = r.bounds.groupedBoundUs / 1000.0;
            results.back()["grouped_bound_groups"] = r.bounds.groupedBoundGroups;
            results.back()["grouped_optimal"] = r.bounds.groupedOptimal;
        }
    }
    auto& left = j["skipped"] = nlohmann::json::array();
    for (const auto& [algo, why] : report.skipped)
        left.push_back({{"algo", algo}, {"reason", why}});
    std::cout << j.dump(2) << "\n";
}

void printCompareTable(const CompareOptions& o, const CompareReport& report)
{
    const Graph& g = report.imported.graph;
    std::printf("graph %s (%d ops) on %s; lower bound %.3f ms (%s); %s, %d seed%s\n", g.name().c_str(), g.opCount(),
                report.cluster.name().c_str(), report.bound.us / 1000.0, report.bound.source, budgetText(o).c_str(),
                o.seeds, o.seeds == 1 ? "" : "s");
    std::printf("mean, +- (standard deviation) and best: of each run's best step (a deterministic placer runs once)\n"
                "speed-up: the mean against single (every op on %s, %.3f ms); cert gap: the best feasible run over "
                "the lower bound\n\n",
                report.singleDevice.c_str(), report.singleUs / 1000.0);
    std::printf("%-12s %12s %10s %12s %9s %8s %9s %9s %8s  %s\n", "algorithm", "mean (ms)", "+- (ms)", "best (ms)",
                "feasible", "samples", "wall (s)", "speed-up", "cert gap", "certified by");
    for (const ComparisonRow& r : report.rows) {
        const double m = r.meanUs();
        const std::optional<double> gap = report.certifiedGap(r);
        char spread[32] = "-"; // a standard deviation needs two runs
        if (r.runs() > 1)
            std::snprintf(spread, sizeof spread, "%.3f", r.stddevUs() / 1000.0);
        std::printf("%-12s %12.3f %10s %12.3f %4d/%-4zu %8.0f %9.2f %8.2fx %8s  %s\n", r.algorithm.c_str(), m / 1000.0,
                    spread, r.bestUsOverRuns / 1000.0, r.feasibleRuns, r.bestUs.size(), r.samples, r.wallSeconds,
                    m > 0 ? report.singleUs / m : 0.0, gap ? formatGap(*gap).c_str() : "-",
                    gap ? report.bound.source : "-");
    }
    for (const auto& [algo, why] : report.skipped)
        std::printf("%-12s skipped: %s (%s)\n", algo.c_str(), why.c_str(), o.cluster.c_str());
    const int limit = sampleLimit(o);
    for (const ComparisonRow& r : report.rows) {
        // post@best's classical starts each simulate their placement, whatever the budget: a
        // row over it says so rather than pass for a run of the samples asked.
        if (limit < kUnlimitedSamples && r.samples > limit + 0.5)
            std::printf("%s: %.0f samples a run, more than the %d asked: the placements it makes before any "
                        "search (its classical starts, or one per device) are each simulated, whatever the budget\n",
                        r.algorithm.c_str(), r.samples, limit);
        if (r.bounds.provenOptimal)
            std::printf("%s: proven optimal\n", r.algorithm.c_str());
        if (r.bounds.hasGroupedBound())
            std::printf("%s: grouped bound %.3f ms on %d chunks%s: a bound of that grouping only, not of this graph\n",
                        r.algorithm.c_str(), r.bounds.groupedBoundUs / 1000.0, r.bounds.groupedBoundGroups,
                        r.bounds.groupedOptimal ? " (optimal there)" : "");
    }
}

int runCompare(const CompareOptions& o)
{
    std::vector<std::string> algos = o.algos.empty() ? defaultComparisonNames() : splitNames(o.algos);
    const LearnerOptions learner = learnerOptionsArg(o.settings); // a bad --set fails before any work
    for (const std::string& a : algos)
        if (!makePlacer(a))
            throw UsageError{"--algos: unknown algorithm '" + a + "' (" + joinedPlacerNames() + ")"};
    ImportedGraph imported = loadImportedGraphArg(o.graph, o.format, o.batch, o.shapes);
    // A PyTorch export's modules each on one device, as place searches them and apply runs them.
    if (const std::optional<ModuleGroups> groups = groupByModules(imported.graph, o.graph))
        if (const std::string note = groups->note(); !note.empty())
            std::cerr << "post-cli: note: " << note << "\n";
    const Graph& g = imported.graph;
    requireSomeCompute(g, graphSourceName(o.graph));
    const Cluster c = loadClusterArg(o.cluster, o.precision, &imported);
    noteDeviceTypes(imported, c);
    const SimOptions simOptions = simOptionsArg(o);
    const LowerBound bound = lowerBound(g, c, simOptions);
    CompareReport report{imported, c, simOptions, {}, {}, 0.0, {}, largestBound(bound, 0.0, false)};
    // Placers that cannot run on this cluster are left out with a note, not run to fail
    // after the others have run (and the whole table is lost).
    std::erase_if(algos, [&](const std::string& a) {
        std::string why = notApplicable(a, c);
        if (!why.empty())
            report.skipped.emplace_back(a, why);
        return !why.empty();
    });

    ComparisonOptions options;
    options.algorithms = algos;
    // Equal samples by default; --time alone gives every run that wall time instead.
    options.samples = sampleLimit(o);
    options.seconds = o.seconds;
    options.seeds = o.seeds;
    options.firstSeed = o.firstSeed;
    options.threads = o.threads;
    options.learner = learner;
    options.lowerBoundUs = bound.valueUs();
    options.sim = simOptions;
    ComparisonRunner runner(g, c, options);
    std::string announced;
    auto announce = [&](const ComparisonProgress& p) {
        if (!o.json && p.algorithm != announced) {
            announced = p.algorithm;
            std::cerr << "running " << announced << "...\n";
        }
    };
    std::vector<ComparisonRow>& rows = report.rows;
    rows = runClusterNamed(o.cluster, c, [&] { return runner.run(announce); });
    // The reference for speed-ups: the single best device (run it if it wasn't asked for).
    const auto singleRow = std::find_if(rows.begin(), rows.end(),
                                        [](const ComparisonRow& r) { return r.algorithm == "single"; });
    const ComparisonRow single = singleRow != rows.end()
        ? *singleRow
        : runClusterNamed(o.cluster, c, [&] { return runner.runAlgorithm("single"); });
    report.singleUs = single.meanUs();
    report.singleDevice = mostUsedDevice(c, single.best);
    // The largest valid bound: the polynomial one, or a proven one of a row (milp).
    for (const ComparisonRow& r : rows) {
        const ReportedBound b = largestBound(bound, r.bounds.solverBoundUs, r.bounds.solverBoundOpLevel, "milp");
        if (b.us > report.bound.us)
            report.bound = b;
    }
    noteHostBoundOfRows(imported, c, rows);
    // The placement the file gives (an expert's), as a reference row.
    if (imported.hasGivenPlacement()) {
        try {
            rows.push_back(givenPlacementRow(g, c, givenPlacement(imported, c), graphSourceName(o.graph), options.sim));
        } catch (const InputError& e) {
            std::cerr << "given placement left out: " << e.what() << "\n";
        }
    }
    if (o.json)
        printCompareJson(o, report);
    else
        printCompareTable(o, report);
    return kExitOk;
}

} // namespace

void addCompareCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<CompareOptions>();
    CLI::App* cmd = app.add_subcommand("compare", "Run several algorithms over several seeds and tabulate them");
    addGraphClusterOptions(*cmd, *opts);
    cmd->add_option("--algos", opts->algos,
                    "Comma-separated algorithms (default: all); LEARNER@PLACER starts a learner from a classical "
                    "placement:"
                        + placerTableHelp());
    CLI::Option* samples = cmd->add_option("--samples", opts->samples,
                                           "Evaluation budget of learners and searches (default 2400; none when only "
                                           "--time is given)")
                               ->check(CLI::Range(1, kUnlimitedSamples));
    cmd->add_option("--time", opts->seconds, "Wall-time budget in seconds of each learner and search run")
        ->type_name("SECONDS")
        ->check(finiteRange(0.001, 1e6));
    cmd->add_option("--seeds", opts->seeds, "Seeds per learner")->capture_default_str()->check(CLI::Range(1, 1000));
    cmd->add_option("--first-seed", opts->firstSeed, "First seed (then +1, +2, ...)")->capture_default_str();
    cmd->add_option("--threads", opts->threads, "Evaluation threads (0: all cores)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--set", opts->settings, learnerOptionsHelp())->type_name("KEY=VALUE");
    cmd->add_flag("--json", opts->json, "Print one JSON object");
    cmd->callback([opts, samples, &exitCode] {
        opts->samplesGiven = samples->count() > 0;
        exitCode = runCompare(*opts);
    });
}

} // namespace post::cli
