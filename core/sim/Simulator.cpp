#include "sim/Simulator.h"

#include "cluster/Cluster.h"
#include "graph/Graph.h"
#include "sim/MinHeap.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace post {

// Event-driven simulation over flat arrays. The graph and cluster are copied into compact
// arrays once (the Op structs carry strings and would spoil the cache); everything a run
// needs is sized here for the worst case, so run() only overwrites memory.
struct Simulator::Work {
    using Index = std::int32_t;

    // ---- Graph, flattened (constant) ----
    Index opCount = 0;
    Index edgeCount = 0;
    std::vector<double> opTime;      // opCount x kDeviceKindCount, for speed 1.0
    std::vector<double> outputBytes; // per op
    std::vector<double> paramBytes;  // per op
    std::vector<Index> inDegree;     // per op
    std::vector<Index> inOffset;     // CSR of inputs: opCount + 1
    std::vector<Index> inFrom;       // producer per input slot
    std::vector<Index> outOffset;    // CSR of outputs: opCount + 1
    std::vector<Index> outTo;        // consumer per output slot
    std::vector<Index> outInSlot;    // the input slot of the same edge
    std::vector<double> outEdgeBytes;

    // ---- Cluster (constant) ----
    Index deviceCount = 0;
    std::vector<int> deviceKind;
    std::vector<double> deviceSpeed;
    std::vector<double> deviceMemory;
    std::vector<double> linkBytesPerUs; // deviceCount^2, from * deviceCount + to
    std::vector<double> linkLatencyUs;

    // ---- Per run ----
    const DeviceId* place = nullptr;
    double now = 0.0;
    std::uint64_t instant = 0; // how many distinct times have been processed before `now`
    Index opsDone = 0;
    std::vector<Index> pending;        // inputs an op still waits for
    std::vector<Index> outputRefs;     // holders of an op's output: local consumers + unfinished transfers
    std::vector<Index> inSlotTransfer; // for a cross-device input: the transfer that brought it

    // Transfers: at most one per edge, created when their producer ends.
    Index transferCount = 0;
    std::vector<Index> tProducer, tFrom, tTo, tReceiverRefs;
    std::vector<double> tBytes;

    // Per-device ready heaps, carved out of one array: a device's segment holds its ops.
    // Key: (instant the op became ready) << 32 | OpId. Instants are numbered in time order,
    // so this orders by (ready time, OpId) with one integer comparison.
    std::vector<std::uint64_t> ready;
    std::vector<Index> readyBase, readySize;
    std::vector<Index> deviceBusy;
    std::vector<Index> deviceDirty;
    std::vector<Index> dirtyDevices;

    // Each link serves its transfers first come, first served, so a transfer's slot on the
    // link is known as soon as every request made before it is: the requests of an instant
    // are collected and given their slots, in producer order, once the instant is over.
    std::vector<double> linkFreeUs; // when the last transfer given to the link ends
    std::vector<Index> requests;    // transfers requested in the current instant
    Index requestCount = 0;

    // Pending op ends (at most one per device) and transfer arrivals (at most one per transfer).
    std::vector<TimedEvent> events;
    int eventCount = 0;

    // Live tensor bytes per device; peaks are taken once all of an instant's changes are in.
    std::vector<double> liveBytes, peakLiveBytes, deviceParamBytes;
    std::vector<Index> memoryDirty;
    std::vector<Index> dirtyMemory;

    // Grouping one producer's cross-device edges by destination device.
    std::vector<Index> transferToDevice;
    std::vector<Index> touchedDevices;

    SimResult* result = nullptr;
    bool recordTimeline = false;

    Work(const Graph& graph, const Cluster& cluster);
    void reset(const Placement& placement, SimResult& out, bool timeline);
    void simulate();
    // GCC leaves these large single-caller functions out of line; inlined into the event
    // loop they cost about a tenth fewer instructions.
    [[gnu::always_inline]] void finishOp(Index op);
    [[gnu::always_inline]] void finishTransfer(Index t);
    [[gnu::always_inline]] void makeReady(Index op, DeviceId device);
    [[gnu::always_inline]] void dispatch();
    [[gnu::always_inline]] void startOp(DeviceId device);
    void commitRequests();
    void allocate(DeviceId device, double bytes);
    void settleMemory();
    void markDevice(DeviceId device);
    void finishRun(double optimizerStateFactor);
};

