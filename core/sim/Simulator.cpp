#include "core/sim/Simulator.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"
#include "core/sim/CollectiveTime.h"
#include "core/sim/ImpliedEdges.h"
#include "core/sim/MinHeap.h"
#include "core/sim/SimWork.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace post {
namespace detail {

SimWork::SimWork(const Graph& graph, const Cluster& cluster, const SimOptions& options)
{
    opCount = graph.opCount();
    // Edges no run depends on are left out (core/sim/ImpliedEdges.h): a dense trace's
    // ordering edges between CPU operators, most of its edges.
    const std::vector<char> implied = options.leaveOutImpliedEdges ? impliedLocalEdges(graph, cluster)
                                                                   : std::vector<char>{};
    auto kept = [&](EdgeId e) { return implied.empty() || !implied[static_cast<size_t>(e)]; };
    edgeCount = graph.edgeCount();
    if (!implied.empty())
        edgeCount -= static_cast<Index>(std::count(implied.begin(), implied.end(), char{1}));
    const auto n = static_cast<size_t>(opCount);
    const auto m = static_cast<size_t>(edgeCount);

    deviceCount = cluster.deviceCount();
    const auto d = static_cast<size_t>(deviceCount);
    for (Index op = 0; op < opCount && !perDeviceTimes; ++op)
        for (const Device& dev : cluster.devices())
            perDeviceTimes = perDeviceTimes || !usesKindTime(graph.op(op), dev) || collectiveIsModelled(graph.op(op));
    for (Index op = 0; op < opCount && !hasCollectives; ++op)
        hasCollectives = graph.op(op).isCollective();
    queueCount = hasCollectives ? 2 * deviceCount : deviceCount;
    const auto q = static_cast<size_t>(queueCount);
    const CollectiveLinks collectiveLinks(cluster);
    const size_t columns = perDeviceTimes ? d : static_cast<size_t>(kDeviceKindCount);
    opTime.resize(n * columns);
    outputBytes.resize(n);
    paramBytes.resize(n);
    residentBytes.resize(n);
    inDegree.resize(n);
    inOffset.resize(n + 1);
    outOffset.resize(n + 1);
    inFrom.resize(m);
    outTo.resize(m);
    outInSlot.resize(m);
    outEdgeBytes.resize(m);

    std::vector<Index> inSlotOfEdge(static_cast<size_t>(graph.edgeCount()));
    inOffset[0] = 0;
    for (Index op = 0; op < opCount; ++op) {
        const Op& o = graph.op(op);
        if (perDeviceTimes) {
            for (DeviceId dev = 0; dev < deviceCount; ++dev)
                opTime[static_cast<size_t>(op) * d + static_cast<size_t>(dev)] = collectiveLinks.opTimeUs(o, dev);
        } else {
            for (int k = 0; k < kDeviceKindCount; ++k)
                opTime[static_cast<size_t>(op) * kDeviceKindCount + static_cast<size_t>(k)] =
                    o.timeUs[static_cast<size_t>(k)];
        }
        outputBytes[static_cast<size_t>(op)] = o.outputBytes;
        paramBytes[static_cast<size_t>(op)] = o.paramBytes;
        residentBytes[static_cast<size_t>(op)] = o.residentBytes;
        Index slot = inOffset[static_cast<size_t>(op)];
        for (EdgeId e : graph.inEdges(op)) {
            if (!kept(e))
                continue;
            inFrom[static_cast<size_t>(slot)] = graph.edge(e).from;
            inSlotOfEdge[static_cast<size_t>(e)] = slot++;
        }
        inDegree[static_cast<size_t>(op)] = slot - inOffset[static_cast<size_t>(op)];
        inOffset[static_cast<size_t>(op) + 1] = slot;
    }
    outOffset[0] = 0;
    for (Index op = 0; op < opCount; ++op) {
        Index slot = outOffset[static_cast<size_t>(op)];
        for (EdgeId e : graph.outEdges(op)) {
            if (!kept(e))
                continue;
            const Edge& edge = graph.edge(e);
            outTo[static_cast<size_t>(slot)] = edge.to;
            outInSlot[static_cast<size_t>(slot)] = inSlotOfEdge[static_cast<size_t>(e)];
            outEdgeBytes[static_cast<size_t>(slot)] = edge.bytes;
            ++slot;
        }
        outOffset[static_cast<size_t>(op) + 1] = slot;
    }

    if (hasCollectives) {
        queueShift.resize(n);
        for (Index op = 0; op < opCount; ++op)
            queueShift[static_cast<size_t>(op)] = graph.op(op).isCollective() ? deviceCount : 0;
    }

    holdsBytes.resize(n);
    for (Index op = 0; op < opCount; ++op) {
        bool holds = outputBytes[static_cast<size_t>(op)] != 0.0;
        for (Index s = outOffset[static_cast<size_t>(op)]; s < outOffset[static_cast<size_t>(op) + 1] && !holds; ++s)
            holds = outEdgeBytes[static_cast<size_t>(s)] != 0.0;
        holdsBytes[static_cast<size_t>(op)] = holds ? 1 : 0;
    }
    memInOffset.resize(n + 1);
    memInOffset[0] = 0;
    for (Index op = 0; op < opCount; ++op) {
        for (Index s = inOffset[static_cast<size_t>(op)]; s < inOffset[static_cast<size_t>(op) + 1]; ++s) {
            const Index producer = inFrom[static_cast<size_t>(s)];
            if (holdsBytes[static_cast<size_t>(producer)]) {
                memInFrom.push_back(producer);
                memInSlot.push_back(s);
            }
        }
        memInOffset[static_cast<size_t>(op) + 1] = static_cast<Index>(memInFrom.size());
    }

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
    for (auto* v : {&tProducer, &tFrom, &tTo, &tLink, &tReceiverRefs, &tFirstSlot, &tLastSlot, &slotNext, &tNext,
                    &requests, &tSeq})
        v->resize(m);
    tBytes.resize(m);
    tEnd.resize(m);
    ready.resize(n);
    for (auto* v : {&readyHead, &readyTail, &readyInstantStart, &running, &deviceBusy, &deviceDirty})
        v->resize(q);
    readyInstant.resize(q);
    readyUnsorted.resize(q);
    dirtyDevices.reserve(q);
    linkFreeUs.resize(d * d);
    linkHead.resize(d * d);
    linkTail.resize(d * d);
    events.resize(q + d * d);
    liveBytes.resize(d);
    peakLiveBytes.resize(d);
    deviceParamBytes.resize(d);
    deviceResidentBytes.resize(d);
    liveInstant.resize(d);
    transferToDevice.assign(d, -1);
    touchedDevices.reserve(d);
    if (options.dispatch == Dispatch::CriticalPath)
        computePriorities(graph.topologicalOrder());
}

// Each op's longest path to a sink, every op at its fastest duration over the devices and
// transfers free: the bottom level of list scheduling (HLFET). It does not depend on the
// placement, so an incremental run resumed from a checkpoint orders its queues as a full
// run does.
void SimWork::computePriorities(std::span<const OpId> order)
{
    const auto n = static_cast<size_t>(opCount);
    priority.assign(n, 0.0);
    for (size_t i = order.size(); i-- > 0;) {
        const auto op = static_cast<Index>(order[i]);
        const auto o = static_cast<size_t>(op);
        double fastest = std::numeric_limits<double>::infinity();
        for (DeviceId device = 0; device < deviceCount; ++device)
            fastest = std::min(fastest, duration(op, device));
        double below = 0.0;
        for (Index s = outOffset[o]; s < outOffset[o + 1]; ++s)
            below = std::max(below, priority[static_cast<size_t>(outTo[static_cast<size_t>(s)])]);
        priority[o] = (deviceCount > 0 ? fastest : 0.0) + below;
    }
}

void SimWork::reset(const Placement& placement, SimResult& out, bool timeline)
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

