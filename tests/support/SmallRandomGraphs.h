#pragma once
// Small random graphs with heavy transfers, where enumerating every placement with the
// simulator gives the true optimum: the property test of the lower bound
// (tests/core/test_bound_optimum.cpp) and its bench (bench/bench_lower_bound.cpp) share them.
// Header-only and without Qt, so that the bench needs no test library.
#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace post::randomgraphs {

// Edges into op `i` from `inputs` distinct earlier ops (drawn by `uniform(0, i - 1)`), each of
// 1000 x uniform(bytesLo, bytesHi) bytes: the random graphs of the bound and placer tests.
template <class Uniform>
inline void addRandomInputs(GraphBuilder& b, int i, int inputs, Uniform& uniform, int bytesLo, int bytesHi)
{
    std::vector<int> from;
    while (static_cast<int>(from.size()) < inputs) {
        const int f = uniform(0, i - 1);
        if (std::find(from.begin(), from.end(), f) == from.end())
            from.push_back(f);
    }
    for (int f : from)
        b.addEdge(static_cast<OpId>(f), static_cast<OpId>(i), 1000.0 * uniform(bytesLo, bytesHi));
}

struct SmallCase {
    Graph graph;
    Cluster cluster;
};

// Op `i` of a random graph: "op<i>", type "Test", its GPU and CPU times and output bytes.
inline Op randomOp(int i, double gpuUs, double cpuUs, double outputBytes)
{
    Op o;
    o.name = "op" + std::to_string(i);
    o.type = "Test";
    o.timeUs = {cpuUs, gpuUs};
    o.outputBytes = outputBytes;
    return o;
}

// 6-10 ops, each taking inputs from one to three earlier ops, on 2-3 identical GPUs whose links
// take about as long as an op (heavy transfers). Memory is unlimited, so every placement is feasible.
inline SmallCase smallRandomCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int ops = uniform(6, 10);
    GraphBuilder b("random" + std::to_string(seed));
    for (int i = 0; i < ops; ++i) {
        const double gpuUs = uniform(5, 100);
        b.addOp(randomOp(i, gpuUs, gpuUs * 10, 1000.0 * uniform(1, 100)));
        if (i > 0) {
            const int inputs = std::min(i, uniform(1, 3));
            addRandomInputs(b, i, inputs, uniform, 1, 100);
        }
    }
    const int gpus = uniform(2, 3);
    std::vector<Device> devices;
    for (int g = 0; g < gpus; ++g)
        devices.push_back(
            Device{"/device:GPU:" + std::to_string(g), DeviceKind::Gpu, 1.0, std::numeric_limits<double>::infinity()});
    // 1000 bytes per us and 5-40 us latency: a 50 kB tensor costs about as much as an op.
    const Link link{1000.0, static_cast<double>(uniform(5, 40))};
    return SmallCase{std::move(b).build(), Cluster("random", std::move(devices), link)};
}

// The least simulated step time over every placement. The GPUs and links are identical, so
// placements that only rename devices take the same time: enumerating restricted growth
// strings (op i goes to a device already used or to the next new one) visits one of each.
inline double enumeratedOptimum(const Graph& graph, const Cluster& cluster)
{
    Simulator simulator(graph, cluster);
    const int n = graph.opCount();
    const int devices = cluster.deviceCount();
    Placement placement(static_cast<size_t>(n), 0);
    double best = std::numeric_limits<double>::infinity();
    auto visit = [&](auto&& self, int op, int used) -> void {
        if (op == n) {
            best = std::min(best, simulator.run(placement).stepTimeUs);
            return;
        }
        for (int d = 0; d < std::min(used + 1, devices); ++d) {
            placement[static_cast<size_t>(op)] = static_cast<DeviceId>(d);
            self(self, op + 1, std::max(used, d + 1));
        }
    };
    visit(visit, 0, 0);
    return best;
}

