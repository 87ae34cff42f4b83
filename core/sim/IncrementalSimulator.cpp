#include "core/sim/IncrementalSimulator.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/sim/SimWork.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace post {
namespace {

using Index = detail::SimWork::Index;

// What the event loop holds at an instant boundary besides what the records of ops and
// transfers give back: the small per-device and per-link state, copied exactly (the heap's
// layout included, so that the resumed run handles events in the same order).
struct Checkpoint {
    double now = 0.0;
    std::uint64_t instant = 0;
    Index opsDone = 0;
    Index transferCount = 0;
    Index commitSeq = 0;
    int eventCount = 0;
    std::vector<TimedEvent> events;
    std::vector<double> linkFreeUs, liveBytes, peakLiveBytes, deviceBusyUs, linkBytes, linkBusyUs;
    std::vector<std::uint64_t> liveInstant, readyInstant;
    std::vector<Index> running, deviceBusy;
};

// One simulated placement: every op's ready, start and end time, its transfers, its
// checkpoints and its result.
struct Record {
    bool valid = false;
    Placement place;
    std::vector<double> readyAt, start, end;
    std::vector<Checkpoint> checkpoints; // storage: the first `checkpointCount` are in use
    size_t checkpointCount = 0;
    std::uint64_t every = 1; // checkpoints are taken at instants that are multiples of this
    Index transferCount = 0;
    std::vector<Index> tProducer, tFrom, tTo, tLink, tFirstSlot, tSeq, slotNext;
    std::vector<double> tBytes, tEnd;
    SimResult result;
};

// Checkpoints per run: between 64 and 128, so that resuming replays at most about 1/64 of the
// run more than needed, and taking them costs a small fraction of the run.
constexpr size_t kCheckpoints = 64;

void thin(std::vector<Checkpoint>& list, size_t& count, std::uint64_t& every)
{
    const std::uint64_t twice = every * 2;
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i)
        if (list[i].instant % twice == 0)
            std::swap(list[kept++], list[i]);
    count = kept;
    every = twice;
}

} // namespace

struct IncrementalSimulator::Impl final : detail::SimCheckpointSink {
    detail::SimWork work;
    SimOptions options;
    Record ref;        // the reference
    Record last;       // the last run when it was not the reference itself
    size_t prefix = 0; // last's checkpoints follow the reference's first `prefix` ones
    const Record* lastRun = nullptr;
    SimResult result;
    Stats stats;
    std::vector<std::pair<double, Index>> queued; // restore(): ready ops, by device
    std::vector<Index> queuedDevice;
    std::vector<Index> linkQueued; // restore(): transfers still on their links

    Impl(const Graph& graph, const Cluster& cluster, SimOptions o)
        : work(graph, cluster, o)
        , options(o)
    {
        const auto n = static_cast<size_t>(work.opCount);
        for (Record* r : {&ref, &last}) {
            r->readyAt.resize(n);
            r->start.resize(n);
            r->end.resize(n);
        }
    }

    void save(detail::SimWork& w) override
    {
        if (last.checkpointCount == last.checkpoints.size())
            last.checkpoints.emplace_back();
        Checkpoint& c = last.checkpoints[last.checkpointCount++];
        c.now = w.now;
        c.instant = w.instant;
        c.opsDone = w.opsDone;
        c.transferCount = w.transferCount;
        c.commitSeq = w.commitSeq;
        c.eventCount = w.eventCount;
        c.events.assign(w.events.begin(), w.events.begin() + w.eventCount);
        c.linkFreeUs = w.linkFreeUs;
        c.liveBytes = w.liveBytes;
        c.peakLiveBytes = w.peakLiveBytes;
        c.deviceBusyUs = w.result->deviceBusyUs;
        c.linkBytes = w.result->linkBytes;
        c.linkBusyUs = w.result->linkBusyUs;
        c.liveInstant = w.liveInstant;
        c.readyInstant = w.readyInstant;
        c.running = w.running;
        c.deviceBusy = w.deviceBusy;
        if (last.checkpointCount >= 2 * kCheckpoints) {
            thin(last.checkpoints, last.checkpointCount, last.every);
            w.checkpointEvery = last.every;
        }
    }

    void prepare(const Placement& placement, std::uint64_t every)
    {
        last.place = placement;
        last.checkpointCount = 0;
        last.every = every;
        work.recordTimes = true;
        work.readyAtRec = last.readyAt.data();
        work.startRec = last.start.data();
        work.endRec = last.end.data();
        work.checkpoints = this;
        work.checkpointEvery = every;
    }

