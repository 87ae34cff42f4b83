#include "tests/support/SmallRandomGraphs.h"
#include "tests/support/TestOps.h"

#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/Placement.h"
#include "core/sim/ChromeTraceWriter.h"
#include "core/sim/CriticalPath.h"
#include "core/sim/ImpliedEdges.h"
#include "core/sim/IncrementalSimulator.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <random>

using namespace post;

// Every allocation in this test program is counted, to check that run() allocates nothing
// once a Simulator has run once.
static std::atomic<long> gAllocations{0};

void* operator new(std::size_t size)
{
    ++gAllocations;
    if (void* p = std::malloc(size == 0 ? 1 : size))
        return p;
    throw std::bad_alloc();
}
// The nothrow form too: Qt allocates with it, and a sanitizer's own version paired with
// the free() below is an alloc-dealloc mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    ++gAllocations;
    return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

// An op taking `gpuUs` on a GPU of speed 1 and ten times that on a CPU.
Op makeOp(const char* name, double gpuUs, double outputBytes = 0.0, double paramBytes = 0.0)
{
    return testgraphs::testOp(name, gpuUs, outputBytes, paramBytes);
}

Device gpu(const std::string& name, double speed = 1.0, double memory = std::numeric_limits<double>::infinity())
{
    return Device{name, DeviceKind::Gpu, speed, memory};
}

// `count` GPUs of speed 1; links of 100 bytes/us and 5 us latency: 1000 bytes take 15 us.
Cluster gpus(int count, Link link = Link{100.0, 5.0})
{
    std::vector<Device> devices;
    for (int i = 0; i < count; ++i)
        devices.push_back(gpu("/device:GPU:" + std::to_string(i)));
    return Cluster("test", devices, link);
}

int linkIndex(const Cluster& c, DeviceId from, DeviceId to) { return from * c.deviceCount() + to; }

double opStart(const SimResult& r, OpId op)
{
    for (const OpSpan& s : r.timeline.ops)
        if (s.op == op)
            return s.startUs;
    return -1.0;
}

// ---- An independent, deliberately naive simulator (linear scans, no heaps) ----
struct Reference {
    std::vector<double> start, end;
    double stepUs = 0.0;
    std::vector<double> linkBytes;
};

Reference referenceRun(const Graph& g, const Cluster& c, const Placement& p)
{
    const int n = g.opCount();
    const int devices = c.deviceCount();
    struct Transfer {
        OpId producer;
        DeviceId from, to;
        double bytes, request, start = -1.0, end = -1.0;
        bool arrived = false;
    };
    std::vector<Transfer> transfers;
    std::vector<double> start(n, -1.0), end(n, -1.0), readyAt(n, -1.0);
    std::vector<int> waiting(n);
    std::vector<bool> ended(n, false);
    for (OpId op = 0; op < n; ++op) {
        waiting[op] = static_cast<int>(g.inEdges(op).size());
        if (waiting[op] == 0)
            readyAt[op] = 0.0;
    }
    Reference ref;
    ref.linkBytes.assign(devices * devices, 0.0);
    double now = 0.0;
    for (;;) {
        for (bool progress = true; progress;) {
            progress = false;
            for (OpId op = 0; op < n; ++op) {
                if (start[op] < 0 || ended[op] || end[op] != now)
                    continue;
                ended[op] = true;
                progress = true;
                const size_t firstNew = transfers.size();
                for (EdgeId e : g.outEdges(op)) {
                    const OpId to = g.edge(e).to;
                    if (p[to] == p[op]) {
                        if (--waiting[to] == 0)
                            readyAt[to] = now;
                        continue;
                    }
                    auto it = std::find_if(transfers.begin() + firstNew, transfers.end(),
                                           [&](const Transfer& t) { return t.to == p[to]; });
                    if (it == transfers.end())
                        transfers.push_back(Transfer{op, p[op], p[to], g.edge(e).bytes, now});
                    else
                        it->bytes = std::max(it->bytes, g.edge(e).bytes);
                }
            }
            for (Transfer& t : transfers) {
                if (t.start < 0 || t.arrived || t.end != now)
                    continue;
                t.arrived = true;
                progress = true;
                for (EdgeId e : g.outEdges(t.producer)) {
                    const OpId to = g.edge(e).to;
                    if (p[to] == t.to && --waiting[to] == 0)
                        readyAt[to] = now;
                }
            }
            for (DeviceId d = 0; d < devices; ++d) {
                bool busy = false;
                OpId next = kNoOp;
                for (OpId op = 0; op < n; ++op) {
                    if (p[op] != d)
                        continue;
                    busy = busy || (start[op] >= 0 && !ended[op]);
                    if (start[op] < 0 && readyAt[op] >= 0 && (next == kNoOp || readyAt[op] < readyAt[next]))
                        next = op;
                }
                if (busy || next == kNoOp)
                    continue;
                start[next] = now;
                end[next] = now + g.op(next).time(c.device(d).kind) / c.device(d).speed;
                progress = true;
            }
            if (progress)
                continue;
            // Nothing more happens at `now` on the devices: each link serves the waiting
            // transfers, earliest request first, ties to the lower producer id, one after
            // the other from when it is free.
            for (;;) {
                Transfer* next = nullptr;
                for (Transfer& t : transfers)
                    if (t.start < 0
                        && (!next || t.request < next->request
                            || (t.request == next->request && t.producer < next->producer)))
                        next = &t;
                if (!next)
                    break;
                double free = 0.0;
                for (const Transfer& t : transfers)
                    if (t.start >= 0 && t.from == next->from && t.to == next->to)
                        free = std::max(free, t.end);
                const Link& link = c.link(next->from, next->to);
                next->start = std::max(now, free);
                next->end = next->start + (link.latencyUs + next->bytes / link.bytesPerUs);
                ref.linkBytes[next->from * devices + next->to] += next->bytes;
                progress = true;
            }
        }
        double next = std::numeric_limits<double>::infinity();
        for (OpId op = 0; op < n; ++op)
            if (start[op] >= 0 && !ended[op])
                next = std::min(next, end[op]);
        for (const Transfer& t : transfers)
            if (t.start >= 0 && !t.arrived)
                next = std::min(next, t.end);
        if (next == std::numeric_limits<double>::infinity())
            break;
        now = next;
    }
    ref.start = start;
    ref.end = end;
    ref.stepUs = now;
    return ref;
}

// Peak live tensor bytes per device derived from the timeline alone, by sweeping the
// half-open live interval of every tensor (frees before allocations at equal times).
std::vector<double> peakLiveFromTimeline(const Graph& g, const Cluster& c, const Placement& p, const Timeline& tl)
{
    std::vector<double> start(g.opCount()), end(g.opCount());
    for (const OpSpan& s : tl.ops) {
        start[s.op] = s.startUs;
        end[s.op] = s.endUs;
    }
    std::vector<std::vector<std::pair<double, double>>> changes(c.deviceCount()); // (time, delta)
    for (OpId op = 0; op < g.opCount(); ++op) {
        double release = end[op];
        for (EdgeId e : g.outEdges(op))
            if (p[g.edge(e).to] == p[op])
                release = std::max(release, end[g.edge(e).to]);
        for (const TransferSpan& t : tl.transfers)
            if (t.producer == op)
                release = std::max(release, t.endUs);
        changes[p[op]].push_back({start[op], g.op(op).outputBytes});
        changes[p[op]].push_back({release, -g.op(op).outputBytes});
    }
    for (const TransferSpan& t : tl.transfers) {
        double release = t.endUs;
        for (EdgeId e : g.outEdges(t.producer))
            if (p[g.edge(e).to] == t.to)
                release = std::max(release, end[g.edge(e).to]);
        changes[t.to].push_back({t.endUs, t.bytes});
        changes[t.to].push_back({release, -t.bytes});
    }
    std::vector<double> peak(c.deviceCount(), 0.0);
    for (int d = 0; d < c.deviceCount(); ++d) {
        auto& ch = changes[d];
        std::sort(ch.begin(), ch.end()); // negative deltas (frees) first at equal times
        double live = 0.0;
        for (auto [time, delta] : ch) {
            live += delta;
            peak[d] = std::max(peak[d], live);
        }
    }
    return peak;
}

// A random layered DAG: ops with 1-3 inputs from the last few ops, some zero-duration,
// occasional duplicate edges and edges whose bytes differ from the output size.
Graph randomGraph(unsigned seed, int ops)
{
    std::mt19937 rng(seed);
    auto uniform = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
    GraphBuilder b("random");
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = "op" + std::to_string(i);
        const double gpuUs = uniform(0, 9) == 0 ? 0.0 : uniform(1, 50);
        o.timeUs = {gpuUs * uniform(2, 10), gpuUs};
        o.outputBytes = uniform(0, 5000);
        o.paramBytes = uniform(0, 3) == 0 ? uniform(1, 10000) : 0;
        o.residentBytes = i % 5 == 0 ? 0.5 * o.outputBytes : 0.0; // no rng draw: the graphs stay as they were
        b.addOp(o);
        if (i == 0)
            continue;
        const int inputs = uniform(0, 3);
        for (int k = 0; k < inputs; ++k) {
            const int from = std::max(0, i - uniform(1, 12));
            b.addEdge(from, i, uniform(0, 4) == 0 ? uniform(0, 8000) : -1.0);
        }
    }
    return std::move(b).build();
}

// A random dense DAG as execution traces give them: each op reads up to 30 earlier ops, with
// repeated (parallel) edges; about half of the ops have no output bytes and most of those no
// bytes on their edges either (like a Chakra trace's dependencies); edges sometimes carry
// their own, different sizes.
Graph denseGraph(unsigned seed, int ops)
{
    std::mt19937 rng(seed);
    auto uniform = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
    GraphBuilder b("dense");
    std::vector<bool> bytesFree;
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = "op" + std::to_string(i);
        const double gpuUs = uniform(0, 7) == 0 ? 0.0 : uniform(1, 40);
        o.timeUs = {gpuUs * uniform(2, 10), gpuUs};
        bytesFree.push_back(uniform(0, 1) == 0);
        o.outputBytes = bytesFree.back() ? 0.0 : uniform(1, 5000);
        o.paramBytes = uniform(0, 3) == 0 ? uniform(1, 10000) : 0;
        b.addOp(o);
        if (i == 0)
            continue;
        const int inputs = uniform(0, 30);
        for (int k = 0; k < inputs; ++k) {
            const int from = uniform(std::max(0, i - 20), i - 1);
            // An op without output bytes now and then still sends a tensor on one edge.
            const bool ownBytes = uniform(0, bytesFree[static_cast<size_t>(from)] ? 15 : 3) == 0;
            b.addEdge(from, i, ownBytes ? uniform(0, 8000) : -1.0);
        }
    }
    return std::move(b).build();
}