// 3-11 ops (fewer on more devices) on 1-4 GPUs of speeds 0.5-1.5, with the stresses of
// tests/core/test_bound_optimum.cpp's varied case: a fifth of the ops take no time, a quarter
// take no input, some take inputs from every earlier op, some edges are doubled, bytes may be
// 0, and a third of the directed links differ from the others in bandwidth and latency.
inline SmallCase variedSmallCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int gpus = uniform(1, 4);
    const int ops = gpus >= 4 ? uniform(3, 7) : gpus == 3 ? uniform(3, 8) : uniform(3, 11);
    GraphBuilder b("varied" + std::to_string(seed));
    for (int i = 0; i < ops; ++i) {
        const double gpuUs = uniform(0, 4) == 0 ? 0.0 : uniform(1, 100);
        b.addOp(randomOp(i, gpuUs, gpuUs * 10, 1000.0 * uniform(0, 100)));
        if (i == 0)
            continue;
        const int mode = uniform(0, 3); // 0: a source, 3: up to every earlier op
        const int inputs = mode == 0 ? 0 : std::min(i, uniform(1, mode == 3 ? i : 3));
        std::vector<int> from;
        while (static_cast<int>(from.size()) < inputs) {
            const int f = uniform(0, i - 1);
            if (std::find(from.begin(), from.end(), f) == from.end())
                from.push_back(f);
        }
        for (int f : from) {
            b.addEdge(static_cast<OpId>(f), static_cast<OpId>(i), 1000.0 * uniform(0, 100));
            if (uniform(0, 5) == 0)
                b.addEdge(static_cast<OpId>(f), static_cast<OpId>(i), 1000.0 * uniform(0, 100));
        }
    }
    std::vector<Device> devices;
    for (int g = 0; g < gpus; ++g)
        devices.push_back(Device{"/device:GPU:" + std::to_string(g), DeviceKind::Gpu,
                                 uniform(0, 1) == 1 ? 1.0 : 0.5 + 0.25 * uniform(0, 4),
                                 std::numeric_limits<double>::infinity()});
    Cluster cluster("varied", std::move(devices), Link{1000.0 * uniform(1, 3), static_cast<double>(uniform(0, 40))});
    for (int x = 0; x < gpus; ++x)
        for (int y = 0; y < gpus; ++y)
            if (x != y && uniform(0, 2) == 0)
                cluster.setLink(static_cast<DeviceId>(x), static_cast<DeviceId>(y),
                                Link{500.0 * uniform(1, 6), static_cast<double>(uniform(0, 60))});
    return SmallCase{std::move(b).build(), std::move(cluster)};
}

// The least simulated step time over every placement, devices told apart.
inline double enumeratedOptimumAnyDevices(const Graph& graph, const Cluster& cluster, SimOptions options = {})
{
    Simulator simulator(graph, cluster, options);
    const auto n = static_cast<size_t>(graph.opCount());
    const int devices = cluster.deviceCount();
    Placement placement(n, 0);
    double best = std::numeric_limits<double>::infinity();
    for (;;) {
        best = std::min(best, simulator.run(placement).stepTimeUs);
        size_t i = 0;
        while (i < n && ++placement[i] == devices)
            placement[i++] = 0;
        if (i == n)
            return best;
    }
}

// A CPU and one or two GPUs (drawn by `uniform`), all of speed 1 and unlimited memory, joined by
// links of 1,000 bytes/us and 5-40 us latency: the clusters of pinnedSmallCase and eagerSmallCase.
template <class Uniform> inline Cluster cpuAndGpus(const std::string& name, Uniform& uniform)
{
    std::vector<Device> devices{Device{"/device:CPU:0", DeviceKind::Cpu, 1.0, 1e30}};
    for (int d = 0, gpus = uniform(1, 2); d < gpus; ++d)
        devices.push_back(Device{"/device:GPU:" + std::to_string(d), DeviceKind::Gpu, 1.0, 1e30});
    return Cluster(name, std::move(devices), Link{1000.0, static_cast<double>(uniform(5, 40))});
}

// 4-8 ops on a CPU and 1-2 GPUs, a third of them pinned to the CPU (no GPU kernel), some in
// colocation groups, each taking 1-12x its GPU time on the CPU, transfers about as long as an
// op: where the bound uses what every valid placement keeps together.
inline SmallCase pinnedSmallCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int ops = uniform(4, 8);
    GraphBuilder b("pinned" + std::to_string(seed));
    for (int i = 0; i < ops; ++i) {
        const double gpuUs = uniform(1, 60);
        Op o = randomOp(i, gpuUs, gpuUs * uniform(1, 12), 1000.0 * uniform(1, 60));
        o.cpuOnly = uniform(0, 2) == 0;
        if (i > 0 && uniform(0, 4) == 0)
            o.colocate = uniform(0, 1) == 0 ? "g0" : "g1";
        b.addOp(std::move(o));
        if (i > 0)
            addRandomInputs(b, i, std::min(i, uniform(1, 3)), uniform, 1, 60);
    }
    return SmallCase{std::move(b).build(), cpuAndGpus("pinned", uniform)};
}

