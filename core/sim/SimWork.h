#pragma once

#include "core/sim/SimOptions.h"

// The simulator's work state (internal to core/sim): shared by Simulator and
// IncrementalSimulator, which resumes a run from a checkpoint of this state.

#include "core/graph/Placement.h"
#include "core/sim/MinHeap.h"
#include "core/sim/SimResult.h"

#include <cstdint>
#include <span>
#include <vector>

namespace post {

class Graph;
class Cluster;

namespace detail {

struct SimWork;

// Called at instant boundaries (every instant is complete, its transfers have their slots)
// whose instant count is a multiple of SimWork::checkpointEvery.
class SimCheckpointSink {
public:
    virtual void save(SimWork& work) = 0;

protected:
    ~SimCheckpointSink() = default;
};

// Event-driven simulation over flat arrays. The graph and cluster are copied into compact
// arrays once (the Op structs carry strings and would spoil the cache); everything a run
// needs is sized here for the worst case, so run() only overwrites memory.
struct SimWork {
    using Index = std::int32_t;

    // ---- Graph, flattened (constant) ----
    Index opCount = 0;
    Index edgeCount = 0;
    // Durations. Usually opCount x kDeviceKindCount times for speed 1.0, divided by the device's
    // speed when used; when some op takes its roofline time or its time for the device's type
    // on some device (cost/OpTime.h), opCount x deviceCount finished durations instead. Graphs without costs keep the small
    // table (4x smaller on 8 GPUs) and the exact arithmetic they always had.
    bool perDeviceTimes = false;
    std::vector<double> opTime;
    std::vector<double> outputBytes;   // per op
    std::vector<double> paramBytes;    // per op
    std::vector<double> residentBytes; // per op; held whole step, not scaled by the factor
    std::vector<Index> inDegree;       // per op
    std::vector<Index> inOffset;       // CSR of inputs: opCount + 1
    std::vector<Index> inFrom;         // producer per input slot
    std::vector<Index> outOffset;      // CSR of outputs: opCount + 1
    std::vector<Index> outTo;          // consumer per output slot
    std::vector<Index> outInSlot;      // the input slot of the same edge
    std::vector<double> outEdgeBytes;
    // Whether an op's tensor takes memory: outputBytes or some out-edge's bytes nonzero. The
    // memory bookkeeping of the others (holders, frees, received tensors) only ever adds zero,
    // so it is skipped: a dense trace without tensor sizes visits each edge once or twice
    // instead of three times.
    std::vector<char> holdsBytes;   // per op
    std::vector<Index> memInOffset; // CSR of the inputs from ops holding bytes: opCount + 1
    std::vector<Index> memInFrom;   // their producers, in input order
    std::vector<Index> memInSlot;   // their input slots

    // Collectives (Op::isCollective, docs/simulator.md "Collectives") run on their device's
    // communication channel: a second queue per device, queue deviceCount + d. Without
    // collectives there is one queue per device (queue d), and nothing below reads queueShift.
    bool hasCollectives = false;
    std::vector<Index> queueShift; // per op: 0, or deviceCount for a collective

    // ---- Cluster (constant) ----
    Index deviceCount = 0;
    Index queueCount = 0; // deviceCount, or twice that with collectives
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

    // Transfers: at most one per edge, created when their producer ends. A transfer's
    // consumers are the output slots chained from tFirstSlot through slotNext, so an arrival
    // visits only them rather than filtering all of the producer's outputs.
    Index transferCount = 0;
    std::vector<Index> tProducer, tFrom, tTo, tLink, tReceiverRefs, tFirstSlot, tLastSlot;
    std::vector<Index> slotNext; // per output slot
    std::vector<double> tBytes;

    // Per-queue ready queues (a device's compute queue, and its channel's: queueCount of them;
    // "device" below means a queue), carved out of one array: a device's segment holds its ops, and
    // each op enters once, so a queue is a segment with a head and a tail that never wraps.
    // The order must be (ready time, OpId). Ready times only grow, so appending keeps the
    // queue in time order; only the ops that became ready in the current instant may need
    // sorting by id, which dispatch() does for the few devices where an append was out of order.
    std::vector<Index> ready;
    // Dispatch::CriticalPath: each op's priority, its longest path to a sink (empty: ready
    // order). Each queue's segment of `ready` is then a binary heap rooted at its head.
    std::vector<double> priority;
    std::vector<Index> readyHead, readyTail; // absolute indices into `ready`
    std::vector<Index> readyInstantStart;    // first entry appended in readyInstant
    std::vector<std::uint64_t> readyInstant;
    std::vector<char> readyUnsorted;
    std::vector<Index> running; // the op a busy device runs
    std::vector<Index> deviceBusy;
    std::vector<Index> deviceDirty;
    std::vector<Index> dirtyDevices;

