// Wall time of the learners: 2,400 Post samples on a 1,000-op training-shaped graph on a
// 4-GPU cluster, with 1 and 2 threads, plus the simulator's share of that time.
// Figures are recorded in docs/performance.md ("## Learners").
#include "cluster/Cluster.h"
#include "graph/GraphBuilder.h"
#include "learn/Grouping.h"
#include "learn/LearnerFactory.h"
#include "learn/PlacementEvaluator.h"

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

Cluster fourGpus()
{
    std::vector<Device> devices;
    for (int d = 0; d < 4; ++d)
        devices.push_back(Device{"/device:GPU:" + std::to_string(d), DeviceKind::Gpu, 1.0, 12e9});
    return Cluster("bench-4gpu", devices, Link{12e3, 20.0});
}

double seconds(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main()
{
    const Graph graph = trainingShapedGraph(500, 7);
    const Cluster cluster = fourGpus();
    const LearnerOptions options;
    const Grouping grouping = groupOps(graph, options.grouping);
    const int samples = 2400;
    std::printf("graph %s: %d ops, %d edges; %d groups; cluster %d devices\n", graph.name().c_str(), graph.opCount(),
                graph.edgeCount(), grouping.groupCount(), cluster.deviceCount());

    // The simulator alone: the floor under any learner's time per sample.
    PlacementEvaluator evaluator(graph, cluster, SimOptions{}, options.penalty);
    std::mt19937_64 rng(1);
    Placement placement(static_cast<size_t>(graph.opCount()));
    auto start = std::chrono::steady_clock::now();
    double sink = 0.0;
    for (int i = 0; i < samples; ++i) {
        for (DeviceId& d : placement)
            d = static_cast<DeviceId>(rng() % 4);
        sink += evaluator.evaluate(placement).stepTimeUs;
    }
    const double simSeconds = seconds(start);
    std::printf("simulator alone: %d random placements in %.3f s (%.1f us each; checksum %.3g)\n", samples,
                simSeconds, 1e6 * simSeconds / samples, sink);

    for (const char* name : {"post", "random"}) {
        for (int threads : {1, 2}) {
            auto learner = makeLearner(name, options);
            const PlaceContext context{.graph = graph,
                                       .cluster = cluster,
                                       .sim = {},
                                       .samples = samples,
                                       .seed = 1,
                                       .threads = threads,
                                       .observer = nullptr,
                                       .stop = nullptr};
            const PlaceResult r = learner->place(context);
            std::printf("%-7s threads %d: %d samples in %.3f s (%.1f us/sample), best %.1f us%s\n", name, threads,
                        r.samplesUsed, r.wallSeconds, 1e6 * r.wallSeconds / r.samplesUsed, r.bestStepTimeUs,
                        r.feasible ? "" : " (infeasible)");
        }
    }
    return 0;
}