Simulator::Work::Work(const Graph& graph, const Cluster& cluster)
{
    opCount = graph.opCount();
    edgeCount = graph.edgeCount();
    const auto n = static_cast<size_t>(opCount);
    const auto m = static_cast<size_t>(edgeCount);

    opTime.resize(n * kDeviceKindCount);
    outputBytes.resize(n);
    paramBytes.resize(n);
    inDegree.resize(n);
    inOffset.resize(n + 1);
    outOffset.resize(n + 1);
    inFrom.resize(m);
    outTo.resize(m);
    outInSlot.resize(m);
    outEdgeBytes.resize(m);

    std::vector<Index> inSlotOfEdge(m);
    inOffset[0] = 0;
    for (Index op = 0; op < opCount; ++op) {
        const Op& o = graph.op(op);
        for (int k = 0; k < kDeviceKindCount; ++k)
            opTime[static_cast<size_t>(op) * kDeviceKindCount + static_cast<size_t>(k)] = o.timeUs[static_cast<size_t>(k)];
        outputBytes[static_cast<size_t>(op)] = o.outputBytes;
        paramBytes[static_cast<size_t>(op)] = o.paramBytes;
        auto ins = graph.inEdges(op);
        inDegree[static_cast<size_t>(op)] = static_cast<Index>(ins.size());
        Index slot = inOffset[static_cast<size_t>(op)];
        for (EdgeId e : ins) {
            inFrom[static_cast<size_t>(slot)] = graph.edge(e).from;
            inSlotOfEdge[static_cast<size_t>(e)] = slot++;
        }
        inOffset[static_cast<size_t>(op) + 1] = slot;
    }
    outOffset[0] = 0;
    for (Index op = 0; op < opCount; ++op) {
        Index slot = outOffset[static_cast<size_t>(op)];
        for (EdgeId e : graph.outEdges(op)) {
            const Edge& edge = graph.edge(e);
            outTo[static_cast<size_t>(slot)] = edge.to;
            outInSlot[static_cast<size_t>(slot)] = inSlotOfEdge[static_cast<size_t>(e)];
            outEdgeBytes[static_cast<size_t>(slot)] = edge.bytes;
            ++slot;
        }
        outOffset[static_cast<size_t>(op) + 1] = slot;
    }

    deviceCount = cluster.deviceCount();
    const auto d = static_cast<size_t>(deviceCount);
    for (const Device& dev : cluster.devices()) {
        deviceKind.push_back(static_cast<int>(dev.kind));
        deviceSpeed.push_back(dev.speed);
        deviceMemory.push_back(dev.memoryBytes);
    }
    linkBytesPerUs.resize(d * d);
    linkLatencyUs.resize(d * d);
    for (DeviceId from = 0; from < deviceCount; ++from)
        for (DeviceId to = 0; to < deviceCount; ++to) {
            const Link& link = cluster.link(from, to);
            linkBytesPerUs[static_cast<size_t>(from) * d + static_cast<size_t>(to)] = link.bytesPerUs;
            linkLatencyUs[static_cast<size_t>(from) * d + static_cast<size_t>(to)] = link.latencyUs;
        }

    pending.resize(n);
    outputRefs.resize(n);
    inSlotTransfer.resize(m);
    for (auto* v : {&tProducer, &tFrom, &tTo, &tReceiverRefs, &requests})
        v->resize(m);
    tBytes.resize(m);
    ready.resize(n);
    readyBase.resize(d);
    readySize.resize(d);
    deviceBusy.resize(d);
    deviceDirty.resize(d);
    dirtyDevices.reserve(d);
    linkFreeUs.resize(d * d);
    events.resize(d + m + 1);
    liveBytes.resize(d);
    peakLiveBytes.resize(d);
    deviceParamBytes.resize(d);
    memoryDirty.resize(d);
    dirtyMemory.reserve(d);
    transferToDevice.assign(d, -1);
    touchedDevices.reserve(d);
}