    void fromStart(const Placement& placement)
    {
        // First guess of the spacing: about two instants per op (thinned if there are more).
        std::uint64_t every = 1;
        while (every * kCheckpoints < 2 * static_cast<std::uint64_t>(work.opCount))
            every *= 2;
        prefix = 0;
        work.reset(placement, result, false);
        prepare(placement, every);
        work.simulate();
        work.finishRun(*options.optimizerStateFactor);
        last.valid = true;
        lastRun = &last;
        ++stats.fromStart;
        stats.resumedAtUs = 0.0;
    }

    // The earliest time the simulation reads the device of an op on which `a` and `b`
    // differ, by the reference's times: when its first producer ends (0 without producers).
    // Stops early at `floor`.
    double firstRead(const Placement& a, const Placement& b, double floor, bool& differs) const
    {
        const DeviceId* r = b.data();
        const DeviceId* p = a.data();
        double first = std::numeric_limits<double>::infinity();
        differs = false;
        if (!ref.valid || a.size() != b.size() || a.size() != static_cast<size_t>(work.opCount))
            return 0.0;
        for (Index op = 0; op < work.opCount; ++op) {
            if (p[op] == r[op])
                continue;
            differs = true;
            const auto o = static_cast<size_t>(op);
            double t = work.inOffset[o] == work.inOffset[o + 1] ? 0.0 : std::numeric_limits<double>::infinity();
            for (Index s = work.inOffset[o]; s < work.inOffset[o + 1]; ++s)
                t = std::min(t, ref.end[static_cast<size_t>(work.inFrom[static_cast<size_t>(s)])]);
            first = std::min(first, t);
            if (first <= floor)
                break;
        }
        return first;
    }

