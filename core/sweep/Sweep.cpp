#include "core/sweep/Sweep.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Precision.h"
#include "core/io/GraphFile.h"
#include "core/io/json/JsonInput.h"
#include "core/io/native/ClusterPresets.h"
#include "core/place/Placer.h"
#include "core/run/PlacerRegistry.h"
#include "core/util/InputError.h"

#include <memory>

namespace post {

SweepManifest readSweepManifest(const std::string& path)
{
    return parseSweepManifest(JsonInput::readFile(path, std::size_t(16) << 20), path);
}

SweepManifest parseSweepManifest(const std::string& text, const std::string& source)
{
    return parseSweepManifest(text, source, [](std::string_view name) -> std::optional<bool> {
        if (!makePlacer(name))
            return std::nullopt;
        return placerUsesSeed(name);
    });
}

SweepResult runSweepJob(const SweepJob& job, int threads)
{
    return runSweepJob(job, readGraphFileWithPlacement(job.graphPath), threads);
}

SweepResult runSweepJob(const SweepJob& job, const ImportedGraph& imported, int threads)
{
    const Graph& graph = imported.graph;
    Cluster cluster = loadCluster(job.clusterPath);
    if (!job.precision.empty()) {
        const auto mode = parsePrecisionMode(job.precision);
        if (!mode)
            throw InputError(job.precision, "precision",
                             "unknown precision mode (expected " + std::string(kPrecisionModeNames) + ")");
        cluster.setPrecision(*mode); // as post-cli place --precision
    } else if (cluster.precision() == PrecisionMode::Tf32) {
        cluster.setPrecision(imported.frameworkPrecision()); // the cluster's default: the graph's framework's
    }
    std::unique_ptr<Placer> placer = makePlacer(job.algorithm);
    if (!placer)
        throw InputError(job.algorithm, "algorithm", "unknown algorithm");
    SimOptions sim;
    sim.dispatch = job.dispatch.value_or(Dispatch::ReadyOrder); // as post-cli place --dispatch
    PlaceContext ctx{graph, cluster, sim};
    ctx.samples = job.samples;
    ctx.seed = job.seed;
    ctx.threads = threads;
    const PlaceResult r = placer->place(ctx);
    SweepResult out;
    out.index = job.index;
    out.jobCount = job.jobCount;
    out.graph = job.graph;
    out.cluster = job.cluster;
    out.algorithm = job.algorithm;
    out.precision = job.precision;
    out.dispatch = job.dispatch;
    out.seed = job.seed;
    out.samples = job.samples;
    out.ops = graph.opCount();
    out.bestStepTimeMs = r.bestStepTimeUs / 1000.0;
    out.feasible = r.feasible;
    out.samplesUsed = r.samplesUsed;
    out.wallSeconds = r.wallSeconds;
    return out;
}

} // namespace post
