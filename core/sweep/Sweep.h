#pragma once

#include "core/io/GraphFile.h"
#include "core/io/sweep/SweepFiles.h"

#include <string>

namespace post {

// A sweep (docs/sweeps.md) as post-cli runs it: the manifest's algorithms checked against the
// placer registry, and one job run. The files themselves (manifests, jobs, shards, results,
// the merged table) are read and written by core/io/sweep/SweepFiles.h, below the placers.

// Reads and checks a manifest (parseSweepManifest of SweepFiles.h with the placer registry as
// the algorithm lookup); throws InputError naming the file and the field at fault.
SweepManifest readSweepManifest(const std::string& path);
SweepManifest parseSweepManifest(const std::string& text, const std::string& source);

// Runs one job: loads its graph and cluster, places with its algorithm and seed, timing every
// placement under its precision mode and dispatch rule.
// `threads` as PlaceContext::threads. Throws InputError for a bad graph or cluster.
SweepResult runSweepJob(const SweepJob& job, int threads = 0);
// The same on the job's graph read already (readGraphFileWithPlacement of job.graphPath): a
// shard's jobs on one graph read it once.
SweepResult runSweepJob(const SweepJob& job, const ImportedGraph& imported, int threads = 0);

} // namespace post