    // Rebuilds the work state of `placement` at the reference's checkpoint `index`, which is
    // before any instant where the two differ.
    void restore(const Placement& placement, size_t index)
    {
        detail::SimWork& w = work;
        const Checkpoint& c = ref.checkpoints[index];
        const double T = c.now;
        w.reset(placement, result, false);
        prepare(placement, ref.every);
        prefix = index;
        std::copy(ref.readyAt.begin(), ref.readyAt.end(), last.readyAt.begin());
        std::copy(ref.start.begin(), ref.start.end(), last.start.begin());
        std::copy(ref.end.begin(), ref.end.end(), last.end.begin());

        w.now = T;
        w.instant = c.instant;
        w.opsDone = c.opsDone;
        w.transferCount = c.transferCount;
        w.commitSeq = c.commitSeq;
        w.eventCount = c.eventCount;
        std::copy(c.events.begin(), c.events.end(), w.events.begin());
        w.linkFreeUs = c.linkFreeUs;
        w.liveBytes = c.liveBytes;
        w.peakLiveBytes = c.peakLiveBytes;
        w.liveInstant = c.liveInstant;
        w.readyInstant = c.readyInstant;
        w.running = c.running;
        w.deviceBusy = c.deviceBusy;
        result.deviceBusyUs = c.deviceBusyUs;
        result.linkBytes = c.linkBytes;
        result.linkBusyUs = c.linkBusyUs;

        const double* end = ref.end.data();
        const DeviceId* place = placement.data();
        // Transfers requested so far: the reference's, with the same ids. Each consumer slot
        // of one holds the received tensor until its consumer ends.
        linkQueued.clear();
        for (Index t = 0; t < c.transferCount; ++t) {
            const auto ti = static_cast<size_t>(t);
            w.tProducer[ti] = ref.tProducer[ti];
            w.tFrom[ti] = ref.tFrom[ti];
            w.tTo[ti] = ref.tTo[ti];
            w.tLink[ti] = ref.tLink[ti];
            w.tFirstSlot[ti] = ref.tFirstSlot[ti];
            w.tSeq[ti] = ref.tSeq[ti];
            w.tBytes[ti] = ref.tBytes[ti];
            w.tEnd[ti] = ref.tEnd[ti];
            w.tNext[ti] = -1;
            Index refs = 0;
            for (Index s = ref.tFirstSlot[ti]; s >= 0; s = ref.slotNext[static_cast<size_t>(s)]) {
                const auto si = static_cast<size_t>(s);
                w.slotNext[si] = ref.slotNext[si];
                w.tLastSlot[ti] = s;
                w.inSlotTransfer[static_cast<size_t>(w.outInSlot[si])] = t;
                if (end[static_cast<size_t>(w.outTo[si])] > T)
                    ++refs;
            }
            w.tReceiverRefs[ti] = refs;
            if (ref.tEnd[ti] > T)
                linkQueued.push_back(t);
        }
        // Ops: the holders of finished outputs, the inputs still awaited, the ready queues.
        queued.clear();
        queuedDevice.clear();
        for (Index op = 0; op < w.opCount; ++op) {
            const auto o = static_cast<size_t>(op);
            const DeviceId device = place[op];
            if (end[o] <= T) {
                Index refs = 0;
                for (Index s = w.outOffset[o]; s < w.outOffset[o + 1]; ++s) {
                    const Index consumer = w.outTo[static_cast<size_t>(s)];
                    if (place[consumer] == device && end[static_cast<size_t>(consumer)] > T)
                        ++refs;
                }
                w.outputRefs[o] = refs;
            }
            Index delivered = 0;
            for (Index s = w.inOffset[o]; s < w.inOffset[o + 1]; ++s) {
                const Index producer = w.inFrom[static_cast<size_t>(s)];
                if (end[static_cast<size_t>(producer)] > T)
                    continue;
                if (place[producer] == device
                    || ref.tEnd[static_cast<size_t>(w.inSlotTransfer[static_cast<size_t>(s)])] <= T)
                    ++delivered;
            }
            w.pending[o] = w.inDegree[o] - delivered;
            if (ref.readyAt[o] <= T && ref.start[o] > T)
                queued.emplace_back(ref.readyAt[o], op);
        }
        for (Index t : linkQueued)
            ++w.outputRefs[static_cast<size_t>(w.tProducer[static_cast<size_t>(t)])];
        std::sort(linkQueued.begin(), linkQueued.end(),
                  [&](Index a, Index b) { return w.tSeq[static_cast<size_t>(a)] < w.tSeq[static_cast<size_t>(b)]; });
        for (Index t : linkQueued) {
            const auto l = static_cast<size_t>(w.tLink[static_cast<size_t>(t)]);
            if (w.linkTail[l] < 0)
                w.linkHead[l] = t;
            else
                w.tNext[static_cast<size_t>(w.linkTail[l])] = t;
            w.linkTail[l] = t;
        }
        // Each ready queue in (ready time, OpId) order, from the start of its segment.
        std::sort(queued.begin(), queued.end(), [&](const auto& a, const auto& b) {
            const Index da = w.queueOf(a.second, place[a.second]);
            const Index db = w.queueOf(b.second, place[b.second]);
            if (da != db)
                return da < db;
            return a.first != b.first ? a.first < b.first : a.second < b.second;
        });
        for (const auto& [readyAt, op] : queued) {
            const auto d = static_cast<size_t>(w.queueOf(op, place[op]));
            w.ready[static_cast<size_t>(w.readyTail[d]++)] = op;
        }
        if (!w.priority.empty()) // critical-path dispatch: each queue a heap, not a list
            for (Index q = 0; q < w.queueCount; ++q)
                w.makeReadyHeap(q);
    }

    double resumeTime(const Placement& placement) const
    {
        if (!ref.valid || placement.size() != ref.place.size())
            return 0.0;
        const double floor = ref.checkpointCount > 1 ? ref.checkpoints[1].now : std::numeric_limits<double>::infinity();
        bool differs = false;
        const double first = firstRead(placement, ref.place, floor, differs);
        if (!differs)
            return ref.result.stepTimeUs;
        if (first <= floor)
            return 0.0;
        return lastCheckpointBefore(first)->now;
    }

    std::vector<Checkpoint>::const_iterator lastCheckpointBefore(double time) const
    {
        const auto begin = ref.checkpoints.begin();
        return std::lower_bound(begin, begin + static_cast<std::ptrdiff_t>(ref.checkpointCount), time,
                                [](const Checkpoint& c, double t) { return c.now < t; })
            - 1;
    }

    void setReference(const Placement& placement)
    {
        if (lastRun == &last && last.valid && last.place == placement) {
            keep();
            return;
        }
        if (ref.valid && ref.place == placement)
            return;
        run(placement);
        keep();
    }

