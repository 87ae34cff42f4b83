// The polynomial lower bound (core/sim/LowerBound.h, docs/simulator.md): how close it comes to
// the true optimum and how long it takes.
//  1. Over the 300 small random graphs of tests/core/test_bound_optimum.cpp (6-10 ops, 2-3
//     GPUs, heavy transfers; the optimum by enumerating every placement with the simulator):
//     the mean and least ratio bound / optimum of each component and of the bound.
//  2. Its time on the real graphs of the shared data folder (skipped with a message when
//     absent; POST_SHARED_DATA overrides its path) and on the zoo's nmt-8 unrolled 200 steps
//     (107,704 ops), on k80x4 and v100x4-nvlink, with its value and source.
// Run a Release build: build/release/bench/bench_lower_bound [--cases N] [--no-real]
#include "core/cluster/Cluster.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/sim/LowerBound.h"
#include "core/zoo/ZooRegistry.h"
#include "tests/support/SmallRandomGraphs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace post;

void ratios(int cases)
{
    struct Column {
        const char* name;
        double (*value)(const LowerBound&);
        double sum = 0.0, least = 1e300;
        int tight = 0;
    };
    std::vector<Column> columns = {
        {"critical-path", [](const LowerBound& b) { return b.criticalPathUs; }},
        {"work", [](const LowerBound& b) { return b.workUs; }},
        {"fork-join", [](const LowerBound& b) { return b.forkJoinUs; }},
        {"ancestry", [](const LowerBound& b) { return b.ancestryUs; }},
        {"device-windows", [](const LowerBound& b) { return b.windowsUs; }},
        {"blocks", [](const LowerBound& b) { return b.blocksUs; }},
        {"ready-order", [](const LowerBound& b) { return b.readyOrderUs; }},
        {"max(path, work, fork-join)",
         [](const LowerBound& b) {
             return std::max({b.criticalPathUs, b.workUs, b.forkJoinUs});
         }},
        {"bound (valueUs)", [](const LowerBound& b) { return b.valueUs(); }},
    };
    int above = 0;
    double seconds = 0.0;
    for (unsigned seed = 1; seed <= static_cast<unsigned>(cases); ++seed) {
        const randomgraphs::SmallCase c = randomgraphs::smallRandomCase(seed);
        const double best = randomgraphs::enumeratedOptimum(c.graph, c.cluster);
        const auto t0 = std::chrono::steady_clock::now();
        const LowerBound lb = lowerBound(c.graph, c.cluster);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        above += lb.valueUs() > best * (1 + 1e-9) ? 1 : 0;
        for (Column& col : columns) {
            const double r = col.value(lb) / best;
            col.sum += r;
            col.least = std::min(col.least, r);
            col.tight += r >= 1 - 1e-9 ? 1 : 0;
        }
    }
    std::printf("bound / optimum over %d random graphs (6-10 ops, 2-3 GPUs), %.3f ms per bound, above the optimum "
                "on %d\n",
                cases, 1e3 * seconds / cases, above);
    std::printf("| component | mean | min | tight |\n|---|---:|---:|---:|\n");
    for (const Column& col : columns)
        std::printf("| %s | %.4f | %.3f | %d |\n", col.name, col.sum / cases, col.least, col.tight);
    std::printf("\n");
}

double seconds(const Graph& g, const Cluster& c, LowerBound& out)
{
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        out = lowerBound(g, c);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

void timeOn(const std::string& name, const Graph& g)
{
    for (const char* preset : {"k80x4", "v100x4-nvlink"}) {
        const Cluster c = loadCluster(preset);
        LowerBound lb;
        const double s = seconds(g, c, lb);
        std::printf("| %s | %d | %s | %.3f | %.3f | %.3f | %s | %+.2f%% | %.3f |\n", name.c_str(), g.opCount(), preset,
                    lb.criticalPathUs / 1e3, lb.forkJoinUs / 1e3, lb.valueUs() / 1e3, lb.source(),
                    100.0 * (lb.valueUs() / std::max({lb.criticalPathUs, lb.workUs, lb.forkJoinUs}) - 1), s);
        std::fflush(stdout);
    }
}

void real()
{
    const char* env = std::getenv("POST_SHARED_DATA");
    const std::filesystem::path data = env ? env : POST_SHARED_DATA_DIR;
    std::printf("| graph | ops | cluster | path (ms) | fork-join (ms) | bound (ms) | source | over max(path, work, "
                "fork-join) | time (s) |\n|---|---:|---|---:|---:|---:|---|---:|---:|\n");
    const char* graphs[] = {
        "pipedream/inception_v3/graph.txt",
        "pipedream/nasnetamobile/graph.txt",
        "pipedream/resnet50/graph.txt",
        "pipedream/resnet101/graph.txt",
        "pipedream/gnmt/graph.txt",
        "msr/LayerGraphs/inceptionv3_training.json",
        "msr/LayerGraphs/bert24_training.json",
        "msr/OperatorGraphs/bert_l-3_training.json",
        "msr/OperatorGraphs/bert_l-6_inference.json",
        "msr/OperatorGraphs/resnet50_inference.json",
    };
    if (!std::filesystem::is_directory(data)) {
        std::printf("(no shared data at %s: real graphs skipped)\n", data.string().c_str());
    } else {
        for (const char* rel : graphs) {
            const std::filesystem::path path = data / rel;
            if (std::filesystem::exists(path))
                timeOn(rel, readGraphFile(path.string()));
            else
                std::printf("(%s absent: skipped)\n", path.string().c_str());
        }
    }
    timeOn("zoo nmt-8 --steps 200", ZooRegistry::generate("nmt-8", 0, {}, nullptr, 200));
}

} // namespace

int main(int argc, char** argv)
{
    int cases = 300;
    bool withReal = true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            cases = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--no-real") == 0)
            withReal = false;
    }
    if (cases > 0)
        ratios(cases);
    if (withReal)
        real();
    return 0;
}
