#pragma once

#include "core/graph/Dispatch.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// The files of a sweep, read and written without running anything: post-sweep/1 manifests,
// their jobs and shards, post-sweep-result/1 job results and the merged table. Running a job
// needs the placers (core/sweep/Sweep.h); these need only the io layers, so the fuzz build
// reaches them (docs/architecture.md).
//
// A sweep (docs/sweeps.md): the (graph, cluster, algorithm, seed) jobs of a post-sweep/1
// manifest, run shard by shard on any number of machines (a Slurm job array, GNU parallel),
// one result file per job, merged into one table afterwards. No scheduler of our own: a
// shard is a fixed slice of the job list, a finished job is a file, a rerun skips it.
struct SweepManifest {
    std::string source;                // the manifest's path, for errors
    std::vector<std::string> graphs;   // as written; relative paths are from the manifest's folder
    std::vector<std::string> clusters; // preset names or post-cluster/1 paths
    // "fp32", "tf32" or "amp" (docs/cost-model.md, "Precision"): each cluster is run under
    // each mode, as `post-cli place --precision`; empty: the cluster's own precision.
    std::vector<std::string> precisions;
    // The simulator's dispatch rules (docs/simulator.md, "Dispatch"): each job is run under each,
    // as `post-cli place --dispatch`; empty: ready order, the manifest giving none.
    std::vector<Dispatch> dispatches;
    std::vector<std::string> algorithms; // makePlacer names
    std::vector<char> algorithmUsesSeed; // per algorithm, from the lookup: 1 runs once per seed
    std::vector<std::uint64_t> seeds{1}; // learners run once per seed, other placers once
    int samples = 2400;                  // learners' budget per job
};

struct SweepJob {
    int index = 0; // position in the manifest's job list
    int jobCount = 0;
    std::string graph, graphPath;     // as written, and resolved against the manifest's folder
    std::string cluster, clusterPath; // as written, and the preset name or resolved path
    std::string precision;            // the manifest's mode for this job; empty: the cluster's own
    std::optional<Dispatch> dispatch; // the manifest's rule for this job; none: it gives none (ready order)
    std::string algorithm;
    std::uint64_t seed = 1;
    int samples = 2400;
    // "job-000017.json": the job's result file in the output folder.
    std::string fileName() const;
};

struct SweepResult {
    int index = 0, jobCount = 0;
    std::string graph, cluster, algorithm;
    std::string precision;            // the job's mode when the manifest gives one (empty: the cluster's own)
    std::optional<Dispatch> dispatch; // the job's rule when the manifest gives one (none: ready order)
    std::uint64_t seed = 1;
    int samples = 0;
    int ops = 0;
    double bestStepTimeMs = 0.0;
    bool feasible = false;
    int samplesUsed = 0;
    double wallSeconds = 0.0;
    // sweepInputsFingerprint of the graph and cluster files it ran on ("fnv1a64:..."); empty
    // in results written before it was recorded. A rerun redoes a job whose inputs changed,
    // and the merge refuses to average runs on two versions of them.
    std::string inputs;
};

// One (graph, cluster, precision, dispatch, algorithm) of the merged table, over its seeds.
struct SweepTableRow {
    std::string graph, cluster, algorithm;
    std::string precision;            // empty: the cluster's own
    std::optional<Dispatch> dispatch; // none: the manifest gave none (ready order)
    std::vector<std::uint64_t> seeds;
    std::vector<double> stepTimesMs; // per seed, in seed order
    int feasibleRuns = 0;
    double meanMs() const;
    double stddevMs() const; // sample standard deviation; 0 for one run
    double minMs() const;
};

struct SweepTable {
    int jobCount = 0;         // jobs of the manifest
    std::vector<int> missing; // indices with no result file yet
    std::vector<SweepTableRow> rows;
    double wallSeconds = 0.0; // placer time of all results (not part of the table proper)
};

// At most this many jobs in a manifest (and in a result's "jobs"): counted before any job is
// made, so a short manifest that multiplies out to millions is refused, --dry-run too, and a
// result file claiming 2^31 jobs allocates nothing (docs/sweeps.md).
inline constexpr int kMaxSweepJobs = 100000;

// What a manifest needs to know of an algorithm name (core/sweep passes the placer registry):
// nullopt when there is no such algorithm, otherwise whether it runs once per seed.
using SweepAlgorithmLookup = std::function<std::optional<bool>(std::string_view)>;

// Checks a manifest's text; throws InputError naming the file and the field at fault: an
// algorithm `lookup` does not know, a value listed twice (a graph, cluster, precision mode,
// dispatch rule, algorithm or seed: a job would run twice and count as two runs) and more than
// kMaxSweepJobs jobs among them.
SweepManifest parseSweepManifest(const std::string& text, const std::string& source, const SweepAlgorithmLookup& lookup);

// Every job, graph-major: graphs x clusters x precisions x dispatches x algorithms x seeds (one
// seed for an algorithm that does not use it; no precision or dispatch dimension when the
// manifest gives none).
std::vector<SweepJob> sweepJobs(const SweepManifest& manifest);
// Shard `shard` of `shards` (0-based): the jobs whose index is shard modulo shards.
std::vector<SweepJob> shardOf(const std::vector<SweepJob>& jobs, int shard, int shards);

std::string sweepResultJson(const SweepResult& result);
// Throws InputError naming the file and the field.
SweepResult parseSweepResult(const std::string& text, const std::string& source);

// "fnv1a64:..." over the bytes of the job's graph file and of its cluster file (a preset: its
// name): what a result records of its inputs. Throws InputError naming a file it cannot read.
std::string sweepInputsFingerprint(const SweepJob& job);

// The result file at `path` when it is the complete result of `job` run on inputs whose
// sweepInputsFingerprint is `inputs`; nullopt (and why, naming the file, in `problem`) when it
// cannot be read or parsed (truncated by a kill or a full disk) or was made from other versions
// of the graph or cluster file (a result that records none is taken as it is): the job runs
// again. Throws InputError naming the file when it is a valid result of another job (another
// manifest's folder), which a rerun must not replace.
std::optional<SweepResult> readResultOfJob(const std::string& path, const SweepJob& job, const std::string& inputs,
                                           std::string* problem);

// Reads every job-*.json in `dir` and builds the table; throws InputError for a bad file or
// results of different manifests (different job counts, two results for one index, two
// results of one graph, cluster, precision, dispatch, algorithm and seed).
SweepTable mergeSweepResults(const std::string& dir);
SweepTable sweepTable(std::vector<SweepResult> results);

} // namespace post