    const SimResult& run(const Placement& placement)
    {
        ++stats.runs;
        if (placement.size() != static_cast<size_t>(work.opCount) || !ref.valid) {
            fromStart(placement); // reset() reports a wrong size
            if (!ref.valid)
                keep();
            return result;
        }
        // A checkpoint after the first is worth resuming from.
        const double floor = ref.checkpointCount > 1 ? ref.checkpoints[1].now : std::numeric_limits<double>::infinity();
        bool differs = false;
        const double first = firstRead(placement, ref.place, floor, differs);
        if (!differs) {
            result = ref.result;
            lastRun = &ref;
            ++stats.unchanged;
            stats.resumedAtUs = ref.result.stepTimeUs;
            return result;
        }
        if (first <= floor) {
            fromStart(placement);
            return result;
        }
        const auto index = static_cast<size_t>(lastCheckpointBefore(first) - ref.checkpoints.begin());
        restore(placement, index);
        work.loop();
        work.finishRun(*options.optimizerStateFactor);
        last.valid = true;
        lastRun = &last;
        stats.resumedAtUs = ref.checkpoints[index].now;
        return result;
    }

    void keep()
    {
        if (lastRun != &last || !last.valid)
            return;
        // Checkpoints: the reference's first `prefix`, then the last run's.
        for (size_t i = 0; i < last.checkpointCount; ++i) {
            if (prefix + i == ref.checkpoints.size())
                ref.checkpoints.emplace_back();
            std::swap(ref.checkpoints[prefix + i], last.checkpoints[i]);
        }
        ref.checkpointCount = prefix + last.checkpointCount;
        ref.every = std::max(ref.every, last.every);
        while (ref.checkpointCount >= 2 * kCheckpoints)
            thin(ref.checkpoints, ref.checkpointCount, ref.every);
        std::swap(ref.place, last.place);
        std::swap(ref.readyAt, last.readyAt);
        std::swap(ref.start, last.start);
        std::swap(ref.end, last.end);
        ref.result = result;
        const detail::SimWork& w = work;
        const auto tc = static_cast<size_t>(w.transferCount);
        ref.transferCount = w.transferCount;
        auto take = [tc](auto& to, const auto& from) {
            to.assign(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(tc));
        };
        take(ref.tProducer, w.tProducer);
        take(ref.tFrom, w.tFrom);
        take(ref.tTo, w.tTo);
        take(ref.tLink, w.tLink);
        take(ref.tFirstSlot, w.tFirstSlot);
        take(ref.tSeq, w.tSeq);
        take(ref.tBytes, w.tBytes);
        take(ref.tEnd, w.tEnd);
        ref.slotNext = w.slotNext;
        ref.valid = true;
        last.valid = false;
        last.checkpointCount = 0;
        prefix = 0;
        lastRun = &ref;
    }
};

IncrementalSimulator::IncrementalSimulator(const Graph& graph, const Cluster& cluster, SimOptions options)
    : graph_(graph)
    , cluster_(cluster)
    , impl_(std::make_unique<Impl>(graph, cluster, resolvedFor(graph, options)))
{
}

IncrementalSimulator::~IncrementalSimulator() = default;

const SimResult& IncrementalSimulator::run(const Placement& placement) { return impl_->run(placement); }

void IncrementalSimulator::keepLastAsReference() { impl_->keep(); }

void IncrementalSimulator::setReference(const Placement& placement) { impl_->setReference(placement); }

double IncrementalSimulator::resumeTimeUs(const Placement& placement) const { return impl_->resumeTime(placement); }

void IncrementalSimulator::clearReference()
{
    impl_->ref.valid = false;
    impl_->ref.place.clear();
    impl_->ref.checkpointCount = 0;
    if (impl_->lastRun == &impl_->ref)
        impl_->lastRun = nullptr;
}

bool IncrementalSimulator::hasReference() const { return impl_->ref.valid; }

const Placement& IncrementalSimulator::reference() const { return impl_->ref.place; }

const SimResult& IncrementalSimulator::referenceResult() const { return impl_->ref.result; }

double IncrementalSimulator::firstReadUs(const Placement& a, const Placement& b, double floor) const
{
    bool differs = false;
    const double first = impl_->firstRead(a, b, floor, differs);
    return differs ? first : std::numeric_limits<double>::infinity();
}

std::span<const double> IncrementalSimulator::opStartUs() const
{
    return impl_->lastRun ? std::span<const double>(impl_->lastRun->start) : std::span<const double>();
}

std::span<const double> IncrementalSimulator::opEndUs() const
{
    return impl_->lastRun ? std::span<const double>(impl_->lastRun->end) : std::span<const double>();
}

const IncrementalSimulator::Stats& IncrementalSimulator::stats() const { return impl_->stats; }

} // namespace post
