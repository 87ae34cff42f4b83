// Simulator throughput on synthetic layered DAGs of 1k, 10k and 100k ops on 8 GPUs with a
// random placement, against a "floor": one bare topological pass over the same graph's CSR
// arrays computing earliest finish times (no devices, links or memory). Also real graphs:
// PipeDream's resnet50 and inception_v3 (from the shared data folder, skipped with a message
// when absent; POST_SHARED_DATA overrides its path) on the k80x4 preset with a random
// placement that keeps colocation groups together. Any other graph file can be added with
// --graph=PATH (repeatable; e.g. the dense Chakra step of docs/performance.md, or a zoo model
// written by `post-cli zoo generate`), timed the same way. Run a Release build:
//   build/bench/bench_simulator --benchmark_min_time=2 [--graph=PATH]...
#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/sim/ImpliedEdges.h"
#include "core/sim/Simulator.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace post;

constexpr int kDevices = 8;

// A /proc/self/status field in MB (VmHWM: peak resident set; VmRSS: current).
double procStatusMb(const char* field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string key = std::string(field) + ":";
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::stod(line.substr(key.size())) / 1024.0; // kB
    return 0.0;
}

// Deterministic across standard libraries: only the engine, no std distributions.
class Rng {
public:
    explicit Rng(std::uint64_t seed)
        : engine_(seed)
    {
    }
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    int between(int lo, int hi) { return lo + static_cast<int>(engine_() % static_cast<std::uint64_t>(hi - lo + 1)); }
    // Log-uniform in [lo, hi]: op costs and tensor sizes span orders of magnitude.
    double logUniform(double lo, double hi) { return lo * std::pow(hi / lo, uniform()); }

private:
    std::mt19937_64 engine_;
};

struct Workload {
    Graph graph;
    Cluster cluster;
    Placement placement;
    std::vector<double> opTime; // flat copy of time[kind] for the floor
    double graphMb = 0.0;       // resident memory the built graph took
};

// Layers of 4-64 ops; each op reads 1-3 ops of the previous 3 layers. GPU times 2-2000 us,
// CPU 3-30x slower; outputs 4 KB - 32 MB; a third of the ops own 64 KB - 64 MB of parameters.
Graph layeredGraph(int ops, std::uint64_t seed)
{
    Rng rng(seed);
    GraphBuilder b("layered" + std::to_string(ops));
    b.reserve(static_cast<size_t>(ops), static_cast<size_t>(ops) * 2);
    std::vector<int> layerStart{0};
    int layerEnd = 0; // ops before this index are in finished layers
    for (int i = 0; i < ops; ++i) {
        if (i == layerEnd) {
            layerStart.push_back(i);
            layerEnd = i + rng.between(4, 64);
        }
        Op op;
        op.name = "layer" + std::to_string(layerStart.size() - 1) + "/op" + std::to_string(i);
        op.type = "MatMul";
        const double gpu = std::round(rng.logUniform(2.0, 2000.0) * 10.0) / 10.0;
        op.timeUs = {std::round(gpu * rng.logUniform(3.0, 30.0)), gpu};
        op.outputBytes = std::round(rng.logUniform(4096.0, 32.0 * 1024 * 1024));
        op.paramBytes = rng.uniform() < 1.0 / 3.0 ? std::round(rng.logUniform(65536.0, 64.0 * 1024 * 1024)) : 0.0;
        b.addOp(std::move(op));
        const int current = static_cast<int>(layerStart.size()) - 1;
        if (current == 1)
            continue; // the first layer reads the data
        const int lo = layerStart[static_cast<size_t>(std::max(1, current - 3))];
        const int hi = layerStart[static_cast<size_t>(current)] - 1;
        const int inputs = rng.between(1, 3);
        for (int k = 0; k < inputs; ++k)
            b.addEdge(rng.between(lo, hi), i, -1.0);
    }
    return std::move(b).build();
}