void Simulator::Work::reset(const Placement& placement, SimResult& out, bool timeline)
{
    if (placement.size() != static_cast<size_t>(opCount))
        throw std::invalid_argument("placement has " + std::to_string(placement.size()) + " entries for "
                                    + std::to_string(opCount) + " ops");
    place = placement.data();
    result = &out;
    recordTimeline = timeline;
    now = 0.0;
    instant = 0;
    opsDone = 0;
    transferCount = 0;
    eventCount = 0;

    std::fill(readySize.begin(), readySize.end(), 0);
    std::fill(deviceParamBytes.begin(), deviceParamBytes.end(), 0.0);
    for (Index op = 0; op < opCount; ++op) {
        const DeviceId d = place[op];
        if (d < 0 || d >= deviceCount)
            throw std::invalid_argument("op #" + std::to_string(op) + " is placed on device " + std::to_string(d)
                                        + ", outside the cluster");
        ++readySize[static_cast<size_t>(d)];
        deviceParamBytes[static_cast<size_t>(d)] += paramBytes[static_cast<size_t>(op)];
    }
    Index base = 0;
    for (Index d = 0; d < deviceCount; ++d) {
        readyBase[static_cast<size_t>(d)] = base;
        base += readySize[static_cast<size_t>(d)];
        readySize[static_cast<size_t>(d)] = 0;
    }
    std::copy(inDegree.begin(), inDegree.end(), pending.begin());

    std::fill(deviceBusy.begin(), deviceBusy.end(), 0);
    std::fill(deviceDirty.begin(), deviceDirty.end(), 0);
    dirtyDevices.clear();
    std::fill(linkFreeUs.begin(), linkFreeUs.end(), 0.0);
    requestCount = 0;
    std::fill(liveBytes.begin(), liveBytes.end(), 0.0);
    std::fill(peakLiveBytes.begin(), peakLiveBytes.end(), 0.0);
    std::fill(memoryDirty.begin(), memoryDirty.end(), 0);
    dirtyMemory.clear();

    const auto d = static_cast<size_t>(deviceCount);
    out.stepTimeUs = 0.0;
    out.feasible = true;
    out.deviceBusyUs.assign(d, 0.0);
    out.peakMemoryBytes.assign(d, 0.0);
    out.linkBytes.assign(d * d, 0.0);
    out.linkBusyUs.assign(d * d, 0.0);
    out.timeline.ops.clear();
    out.timeline.transfers.clear();
    if (timeline) {
        // Once per Simulator: later timelines reuse this capacity.
        out.timeline.ops.reserve(static_cast<size_t>(opCount));
        out.timeline.transfers.reserve(static_cast<size_t>(edgeCount));
    }
}

inline void Simulator::Work::markDevice(DeviceId device)
{
    if (!deviceDirty[static_cast<size_t>(device)]) {
        deviceDirty[static_cast<size_t>(device)] = 1;
        dirtyDevices.push_back(device); // capacity reserved: never reallocates
    }
}

inline void Simulator::Work::allocate(DeviceId device, double bytes)
{
    liveBytes[static_cast<size_t>(device)] += bytes;
    if (!memoryDirty[static_cast<size_t>(device)]) {
        memoryDirty[static_cast<size_t>(device)] = 1;
        dirtyMemory.push_back(device);
    }
}

// Called once every change of the current instant is applied: frees and allocations at
// the same time net out before the peak is taken (live intervals are half-open).
inline void Simulator::Work::settleMemory()
{
    for (DeviceId d : dirtyMemory) {
        const auto i = static_cast<size_t>(d);
        peakLiveBytes[i] = std::max(peakLiveBytes[i], liveBytes[i]);
        memoryDirty[i] = 0;
    }
    dirtyMemory.clear();
}

inline void Simulator::Work::makeReady(Index op, DeviceId device)
{
    const auto d = static_cast<size_t>(device);
    heapPush(ready.data() + readyBase[d], readySize[d], (instant << 32) | static_cast<std::uint32_t>(op));
    markDevice(device);
}