// A dense trace-like DAG whose ops are often pinned to the CPU (about half) or colocated (a
// tenth of the others, in groups of about three): CPU operators ordered by many transitive
// edges without bytes, as a Chakra step's are, among kernels with tensors.
Graph pinnedDenseGraph(unsigned seed, int ops)
{
    std::mt19937 rng(seed);
    auto uniform = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
    GraphBuilder b("pinned-dense");
    std::vector<bool> pinned;
    for (int i = 0; i < ops; ++i) {
        Op o;
        o.name = "op" + std::to_string(i);
        const double gpuUs = uniform(0, 7) == 0 ? 0.0 : uniform(1, 40);
        o.timeUs = {gpuUs * uniform(2, 10), gpuUs};
        pinned.push_back(uniform(0, 1) == 0);
        o.cpuOnly = pinned.back();
        o.outputBytes = pinned.back() || uniform(0, 2) == 0 ? 0.0 : uniform(1, 5000);
        if (!pinned.back() && uniform(0, 9) == 0)
            o.colocate = "group" + std::to_string(uniform(0, ops / 30));
        b.addOp(o);
        if (i == 0)
            continue;
        const int inputs = uniform(0, 20);
        for (int k = 0; k < inputs; ++k) {
            const int from = uniform(std::max(0, i - 25), i - 1);
            b.addEdge(from, i, uniform(0, 9) == 0 ? uniform(0, 8000) : (pinned[static_cast<size_t>(from)] ? 0.0 : -1.0));
        }
    }
    return std::move(b).build();
}

// A placement the simulator accepts: random, colocation groups whole, pinned ops on a CPU.
Placement validPlacement(const Graph& g, const Cluster& c, unsigned seed)
{
    std::mt19937 rng(seed);
    Placement p(static_cast<size_t>(g.opCount()));
    for (auto& d : p)
        d = static_cast<DeviceId>(rng() % static_cast<unsigned>(c.deviceCount()));
    std::map<int, DeviceId> groupDevice;
    for (OpId op = 0; op < g.opCount(); ++op)
        if (const int group = g.colocationGroup(op); group >= 0)
            p[static_cast<size_t>(op)] = groupDevice.try_emplace(group, p[static_cast<size_t>(op)]).first->second;
    applyCpuPinning(g, c, p);
    return p;
}

Placement randomPlacement(unsigned seed, int ops, int devices)
{
    std::mt19937 rng(seed);
    Placement p(ops);
    for (auto& d : p)
        d = static_cast<DeviceId>(rng() % static_cast<unsigned>(devices));
    return p;
}

void compareResults(const SimResult& a, const SimResult& b)
{
    QCOMPARE(a.stepTimeUs, b.stepTimeUs);
    QCOMPARE(a.feasible, b.feasible);
    QCOMPARE(a.deviceBusyUs, b.deviceBusyUs);
    QCOMPARE(a.peakMemoryBytes, b.peakMemoryBytes);
    QCOMPARE(a.linkBytes, b.linkBytes);
    QCOMPARE(a.linkBusyUs, b.linkBusyUs);
    QCOMPARE(a.timeline.ops.size(), b.timeline.ops.size());
    for (size_t i = 0; i < a.timeline.ops.size(); ++i) {
        QCOMPARE(a.timeline.ops[i].op, b.timeline.ops[i].op);
        QCOMPARE(a.timeline.ops[i].startUs, b.timeline.ops[i].startUs);
    }
    QCOMPARE(a.timeline.transfers.size(), b.timeline.transfers.size());
    for (size_t i = 0; i < a.timeline.transfers.size(); ++i) {
        QCOMPARE(a.timeline.transfers[i].producer, b.timeline.transfers[i].producer);
        QCOMPARE(a.timeline.transfers[i].startUs, b.timeline.transfers[i].startUs);
    }
}

} // namespace