const Workload& workload(int ops)
{
    static std::map<int, std::unique_ptr<Workload>> cache;
    auto& slot = cache[ops];
    if (!slot) {
        slot = std::make_unique<Workload>();
        const double before = procStatusMb("VmRSS");
        slot->graph = layeredGraph(ops, 2018);
        slot->graphMb = procStatusMb("VmRSS") - before;
        std::vector<Device> devices;
        for (int d = 0; d < kDevices; ++d)
            devices.push_back(Device{"/device:GPU:" + std::to_string(d), DeviceKind::Gpu, 1.0, 16e9});
        slot->cluster = Cluster("8 GPUs", devices, Link{12e3, 20.0});
        Rng rng(7);
        slot->placement.resize(static_cast<size_t>(ops));
        for (auto& d : slot->placement)
            d = rng.between(0, kDevices - 1);
        if (auto problem = placementProblem(slot->graph, slot->cluster, slot->placement))
            throw std::runtime_error(*problem);
        for (const Op& op : slot->graph.ops())
            slot->opTime.insert(slot->opTime.end(), op.timeUs.begin(), op.timeUs.end());
    }
    return *slot;
}

void reportCounters(benchmark::State& state, const Workload& w)
{
    const double ops = w.graph.opCount();
    state.SetItemsProcessed(state.iterations()); // items = evaluations
    // Seconds per op, printed with an SI prefix ("339n" is 339 ns).
    state.counters["time_per_op"] = benchmark::Counter(ops * static_cast<double>(state.iterations()),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["edges"] = w.graph.edgeCount();
    state.counters["graph_MB"] = w.graphMb;
    state.counters["peak_rss_MB"] = procStatusMb("VmHWM");
}

void simulateWorkload(benchmark::State& state, Dispatch dispatch)
{
    const Workload& w = workload(static_cast<int>(state.range(0)));
    SimOptions options;
    options.dispatch = dispatch;
    Simulator sim(w.graph, w.cluster, options);
    double step = sim.run(w.placement).stepTimeUs; // first call sizes everything
    for (auto _ : state) {
        const SimResult& r = sim.run(w.placement);
        benchmark::DoNotOptimize(r.stepTimeUs);
    }
    reportCounters(state, w);
    state.counters["step_ms"] = step / 1000.0;
}

void BM_Simulate(benchmark::State& state) { simulateWorkload(state, Dispatch::ReadyOrder); }

// The same runs under critical-path dispatch: each device's ready queue a heap by priority.
void BM_SimulateCriticalPath(benchmark::State& state) { simulateWorkload(state, Dispatch::CriticalPath); }

// The floor: earliest finish times in topological order over the Graph's own CSR arrays,
// with each op's duration on its placed device; no queues, transfers or memory.
void BM_Floor(benchmark::State& state)
{
    const Workload& w = workload(static_cast<int>(state.range(0)));
    const Graph& g = w.graph;
    std::vector<int> kind;
    std::vector<double> speed;
    for (const Device& d : w.cluster.devices()) {
        kind.push_back(static_cast<int>(d.kind));
        speed.push_back(d.speed);
    }
    std::vector<double> finish(static_cast<size_t>(g.opCount()));
    const auto edges = g.edges();
    for (auto _ : state) {
        double last = 0.0;
        for (OpId op : g.topologicalOrder()) {
            double start = 0.0;
            for (EdgeId e : g.inEdges(op))
                start = std::max(start, finish[static_cast<size_t>(edges[static_cast<size_t>(e)].from)]);
            const auto d = static_cast<size_t>(w.placement[static_cast<size_t>(op)]);
            const double end = start
                + w.opTime[static_cast<size_t>(op) * kDeviceKindCount + static_cast<size_t>(kind[d])] / speed[d];
            finish[static_cast<size_t>(op)] = end;
            last = std::max(last, end);
        }
        benchmark::DoNotOptimize(last);
        benchmark::ClobberMemory();
    }
    reportCounters(state, w);
}

// The least any simulation of the default semantics must do: device contention alone. An
// event heap of busy devices keyed by end time and a FIFO of ready ops per device; no
// transfers, links, memory or same-instant tie-breaking. If even this is far above the floor,
// no implementation of the full semantics can come within 2x of it (docs/performance.md).
void BM_DeviceQueuesOnly(benchmark::State& state)
{
    const Workload& w = workload(static_cast<int>(state.range(0)));
    const Graph& g = w.graph;
    const auto n = static_cast<size_t>(g.opCount());
    const auto edges = g.edges();
    std::vector<int> kind;
    std::vector<double> speed;
    for (const Device& d : w.cluster.devices()) {
        kind.push_back(static_cast<int>(d.kind));
        speed.push_back(d.speed);
    }
    // Each device's FIFO is a segment of one array sized by how many ops it holds.
    std::vector<int> segment(static_cast<size_t>(kDevices) + 1, 0);
    for (size_t op = 0; op < n; ++op)
        ++segment[static_cast<size_t>(w.placement[op]) + 1];
    for (size_t d = 0; d < static_cast<size_t>(kDevices); ++d)
        segment[d + 1] += segment[d];
    std::vector<int> fifo(n), head(kDevices), tail(kDevices), running(kDevices), pending(n);
    std::vector<std::pair<double, int>> heap; // (end time, device), min-heap via greater<>
    heap.reserve(kDevices);
    const auto later = std::greater<std::pair<double, int>>();
    for (auto _ : state) {
        for (size_t op = 0; op < n; ++op)
            pending[op] = static_cast<int>(g.inEdges(static_cast<OpId>(op)).size());
        for (int d = 0; d < kDevices; ++d) {
            head[static_cast<size_t>(d)] = tail[static_cast<size_t>(d)] = segment[static_cast<size_t>(d)];
            running[static_cast<size_t>(d)] = -1;
        }
        heap.clear();
        double now = 0.0;
        auto start = [&](int d) {
            auto& h = head[static_cast<size_t>(d)];
            if (h == tail[static_cast<size_t>(d)]) {
                running[static_cast<size_t>(d)] = -1;
                return;
            }
            const int op = fifo[static_cast<size_t>(h++)];
            running[static_cast<size_t>(d)] = op;
            const double t =
                w.opTime[static_cast<size_t>(op) * kDeviceKindCount + static_cast<size_t>(kind[static_cast<size_t>(d)])];
            heap.emplace_back(now + t / speed[static_cast<size_t>(d)], d);
            std::push_heap(heap.begin(), heap.end(), later);
        };
        auto makeReady = [&](int op) {
            const int d = w.placement[static_cast<size_t>(op)];
            fifo[static_cast<size_t>(tail[static_cast<size_t>(d)]++)] = op;
            if (running[static_cast<size_t>(d)] < 0)
                start(d);
        };
        for (size_t op = 0; op < n; ++op)
            if (pending[op] == 0)
                makeReady(static_cast<int>(op));
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), later);
            const auto [end, d] = heap.back();
            heap.pop_back();
            now = end;
            const int op = running[static_cast<size_t>(d)];
            running[static_cast<size_t>(d)] = -1;
            for (EdgeId e : g.outEdges(op)) {
                const int to = edges[static_cast<size_t>(e)].to;
                if (--pending[static_cast<size_t>(to)] == 0)
                    makeReady(to);
            }
            if (running[static_cast<size_t>(d)] < 0)
                start(d);
        }
        benchmark::DoNotOptimize(now);
        benchmark::ClobberMemory();
    }
    reportCounters(state, w);
}