    std::fill(readyTail.begin(), readyTail.end(), 0); // ops per queue, then segment starts
    std::fill(deviceParamBytes.begin(), deviceParamBytes.end(), 0.0);
    std::fill(deviceResidentBytes.begin(), deviceResidentBytes.end(), 0.0);
    for (Index op = 0; op < opCount; ++op) {
        const DeviceId d = place[op];
        if (d < 0 || d >= deviceCount)
            throw std::invalid_argument("op #" + std::to_string(op) + " is placed on device " + std::to_string(d)
                                        + ", outside the cluster");
        ++readyTail[static_cast<size_t>(queueOf(op, d))];
        deviceParamBytes[static_cast<size_t>(d)] += paramBytes[static_cast<size_t>(op)];
        deviceResidentBytes[static_cast<size_t>(d)] += residentBytes[static_cast<size_t>(op)];
    }
    Index base = 0;
    for (Index d = 0; d < queueCount; ++d) {
        const auto i = static_cast<size_t>(d);
        const Index size = readyTail[i];
        readyHead[i] = readyTail[i] = readyInstantStart[i] = base;
        base += size;
    }
    std::fill(readyInstant.begin(), readyInstant.end(), ~std::uint64_t{0}); // no instant yet
    std::fill(readyUnsorted.begin(), readyUnsorted.end(), 0);
    std::copy(inDegree.begin(), inDegree.end(), pending.begin());