// 4-8 ops on a CPU and 1-2 GPUs where some ops are faster on the CPU, as a batch's
// host-to-device copy is (no time there, its bytes over the CPU's link to the GPU that reads
// it): each op's CPU time is 0-6x its GPU time in quarters (0 for a fifth of them), a fifth
// pinned to the CPU, some in colocation groups; the CPU's links slower than the GPUs' (2-5x the
// latency, a third to the same bandwidth): where the ancestry bound's ends on a CPU or a GPU
// (docs/simulator.md) differ from the fastest times and the cheapest link.
inline SmallCase cpuFastSmallCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int ops = uniform(4, 8);
    GraphBuilder b("cpufast" + std::to_string(seed));
    for (int i = 0; i < ops; ++i) {
        const double gpuUs = uniform(1, 60);
        const double cpuUs = uniform(0, 4) == 0 ? 0.0 : gpuUs * uniform(1, 24) / 4.0;
        Op o = randomOp(i, gpuUs, cpuUs, 1000.0 * uniform(1, 60));
        o.cpuOnly = uniform(0, 4) == 0;
        if (i > 0 && uniform(0, 4) == 0)
            o.colocate = uniform(0, 1) == 0 ? "g0" : "g1";
        b.addOp(std::move(o));
        if (i > 0)
            addRandomInputs(b, i, std::min(i, uniform(1, 3)), uniform, 1, 60);
    }
    Cluster cluster = cpuAndGpus("cpufast", uniform);
    const double latency = cluster.link(0, 1).latencyUs;
    const Link host{1000.0 / uniform(1, 3), latency * uniform(2, 5)};
    for (DeviceId g = 1; g < cluster.deviceCount(); ++g) {
        cluster.setLink(0, g, host);
        cluster.setLink(g, 0, host);
    }
    return SmallCase{std::move(b).build(), std::move(cluster)};
}

// Calls visit(placement) for every valid placement (placementProblem(): ops pinned to a CPU
// there, colocation groups whole), devices told apart.
template <class Visit> inline void forEachValidPlacement(const Graph& graph, const Cluster& cluster, Visit visit)
{
    const int n = graph.opCount();
    Placement placement(static_cast<size_t>(n), 0);
    auto next = [&](auto&& self, int op) -> void {
        if (op == n) {
            if (!placementProblem(graph, cluster, placement))
                visit(placement);
            return;
        }
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
            placement[static_cast<size_t>(op)] = d;
            self(self, op + 1);
        }
    };
    next(next, 0);
}

// The least simulated step time over every valid placement; infinity when none is valid.
inline double enumeratedValidOptimum(const Graph& graph, const Cluster& cluster)
{
    Simulator simulator(graph, cluster);
    double best = std::numeric_limits<double>::infinity();
    forEachValidPlacement(graph, cluster, [&](const Placement& placement) {
        best = std::min(best, simulator.run(placement).stepTimeUs);
    });
    return best;
}

// An eager step in small (docs/simulator.md, "ready-order"): 9-16 ops on one CPU and 1-2 GPUs,
// most of them pinned to the CPU (host operators of 0-20 us, some of no time, so that ready
// times tie), the others kernels a GPU runs in 1-40 us (or the CPU 1-8 times slower). Each op
// after the first takes inputs from one to three earlier ops (a fifth of them none, so that
// several ops are sources), operators and kernels alike. Transfers of 0-60 kB over links of
// 5-40 us latency. At most six ops are unpinned, so every valid placement can be
// enumerated (enumeratedPinnedOptimum).
inline SmallCase eagerSmallCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int ops = uniform(9, 16);
    GraphBuilder b("eager" + std::to_string(seed));
    int unpinned = 0;
    for (int i = 0; i < ops; ++i) {
        const bool kernel = unpinned < 6 && i > 0 && uniform(0, 2) == 0;
        Op o;
        if (kernel) {
            const double gpuUs = uniform(1, 40);
            o = randomOp(i, gpuUs, gpuUs * uniform(1, 8), 1000.0 * uniform(0, 60));
            ++unpinned;
        } else {
            const double cpuUs = uniform(0, 3) == 0 ? 0.0 : uniform(1, 20);
            o = randomOp(i, cpuUs, cpuUs, 1000.0 * uniform(0, 60));
            o.cpuOnly = true;
        }
        b.addOp(std::move(o));
        if (i > 0 && uniform(0, 4) != 0)
            addRandomInputs(b, i, std::min(i, uniform(1, 3)), uniform, 0, 60);
    }
    return SmallCase{std::move(b).build(), cpuAndGpus("eager", uniform)};
}

// Calls visit(placement) for every placement with the pinned ops on the cluster's first
// device (its one CPU) and the others anywhere: every valid placement of eagerSmallCase's graphs.
template <class Visit> inline void forEachPinnedPlacement(const Graph& graph, const Cluster& cluster, Visit visit)
{
    Placement placement(static_cast<size_t>(graph.opCount()), 0);
    std::vector<OpId> free;
    for (OpId op = 0; op < graph.opCount(); ++op)
        if (!graph.isCpuPinned(op))
            free.push_back(op);
    auto next = [&](auto&& self, size_t k) -> void {
        if (k == free.size()) {
            visit(placement);
            return;
        }
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
            placement[static_cast<size_t>(free[k])] = d;
            self(self, k + 1);
        }
    };
    next(next, 0);
}

} // namespace post::randomgraphs