inline void Simulator::Work::finishOp(Index op)
{
    const DeviceId device = place[op];
    deviceBusy[static_cast<size_t>(device)] = 0;
    markDevice(device);
    ++opsDone;

    // Inputs this op was the last local reader of die now.
    for (Index s = inOffset[static_cast<size_t>(op)]; s < inOffset[static_cast<size_t>(op) + 1]; ++s) {
        const Index producer = inFrom[static_cast<size_t>(s)];
        if (place[producer] == device) {
            if (--outputRefs[static_cast<size_t>(producer)] == 0)
                liveBytes[static_cast<size_t>(device)] -= outputBytes[static_cast<size_t>(producer)];
        } else {
            const Index t = inSlotTransfer[static_cast<size_t>(s)];
            if (--tReceiverRefs[static_cast<size_t>(t)] == 0)
                liveBytes[static_cast<size_t>(device)] -= tBytes[static_cast<size_t>(t)];
        }
    }

    // Local consumers get the output now; each other device gets one transfer.
    Index refs = 0;
    for (Index s = outOffset[static_cast<size_t>(op)]; s < outOffset[static_cast<size_t>(op) + 1]; ++s) {
        const Index consumer = outTo[static_cast<size_t>(s)];
        const DeviceId target = place[consumer];
        if (target == device) {
            ++refs;
            if (--pending[static_cast<size_t>(consumer)] == 0)
                makeReady(consumer, target);
            continue;
        }
        Index& t = transferToDevice[static_cast<size_t>(target)];
        if (t < 0) {
            t = transferCount++;
            const auto ti = static_cast<size_t>(t);
            tProducer[ti] = op;
            tFrom[ti] = device;
            tTo[ti] = target;
            tReceiverRefs[ti] = 0;
            tBytes[ti] = 0.0;
            touchedDevices.push_back(target);
        }
        const auto ti = static_cast<size_t>(t);
        tBytes[ti] = std::max(tBytes[ti], outEdgeBytes[static_cast<size_t>(s)]);
        ++tReceiverRefs[ti];
        inSlotTransfer[static_cast<size_t>(outInSlot[static_cast<size_t>(s)])] = t;
    }
    for (DeviceId target : touchedDevices) {
        Index& t = transferToDevice[static_cast<size_t>(target)];
        requests[static_cast<size_t>(requestCount++)] = t;
        t = -1;
        ++refs;
    }
    touchedDevices.clear();
    outputRefs[static_cast<size_t>(op)] = refs;
    if (refs == 0)
        liveBytes[static_cast<size_t>(device)] -= outputBytes[static_cast<size_t>(op)];
}

inline void Simulator::Work::finishTransfer(Index t)
{
    const auto ti = static_cast<size_t>(t);
    const Index producer = tProducer[ti];
    const DeviceId from = tFrom[ti];
    const DeviceId to = tTo[ti];
    if (--outputRefs[static_cast<size_t>(producer)] == 0)
        liveBytes[static_cast<size_t>(from)] -= outputBytes[static_cast<size_t>(producer)];
    allocate(to, tBytes[ti]);

    for (Index s = outOffset[static_cast<size_t>(producer)]; s < outOffset[static_cast<size_t>(producer) + 1]; ++s) {
        const Index consumer = outTo[static_cast<size_t>(s)];
        if (place[consumer] == to && --pending[static_cast<size_t>(consumer)] == 0)
            makeReady(consumer, to);
    }
}

inline void Simulator::Work::startOp(DeviceId device)
{
    const auto d = static_cast<size_t>(device);
    const auto op = static_cast<Index>(heapPop(ready.data() + readyBase[d], readySize[d]) & 0xffffffffu);
    const double duration =
        opTime[static_cast<size_t>(op) * kDeviceKindCount + static_cast<size_t>(deviceKind[d])] / deviceSpeed[d];
    deviceBusy[d] = 1;
    heapPush(events.data(), eventCount, TimedEvent{now + duration, op});
    result->deviceBusyUs[d] += duration;
    allocate(device, outputBytes[static_cast<size_t>(op)]);
    if (recordTimeline)
        result->timeline.ops.push_back(OpSpan{op, device, now, now + duration});
}

