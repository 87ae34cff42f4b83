#include "app/cli/SweepCommand.h"

#include "app/cli/CliSupport.h"
#include "core/sweep/Sweep.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

namespace post::cli {
namespace {

namespace fs = std::filesystem;

struct SweepOptions {
    std::string manifest;
    std::string shard = "0/1";
    std::string out;
    int threads = 0;
    bool dryRun = false;
    std::string mergeDir;
    bool json = false;
};

// "I/N" with 0 <= I < N.
std::pair<int, int> shardArg(const std::string& text)
{
    const size_t slash = text.find('/');
    int i = -1, n = 0;
    size_t usedI = 0, usedN = 0;
    try {
        if (slash != std::string::npos) {
            i = std::stoi(text.substr(0, slash), &usedI);
            n = std::stoi(text.substr(slash + 1), &usedN);
        }
    } catch (const std::exception&) {
        n = 0;
    }
    if (slash == std::string::npos || usedI != slash || usedN != text.size() - slash - 1 || n < 1 || i < 0 || i >= n)
        throw UsageError{"--shard: '" + text + "' is not I/N with 0 <= I < N (e.g. 0/4 ... 3/4)"};
    return {i, n};
}

// "a100x8-nvlink" or, under a manifest's precision mode, "a100x8-nvlink:amp".
std::string clusterLabel(const std::string& cluster, const std::string& precision)
{
    return precision.empty() ? cluster : cluster + ":" + precision;
}

// "dispatch critical-path" after `gap` under a manifest's dispatch rule, or nothing when the
// manifest gives none.
std::string dispatchLabel(const std::optional<Dispatch>& dispatch, const char* gap)
{
    return dispatch ? gap + std::string("dispatch ") + std::string(dispatchName(*dispatch)) : std::string();
}

// Before the first job: a folder where no result can be written (read-only, full) fails now,
// not after every job has run and its result was discarded.
void probeResultsFolder(const std::string& dir)
{
    const std::string probe = (fs::path(dir) / ".post-sweep-probe").string();
    try {
        writeFileAtomically(probe, std::string(4096, ' '));
    } catch (const InputError& e) {
        throw InputError(dir, "--out", "cannot write results there: " + e.message());
    }
    std::error_code ec;
    fs::remove(probe, ec);
}

int runSweep(const SweepOptions& o)
{
    if (o.manifest.empty())
        throw UsageError{"sweep: give a MANIFEST (or `sweep merge DIR`)"};
    if (o.out.empty() && !o.dryRun)
        throw UsageError{"sweep: --out DIR is required"};
    const auto [shard, shards] = shardArg(o.shard);
    const SweepManifest manifest = readSweepManifest(o.manifest);
    const std::vector<SweepJob> all = sweepJobs(manifest);
    const std::vector<SweepJob> mine = shardOf(all, shard, shards);
    if (o.dryRun) {
        for (const SweepJob& j : mine)
            std::printf("%s  %s  %s  %s%s  seed %llu\n", j.fileName().c_str(), j.graph.c_str(),
                        clusterLabel(j.cluster, j.precision).c_str(), j.algorithm.c_str(),
                        dispatchLabel(j.dispatch, "  ").c_str(), static_cast<unsigned long long>(j.seed));
        return kExitOk;
    }
    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec || !fs::is_directory(o.out))
        throw InputError(o.out, "--out", "cannot create the results folder" + (ec ? ": " + ec.message() : ""));
    probeResultsFolder(o.out);
    int done = 0, skipped = 0, failed = 0;
    std::map<std::pair<std::string, std::string>, std::string> inputsOf; // by (graph, cluster) path
    // The last graph read: the jobs of a shard on one graph (its algorithms, seeds, clusters)
    // follow each other and read it once.
    std::string readPath;
    std::optional<ImportedGraph> read;
    for (const SweepJob& job : mine) {
        const std::string path = (fs::path(o.out) / job.fileName()).string();
        std::string inputs;
        try {
            auto [known, added] = inputsOf.try_emplace({job.graphPath, job.clusterPath});
            if (added)
                known->second = sweepInputsFingerprint(job);
            inputs = known->second;
            // A file that is this job's whole result on these inputs is done; a truncated one
            // (a kill, a full disk) or one made from another version of the graph or cluster
            // file is run again; another job's result is an error, never replaced.
            if (fs::exists(path)) {
                std::string problem;
                if (readResultOfJob(path, job, inputs, &problem)) {
                    ++skipped;
                    continue;
                }
                std::cerr << "post-cli: note: " << problem << "; running the job again\n";
            }
            // Where the result cannot be written (a folder or a FIFO of its name, a read-only
            // file), the job is not run: its work would be thrown away.
            checkWriteTarget(path);
        } catch (const InputError& e) {
            ++failed;
            std::cerr << "post-cli: error: " << e.what() << "\n";
            continue;
        }
        SweepResult r;
        try {
            if (!read || readPath != job.graphPath) {
                read.reset();
                read = readGraphFileWithPlacement(job.graphPath);
                readPath = job.graphPath;
            }
            r = runSweepJob(job, *read, o.threads);
            r.inputs = inputs;
        } catch (const std::exception& e) {
            // The job's file is not written, so a rerun tries it again; the others go on
            // (an input error, a placer that cannot run on the cluster, ...).
            ++failed;
            std::cerr << "post-cli: error: " << job.fileName() << ": " << e.what() << "\n";
            continue;
        }
        // A result that cannot be written (a full or read-only disk) stops the shard: every
        // later job's result would be lost the same way.
        writeFileAtomically(path, sweepResultJson(r));
        ++done;
        std::cerr << job.fileName() << ": " << job.graph << " " << clusterLabel(job.cluster, job.precision) << " "
                  << job.algorithm << dispatchLabel(job.dispatch, " ") << " seed " << job.seed << ": "
                  << formatMs(r.bestStepTimeMs * 1000.0) << (r.feasible ? "" : "  (INFEASIBLE: out of memory)") << "\n";
    }
    std::cerr << "shard " << shard << "/" << shards << ": " << mine.size() << " of " << all.size() << " jobs; " << done
              << " run, " << skipped << " already done, " << failed << " failed\n";
    return failed > 0 ? kExitBadInput : kExitOk;
}

// The merged table as text; a dispatch column after the algorithm when the manifest gives a rule.
void printTable(const SweepTable& t)
{
    const bool rules = std::any_of(t.rows.begin(), t.rows.end(), [](const SweepTableRow& r) { return r.dispatch; });
    // " critical-path", " ready        ": a column only where the manifest gives a rule.
    const auto ruleColumn = [&](std::string_view text) {
        return rules ? " " + std::string(text) + std::string(text.size() < 13 ? 13 - text.size() : 0, ' ')
                     : std::string();
    };
    std::printf("%-28s %-16s %-14s%s %5s %12s %10s %12s %9s\n", "graph", "cluster", "algorithm",
                ruleColumn("dispatch").c_str(), "runs", "mean (ms)", "+- (ms)", "best (ms)", "feasible");
    for (const SweepTableRow& r : t.rows)
        std::printf("%-28s %-16s %-14s%s %5zu %12.3f %10.3f %12.3f %4d/%-4zu%s\n", r.graph.c_str(),
                    clusterLabel(r.cluster, r.precision).c_str(), r.algorithm.c_str(),
                    ruleColumn(dispatchName(r.dispatch.value_or(Dispatch::ReadyOrder))).c_str(), r.stepTimesMs.size(),
                    r.meanMs(), r.stddevMs(), r.minMs(), r.feasibleRuns, r.stepTimesMs.size(),
                    r.feasibleRuns == 0                                           ? "  none fits in memory"
                        : r.feasibleRuns < static_cast<int>(r.stepTimesMs.size()) ? "  some out of memory"
                                                                                  : "");
}

int runMerge(const SweepOptions& o)
{
    const SweepTable t = mergeSweepResults(o.mergeDir);
    if (o.json) {
        nlohmann::json j;
        j["format"] = "post-sweep-table/1";
        j["jobs"] = t.jobCount;
        j["missing"] = t.missing;
        auto& rows = j["rows"] = nlohmann::json::array();
        for (const SweepTableRow& r : t.rows) {
            nlohmann::json row{{"graph", r.graph},      {"cluster", r.cluster},
                               {"algo", r.algorithm},   {"runs", r.stepTimesMs.size()},
                               {"seeds", r.seeds},      {"best_step_time_ms", r.stepTimesMs},
                               {"mean_ms", r.meanMs()}, {"std_ms", r.stddevMs()},
                               {"min_ms", r.minMs()},   {"feasible_runs", r.feasibleRuns}};
            if (!r.precision.empty())
                row["precision"] = r.precision;
            if (r.dispatch)
                row["dispatch"] = dispatchName(*r.dispatch);
            rows.push_back(std::move(row));
        }
        std::cout << j.dump(2) << "\n";
    } else {
        printTable(t);
    }
    const int have = t.jobCount - static_cast<int>(t.missing.size());
    std::cerr << o.mergeDir << ": " << have << " of " << t.jobCount << " jobs done";
    if (!t.missing.empty()) {
        std::cerr << "; missing:";
        for (size_t k = 0; k < t.missing.size() && k < 20; ++k)
            std::cerr << " " << t.missing[k];
        if (t.missing.size() > 20)
            std::cerr << " ...";
    }
    std::cerr << "; " << t.wallSeconds << " s of placer time\n";
    return kExitOk;
}

} // namespace

