#include "CompareCommand.h"

#include "CliSupport.h"
#include "place/PlacerRegistry.h"
#include "sim/LowerBound.h"
#include "sim/Simulator.h"
#include "util/InputError.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace post::cli {
namespace {

struct CompareOptions {
    std::string graph;
    std::string format = "auto";
    std::int64_t batch = 1;
    std::string cluster;
    std::string algos;
    int samples = 2400;
    int seeds = 5;
    std::uint64_t firstSeed = 1;
    int threads = 0;
    std::vector<std::string> settings;
    bool json = false;
};

struct AlgoSummary {
    std::string algo;
    std::vector<double> bestUs; // one per seed (a deterministic placer runs once)
    int feasibleRuns = 0;
    double samples = 0.0;
    double wallSeconds = 0.0;

    double mean() const
    {
        double s = 0.0;
        for (double v : bestUs)
            s += v;
        return s / static_cast<double>(bestUs.size());
    }
    double stddev() const
    {
        if (bestUs.size() < 2)
            return 0.0;
        const double m = mean();
        double s = 0.0;
        for (double v : bestUs)
            s += (v - m) * (v - m);
        return std::sqrt(s / static_cast<double>(bestUs.size() - 1));
    }
};

std::vector<std::string> splitNames(const std::string& list)
{
    std::vector<std::string> names;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            names.push_back(item);
    return names;
}

AlgoSummary runAlgorithm(const std::string& algo, const Graph& g, const Cluster& c, const CompareOptions& o,
                         const LearnerOptions& learner)
{
    AlgoSummary s{algo, {}, 0, 0.0, 0.0};
    const int runs = placerUsesSeed(algo) ? o.seeds : 1;
    for (int i = 0; i < runs; ++i) {
        std::unique_ptr<Placer> placer = makePlacer(algo, learner);
        PlaceContext ctx{g, c, SimOptions{}};
        ctx.samples = o.samples;
        ctx.seed = o.firstSeed + static_cast<std::uint64_t>(i);
        ctx.threads = o.threads;
        const PlaceResult r = placer->place(ctx);
        s.bestUs.push_back(r.bestStepTimeUs);
        s.feasibleRuns += r.feasible ? 1 : 0;
        s.samples += r.samplesUsed;
        s.wallSeconds += r.wallSeconds;
    }
    s.samples /= runs;
    s.wallSeconds /= runs;
    return s;
}

int runCompare(const CompareOptions& o)
{
    std::vector<std::string> algos = o.algos.empty() ? placerNames() : splitNames(o.algos);
    const LearnerOptions learner = learnerOptionsArg(o.settings); // a bad --set fails before any work
    for (const std::string& a : algos)
        if (!makePlacer(a))
            throw UsageError{"--algos: unknown algorithm '" + a + "' (" + joinedPlacerNames() + ")"};
    const ImportedGraph imported = loadImportedGraphArg(o.graph, o.format, o.batch);
    const Graph& g = imported.graph;
    const Cluster c = loadClusterArg(o.cluster);
    const double lb = lowerBound(g, c).valueUs();

    std::vector<AlgoSummary> rows;
    for (const std::string& a : algos) {
        if (!o.json)
            std::cerr << "running " << a << "...\n";
        rows.push_back(runAlgorithm(a, g, c, o, learner));
    }
    // The reference for speed-ups: the single best device (run it if it wasn't asked for).
    double singleUs = 0.0;
    for (const AlgoSummary& r : rows)
        if (r.algo == "single")
            singleUs = r.mean();
    if (singleUs == 0.0)
        singleUs = runAlgorithm("single", g, c, o, learner).mean();
    // The placement the file gives (an expert's), as a reference row.
    if (imported.hasGivenPlacement()) {
        try {
            const Placement given = givenPlacement(imported, c);
            if (auto problem = placementProblem(g, c, given))
                throw InputError(o.graph, "given placement", *problem);
            Simulator sim(g, c, SimOptions{});
            const SimResult& r = sim.run(given, false);
            rows.push_back(AlgoSummary{"given", {r.stepTimeUs}, r.feasible ? 1 : 0, 0.0, 0.0});
        } catch (const InputError& e) {
            std::cerr << "given placement left out: " << e.what() << "\n";
        }
    }

    if (o.json) {
        nlohmann::json j;
        j["graph"] = g.name();
        j["cluster"] = c.name();
        j["samples"] = o.samples;
        j["seeds"] = o.seeds;
        j["lower_bound_ms"] = lb / 1000.0;
        j["single_device_ms"] = singleUs / 1000.0;
        auto& results = j["results"] = nlohmann::json::array();
        for (const AlgoSummary& r : rows) {
            const double m = r.mean();
            results.push_back({{"algo", r.algo},
                               {"best_step_time_ms", m / 1000.0},
                               {"best_step_time_ms_std", r.stddev() / 1000.0},
                               {"runs", r.bestUs.size()},
                               {"feasible", r.feasibleRuns == static_cast<int>(r.bestUs.size())},
                               {"feasible_runs", r.feasibleRuns},
                               {"samples", r.samples},
                               {"wall_s", r.wallSeconds},
                               {"speedup_vs_single", m > 0 ? singleUs / m : 0.0},
                               {"gap_to_lower_bound", lb > 0 ? m / lb - 1.0 : 0.0}});
        }
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    std::printf("graph %s (%d ops) on %s; lower bound %.3f ms; %d samples, %d seeds\n\n", g.name().c_str(),
                g.opCount(), c.name().c_str(), lb / 1000.0, o.samples, o.seeds);
    std::printf("%-12s %12s %10s %9s %8s %9s %9s %8s\n", "algorithm", "best (ms)", "+- (ms)", "feasible", "samples",
                "wall (s)", "speed-up", "gap LB");
    for (const AlgoSummary& r : rows) {
        const double m = r.mean();
        std::printf("%-12s %12.3f %10.3f %4d/%-4zu %8.0f %9.2f %8.2fx %7.1f%%\n", r.algo.c_str(), m / 1000.0,
                    r.stddev() / 1000.0, r.feasibleRuns, r.bestUs.size(), r.samples, r.wallSeconds,
                    m > 0 ? singleUs / m : 0.0, lb > 0 ? 100.0 * (m / lb - 1.0) : 0.0);
    }
    return kExitOk;
}

} // namespace

void addCompareCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<CompareOptions>();
    CLI::App* cmd = app.add_subcommand("compare", "Run several algorithms over several seeds and tabulate them");
    cmd->add_option("graph", opts->graph, "Graph file")->required();
    addGraphInputOptions(*cmd, opts->format, opts->batch);
    cmd->add_option("--cluster", opts->cluster, "Cluster preset name or post-cluster/1 file")->required();
    cmd->add_option("--algos", opts->algos, "Comma-separated algorithms (default: all): " + joinedPlacerNames() + "; LEARNER@PLACER starts a learner from a classical placement");
    cmd->add_option("--samples", opts->samples, "Sample budget for learners")->capture_default_str()->check(CLI::Range(1, 100000000));
    cmd->add_option("--seeds", opts->seeds, "Seeds per learner")->capture_default_str()->check(CLI::Range(1, 1000));
    cmd->add_option("--first-seed", opts->firstSeed, "First seed (then +1, +2, ...)")->capture_default_str();
    cmd->add_option("--threads", opts->threads, "Evaluation threads (0: all cores)")->capture_default_str()->check(CLI::Range(0, 1024));
    cmd->add_option("--set", opts->settings, learnerOptionsHelp())->type_name("KEY=VALUE");
    cmd->add_flag("--json", opts->json, "Print one JSON object");
    cmd->callback([opts, &exitCode] { exitCode = runCompare(*opts); });
}

} // namespace post::cli
