// Wall time of the learners: 2,400 Post samples on a 1,000-op training-shaped graph on the
// k80x4 cluster, with 1 and 2 threads, plus the simulator's share and the learner's own
// overhead (Post with a free evaluator). An optional graph file argument is measured too.
// Figures are recorded in docs/performance.md ("## Learners").
//   bench_learners [GRAPH_FILE]
#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/Grouping.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/learn/PostLearner.h"
#include "core/run/PlacerRegistry.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <string>

using namespace post;

namespace {

// 500 forward ops (a chain with residual skips every third op) and their 500 backward
// ops, each consuming the next backward op's gradient and its own forward activation.
Graph trainingShapedGraph(int forwardOps, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> timeUs(50.0, 500.0), megabytes(1.0, 16.0);
    GraphBuilder b("bench-" + std::to_string(2 * forwardOps));
    b.reserve(static_cast<size_t>(2 * forwardOps), static_cast<size_t>(6 * forwardOps));
    auto add = [&](const std::string& name, double us, double outBytes, double params) {
        Op op;
        op.name = name;
        op.type = "Bench";
        op.timeUs = {10.0 * us, us};
        op.outputBytes = outBytes;
        op.paramBytes = params;
        return b.addOp(std::move(op));
    };
    for (int i = 0; i < forwardOps; ++i) {
        const double params = (i % 4 == 0) ? megabytes(rng) * 4e6 : 0.0;
        add("fw/" + std::to_string(i), timeUs(rng), megabytes(rng) * 1e6, params);
        if (i > 0)
            b.addEdge(i - 1, i, -1.0);
        if (i >= 3 && i % 3 == 0)
            b.addEdge(i - 3, i, -1.0);
    }
    for (int i = forwardOps - 1; i >= 0; --i) {
        const OpId bw = add("bw/" + std::to_string(i), 2.0 * timeUs(rng), megabytes(rng) * 1e6, 0.0);
        b.addEdge(i, bw, -1.0);
        if (i < forwardOps - 1)
            b.addEdge(bw - 1, bw, -1.0);
    }
    return std::move(b).build();
}

// Scores nothing: what remains of a run is the learner's own work.
class FreeEvaluator final : public StepEvaluator {
public:
    Evaluation evaluate(const Placement& placement) override
    {
        Evaluation e;
        e.stepTimeUs = e.rawStepTimeUs = 1000.0 + static_cast<double>(placement[0]);
        return e;
    }
};

double seconds(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

PlaceContext contextFor(const Graph& graph, const Cluster& cluster, int samples, int threads)
{
    return PlaceContext{.graph = graph,
                        .cluster = cluster,
                        .sim = {},
                        .samples = samples,
                        .seed = 1,
                        .threads = threads,
                        .observer = nullptr,
                        .stop = nullptr};
}

void measure(const Graph& graph, const Cluster& cluster)
{
    const LearnerOptions options;
    const Grouping grouping = groupOps(graph, options.grouping);
    const int samples = 2400;
    std::printf("graph %s: %d ops, %d edges; %d groups; cluster %s, %d devices\n", graph.name().c_str(), graph.opCount(),
                graph.edgeCount(), grouping.groupCount(), cluster.name().c_str(), cluster.deviceCount());

    // The simulator alone: the floor under any learner's time per sample.
    PlacementEvaluator evaluator(graph, cluster, SimOptions{}, options.penalty);
    std::mt19937_64 rng(1);
    Placement placement(static_cast<size_t>(graph.opCount()));
    const auto start = std::chrono::steady_clock::now();
    double sink = 0.0;
    for (int i = 0; i < samples; ++i) {
        for (DeviceId& d : placement)
            d = static_cast<DeviceId>(rng() % static_cast<unsigned>(cluster.deviceCount()));
        sink += evaluator.evaluate(placement).stepTimeUs;
    }
    const double simSeconds = seconds(start);
    std::printf("  simulator alone: %d random placements in %.3f s (%.1f us each; checksum %.3g)\n", samples,
                simSeconds, 1e6 * simSeconds / samples, sink);

    PostLearner free;
    free.setEvaluatorMaker([](const PlaceContext&) { return std::make_unique<FreeEvaluator>(); });
    const PlaceResult overhead = free.place(contextFor(graph, cluster, samples, 1));
    std::printf("  post, free evaluator: %d samples in %.3f s (%.1f us/sample of sampling and updates)\n",
                overhead.samplesUsed, overhead.wallSeconds, 1e6 * overhead.wallSeconds / overhead.samplesUsed);

    for (const char* name : {"post", "random"}) {
        for (int threads : {1, 2}) {
            const PlaceResult r = makeLearner(name, options)->place(contextFor(graph, cluster, samples, threads));
            std::printf("  %-7s threads %d: %d samples in %.3f s (%.1f us/sample), best %.1f us%s\n", name, threads,
                        r.samplesUsed, r.wallSeconds, 1e6 * r.wallSeconds / r.samplesUsed, r.bestStepTimeUs,
                        r.feasible ? "" : " (infeasible)");
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    const Cluster cluster = loadCluster("k80x4");
    measure(trainingShapedGraph(500, 7), cluster);
    if (argc > 1)
        measure(readGraphFile(argv[1]), cluster);
    return 0;
}