    // Each link serves its transfers first come, first served, so a transfer's slot on the
    // link is known as soon as every request made before it is: the requests of an instant
    // are collected and given their slots, in producer order, once the instant is over.
    // Arrivals on one link are then in queue order, so a link needs one pending event only:
    // its head transfer's. The queue is a list threaded through tNext.
    std::vector<double> linkFreeUs; // when the last transfer given to the link ends
    std::vector<Index> linkHead, linkTail;
    std::vector<Index> tNext;
    std::vector<double> tEnd;
    std::vector<Index> requests; // transfers requested in the current instant
    Index requestCount = 0;
    std::vector<Index> tSeq; // the order in which transfers were given their link slots
    Index commitSeq = 0;

    // The next event of every busy resource: event id q < queueCount is queue q's op end,
    // queueCount + link is the arrival of that link's head transfer. At most
    // queues + links entries, so the heap stays a few levels deep however many transfers
    // are queued.
    std::vector<TimedEvent> events;
    int eventCount = 0;

    // Live tensor bytes per device. The peak must only see the live total at the end of an
    // instant (a free and an allocation at the same time net out), and that total is what
    // the device holds just before its first change in a later instant: so the peak is
    // taken there, and once more when the run ends.
    std::vector<double> liveBytes, peakLiveBytes, deviceParamBytes, deviceResidentBytes;
    std::vector<std::uint64_t> liveInstant; // the instant of the device's last change

    // Grouping one producer's cross-device edges by destination device.
    std::vector<Index> transferToDevice;
    std::vector<Index> touchedDevices;

    SimResult* result = nullptr;
    bool recordTimeline = false;

    // IncrementalSimulator only: per-op ready, start and end times written to these arrays
    // (opCount entries each), and checkpoints offered at instant boundaries.
    bool recordTimes = false;
    double* readyAtRec = nullptr;
    double* startRec = nullptr;
    double* endRec = nullptr;
    SimCheckpointSink* checkpoints = nullptr;
    std::uint64_t checkpointEvery = 1;

    SimWork(const Graph& graph, const Cluster& cluster, const SimOptions& options);
    void reset(const Placement& placement, SimResult& out, bool timeline);
    void simulate();
    void loop(); // the event loop, from an instant boundary (or the start) to the end
    // GCC leaves these large single-caller functions out of line; inlined into the event
    // loop they cost about a tenth fewer instructions.
    [[gnu::always_inline]] void handleEvent(Index id);
    [[gnu::always_inline]] void finishOp(Index op, Index queue);
    template <bool HoldsBytes> [[gnu::always_inline]] void sendOutput(Index op, DeviceId device);
    [[gnu::always_inline]] void finishTransfer(Index t);
    [[gnu::always_inline]] void makeReady(Index op, DeviceId device);
    [[gnu::always_inline]] void dispatch();
    [[gnu::always_inline]] void startOp(Index queue);
    [[gnu::always_inline]] void beginOp(Index queue, Index op, double duration);
    [[gnu::always_inline]] double duration(Index op, DeviceId device) const;
    [[gnu::always_inline]] bool nextOpIsSettled(DeviceId device) const;
    void sortReadyInstant(DeviceId device);
    bool higherPriority(Index a, Index b) const
    {
        const double pa = priority[static_cast<size_t>(a)], pb = priority[static_cast<size_t>(b)];
        return pa > pb || (pa == pb && a < b);
    }
    void computePriorities(std::span<const OpId> topologicalOrder);
    void pushReadyHeap(Index queue, Index op);
    Index popReadyHeap(Index queue);
    void makeReadyHeap(Index queue);
    // The queue an op placed on `device` waits in, and the device of a queue.
    Index queueOf(Index op, DeviceId device) const
    {
        return hasCollectives ? device + queueShift[static_cast<size_t>(op)] : device;
    }
    DeviceId queueDevice(Index queue) const { return queue < deviceCount ? queue : queue - deviceCount; }
    void commitRequests();
    void changeLive(DeviceId device, double bytes);
    void markDevice(DeviceId device);
    void finishRun(double optimizerStateFactor);
};

} // namespace detail
} // namespace post