    std::fill(deviceBusy.begin(), deviceBusy.end(), 0);
    std::fill(deviceDirty.begin(), deviceDirty.end(), 0);
    dirtyDevices.clear();
    std::fill(linkFreeUs.begin(), linkFreeUs.end(), 0.0);
    std::fill(linkHead.begin(), linkHead.end(), -1);
    std::fill(linkTail.begin(), linkTail.end(), -1);
    requestCount = 0;
    commitSeq = 0;
    std::fill(liveBytes.begin(), liveBytes.end(), 0.0);
    std::fill(peakLiveBytes.begin(), peakLiveBytes.end(), 0.0);
    std::fill(liveInstant.begin(), liveInstant.end(), 0);

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

inline void SimWork::markDevice(DeviceId device)
{
    if (!deviceDirty[static_cast<size_t>(device)]) {
        deviceDirty[static_cast<size_t>(device)] = 1;
        dirtyDevices.push_back(device); // capacity reserved: never reallocates
    }
}

// Adds `bytes` (negative: a free) to the device's live tensors.
inline void SimWork::changeLive(DeviceId device, double bytes)
{
    const auto d = static_cast<size_t>(device);
    if (liveInstant[d] != instant) { // the total so far is an earlier instant's final one
        liveInstant[d] = instant;
        peakLiveBytes[d] = std::max(peakLiveBytes[d], liveBytes[d]);
    }
    liveBytes[d] += bytes;
}

inline void SimWork::makeReady(Index op, DeviceId device)
{
    const Index queue = queueOf(op, device);
    if (!priority.empty()) {
        pushReadyHeap(queue, op);
        markDevice(queue);
        if (recordTimes)
            readyAtRec[op] = now;
        return;
    }
    const auto d = static_cast<size_t>(queue);
    const Index tail = readyTail[d]++;
    if (readyInstant[d] != instant) {
        readyInstant[d] = instant;
        readyInstantStart[d] = tail;
    } else if (op < ready[static_cast<size_t>(tail) - 1]) {
        readyUnsorted[d] = 1; // may compare with an entry already taken: then it sorts one op
    }
    ready[static_cast<size_t>(tail)] = op;
    markDevice(queue);
    if (recordTimes)
        readyAtRec[op] = now;
}

// Dispatch::CriticalPath: the queue's segment [readyHead, readyTail) is a binary heap
// whose root, at readyHead, is the op to start next.
void SimWork::pushReadyHeap(Index queue, Index op)
{
    const auto q = static_cast<size_t>(queue);
    Index* heap = ready.data() + readyHead[q];
    Index i = readyTail[q]++ - readyHead[q];
    while (i > 0) {
        const Index parent = (i - 1) / 2;
        if (!higherPriority(op, heap[parent]))
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = op;
}

SimWork::Index SimWork::popReadyHeap(Index queue)
{
    const auto q = static_cast<size_t>(queue);
    Index* heap = ready.data() + readyHead[q];
    const Index top = heap[0];
    const Index size = --readyTail[q] - readyHead[q];
    if (size == 0)
        return top;
    const Index moved = heap[size];
    Index i = 0;
    for (;;) {
        Index child = 2 * i + 1;
        if (child >= size)
            break;
        if (child + 1 < size && higherPriority(heap[child + 1], heap[child]))
            ++child;
        if (!higherPriority(heap[child], moved))
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = moved;
    return top;
}

// Orders a queue's segment filled in any order (IncrementalSimulator's restore) as a heap.
void SimWork::makeReadyHeap(Index queue)
{
    const auto q = static_cast<size_t>(queue);
    std::make_heap(ready.data() + readyHead[q], ready.data() + readyTail[q],
                   [this](Index a, Index b) { return higherPriority(b, a); });
}

// Restores (ready time, OpId) order: only this instant's entries can be out of order, and
// they all come after every earlier instant's.
void SimWork::sortReadyInstant(DeviceId device)
{
    const auto d = static_cast<size_t>(device);
    const Index from = std::max(readyHead[d], readyInstantStart[d]);
    std::sort(ready.data() + from, ready.data() + readyTail[d]);
    readyUnsorted[d] = 0;
}

inline void SimWork::finishOp(Index op, Index queue)
{
    const DeviceId device = place[op];
    deviceBusy[static_cast<size_t>(queue)] = 0;
    markDevice(queue);
    ++opsDone;

    // Inputs this op was the last local reader of die now (only tensors that take memory).
    for (Index k = memInOffset[static_cast<size_t>(op)]; k < memInOffset[static_cast<size_t>(op) + 1]; ++k) {
        const Index producer = memInFrom[static_cast<size_t>(k)];
        if (place[producer] == device) {
            if (--outputRefs[static_cast<size_t>(producer)] == 0)
                changeLive(device, -outputBytes[static_cast<size_t>(producer)]);
        } else {
            const Index t = inSlotTransfer[static_cast<size_t>(memInSlot[static_cast<size_t>(k)])];
            if (--tReceiverRefs[static_cast<size_t>(t)] == 0)
                changeLive(device, -tBytes[static_cast<size_t>(t)]);
        }
    }
    if (holdsBytes[static_cast<size_t>(op)])
        sendOutput<true>(op, device);
    else
        sendOutput<false>(op, device);
}

// Local consumers get the output now; each other device gets one transfer, carrying the
// largest of the producer's edges to it. Without bytes (HoldsBytes false) the holders of the
// tensor are not counted: it never takes memory.
template <bool HoldsBytes> inline void SimWork::sendOutput(Index op, DeviceId device)
{
    // Local pointers: the stores below are to Index arrays, through which the compiler would
    // otherwise reload every array's address (and the transfer of the device) on each edge.
    const Index* __restrict consumers = outTo.data();
    const DeviceId* __restrict where = place;
    Index* __restrict waiting = pending.data();
    Index* __restrict transferTo = transferToDevice.data();
    Index* __restrict next = slotNext.data();
    Index* __restrict lastSlot = tLastSlot.data();
    Index refs = 0;
    const Index last = outOffset[static_cast<size_t>(op) + 1];
    for (Index s = outOffset[static_cast<size_t>(op)]; s < last; ++s) {
        const Index consumer = consumers[s];
        const DeviceId target = where[consumer];
        if (target == device) {
            if constexpr (HoldsBytes)
                ++refs;
            if (--waiting[consumer] == 0)
                makeReady(consumer, target);
            continue;
        }
        Index t = transferTo[target];
        if (t < 0) {
            t = transferCount++;
            transferTo[target] = t;
            const auto ti = static_cast<size_t>(t);
            tProducer[ti] = op;
            tFrom[ti] = device;
            tTo[ti] = target;
            tLink[ti] = device * deviceCount + target;
            tReceiverRefs[ti] = 0;
            tBytes[ti] = 0.0;
            tFirstSlot[ti] = s;
            touchedDevices.push_back(target);
        } else {
            next[lastSlot[t]] = s;
        }
        lastSlot[t] = s;
        if constexpr (HoldsBytes) {
            const auto ti = static_cast<size_t>(t);
            tBytes[ti] = std::max(tBytes[ti], outEdgeBytes[static_cast<size_t>(s)]);
            ++tReceiverRefs[ti];
            inSlotTransfer[static_cast<size_t>(outInSlot[static_cast<size_t>(s)])] = t;
        }
    }
    for (DeviceId target : touchedDevices) {
        const Index t = transferTo[target];
        next[lastSlot[t]] = -1;
        requests[static_cast<size_t>(requestCount++)] = t;
        transferTo[target] = -1;
        ++refs;
    }
    touchedDevices.clear();
    if constexpr (HoldsBytes) {
        outputRefs[static_cast<size_t>(op)] = refs;
        if (refs == 0)
            changeLive(device, -outputBytes[static_cast<size_t>(op)]);
    }
}

inline void SimWork::finishTransfer(Index t)
{
    const auto ti = static_cast<size_t>(t);
    const Index producer = tProducer[ti];
    const DeviceId from = tFrom[ti];
    const DeviceId to = tTo[ti];
    if (holdsBytes[static_cast<size_t>(producer)]) {
        if (--outputRefs[static_cast<size_t>(producer)] == 0)
            changeLive(from, -outputBytes[static_cast<size_t>(producer)]);
        changeLive(to, tBytes[ti]);
    }

    const Index* __restrict next = slotNext.data();
    const Index* __restrict consumers = outTo.data();
    Index* __restrict waiting = pending.data();
    for (Index s = tFirstSlot[ti]; s >= 0; s = next[s]) {
        const Index consumer = consumers[s];
        if (--waiting[consumer] == 0)
            makeReady(consumer, to);
    }
}

// Handles the event at the top of the heap and replaces it by the resource's next event.
inline void SimWork::handleEvent(Index id)
{
    if (id < queueCount) {
        finishOp(running[static_cast<size_t>(id)], id);
        // A busy device usually has its next op waiting since an earlier instant: start it
        // right away and reuse the heap slot. A zero-duration op would end in this instant and
        // must wait for dispatch(), so that rounds of the instant keep their order.
        if (priority.empty() && nextOpIsSettled(id)) {
            const auto d = static_cast<size_t>(id);
            const Index op = ready[static_cast<size_t>(readyHead[d])];
            const double time = duration(op, queueDevice(id));
            if (time > 0.0) {
                ++readyHead[d];
                beginOp(id, op, time);
                heapReplaceTop(events.data(), eventCount, TimedEvent{now + time, id});
                return;
            }
        }
        heapPop(events.data(), eventCount);
        return;
    }
    const auto l = static_cast<size_t>(id - queueCount);
    const Index t = linkHead[l];
    const Index next = tNext[static_cast<size_t>(t)];
    linkHead[l] = next;
    if (next < 0) {
        linkTail[l] = -1;
        heapPop(events.data(), eventCount);
    } else {
        heapReplaceTop(events.data(), eventCount, TimedEvent{tEnd[static_cast<size_t>(next)], id});
    }
    finishTransfer(t);
}

inline double SimWork::duration(Index op, DeviceId device) const
{
    const auto d = static_cast<size_t>(device);
    if (perDeviceTimes)
        return opTime[static_cast<size_t>(op) * static_cast<size_t>(deviceCount) + d];
    return opTime[static_cast<size_t>(op) * kDeviceKindCount + static_cast<size_t>(deviceKind[d])] / deviceSpeed[d];
}

// Whether the device's next op is already known while the instant's events are still being
// applied: true when its best ready op became ready in an earlier instant, since whatever
// becomes ready now has a larger key.
inline bool SimWork::nextOpIsSettled(DeviceId device) const
{
    const auto d = static_cast<size_t>(device);
    const Index head = readyHead[d];
    return head < readyTail[d] && (readyInstant[d] != instant || head < readyInstantStart[d]);
}

// Marks the queue busy with `op` from now on; the caller puts its end in the event heap. A
// device's busy time is its compute queue's: a collective overlaps it.
inline void SimWork::beginOp(Index queue, Index op, double duration)
{
    const DeviceId device = queueDevice(queue);
    const auto d = static_cast<size_t>(device);
    deviceBusy[static_cast<size_t>(queue)] = 1;
    running[static_cast<size_t>(queue)] = op;
    if (queue < deviceCount)
        result->deviceBusyUs[d] += duration;
    changeLive(device, outputBytes[static_cast<size_t>(op)]);
    if (recordTimeline)
        result->timeline.ops.push_back(OpSpan{op, device, now, now + duration});
    if (recordTimes) {
        startRec[op] = now;
        endRec[op] = now + duration;
    }
}

inline void SimWork::startOp(Index queue)
{
    const Index op = priority.empty() ? ready[static_cast<size_t>(readyHead[static_cast<size_t>(queue)]++)]
                                      : popReadyHeap(queue);
    const double time = duration(op, queueDevice(queue));
    beginOp(queue, op, time);
    heapPush(events.data(), eventCount, TimedEvent{now + time, queue});
}

// Gives the transfers requested at `now` their place on their links, in producer order: each
// starts when its link has finished everything given to it before.
void SimWork::commitRequests()
{
    // Only requests on the same link need producer order, and those come from ops of one
    // device, which end one per round of the instant: a short insertion sort by producer
    // (a producer's own transfers use different links, so their order does not matter).
    Index* r = requests.data();
    for (Index i = 1; i < requestCount; ++i) {
        const Index t = r[i];
        const Index producer = tProducer[static_cast<size_t>(t)];
        Index j = i;
        for (; j > 0 && tProducer[static_cast<size_t>(r[j - 1])] > producer; --j)
            r[j] = r[j - 1];
        r[j] = t;
    }
    double* linkBusy = result->linkBusyUs.data();
    double* linkBytes = result->linkBytes.data();
    for (Index i = 0; i < requestCount; ++i) {
        const Index t = r[i];
        const auto ti = static_cast<size_t>(t);
        const auto l = static_cast<size_t>(tLink[ti]);
        const double start = std::max(now, linkFreeUs[l]);
        const double end = start + (linkLatencyUs[l] + tBytes[ti] / linkBytesPerUs[l]);
        linkFreeUs[l] = end;
        tEnd[ti] = end;
        tNext[ti] = -1;
        tSeq[ti] = commitSeq++;
        if (linkTail[l] < 0) { // an idle link: its queue now has a head, hence an event
            linkHead[l] = t;
            heapPush(events.data(), eventCount, TimedEvent{end, queueCount + static_cast<Index>(l)});
        } else {
            tNext[static_cast<size_t>(linkTail[l])] = t;
        }
        linkTail[l] = t;
        linkBusy[l] += end - start;
        linkBytes[l] += tBytes[ti];
        if (recordTimeline)
            result->timeline.transfers.push_back(
                TransferSpan{tProducer[ti], tFrom[ti], tTo[ti], tBytes[ti], now, start, end});
    }
    requestCount = 0;
}

inline void SimWork::dispatch()
{
    for (DeviceId device : dirtyDevices) {
        const auto d = static_cast<size_t>(device);
        deviceDirty[d] = 0;
        if (readyUnsorted[d]) // before the instant can change, even if the device is busy
            sortReadyInstant(device);
        if (!deviceBusy[d] && readyHead[d] < readyTail[d])
            startOp(device);
    }
    dirtyDevices.clear();
}

void SimWork::simulate()
{
    for (Index op = 0; op < opCount; ++op)
        if (pending[static_cast<size_t>(op)] == 0)
            makeReady(op, place[op]);
    dispatch();
    loop();
}

void SimWork::loop()
{
    for (;;) {
        if (eventCount == 0 || events[0].time > now) {
            // The instant is over: its transfers can now take their turn on the links.
            if (requestCount > 0) {
                commitRequests();
                continue; // a zero-duration transfer arrives right now
            }
            if (eventCount == 0)
                break;
            if (checkpoints != nullptr && instant % checkpointEvery == 0)
                checkpoints->save(*this);
            now = events[0].time;
            ++instant;
        }
        // Everything that happens at `now` first, then the devices choose.
        while (eventCount > 0 && events[0].time == now)
            handleEvent(events[0].id);
        dispatch();
    }
    if (opsDone != opCount)
        throw std::logic_error("simulator: " + std::to_string(opCount - opsDone) + " ops never ran");
}

void SimWork::finishRun(double optimizerStateFactor)
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
        const double peakLive = std::max(peakLiveBytes[i], liveBytes[i]);
        out.peakMemoryBytes[i] = deviceParamBytes[i] * optimizerStateFactor + deviceResidentBytes[i] + peakLive;
        if (out.peakMemoryBytes[i] > deviceMemory[i])
            out.feasible = false;
    }
}

} // namespace detail

Simulator::Simulator(const Graph& graph, const Cluster& cluster, SimOptions options)
    : graph_(graph)
    , cluster_(cluster)
    , options_(resolvedFor(graph, options))
    , work_(new detail::SimWork(graph, cluster, options))
{
}

Simulator::~Simulator() { delete work_; }

const SimResult& Simulator::run(const Placement& placement, bool recordTimeline)
{
    work_->reset(placement, result_, recordTimeline);
    work_->simulate();
    work_->finishRun(*options_.optimizerStateFactor);
    return result_;
}

DeviceId mostOverMemory(const Cluster& cluster, const SimResult& result)
{
    DeviceId worst = kNoDevice;
    double worstRatio = 1.0;
    for (DeviceId d = 0; d < cluster.deviceCount() && d < static_cast<int>(result.peakMemoryBytes.size()); ++d) {
        const double capacity = cluster.device(d).memoryBytes;
        const double ratio = result.peakMemoryBytes[static_cast<size_t>(d)] / capacity;
        if (std::isfinite(capacity) && capacity > 0.0 && ratio > worstRatio) {
            worst = d;
            worstRatio = ratio;
        }
    }
    return worst;
}

} // namespace post