class TestSimulator : public QObject {
    Q_OBJECT

private slots:
    void chainOnOneDevice()
    {
        // a(10) -> b(20) -> c(30), all on GPU0: 0-10, 10-30, 30-60.
        GraphBuilder b("chain");
        b.addOp(makeOp("a", 10, 1000));
        b.addOp(makeOp("b", 20, 1000));
        b.addOp(makeOp("c", 30, 1000));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0});
        QCOMPARE(r.stepTimeUs, 60.0);
        QCOMPARE(r.deviceBusyUs, (std::vector<double>{60.0, 0.0}));
        QCOMPARE(r.linkBytes, (std::vector<double>{0.0, 0.0, 0.0, 0.0}));
        QVERIFY(r.feasible);
        QVERIFY(r.timeline.ops.empty()); // not asked for
    }

    void chainCutAcrossTwoDevices()
    {
        // a on GPU0 (0-10); its 1000 bytes cross 0->1 in 5 + 1000/100 = 15 us (10-25);
        // b on GPU1 25-45, c 45-75.
        GraphBuilder b("cut");
        b.addOp(makeOp("a", 10, 1000));
        b.addOp(makeOp("b", 20, 10));
        b.addOp(makeOp("c", 30, 10));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 1, 1}, true);
        QCOMPARE(r.stepTimeUs, 75.0);
        QCOMPARE(r.deviceBusyUs, (std::vector<double>{10.0, 50.0}));
        QCOMPARE(r.linkBytes[linkIndex(c, 0, 1)], 1000.0);
        QCOMPARE(r.linkBusyUs[linkIndex(c, 0, 1)], 15.0);
        QCOMPARE(r.linkBytes[linkIndex(c, 1, 0)], 0.0);
        QCOMPARE(opStart(r, 1), 25.0);
        QCOMPARE(opStart(r, 2), 45.0);
    }

    void twoBranchesOverlapAndJoin()
    {
        // GPU0: a1(10) 0-10, a2(10) 10-20. GPU1: b1(5) 0-5, b2(30) 5-35.
        // j on GPU0 needs b2's 100 bytes: 5 + 1 = 6 us transfer 35-41; j(1) 41-42.
        GraphBuilder b("branches");
        b.addOp(makeOp("a1", 10));
        b.addOp(makeOp("a2", 10));
        b.addOp(makeOp("b1", 5));
        b.addOp(makeOp("b2", 30, 100));
        b.addOp(makeOp("j", 1));
        b.addEdge("a1", "a2");
        b.addEdge("b1", "b2");
        b.addEdge("a2", "j");
        b.addEdge("b2", "j");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 1, 1, 0}, true);
        QCOMPARE(r.stepTimeUs, 42.0);
        QCOMPARE(r.deviceBusyUs, (std::vector<double>{21.0, 35.0}));
        QCOMPARE(opStart(r, 2), 0.0); // b1 runs beside a1
        QCOMPARE(opStart(r, 4), 41.0);
        QCOMPARE(r.linkBusyUs[linkIndex(c, 1, 0)], 6.0);
    }

    void tensorSentOncePerDevice()
    {
        // p on GPU0 0-10; c1 and c2 on GPU1 read it with edges of 1000 and 400 bytes:
        // one transfer of max(1000, 400) = 1000 bytes, 10-25; c1 25-30, c2 30-35.
        GraphBuilder b("fanout");
        b.addOp(makeOp("p", 10, 1000));
        b.addOp(makeOp("c1", 5));
        b.addOp(makeOp("c2", 5));
        b.addEdge("p", "c1", 1000);
        b.addEdge("p", "c2", 400);
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 1, 1}, true);
        QCOMPARE(r.linkBytes[linkIndex(c, 0, 1)], 1000.0);
        QCOMPARE(r.timeline.transfers.size(), size_t(1));
        QCOMPARE(r.stepTimeUs, 35.0);
    }

    void transfersQueueOnOneLink()
    {
        // GPU0: p1(10) 0-10, p2(2) 10-12. p1's 1000 bytes take the 0->1 link 10-25;
        // p2's 500 bytes (5 + 5 = 10 us) are requested at 12 but wait until 25: 25-35.
        // GPU1: c1 25-26, c2 35-36.
        GraphBuilder b("queue");
        b.addOp(makeOp("p1", 10, 1000));
        b.addOp(makeOp("p2", 2, 500));
        b.addOp(makeOp("c1", 1));
        b.addOp(makeOp("c2", 1));
        b.addEdge("p1", "c1");
        b.addEdge("p2", "c2");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 1, 1}, true);
        QCOMPARE(r.stepTimeUs, 36.0);
        QCOMPARE(r.timeline.transfers.size(), size_t(2));
        const TransferSpan& second = r.timeline.transfers[1];
        QCOMPARE(second.producer, OpId(1));
        QCOMPARE(second.requestUs, 12.0);
        QCOMPARE(second.startUs, 25.0);
        QCOMPARE(second.endUs, 35.0);
        QCOMPARE(r.linkBusyUs[linkIndex(c, 0, 1)], 25.0);
        QCOMPARE(r.linkBytes[linkIndex(c, 0, 1)], 1500.0);
    }

    void sameInstantRequestsGoByProducerId()
    {
        // GPU0: W(id0, 5) 0-5, X(id2, 5) 5-10, Y(id1, 0 us, reads X) 10-10.
        // Link 0->1: W's 2000 bytes 5-30 (5 + 20). X and Y both request at 10 (Y in a later
        // round of the same instant) and Y, the lower id, goes first: 30-36, then X 36-42.
        // GPU1: cW 30-31, cY 36-37, cX 42-43.
        GraphBuilder b("tie");
        b.addOp(makeOp("W", 5, 2000));
        b.addOp(makeOp("Y", 0, 100));
        b.addOp(makeOp("X", 5, 100));
        b.addOp(makeOp("cW", 1));
        b.addOp(makeOp("cX", 1));
        b.addOp(makeOp("cY", 1));
        b.addEdge("X", "Y", 0);
        b.addEdge("W", "cW");
        b.addEdge("X", "cX");
        b.addEdge("Y", "cY");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0, 1, 1, 1}, true);
        QCOMPARE(r.timeline.transfers.size(), size_t(3));
        QCOMPARE(r.timeline.transfers[1].producer, OpId(1));
        QCOMPARE(r.timeline.transfers[1].startUs, 30.0);
        QCOMPARE(r.timeline.transfers[2].producer, OpId(2));
        QCOMPARE(r.timeline.transfers[2].startUs, 36.0);
        QCOMPARE(r.stepTimeUs, 43.0);
    }

    void sameInstantRequestsOnAnIdleLink()
    {
        // GPU0: X(id1, 5) 0-5, then Y(id0, 0 us, reads X) 5-5. Both request the idle 0->1
        // link at 5, Y in a later round; the link is handed out once the instant is over, so
        // Y, the lower id, goes first: 100 bytes take 5 + 1 = 6 us, Y 5-11, X 11-17.
        // GPU1: cY 11-12, cX 17-18.
        GraphBuilder b("idle");
        b.addOp(makeOp("Y", 0, 100));
        b.addOp(makeOp("X", 5, 100));
        b.addOp(makeOp("cX", 1));
        b.addOp(makeOp("cY", 1));
        b.addEdge("X", "Y", 0);
        b.addEdge("X", "cX");
        b.addEdge("Y", "cY");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 1, 1}, true);
        QCOMPARE(r.timeline.transfers.size(), size_t(2));
        QCOMPARE(r.timeline.transfers[0].producer, OpId(0));
        QCOMPARE(r.timeline.transfers[0].startUs, 5.0);
        QCOMPARE(r.timeline.transfers[1].producer, OpId(1));
        QCOMPARE(r.timeline.transfers[1].startUs, 11.0);
        QCOMPARE(r.stepTimeUs, 18.0);
    }

    void deviceSpeedAndKind()
    {
        // GPU1 has speed 2, the CPU speed 2. a (gpu 10) on GPU1: 10 / 2 = 5 us, 0-5.
        // b (cpu 10 x 10 = 100) on the CPU: 100 / 2 = 50 us after a 15 us transfer: 20-70.
        GraphBuilder b("speed");
        b.addOp(makeOp("a", 10, 1000));
        b.addOp(makeOp("b", 10));
        b.addEdge("a", "b");
        const Graph g = std::move(b).build();
        const Cluster c("mixed",
                        {gpu("/device:GPU:0"), gpu("/device:GPU:1", 2.0), Device{"/device:CPU:0", DeviceKind::Cpu, 2.0}},
                        Link{100.0, 5.0});
        Simulator sim(g, c);
        const SimResult& r = sim.run({1, 2}, true);
        QCOMPARE(r.deviceBusyUs, (std::vector<double>{0.0, 5.0, 50.0}));
        QCOMPARE(r.timeline.transfers.at(0).endUs, 20.0);
        QCOMPARE(r.stepTimeUs, 70.0);
    }

    void memoryPeakOnOneDevice()
    {
        // Chain a -> b -> c -> d of 10 us each on GPU0; outputs 100, 200, 50, 10 bytes.
        // Live: a [0,20) (until b ends), b [10,30), c [20,40), d [30,40) (a sink: until it ends).
        // [10,20): 300; at 20 a is freed before c is allocated: 250; [30,40): 60. Peak 300.
        // Params: (10 + 20) x 3 (optimizer factor) = 90. Peak memory 390.
        GraphBuilder b("memory");
        b.addOp(makeOp("a", 10, 100, 10));
        b.addOp(makeOp("b", 10, 200));
        b.addOp(makeOp("c", 10, 50, 20));
        b.addOp(makeOp("d", 10, 10));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        b.addEdge("c", "d");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(1);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0, 0});
        QCOMPARE(r.peakMemoryBytes, (std::vector<double>{390.0}));
        QVERIFY(r.feasible);

        SimOptions factorOne;
        factorOne.optimizerStateFactor = 1.0;
        Simulator sim1(g, c, factorOne);
        QCOMPARE(sim1.run({0, 0, 0, 0}).peakMemoryBytes, (std::vector<double>{330.0}));
    }

    // Without a factor given, the graph's optimizer decides: Adam keeps two moments (x4),
    // SGD with momentum one slot (x3); a factor given wins.
    void adamKeepsTwoMoments()
    {
        for (const char* update : {"ApplyMomentum", "ApplyAdam", "aten::_fused_adam_", "ResourceApplyAdamWithAmsgrad"}) {
            GraphBuilder b("optimizer");
            b.addOp(makeOp("w", 10, 100, 10));
            Op step = makeOp("update", 10, 0);
            step.type = update;
            b.addOp(step);
            b.addEdge("w", "update");
            const Graph g = std::move(b).build();
            const bool adam = std::string(update) != "ApplyMomentum";
            QCOMPARE(optimizerStateFactor(g, {}), adam ? 4.0 : 3.0);
            // 100 bytes live while w runs and the update reads it, and 10 bytes of parameters.
            QCOMPARE(Simulator(g, gpus(1)).run({0, 0}).peakMemoryBytes, (std::vector<double>{100.0 + (adam ? 40 : 30)}));
            SimOptions given;
            given.optimizerStateFactor = 2.0;
            QCOMPARE(optimizerStateFactor(g, given), 2.0);
            QCOMPARE(Simulator(g, gpus(1), given).run({0, 0}).peakMemoryBytes, (std::vector<double>{120.0}));
        }
    }

    void residentBytesAreNotScaled()
    {
        // memoryPeakOnOneDevice's chain (live peak 300, params 10 + 20) with resident bytes
        // 1000 on b and 7 on d: 300 + 30 x 3 + 1007 = 1397. With factor 1: 300 + 30 + 1007.
        GraphBuilder b("resident");
        b.addOp(makeOp("a", 10, 100, 10));
        Op withResident = makeOp("b", 10, 200);
        withResident.residentBytes = 1000.0;
        b.addOp(withResident);
        b.addOp(makeOp("c", 10, 50, 20));
        Op sink = makeOp("d", 10, 10);
        sink.residentBytes = 7.0;
        b.addOp(sink);
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        b.addEdge("c", "d");
        const Graph g = std::move(b).build();
        QCOMPARE(Simulator(g, gpus(1)).run({0, 0, 0, 0}).peakMemoryBytes, (std::vector<double>{1397.0}));
        SimOptions factorOne;
        factorOne.optimizerStateFactor = 1.0;
        QCOMPARE(Simulator(g, gpus(1), factorOne).run({0, 0, 0, 0}).peakMemoryBytes, (std::vector<double>{1337.0}));

        // Split a, b | c, d (one copy of b's 200 bytes crosses): resident memory stays with
        // its op's device. GPU0: a [0,20) + b [10,..) live peak 300, params 30, resident 1000
        // -> 1330. GPU1: received 200 + c 50 + d 10 live, params 60, resident 7; its live
        // peak is 250 (the received copy and c while c runs): 250 + 60 + 7 = 317.
        const Cluster two = gpus(2);
        const Cluster tight("tight", {gpu("/device:GPU:0", 1.0, 1329.0), gpu("/device:GPU:1", 1.0, 317.0)},
                            Link{100.0, 5.0});
        Simulator split(g, two);
        const SimResult& r = split.run({0, 0, 1, 1});
        QCOMPARE(r.peakMemoryBytes, (std::vector<double>{1330.0, 317.0}));
        QVERIFY(!Simulator(g, tight).run({0, 0, 1, 1}).feasible); // GPU0 is 1 byte short
    }

    void memoryAcrossDevices()
    {
        // a on GPU0 0-10 (1000 bytes), transfer 10-25, b on GPU1 25-45, c 45-75 (10 bytes each).
        // GPU0 keeps a's output until the transfer ends: [0,25) -> peak 1000.
        // GPU1: received 1000 [25,45) + b's output [25,75) + c's [45,75): peak 1010.
        GraphBuilder b("memcut");
        b.addOp(makeOp("a", 10, 1000));
        b.addOp(makeOp("b", 20, 10));
        b.addOp(makeOp("c", 30, 10));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        QCOMPARE(sim.run({0, 1, 1}).peakMemoryBytes, (std::vector<double>{1000.0, 1010.0}));
    }

    void memoryFreesBeforeAllocationsInOneInstant()
    {
        // GPU0: x (10 us, 1000 bytes) 0-10, then z (0 us, reads x) 10-10, then s (1 us) 10-11.
        // GPU1: r (0 us, 500 bytes) 0-0; its 500 bytes cross 0-10 (5 + 500/100) to s.
        // At 10 the 500 received bytes arrive before z even starts, yet z frees x at 10 too:
        // x lives [0,10), the received tensor [10,11), so GPU0 peaks at 1000, not 1500.
        GraphBuilder b("instant");
        b.addOp(makeOp("x", 10, 1000));
        b.addOp(makeOp("z", 0));
        b.addOp(makeOp("s", 1));
        b.addOp(makeOp("r", 0, 500));
        b.addEdge("x", "z");
        b.addEdge("r", "s");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0, 1}, true);
        QCOMPARE(r.timeline.transfers.at(0).endUs, 10.0);
        QCOMPARE(opStart(r, 2), 10.0);
        QCOMPARE(r.peakMemoryBytes, (std::vector<double>{1000.0, 500.0}));
    }

    void outOfMemory()
    {
        // The memoryPeakOnOneDevice graph needs 390 bytes: 389 is too little, 390 fits.
        GraphBuilder b("memory");
        b.addOp(makeOp("a", 10, 100, 10));
        b.addOp(makeOp("b", 10, 200));
        b.addOp(makeOp("c", 10, 50, 20));
        b.addOp(makeOp("d", 10, 10));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        b.addEdge("c", "d");
        const Graph g = std::move(b).build();
        const Cluster small("small", {gpu("/device:GPU:0", 1.0, 389.0)}, Link{});
        Simulator sim(g, small);
        const SimResult& r = sim.run({0, 0, 0, 0});
        QVERIFY(!r.feasible);
        QCOMPARE(r.stepTimeUs, 40.0);
        QCOMPARE(r.peakMemoryBytes, (std::vector<double>{390.0}));
        const Cluster exact("exact", {gpu("/device:GPU:0", 1.0, 390.0)}, Link{});
        QVERIFY(Simulator(g, exact).run({0, 0, 0, 0}).feasible);
    }

    void readyOrderTieBreak()
    {
        // GPU0 runs blocker 0-10. fastFeed (GPU1, 2 us) and slowFeed (GPU2, 4 us) send 0 bytes
        // over zero-latency links, arriving at 2 and 4. Waiting on GPU0 at 10:
        // high (id2, ready 2), tieA (id5, ready 2), tieB (id6, ready 2), low (id1, ready 4).
        // Earliest ready first, then lower id: high 10-11, tieA 11-12, tieB 12-13, low 13-14.
        GraphBuilder b("order");
        b.addOp(makeOp("blocker", 10));
        b.addOp(makeOp("low", 1));
        b.addOp(makeOp("high", 1));
        b.addOp(makeOp("slowFeed", 4));
        b.addOp(makeOp("fastFeed", 2));
        b.addOp(makeOp("tieA", 1));
        b.addOp(makeOp("tieB", 1));
        b.addEdge("slowFeed", "low", 0);
        b.addEdge("fastFeed", "high", 0);
        b.addEdge("fastFeed", "tieB", 0);
        b.addEdge("fastFeed", "tieA", 0);
        const Graph g = std::move(b).build();
        const Cluster c = gpus(3, Link{100.0, 0.0});
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0, 2, 1, 0, 0}, true);
        QCOMPARE(opStart(r, 2), 10.0);
        QCOMPARE(opStart(r, 5), 11.0);
        QCOMPARE(opStart(r, 6), 12.0);
        QCOMPARE(opStart(r, 1), 13.0);
        QCOMPARE(r.stepTimeUs, 14.0);
    }

    void criticalPathDispatch()
    {
        // GPU0 runs blocker 0-10 while early (ready at 2) and late (ready at 4) wait for it;
        // late feeds tail (5 us on GPU1). Ready order starts early first: late 11-12, tail
        // 12-17. Critical-path dispatch starts late first (its path to the end is 6 us against
        // early's 1): late 10-11, tail 11-16, early 11-12. Links are free (0 bytes, latency 0).
        GraphBuilder b("dispatch");
        b.addOp(makeOp("blocker", 10));
        b.addOp(makeOp("early", 1));
        b.addOp(makeOp("late", 1));
        b.addOp(makeOp("feedEarly", 2));
        b.addOp(makeOp("feedLate", 4));
        b.addOp(makeOp("tail", 5));
        b.addEdge("feedEarly", "early", 0);
        b.addEdge("feedLate", "late", 0);
        b.addEdge("late", "tail", 0);
        const Graph g = std::move(b).build();
        const Cluster c = gpus(3, Link{100.0, 0.0});
        const Placement p{0, 0, 0, 1, 2, 1};
        Simulator ready(g, c);
        const SimResult& r = ready.run(p, true);
        QCOMPARE(opStart(r, 1), 10.0);
        QCOMPARE(opStart(r, 2), 11.0);
        QCOMPARE(opStart(r, 5), 12.0);
        QCOMPARE(r.stepTimeUs, 17.0);
        SimOptions options;
        options.dispatch = Dispatch::CriticalPath;
        Simulator critical(g, c, options);
        const SimResult& s = critical.run(p, true);
        QCOMPARE(opStart(s, 2), 10.0);
        QCOMPARE(opStart(s, 1), 11.0);
        QCOMPARE(opStart(s, 5), 11.0);
        QCOMPARE(s.stepTimeUs, 16.0);
        // Equal priorities go to the lower OpId, as equal ready times do.
        GraphBuilder t("ties");
        t.addOp(makeOp("blocker", 3));
        t.addOp(makeOp("second", 2));
        t.addOp(makeOp("first", 2));
        const Graph tied = std::move(t).build();
        Simulator tiedSim(tied, gpus(1, Link{100.0, 0.0}), options);
        const SimResult& u = tiedSim.run({0, 0, 0}, true);
        QCOMPARE(opStart(u, 0), 0.0);
        QCOMPARE(opStart(u, 1), 3.0);
        QCOMPARE(opStart(u, 2), 5.0);
        QCOMPARE(dispatchFromName(dispatchName(Dispatch::CriticalPath)), std::optional{Dispatch::CriticalPath});
        QCOMPARE(dispatchFromName("ready"), std::optional{Dispatch::ReadyOrder});
        QVERIFY(!dispatchFromName("fifo"));
    }

    void zeroDurationOps()
    {
        // GPU0: z1(0) 0-0, z2(0) 0-0, a(5) 0-5, z3(0) 5-5. z4 (0 us) on GPU1 reads z2's
        // 100 bytes: transfer 0-6 (5 + 1), z4 6-6. Step 6.
        GraphBuilder b("zero");
        b.addOp(makeOp("z1", 0));
        b.addOp(makeOp("z2", 0, 100));
        b.addOp(makeOp("a", 5));
        b.addOp(makeOp("z3", 0));
        b.addOp(makeOp("z4", 0));
        b.addEdge("z1", "z2");
        b.addEdge("z2", "a");
        b.addEdge("a", "z3");
        b.addEdge("z2", "z4");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0, 0, 1}, true);
        QCOMPARE(r.timeline.ops.size(), size_t(5));
        QCOMPARE(opStart(r, 2), 0.0);
        QCOMPARE(opStart(r, 3), 5.0);
        QCOMPARE(opStart(r, 4), 6.0);
        QCOMPARE(r.stepTimeUs, 6.0);
        QCOMPARE(r.deviceBusyUs, (std::vector<double>{5.0, 0.0}));

        const Graph empty = GraphBuilder("empty").build();
        Simulator none(empty, c);
        QCOMPARE(none.run({}).stepTimeUs, 0.0);
    }

    void badPlacementThrows()
    {
        GraphBuilder b("one");
        b.addOp(makeOp("a", 1));
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim.run({}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim.run({2}));
        QCOMPARE(sim.run({1}).stepTimeUs, 1.0); // still usable afterwards
    }

    void deterministicAndReusable()
    {
        const Graph g = randomGraph(7, 300);
        const Cluster c = gpus(4);
        const Placement p1 = randomPlacement(1, g.opCount(), 4);
        const Placement p2 = randomPlacement(2, g.opCount(), 4);
        Simulator reused(g, c);
        const SimResult first = reused.run(p1, true);
        compareResults(reused.run(p1, true), first);
        const SimResult second = reused.run(p2, true);
        Simulator fresh(g, c);
        compareResults(fresh.run(p2, true), second);
        QVERIFY(first.stepTimeUs != second.stepTimeUs);
    }

    void runAllocatesNothingAfterFirstCall()
    {
        const Graph g = randomGraph(11, 400);
        const Cluster c = gpus(4);
        const Placement p1 = randomPlacement(3, g.opCount(), 4);
        const Placement p2 = randomPlacement(4, g.opCount(), 4);
        Simulator sim(g, c);
        sim.run(p1);
        long before = gAllocations.load();
        sim.run(p2);
        sim.run(p1);
        QCOMPARE(gAllocations.load() - before, 0L);

        sim.run(p1, true); // the first timeline reserves its capacity
        before = gAllocations.load();
        sim.run(p2, true);
        sim.run(p1, false);
        sim.run(p1, true);
        QCOMPARE(gAllocations.load() - before, 0L);
    }

    void matchesNaiveReference()
    {
        // Random graphs with zero-duration ops, duplicate edges and shared tensors, against
        // the linear-scan reference above; memory against an interval sweep of the timeline.
        for (unsigned seed = 1; seed <= 25; ++seed) {
            const int devices = 1 + static_cast<int>(seed % 4);
            const Graph g = randomGraph(seed, 40 + static_cast<int>(seed) * 7);
            Cluster c = gpus(devices, Link{50.0 * seed, seed % 3 == 0 ? 0.0 : 3.0});
            if (devices > 1)
                c.setLink(0, 1, Link{10.0, 1.0});
            const Placement p = randomPlacement(seed * 31, g.opCount(), devices);
            Simulator sim(g, c);
            const SimResult& r = sim.run(p, true);
            const Reference ref = referenceRun(g, c, p);
            QCOMPARE(r.stepTimeUs, ref.stepUs);
            QCOMPARE(r.linkBytes, ref.linkBytes);
            QCOMPARE(r.timeline.ops.size(), size_t(g.opCount()));
            for (const OpSpan& s : r.timeline.ops) {
                QCOMPARE(s.startUs, ref.start[s.op]);
                QCOMPARE(s.endUs, ref.end[s.op]);
            }
            const std::vector<double> live = peakLiveFromTimeline(g, c, p, r.timeline);
            for (int d = 0; d < devices; ++d) {
                double params = 0.0, resident = 0.0;
                for (OpId op = 0; op < g.opCount(); ++op)
                    if (p[op] == d) {
                        params += g.op(op).paramBytes;
                        resident += g.op(op).residentBytes;
                    }
                QCOMPARE(r.peakMemoryBytes[d], params * 3.0 + resident + live[d]);
            }
            QVERIFY(r.stepTimeUs >= lowerBound(g, c).valueUs());
        }
    }

    void denseMultigraphsMatchNaiveReference()
    {
        // The run skips the memory bookkeeping of ops without bytes (output and every out-edge
        // zero): dense graphs with parallel edges, bytes-free producers, producers without
        // output bytes that still send bytes on an edge, and edges to one device that differ in
        // bytes, against the linear-scan reference (times, transfers) and the interval sweep
        // (memory), bit for bit.
        int parallel = 0;
        int bytesFree = 0;
        for (unsigned seed = 1; seed <= 30; ++seed) {
            const int devices = 2 + static_cast<int>(seed % 4);
            const Graph g = denseGraph(seed, 30 + static_cast<int>(seed) * 2);
            std::map<std::pair<OpId, OpId>, int> pairs;
            for (const Edge& e : g.edges())
                parallel += ++pairs[{e.from, e.to}] == 2 ? 1 : 0;
            for (const Op& o : g.ops())
                bytesFree += o.outputBytes == 0.0 ? 1 : 0;
            Cluster c = gpus(devices, Link{20.0 * seed, seed % 5 == 0 ? 0.0 : 2.0});
            c.setLink(1, 0, Link{5.0, 1.0});
            Simulator sim(g, c);
            for (unsigned k = 0; k < 3; ++k) { // one Simulator, several placements
                const Placement p = randomPlacement(seed * 97 + k, g.opCount(), devices);
                const SimResult& r = sim.run(p, true);
                const Reference ref = referenceRun(g, c, p);
                QCOMPARE(r.stepTimeUs, ref.stepUs);
                QCOMPARE(r.linkBytes, ref.linkBytes);
                for (const OpSpan& span : r.timeline.ops) {
                    QCOMPARE(span.startUs, ref.start[span.op]);
                    QCOMPARE(span.endUs, ref.end[span.op]);
                }
                const std::vector<double> live = peakLiveFromTimeline(g, c, p, r.timeline);
                for (int d = 0; d < devices; ++d) {
                    double params = 0.0;
                    for (OpId op = 0; op < g.opCount(); ++op)
                        params += p[op] == d ? g.op(op).paramBytes : 0.0;
                    QCOMPARE(r.peakMemoryBytes[d], params * 3.0 + live[d]);
                }
            }
        }
        QVERIFY2(parallel > 100, qPrintable(QString("only %1 parallel edges").arg(parallel)));
        QVERIFY2(bytesFree > 300, qPrintable(QString("only %1 bytes-free ops").arg(bytesFree)));
    }

    // Edges between ops that always share a device, carrying nothing, implied by another path
    // (core/sim/ImpliedEdges.h), are left out of every run; the runs are the same, bit for
    // bit, as with every edge (and as the naive reference's), whole and resumed.
    void impliedEdgesChangeNoRun()
    {
        int leftOut = 0, kept = 0;
        for (unsigned seed = 1; seed <= 20; ++seed) {
            const Graph g = pinnedDenseGraph(seed, 50 + static_cast<int>(seed) * 3);
            std::vector<Device> devices{Device{"/device:CPU:0", DeviceKind::Cpu, 1.0, 1e12}};
            for (int i = 0; i < 1 + static_cast<int>(seed % 3); ++i)
                devices.push_back(gpu("/device:GPU:" + std::to_string(i)));
            Cluster c("cpu-and-gpus", devices, Link{20.0 * seed, seed % 4 == 0 ? 0.0 : 2.0});
            const std::vector<char> implied = impliedLocalEdges(g, c);
            QVERIFY(!implied.empty());
            for (EdgeId e = 0; e < g.edgeCount(); ++e) {
                const Edge& edge = g.edge(e);
                if (!implied[static_cast<size_t>(e)]) {
                    ++kept;
                    continue;
                }
                ++leftOut;
                QCOMPARE(edge.bytes, 0.0);
                QVERIFY(g.colocationGroup(edge.from) >= 0 || (g.isCpuPinned(edge.from) && g.isCpuPinned(edge.to)));
            }
            SimOptions every;
            every.leaveOutImpliedEdges = false;
            Simulator pruned(g, c);
            Simulator whole(g, c, every);
            IncrementalSimulator resumed(g, c);
            for (unsigned k = 0; k < 4; ++k) {
                const Placement p = validPlacement(g, c, seed * 131 + k);
                QVERIFY(!placementProblem(g, c, p));
                const SimResult a = pruned.run(p, true);
                compareResults(a, whole.run(p, true));
                const Reference ref = referenceRun(g, c, p);
                QCOMPARE(a.stepTimeUs, ref.stepUs);
                for (const OpSpan& span : a.timeline.ops)
                    QCOMPARE(span.endUs, ref.end[span.op]);
                QCOMPARE(resumed.run(p).stepTimeUs, a.stepTimeUs); // resumed from the previous one
                // Under critical-path dispatch too: the edges decide no op's readiness, and a
                // left-out edge shortens no path (another path implies it).
                SimOptions byPath;
                byPath.dispatch = Dispatch::CriticalPath;
                SimOptions byPathEvery = byPath;
                byPathEvery.leaveOutImpliedEdges = false;
                compareResults(Simulator(g, c, byPath).run(p, true), Simulator(g, c, byPathEvery).run(p, true));
            }
            // With two CPUs, pinned ops may sit on different ones: their edges stay.
            devices.push_back(Device{"/device:CPU:1", DeviceKind::Cpu, 1.0, 1e12});
            const Cluster twoCpus("two-cpus", devices, Link{20.0, 2.0});
            const std::vector<char> stay = impliedLocalEdges(g, twoCpus);
            for (size_t e = 0; e < stay.size(); ++e)
                if (stay[e])
                    QVERIFY(g.colocationGroup(g.edge(static_cast<EdgeId>(e)).from) >= 0);
        }
        QVERIFY2(leftOut > 500 && kept > 5000, qPrintable(QString("%1 left out, %2 kept").arg(leftOut).arg(kept)));
    }

    void lowerBoundValues()
    {
        // a (gpu 10, cpu 100) -> b (gpu 20, cpu 40); c (gpu 40, cpu 30) alone.
        GraphBuilder b("bound");
        Op a = makeOp("a", 10);
        Op bb = makeOp("b", 20);
        bb.timeUs = {40, 20};
        Op cc = makeOp("c", 40);
        cc.timeUs = {30, 40};
        b.addOp(a);
        b.addOp(bb);
        b.addOp(cc);
        b.addEdge("a", "b");
        const Graph g = std::move(b).build();

        // GPU speed 1, GPU speed 2, CPU speed 1. Fastest: a min(10/2, 100) = 5,
        // b min(20/2, 40) = 10, c min(40/2, 30) = 20: path max(5 + 10, 20) = 20.
        // Work by speeds: (10 + 20 + 30) / (1 + 2 + 1) = 15. At the best weights, the
        // fractional assignment: the CPU takes a share y of c (it saves the GPUs 40 per 30 of
        // its time, b only 20 per 40), 30 y = (70 - 40 y) / 3 on the GPUs' 3 units of speed:
        // T = 70 / (13 / 3) = 16.15. The device windows at those weights give 21; the optimum,
        // over all 27 placements, is 30 (c on the CPU, a and b on g1; or c on g1, a and b on g0).
        const Cluster mixed("mixed", {gpu("g0"), gpu("g1", 2.0), Device{"cpu", DeviceKind::Cpu, 1.0}}, Link{});
        LowerBound lb = lowerBound(g, mixed);
        QCOMPARE(lb.criticalPathUs, 20.0);
        QVERIFY2(std::abs(lb.workUs - 210.0 / 13.0) < 1e-6, qPrintable(QString::number(lb.workUs, 'f', 9)));
        QVERIFY2(std::abs(lb.windowsUs - 21.0) < 1e-6, qPrintable(QString::number(lb.windowsUs, 'f', 9)));
        LowerBound components = lb;
        components.blocksUs = 0.0;
        QCOMPARE(components.valueUs(), lb.windowsUs);
        // Over its placements (three ops: a small graph is one block, docs/simulator.md) the
        // bound is the optimum below.
        QCOMPARE(lb.blocksUs, 30.0);
        double optimum = std::numeric_limits<double>::infinity();
        for (int code = 0; code < 27; ++code)
            optimum = std::min(optimum,
                               Simulator(g, mixed)
                                   .run({static_cast<DeviceId>(code % 3), static_cast<DeviceId>(code / 3 % 3),
                                         static_cast<DeviceId>(code / 9)})
                                   .stepTimeUs);
        QCOMPARE(optimum, 30.0);

        // Two GPUs of speed 1 only: path max(10 + 20, 40) = 40; work (10 + 20 + 40) / 2 = 35.
        lb = lowerBound(g, gpus(2));
        QCOMPARE(lb.criticalPathUs, 40.0);
        QCOMPARE(lb.workUs, 35.0);

        // Four independent 10 us ops on two GPUs: path 10, work 40 / 2 = 20 dominates.
        GraphBuilder wide("wide");
        for (const char* name : {"w1", "w2", "w3", "w4"})
            wide.addOp(makeOp(name, 10));
        const Graph wg = std::move(wide).build();
        lb = lowerBound(wg, gpus(2));
        QCOMPARE(lb.criticalPathUs, 10.0);
        QCOMPARE(lb.workUs, 20.0);
        QCOMPARE(lb.valueUs(), 20.0);
        QCOMPARE(Simulator(wg, gpus(2)).run({0, 1, 0, 1}).stepTimeUs, 20.0); // the bound is tight here
        QCOMPARE(std::string(lb.source()), std::string("work"));
    }

    void forkJoinBoundPricesTransfers()
    {
        // Join: x (10 us) and y (10 us) feed z (1 us) over 1000-byte edges; 2 GPUs whose links
        // take 100 + 1000 / 100 = 110 us. z's inputs either share its GPU and run one after
        // the other (z starts at 20 at the earliest) or one of them pays a transfer (10 + 110):
        // the bound is 20 + 1 = 21, while path (11) and work (10.5) ignore the choice.
        const Cluster c = gpus(2, Link{100.0, 100.0});
        GraphBuilder join("join");
        join.addOp(makeOp("x", 10));
        join.addOp(makeOp("y", 10));
        join.addOp(makeOp("z", 1));
        join.addEdge("x", "z", 1000);
        join.addEdge("y", "z", 1000);
        const Graph jg = std::move(join).build();
        LowerBound lb = lowerBound(jg, c);
        QCOMPARE(lb.criticalPathUs, 11.0);
        QCOMPARE(lb.workUs, 10.5);
        QCOMPARE(lb.forkJoinUs, 21.0);
        QCOMPARE(std::string(lb.source()), std::string("fork-join"));
        QCOMPARE(Simulator(jg, c).run({0, 0, 0}).stepTimeUs, 21.0); // tight: one GPU
        QCOMPARE(Simulator(jg, c).run({0, 1, 0}).stepTimeUs, 121.0);

        // Fork: r (1 us) feeds s and t (10 us each): the mirror image, through tails.
        GraphBuilder fork("fork");
        fork.addOp(makeOp("r", 1));
        fork.addOp(makeOp("s", 10));
        fork.addOp(makeOp("t", 10));
        fork.addEdge("r", "s", 1000);
        fork.addEdge("r", "t", 1000);
        const Graph fg = std::move(fork).build();
        lb = lowerBound(fg, c);
        QCOMPARE(lb.criticalPathUs, 11.0);
        QCOMPARE(lb.forkJoinUs, 21.0);
        QCOMPARE(Simulator(fg, c).run({0, 0, 0}).stepTimeUs, 21.0);

        // With cheap links (1 us) the transfer wins: z starts at 10 + 1 + 0.01 at the earliest.
        lb = lowerBound(jg, gpus(2, Link{1e5, 1.0}));
        QCOMPARE(lb.forkJoinUs, 12.01);
        // One device: no transfer exists, every join runs on it.
        QCOMPARE(lowerBound(jg, gpus(1)).forkJoinUs, 21.0);
    }

    // s (10 us) forks to a, b, c, d (100 us each), which join at t (10 us), over 1000-byte
    // edges on 2 GPUs.
    static Graph wideDiamond()
    {
        GraphBuilder b("diamond");
        b.addOp(makeOp("s", 10));
        for (const char* name : {"a", "b", "c", "d"})
            b.addOp(makeOp(name, 100));
        b.addOp(makeOp("t", 10));
        for (const char* name : {"a", "b", "c", "d"}) {
            b.addEdge("s", name, 1000);
            b.addEdge(name, "t", 1000);
        }
        return std::move(b).build();
    }

    void forkJoinBoundGroupsRemoteNeighbours()
    {
        // Links of 50 + 1000 / 1000 = 51 us. Alone, a remote input of t costs 10 + 100 + 51 =
        // 161; but with one other GPU, two remote inputs run there one after the other: 10 +
        // 200 + 51 = 261. t's best split is two local (ending at 210) and two remote (261):
        // head 261, bound 271. The simulator's optimum is 320 (three and one).
        const Graph g = wideDiamond();
        const Cluster c = gpus(2, Link{1000.0, 50.0});
        const LowerBound lb = lowerBound(g, c);
        QCOMPARE(lb.forkJoinUs, 271.0);
        QCOMPARE(Simulator(g, c).run({0, 0, 0, 0, 1, 0}).stepTimeUs, 320.0);
        QVERIFY(Simulator(g, c).run({0, 0, 0, 1, 1, 0}).stepTimeUs >= 320.0);
    }

    void ancestryBoundSeesGrandparents()
    {
        // p and q (40 us each) feed m and n (1 us), which join at z (1 us), over 1000-byte
        // edges on 2 GPUs with 110 us links. At z's join, m and n sharing its GPU end at 42 at
        // the earliest: fork-join 43. But then p and q, ancestors of z, share that GPU too (a
        // remote one reaches z only through a transfer: 40 + 1 + 110), so z starts at 82 at
        // the earliest: 83, the one-GPU step and the optimum.
        const Cluster c = gpus(2, Link{100.0, 100.0});
        GraphBuilder b("grandparents");
        for (const char* name : {"p", "q"})
            b.addOp(makeOp(name, 40));
        for (const char* name : {"m", "n", "z"})
            b.addOp(makeOp(name, 1));
        b.addEdge("p", "m", 1000);
        b.addEdge("q", "n", 1000);
        b.addEdge("m", "z", 1000);
        b.addEdge("n", "z", 1000);
        const Graph g = std::move(b).build();
        LowerBound lb = lowerBound(g, c);
        QCOMPARE(lb.forkJoinUs, 43.0);
        QCOMPARE(lb.ancestryUs, 83.0);
        QCOMPARE(lb.valueUs(), 83.0);
        QCOMPARE(std::string(lb.source()), std::string("ancestry"));
        QCOMPARE(Simulator(g, c).run({0, 0, 0, 0, 0}).stepTimeUs, 83.0);  // tight
        QCOMPARE(Simulator(g, c).run({0, 1, 0, 1, 0}).stepTimeUs, 152.0); // one transfer: 41 + 110 + 1
        QCOMPARE(opWindows(g, c).headUs[4], 82.0);

        // The mirror image: z forks to m and n, which feed p and q; through descendants.
        GraphBuilder m("grandchildren");
        for (const char* name : {"z", "m", "n"})
            m.addOp(makeOp(name, 1));
        for (const char* name : {"p", "q"})
            m.addOp(makeOp(name, 40));
        m.addEdge("z", "m", 1000);
        m.addEdge("z", "n", 1000);
        m.addEdge("m", "p", 1000);
        m.addEdge("n", "q", 1000);
        const Graph mg = std::move(m).build();
        lb = lowerBound(mg, c);
        QCOMPARE(lb.forkJoinUs, 43.0);
        QCOMPARE(lb.ancestryUs, 83.0);
        QCOMPARE(Simulator(mg, c).run({0, 0, 0, 0, 0}).stepTimeUs, 83.0);
        QCOMPARE(opWindows(mg, c).tailUs[0], 83.0);
    }

    void ancestryBoundPricesRoundTrips()
    {
        // u (1 us) forks to a (10) and b (9), which join at v (1), over 1000-byte edges on 2
        // GPUs with 3 us transfers. A split of v's ancestors alone allows v at 13: b remote
        // after u (1 + 9 + 3), a with u on v's GPU. But if u shares v's GPU, b taken off it
        // pays a transfer out and one back (1 + 3 + 9 + 3 = 16); keeping both branches there
        // runs them one after the other (20); and with u elsewhere, a's route to v crosses
        // devices (1 + 10 + 3 = 14). So v starts at 14 at the earliest: 15, the optimum.
        const Cluster c = gpus(2, Link{1000.0, 2.0});
        GraphBuilder b("round-trip");
        b.addOp(makeOp("u", 1));
        b.addOp(makeOp("a", 10));
        b.addOp(makeOp("b", 9));
        b.addOp(makeOp("v", 1));
        for (const auto& [from, to] : {std::pair{"u", "a"}, {"u", "b"}, {"a", "v"}, {"b", "v"}})
            b.addEdge(from, to, 1000);
        const Graph g = std::move(b).build();
        const LowerBound lb = lowerBound(g, c);
        QCOMPARE(lb.forkJoinUs, 14.0);
        QCOMPARE(lb.ancestryUs, 15.0);
        QCOMPARE(opWindows(g, c).headUs[3], 14.0);
        QCOMPARE(opWindows(g, c).tailUs[0], 15.0); // the mirror image, through descendants
        QCOMPARE(randomgraphs::enumeratedOptimumAnyDevices(g, c), 15.0);
        QCOMPARE(Simulator(g, c).run({0, 0, 1, 1}).stepTimeUs, 15.0);
    }

    void ancestryBoundPricesTheForkDeviceOfACrossing()
    {
        // u (1 us) forks to two branches a1 -> a2 and b1 -> b2 (4 us each) joined at v (1), on 2
        // GPUs. u's output is dear to move (10 us), every later edge cheap (1 us). The head of
        // v, case by case:
        // - u and v apart: a route from u to v may cross at a cheap edge (v at 1 + 4 + 1 + 4 =
        //   10), but a branch crossing there runs its first op on u's device: a1 and b1 there
        //   one after the other, each with a route of 5 us to v ahead of it (v at 1 + 8 + 5 =
        //   14), unless a branch pays the dear edge (1 + 10 + 8 = 19).
        // - u and v together: a1 and b1 on their device, each with a path of 4 us to v after it
        //   (1 + 8 + 4 = 13); a2 and b2 off it pay a transfer each way (1 + 5 + 4 + 1 = 11).
        // So v starts at 13 at the earliest, where pricing the ops between by their routes
        // alone, and those on the device without the path after them, gave 10. The step: 14,
        // the optimum (a2 alone off the device), which the tail of u (a1 and b1 on its device,
        // 5 us after each) already gave.
        const Cluster c = gpus(2, Link{1000.0, 0.0});
        GraphBuilder b("apart");
        for (const auto& [name, us] :
             {std::pair{"u", 1.0}, {"a1", 4.0}, {"a2", 4.0}, {"b1", 4.0}, {"b2", 4.0}, {"v", 1.0}})
            b.addOp(makeOp(name, us));
        b.addEdge("u", "a1", 10000);
        b.addEdge("u", "b1", 10000);
        for (const auto& [from, to] : {std::pair{"a1", "a2"}, {"b1", "b2"}, {"a2", "v"}, {"b2", "v"}})
            b.addEdge(from, to, 1000);
        const Graph g = std::move(b).build();
        const OpWindows windows = opWindows(g, c);
        QCOMPARE(windows.headUs[5], 13.0);
        QCOMPARE(windows.tailUs[0], 14.0);
        QCOMPARE(lowerBound(g, c).ancestryUs, 14.0);
        QCOMPARE(randomgraphs::enumeratedOptimumAnyDevices(g, c), 14.0);
        QCOMPARE(Simulator(g, c).run({0, 0, 1, 0, 0, 0}).stepTimeUs, 14.0);
    }

    void ancestryBoundCutsAtAnOpOfThePath()
    {
        // A random graph of 10 ops (seed 140661 of a search for such cases) on 2 GPUs, 1000-byte
        // edges over 7 us transfers. The ancestry bound over the whole graph combines heads and
        // tails at one op: 65 us. Cut at op7, the op of the longest path (58 us) nearest its
        // middle: op7 ends no sooner than its ancestors' bound, 52, and op9 (15) follows: 67.
        // Enumerating every placement gives 71.
        const Cluster c = gpus(2, Link{1000.0, 6.0});
        GraphBuilder b("cut");
        const std::vector<std::pair<double, std::vector<int>>> ops = {
            {6, {}},   {4, {0}},    {10, {0}},    {11, {1}}, {7, {1, 2}},
            {10, {0}}, {6, {5, 3}}, {16, {4, 6}}, {4, {1}},  {15, {7, 0}}};
        for (size_t i = 0; i < ops.size(); ++i) {
            b.addOp(makeOp(("op" + std::to_string(i)).c_str(), ops[i].first, 1000));
            for (int from : ops[i].second)
                b.addEdge(static_cast<OpId>(from), static_cast<OpId>(i), 1000);
        }
        const Graph g = std::move(b).build();
        const OpWindows windows = opWindows(g, c);
        double whole = 0.0;
        for (size_t i = 0; i < windows.headUs.size(); ++i)
            whole = std::max(whole, windows.headUs[i] + windows.tailUs[i]);
        QCOMPARE(whole, 65.0);
        const LowerBound lb = lowerBound(g, c);
        QCOMPARE(lb.criticalPathUs, 58.0);
        QCOMPARE(lb.ancestryUs, 67.0);
        QCOMPARE(lb.blocksUs, 68.0); // over its placements (docs/simulator.md, "blocks")
        QCOMPARE(lb.valueUs(), 68.0);
        QCOMPARE(randomgraphs::enumeratedOptimum(g, c), 71.0);
    }

    void workBoundTakesItsBestWeightingAndThePinning()
    {
        // A CPU and two GPUs of speed 1, ops without edges. Three ops pinned to the CPU (no GPU
        // kernel) of 10 us, four of 10 us on a GPU and 40 on the CPU. Weighted by speed, each
        // op counts its least time on any device: (3 x 10 + 4 x 10) / 3 = 23.3. But the pinned
        // ops keep the CPU busy for 30 in every valid placement, which is the optimum.
        const Cluster c("cpu+2",
                        {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0}, gpu("/device:GPU:0"), gpu("/device:GPU:1")},
                        Link{});
        auto graph = [](int pinned, double pinnedUs, int free, double gpuUs, double cpuUs) {
            GraphBuilder b("work");
            for (int i = 0; i < pinned; ++i) {
                Op o = makeOp(("pinned" + std::to_string(i)).c_str(), pinnedUs);
                o.timeUs = {pinnedUs, pinnedUs};
                o.cpuOnly = true;
                b.addOp(std::move(o));
            }
            for (int i = 0; i < free; ++i) {
                Op o = makeOp(("free" + std::to_string(i)).c_str(), gpuUs);
                o.timeUs = {cpuUs, gpuUs};
                b.addOp(std::move(o));
            }
            return std::move(b).build();
        };
        auto optimum = [&](const Graph& g) { return randomgraphs::enumeratedValidOptimum(g, c); };
        const Graph pinned = graph(3, 10, 4, 10, 40);
        const LowerBound lb = lowerBound(pinned, c);
        // (The weights are searched for, to within 10^-9.)
        QVERIFY2(std::abs(lb.workUs - 30.0) < 1e-6, qPrintable(QString::number(lb.workUs, 'f', 9)));
        QVERIFY(std::abs(lb.valueUs() - 30.0) < 1e-6);
        QCOMPARE(optimum(pinned), 30.0);

        // Two pinned ops of 10, six of 15 on a GPU and 20 on the CPU: by speed (20 + 90) / 3 =
        // 36.7. The best weighting is the fractional assignment: the CPU takes 25/27.5 of a
        // GPU op, 20 + 20 x 10/11 = (90 - 15 x 10/11) / 2 = 38.18; the optimum is 45 (three
        // ops on each GPU).
        const Graph shared = graph(2, 10, 6, 15, 20);
        QCOMPARE(std::round(lowerBound(shared, c).workUs * 100) / 100, 38.18);
        QCOMPARE(optimum(shared), 45.0);
    }

    // A batch's host-to-device copy takes no time on the CPU and 50 us on a GPU; the
    // convolution and ReLU after it take 10 and 5 us on a GPU, 100 and 50 on the CPU. Two GPUs
    // joined by a fast link (3 us for the batch), the CPU behind a slow one (30 us). At their
    // fastest times the copy ends at 0 beside the convolution: a bound of 15. But the
    // convolution on a GPU waits for the copy's 50 us there or its 30 us over the CPU's link,
    // and on the CPU ends at 100: the ends on a CPU or a GPU (docs/simulator.md) start the ReLU
    // no sooner than 40, and bound the step at 45, the optimum (the copy on the CPU). The
    // convolution's window still says it may start at 0 (on the CPU it may).
    void ancestryBoundEndsOnTheCpuOrAGpu()
    {
        const Cluster c("cpu+2",
                        {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0}, gpu("/device:GPU:0"), gpu("/device:GPU:1")},
                        Link{1000.0, 0.0});
        Cluster slowHost = c;
        for (DeviceId g : {1, 2}) {
            slowHost.setLink(0, g, Link{100.0, 0.0});
            slowHost.setLink(g, 0, Link{100.0, 0.0});
        }
        GraphBuilder b("copy");
        const std::array<std::tuple<const char*, double, double>, 3> ops{
            {{"input/MemcpyHtoD", 0.0, 50.0}, {"conv", 100.0, 10.0}, {"relu", 50.0, 5.0}}};
        for (const auto& [name, cpuUs, gpuUs] : ops) {
            Op o = makeOp(name, gpuUs, 3000);
            o.timeUs = {cpuUs, gpuUs};
            b.addOp(std::move(o));
        }
        b.addEdge("input/MemcpyHtoD", "conv", 3000);
        b.addEdge("conv", "relu", 3000);
        const Graph g = std::move(b).build();
        const LowerBound lb = lowerBound(g, slowHost);
        QCOMPARE(lb.forkJoinUs, 15.0);
        QCOMPARE(lb.ancestryUs, 45.0);
        QCOMPARE(randomgraphs::enumeratedValidOptimum(g, slowHost), 45.0);
        const OpWindows w = opWindows(g, slowHost);
        QCOMPARE(w.headUs[1], 0.0);
        QCOMPARE(w.headUs[2], 40.0);
        // With the CPU's link as fast as the GPUs', the copy still crosses it: 3 + 10 + 5.
        QCOMPARE(lowerBound(g, c).ancestryUs, 18.0);
        QCOMPARE(randomgraphs::enumeratedValidOptimum(g, c), 18.0);

        // The copy forks to two kernels of 40 us (400 on the CPU) that join at a third of 10:
        // a kernel on the other GPU reaches the join over the GPUs' link, not the CPU's. Each
        // GPU gets the batch at 30 and a kernel; the join starts at 73: 83, the optimum.
        GraphBuilder f("fork");
        const std::array<std::tuple<const char*, double, double>, 4> forked{
            {{"input/MemcpyHtoD", 0.0, 50.0}, {"k1", 400.0, 40.0}, {"k2", 400.0, 40.0}, {"join", 100.0, 10.0}}};
        for (const auto& [name, cpuUs, gpuUs] : forked) {
            Op o = makeOp(name, gpuUs, 3000);
            o.timeUs = {cpuUs, gpuUs};
            f.addOp(std::move(o));
        }
        for (const auto& [from, to] :
             {std::pair{"input/MemcpyHtoD", "k1"}, {"input/MemcpyHtoD", "k2"}, {"k1", "join"}, {"k2", "join"}})
            f.addEdge(from, to, 3000);
        const Graph fork = std::move(f).build();
        QCOMPARE(randomgraphs::enumeratedValidOptimum(fork, slowHost), 83.0);
        QCOMPARE(lowerBound(fork, slowHost).ancestryUs, 83.0);
    }

    void opsPinnedToTheOneCpuAreNeverRemote()
    {
        // p1 and p2 have no GPU kernel (10 us on the CPU); p1 forks to k1 and k2 (40 us on a
        // GPU, 400 on the CPU), which join at p2, over 20 us transfers, on a CPU and two GPUs.
        // As if p1 and p2 could sit apart, p2 would start after p1, k1 and one transfer: 70,
        // a bound of 80. But they share the CPU, so k1 and k2 run there after p1 (90 at their
        // fastest) or pay a transfer out and one back (90): 100, the optimum (a kernel per GPU).
        const Cluster c("cpu+2",
                        {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0}, gpu("/device:GPU:0"), gpu("/device:GPU:1")},
                        Link{1000.0, 19.0});
        GraphBuilder b("pinned");
        for (const char* name : {"p1", "k1", "k2", "p2"}) {
            Op o = makeOp(name, name[0] == 'p' ? 10 : 40, 1000);
            o.timeUs = name[0] == 'p' ? std::array<double, 2>{10, 10} : std::array<double, 2>{400, 40};
            o.cpuOnly = name[0] == 'p';
            b.addOp(std::move(o));
        }
        for (const auto& [from, to] : {std::pair{"p1", "k1"}, {"p1", "k2"}, {"k1", "p2"}, {"k2", "p2"}})
            b.addEdge(from, to, 1000);
        const Graph g = std::move(b).build();
        const LowerBound lb = lowerBound(g, c);
        QCOMPARE(lb.ancestryUs, 100.0);
        QCOMPARE(Simulator(g, c).run({0, 1, 2, 0}).stepTimeUs, 100.0);
        // Two CPUs: the pinned ops may sit apart, and the bound must allow it.
        const Cluster two("2cpu+2",
                          {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0}, Device{"/device:CPU:1", DeviceKind::Cpu, 1.0},
                           gpu("/device:GPU:0"), gpu("/device:GPU:1")},
                          Link{1000.0, 19.0});
        QCOMPARE(lowerBound(g, two).ancestryUs, 80.0);
        QCOMPARE(Simulator(g, two).run({0, 2, 3, 1}).stepTimeUs, 100.0);
    }

    void deviceWindowsStartGpusAfterThePinnedSources()
    {
        // p1 and p2 have no GPU kernel (10 us on the CPU) and each feeds four kernels (40 us on
        // a GPU, 400 on the CPU) over 20 us transfers, on a CPU and two GPUs. The graph's two
        // sources are pinned, so neither GPU can start at 0: each waits for a kernel's input,
        // p1 then a transfer, 30 us. The optimum is 190 (each GPU: two of p1's kernels from
        // 30, then two of p2's). With the CPU weighted 0.1 (its best weighting: a kernel does
        // 40 there as on a GPU), (2 + 8 x 40 + 2 x 30) / 2.1 = 181.9; as if the sources could
        // start the GPUs, (2 + 320 + 0.1 x 30) / 2.1 = 154.8.
        const Cluster c("cpu+2",
                        {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0}, gpu("/device:GPU:0"), gpu("/device:GPU:1")},
                        Link{1000.0, 19.0});
        GraphBuilder b("pinned-sources");
        for (const char* p : {"p1", "p2"}) {
            Op o = makeOp(p, 10, 1000);
            o.timeUs = {10, 10};
            o.cpuOnly = true;
            b.addOp(std::move(o));
            for (int k = 0; k < 4; ++k) {
                const std::string name = std::string(p) + "k" + std::to_string(k);
                Op kernel = makeOp(name.c_str(), 40, 1000);
                kernel.timeUs = {400, 40};
                b.addOp(std::move(kernel));
                b.addEdge(p, name, 1000);
            }
        }
        const Graph g = std::move(b).build();
        const LowerBound lb = lowerBound(g, c);
        QCOMPARE(std::round(lb.windowsUs * 10) / 10, 181.9);
        LowerBound components = lb; // without the bound over its placements (a small graph)
        components.blocksUs = 0.0;
        QCOMPARE(components.source(), "device-windows");
        QVERIFY(lb.blocksUs <= 190.0);
        QCOMPARE(randomgraphs::enumeratedValidOptimum(g, c), 190.0);
    }

    void deviceWindowsBound()
    {
        // Links of 200 + 1 us. A second GPU starts no sooner than its first op's inputs arrive
        // (s then a transfer: 10 + 201) and, hosting no sink, stops 201 + 10 before the end; so
        // using both takes at least (420 + 211 + 211) / 2 = 421, and one GPU takes 420.
        const Graph g = wideDiamond();
        const Cluster c = gpus(2, Link{1000.0, 200.0});
        const LowerBound lb = lowerBound(g, c);
        QCOMPARE(lb.windowsUs, 420.0);
        QCOMPARE(lb.valueUs(), 420.0);
        QCOMPARE(std::string(lb.source()), std::string("device-windows"));
        QVERIFY(lb.forkJoinUs < 420.0);
        QCOMPARE(Simulator(g, c).run({0, 0, 0, 0, 0, 0}).stepTimeUs, 420.0); // tight: one GPU
        // Three GPUs: two may each take a branch, (420 + 2 x 422) / 3 = 421.33 > 420 still.
        QCOMPARE(lowerBound(g, gpus(3, Link{1000.0, 200.0})).windowsUs, 420.0);
    }

    // The device windows after a time (docs/simulator.md): work that cannot start before t must
    // fit in the devices' windows after t, and mirrored, work that cannot end after C - u.
    void deviceWindowsAfterATime()
    {
        // s(10) -> x1..x4 (10 each), and y(1) beside them, on two GPUs with free links. Whole
        // windows give (10 + 40 + 1) / 2 = 25.5; but none of the 40 us of x can start before 10,
        // so C >= 10 + 40 / 2 = 30, which s, x1, x2 on one GPU and x3, x4, y on the other take.
        const Cluster c = gpus(2, Link{1e12, 0.0});
        {
            GraphBuilder b("fan-out");
            b.addOp(makeOp("s", 10));
            for (const char* name : {"x1", "x2", "x3", "x4"}) {
                b.addOp(makeOp(name, 10));
                b.addEdge("s", name);
            }
            b.addOp(makeOp("y", 1));
            const Graph g = std::move(b).build();
            const LowerBound lb = lowerBound(g, c);
            QCOMPARE(lb.windowsUs, 30.0);
            QCOMPARE(lb.workUs, 25.5);
            QCOMPARE(Simulator(g, c).run({0, 0, 0, 1, 1, 1}).stepTimeUs, 30.0); // tight
        }
        {
            // Mirrored: x1..x4 -> t(10). Each x leaves at least t's 10 us after it ends.
            GraphBuilder b("fan-in");
            for (const char* name : {"x1", "x2", "x3", "x4"})
                b.addOp(makeOp(name, 10));
            b.addOp(makeOp("t", 10));
            for (const char* name : {"x1", "x2", "x3", "x4"})
                b.addEdge(name, "t");
            b.addOp(makeOp("y", 1));
            const Graph g = std::move(b).build();
            const LowerBound lb = lowerBound(g, c);
            QCOMPARE(lb.windowsUs, 30.0);
            QCOMPARE(Simulator(g, c).run({0, 0, 1, 1, 0, 1}).stepTimeUs, 30.0);
        }
    }

    void timelineContents()
    {
        // The chain-cut case: ops in start order with their devices, one transfer.
        GraphBuilder b("cut");
        b.addOp(makeOp("a", 10, 1000));
        b.addOp(makeOp("b", 20, 10));
        b.addOp(makeOp("c", 30, 10));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const Timeline& tl = sim.run({0, 1, 1}, true).timeline;
        QCOMPARE(tl.ops.size(), size_t(3));
        const double expected[3][3] = {{0, 0, 10}, {1, 25, 45}, {1, 45, 75}}; // device, start, end
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(tl.ops[i].op, OpId(i));
            QCOMPARE(tl.ops[i].device, DeviceId(expected[i][0]));
            QCOMPARE(tl.ops[i].startUs, expected[i][1]);
            QCOMPARE(tl.ops[i].endUs, expected[i][2]);
        }
        QCOMPARE(tl.transfers.size(), size_t(1));
        const TransferSpan& t = tl.transfers[0];
        QCOMPARE(t.producer, OpId(0));
        QCOMPARE(t.from, DeviceId(0));
        QCOMPARE(t.to, DeviceId(1));
        QCOMPARE(t.bytes, 1000.0);
        QCOMPARE(t.requestUs, 10.0);
        QCOMPARE(t.startUs, 10.0);
        QCOMPARE(t.endUs, 25.0);
        // Without recording, the timeline of the reused result is emptied.
        QVERIFY(sim.run({0, 1, 1}).timeline.ops.empty());
    }

    // docs/simulator.md "Collectives": a collective runs on its device's channel, beside the
    // device's compute; its inputs and consumers order it as any op's; two collectives of one
    // device take the channel in turn; a device's busy time is its compute's.
    void collectivesRunOnTheDevicesChannel()
    {
        // a(10) -> {coll(50), b(30)} on GPU0; coll's 1000 bytes cross to GPU1 in 15 us for c(5);
        // coll2(20) on GPU0 is ready at 0 and holds the channel until 20, so coll runs 20-70.
        GraphBuilder b("collectives");
        b.addOp(makeOp("a", 10));
        Op coll = makeOp("coll", 50, 1000);
        coll.collective = CollectiveKind::AllReduce;
        coll.measuredKinds = 1U << static_cast<int>(DeviceKind::Gpu); // its time, not the ring model's
        b.addOp(coll);
        b.addOp(makeOp("b", 30));
        b.addOp(makeOp("c", 5));
        Op coll2 = makeOp("coll2", 20);
        coll2.collective = CollectiveKind::Broadcast;
        coll2.measuredKinds = coll.measuredKinds;
        b.addOp(coll2);
        b.addEdge("a", "coll");
        b.addEdge("a", "b");
        b.addEdge("coll", "c", 1000);
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 0, 1, 0}, true);
        QCOMPARE(opStart(r, 0), 0.0);
        QCOMPARE(opStart(r, 4), 0.0);  // coll2: the channel, while a computes
        QCOMPARE(opStart(r, 2), 10.0); // b: the compute queue, while coll2 and coll run
        QCOMPARE(opStart(r, 1), 20.0); // coll: after coll2 on the channel
        QCOMPARE(opStart(r, 3), 85.0); // c: coll ends at 70, its output arrives at 85
        QCOMPARE(r.stepTimeUs, 90.0);
        QCOMPARE(r.deviceBusyUs, (std::vector<double>{40.0, 5.0}));
        // The critical path: coll2, then coll (the channel's order), the transfer, c.
        const CriticalPath critical = criticalPath(g, r);
        QCOMPARE(critical.ops, (std::vector<OpId>{4, 1, 3}));
        // The lower bound: the path a -> coll -> c (65, no transfer), not the 110 of all work on one queue.
        const LowerBound bound = lowerBound(g, c);
        QCOMPARE(bound.criticalPathUs, 65.0);
        QVERIFY2(bound.valueUs() <= r.stepTimeUs, std::to_string(bound.valueUs()).c_str());
        // The Chrome trace puts the collectives on a row of their own.
        const std::string json = chromeTraceJson(g, c, r);
        QVERIFY(json.find("/device:GPU:0 collectives") != std::string::npos);
        // The same graph without the mark: coll and coll2 take the compute queue.
        GraphBuilder plain("plain");
        for (const Op& op : g.ops()) {
            Op o = op;
            o.collective = CollectiveKind::None;
            plain.addOp(o);
        }
        for (const Edge& e : g.edges())
            plain.addEdge(e.from, e.to, e.bytes);
        const Graph p = std::move(plain).build();
        Simulator serial(p, c);
        QCOMPARE(serial.run({0, 0, 0, 1, 0}).stepTimeUs, 110.0); // a, coll2, coll, b one after another
    }

    void chromeTraceParses()
    {
        // The two-branch case: 5 ops and one transfer (1 -> 0); a name that needs escaping.
        GraphBuilder b("branches");
        b.addOp(makeOp("a1 \"quoted\"\\", 10));
        b.addOp(makeOp("a2", 10));
        b.addOp(makeOp("b1", 5));
        b.addOp(makeOp("b2", 30, 100));
        b.addOp(makeOp("j", 1));
        b.addEdge(0, 1, -1);
        b.addEdge("b1", "b2");
        b.addEdge("a2", "j");
        b.addEdge("b2", "j");
        const Graph g = std::move(b).build();
        const Cluster c = gpus(2);
        Simulator sim(g, c);
        const SimResult& r = sim.run({0, 0, 1, 1, 0}, true);
        const std::string json = chromeTraceJson(g, c, r);
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonArray events = doc.object().value("traceEvents").toArray();
        int complete = 0, threadNames = 0;
        bool sawTransfer = false, sawQuoted = false;
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            if (e.value("ph").toString() == "X") {
                ++complete;
                if (e.value("cat").toString() == "transfer") {
                    sawTransfer = true;
                    QCOMPARE(e.value("ts").toDouble(), 35.0);
                    QCOMPARE(e.value("dur").toDouble(), 6.0);
                    QCOMPARE(e.value("name").toString(), QString("b2"));
                }
                if (e.value("name").toString() == "a1 \"quoted\"\\")
                    sawQuoted = true;
            } else if (e.value("ph").toString() == "M" && e.value("name").toString() == "thread_name") {
                ++threadNames;
            }
        }
        QCOMPARE(complete, 6);
        QCOMPARE(threadNames, 3); // two devices and the one link used
        QVERIFY(sawTransfer);
        QVERIFY(sawQuoted);
    }
};

QTEST_APPLESS_MAIN(TestSimulator)
#include "test_simulator.moc"