// Gives the transfers requested at `now` their place on their links, in (producer,
// destination) order: each starts when its link has finished everything given to it before.
void Simulator::Work::commitRequests()
{
    Index* r = requests.data();
    // One round of an instant requests in producer order already (op ends at equal times
    // are handled by id); only later rounds (after zero-duration ops) can add lower ids.
    for (Index i = 1; i < requestCount; ++i) {
        const Index t = r[i];
        Index j = i;
        for (; j > 0; --j) {
            const Index u = r[j - 1];
            const bool after = tProducer[static_cast<size_t>(u)] > tProducer[static_cast<size_t>(t)]
                || (tProducer[static_cast<size_t>(u)] == tProducer[static_cast<size_t>(t)]
                    && tTo[static_cast<size_t>(u)] > tTo[static_cast<size_t>(t)]);
            if (!after)
                break;
            r[j] = u;
        }
        r[j] = t;
    }
    for (Index i = 0; i < requestCount; ++i) {
        const Index t = r[i];
        const auto ti = static_cast<size_t>(t);
        const auto l = static_cast<size_t>(tFrom[ti] * deviceCount + tTo[ti]);
        const double start = std::max(now, linkFreeUs[l]);
        const double end = start + (linkLatencyUs[l] + tBytes[ti] / linkBytesPerUs[l]);
        linkFreeUs[l] = end;
        heapPush(events.data(), eventCount, TimedEvent{end, opCount + t});
        result->linkBusyUs[l] += end - start;
        result->linkBytes[l] += tBytes[ti];
        if (recordTimeline)
            result->timeline.transfers.push_back(TransferSpan{tProducer[ti], tFrom[ti], tTo[ti], tBytes[ti], now, start, end});
    }
    requestCount = 0;
}

inline void Simulator::Work::dispatch()
{
    for (DeviceId device : dirtyDevices) {
        const auto d = static_cast<size_t>(device);
        deviceDirty[d] = 0;
        if (!deviceBusy[d] && readySize[d] > 0)
            startOp(device);
    }
    dirtyDevices.clear();
}

void Simulator::Work::simulate()
{
    for (Index op = 0; op < opCount; ++op)
        if (pending[static_cast<size_t>(op)] == 0)
            makeReady(op, place[op]);
    dispatch();
    for (;;) {
        if (eventCount == 0 || events[0].time > now) {
            // The instant is over: its transfers can now take their turn on the links.
            if (requestCount > 0) {
                commitRequests();
                continue; // a zero-duration transfer arrives right now
            }
            settleMemory();
            if (eventCount == 0)
                break;
            now = events[0].time;
            ++instant;
        }
        // Everything that happens at `now` first, then the devices choose.
        while (eventCount > 0 && events[0].time == now) {
            const Index id = heapPop(events.data(), eventCount).id;
            if (id < opCount)
                finishOp(id);
            else
                finishTransfer(id - opCount);
        }
        dispatch();
    }
    if (opsDone != opCount)
        throw std::logic_error("simulator: " + std::to_string(opCount - opsDone) + " ops never ran");
}

void Simulator::Work::finishRun(double optimizerStateFactor)
{
    SimResult& out = *result;
    if (recordTimeline) // transfers were recorded when given their slot, not when they start
        std::sort(out.timeline.transfers.begin(), out.timeline.transfers.end(),
                  [](const TransferSpan& a, const TransferSpan& b) {
                      if (a.startUs != b.startUs)
                          return a.startUs < b.startUs;
                      return a.producer != b.producer ? a.producer < b.producer : a.to < b.to;
                  });
    out.stepTimeUs = now;
    out.feasible = true;
    for (Index d = 0; d < deviceCount; ++d) {
        const auto i = static_cast<size_t>(d);
        out.peakMemoryBytes[i] = deviceParamBytes[i] * optimizerStateFactor + peakLiveBytes[i];
        if (out.peakMemoryBytes[i] > deviceMemory[i])
            out.feasible = false;
    }
}

Simulator::Simulator(const Graph& graph, const Cluster& cluster, SimOptions options)
    : graph_(graph)
    , cluster_(cluster)
    , options_(options)
    , work_(new Work(graph, cluster))
{
}

Simulator::~Simulator()
{
    delete work_;
}

const SimResult& Simulator::run(const Placement& placement, bool recordTimeline)
{
    work_->reset(placement, result_, recordTimeline);
    work_->simulate();
    work_->finishRun(options_.optimizerStateFactor);
    return result_;
}

} // namespace post