void addSweepCommand(CLI::App& app, int& exitCode)
{
    auto opts = std::make_shared<SweepOptions>();
    CLI::App* cmd = app.add_subcommand(
        "sweep", "Run one shard of a post-sweep/1 manifest's jobs, one result file each (docs/sweeps.md)");
    cmd->add_option("manifest", opts->manifest, "post-sweep/1 manifest");
    cmd->add_option("--shard", opts->shard, "I/N: run the jobs whose index is I modulo N (0 <= I < N)")
        ->capture_default_str();
    cmd->add_option("--out", opts->out, "Results folder (created; jobs whose file exists are skipped)");
    cmd->add_option("--threads", opts->threads, "Evaluation threads per job (0: all cores)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1024));
    cmd->add_flag("--dry-run", opts->dryRun, "List this shard's jobs and run nothing");
    CLI::App* merge = cmd->add_subcommand("merge", "Build the results table of a sweep's folder");
    merge->add_option("dir", opts->mergeDir, "Results folder")->required();
    merge->add_flag("--json", opts->json, "Print one JSON object");
    merge->callback([opts, &exitCode] { exitCode = runMerge(*opts); });
    cmd->callback([opts, merge, &exitCode] {
        if (!merge->parsed())
            exitCode = runSweep(*opts);
    });
}

} // namespace post::cli