// A real measured graph on the k80x4 preset; each colocation group (PipeDream pairs forward
// and backward layers) goes to one random device, free ops to any.
struct RealWorkload {
    Graph graph;
    Cluster cluster;
    Placement placement;
};

// `options`: the default; every edge kept (SimOptions::leaveOutImpliedEdges off, to see what
// leaving them out saves on a dense trace); critical-path dispatch (its ready queues heaps).
void BM_SimulateReal(benchmark::State& state, const RealWorkload* w, SimOptions options)
{
    Simulator sim(w->graph, w->cluster, options);
    const double step = sim.run(w->placement).stepTimeUs;
    for (auto _ : state) {
        const SimResult& r = sim.run(w->placement);
        benchmark::DoNotOptimize(r.stepTimeUs);
    }
    const double ops = w->graph.opCount();
    state.SetItemsProcessed(state.iterations());
    state.counters["time_per_op"] = benchmark::Counter(ops * static_cast<double>(state.iterations()),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["time_per_edge"] = benchmark::Counter(std::max(1, w->graph.edgeCount())
                                                             * static_cast<double>(state.iterations()),
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["ops"] = ops;
    state.counters["edges"] = w->graph.edgeCount();
    state.counters["step_ms"] = step / 1000.0;
}

std::string sharedDataDir()
{
    if (const char* env = std::getenv("POST_SHARED_DATA"); env && *env)
        return env;
#ifdef POST_SHARED_DATA_DIR
    return POST_SHARED_DATA_DIR;
#else
    return "../shared/data";
#endif
}

// A random placement on the k80x4 preset: each colocation group on one random device, free
// ops on any, ops pinned to the CPU (and their groups) on a random CPU.
Placement randomPlacement(const Graph& graph, const Cluster& cluster, Rng& rng)
{
    const int devices = cluster.deviceCount();
    std::vector<int> groupDevice(static_cast<size_t>(graph.colocationGroupCount()));
    for (int& d : groupDevice)
        d = rng.between(0, devices - 1);
    std::vector<DeviceId> cpus;
    for (DeviceId d = 0; d < devices; ++d)
        if (cluster.device(d).kind == DeviceKind::Cpu)
            cpus.push_back(d);
    std::vector<int> groupCpu(groupDevice.size(), -1);
    Placement placement(static_cast<size_t>(graph.opCount()));
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const int group = graph.colocationGroup(op);
        int& d = placement[static_cast<size_t>(op)];
        if (graph.isCpuPinned(op) && !cpus.empty()) {
            int& cpu = group >= 0 ? groupCpu[static_cast<size_t>(group)] : d;
            if (group < 0 || cpu < 0)
                cpu = cpus[static_cast<size_t>(rng.between(0, static_cast<int>(cpus.size()) - 1))];
            d = cpu;
        } else {
            d = group >= 0 ? groupDevice[static_cast<size_t>(group)] : rng.between(0, devices - 1);
        }
    }
    if (auto problem = placementProblem(graph, cluster, placement))
        throw std::runtime_error(*problem);
    return placement;
}

void registerRealGraphs(const std::vector<std::string>& extraGraphs)
{
    static std::vector<std::unique_ptr<RealWorkload>> workloads;
    const std::string dir = sharedDataDir();
    std::vector<std::pair<std::string, std::string>> graphs; // name, path
    for (const char* model : {"resnet50", "inception_v3"})
        graphs.emplace_back(model, dir + "/pipedream/" + model + "/graph.txt");
    for (const std::string& path : extraGraphs)
        graphs.emplace_back(std::filesystem::path(path).stem().string(), path);
    for (const auto& [name, path] : graphs) {
        if (!std::filesystem::exists(path)) {
            std::fprintf(stderr, "%s is absent: BM_SimulateReal/%s skipped\n", path.c_str(), name.c_str());
            continue;
        }
        auto w = std::make_unique<RealWorkload>();
        w->graph = readGraphFile(path);
        w->cluster = loadCluster("k80x4");
        Rng rng(11);
        w->placement = randomPlacement(w->graph, w->cluster, rng);
        benchmark::RegisterBenchmark(("BM_SimulateReal/" + name + "/k80x4").c_str(), BM_SimulateReal, w.get(),
                                     SimOptions{})
            ->Unit(benchmark::kMicrosecond);
        SimOptions every;
        every.leaveOutImpliedEdges = false;
        if (!impliedLocalEdges(w->graph, w->cluster).empty())
            benchmark::RegisterBenchmark(("BM_SimulateReal/" + name + "/k80x4/every-edge").c_str(), BM_SimulateReal,
                                         w.get(), every)
                ->Unit(benchmark::kMicrosecond);
        SimOptions byPath;
        byPath.dispatch = Dispatch::CriticalPath;
        benchmark::RegisterBenchmark(("BM_SimulateReal/" + name + "/k80x4/critical-path").c_str(), BM_SimulateReal,
                                     w.get(), byPath)
            ->Unit(benchmark::kMicrosecond);
        workloads.push_back(std::move(w));
    }
}

} // namespace

BENCHMARK(BM_Simulate)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SimulateCriticalPath)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Floor)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DeviceQueuesOnly)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv)
{
    std::vector<std::string> extraGraphs; // --graph=PATH, taken out before the library sees them
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--graph=", 0) == 0)
            extraGraphs.push_back(arg.substr(8));
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    registerRealGraphs(extraGraphs);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
