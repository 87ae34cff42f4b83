#include "classic/MemoryLedger.h"

#include "cluster/Cluster.h"
#include "graph/Graph.h"

#include <algorithm>

namespace post {

MemoryLedger::MemoryLedger(const Graph& graph, const Cluster& cluster, const SimOptions& options)
    : graph_(graph)
    , deviceCount_(cluster.deviceCount())
    , own_(static_cast<size_t>(graph.opCount()))
    , copy_(static_cast<size_t>(graph.opCount()))
    , groupBytes_(static_cast<size_t>(graph.colocationGroupCount()), 0.0)
    , inputCopies_(static_cast<size_t>(graph.opCount()), 0.0)
    , load_(static_cast<size_t>(cluster.deviceCount()), 0.0)
    , capacity_(static_cast<size_t>(cluster.deviceCount()))
    , device_(static_cast<size_t>(graph.opCount()), kNoDevice)
    , groupDevice_(static_cast<size_t>(graph.colocationGroupCount()), kNoDevice)
    , groupPlaced_(static_cast<size_t>(graph.colocationGroupCount()), 0)
    , consumers_(static_cast<size_t>(graph.opCount()) * static_cast<size_t>(cluster.deviceCount()), 0)
{
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const Op& o = graph.op(op);
        const auto i = static_cast<size_t>(op);
        own_[i] = o.paramBytes * options.optimizerStateFactor + o.outputBytes;
        copy_[i] = o.outputBytes;
        for (EdgeId e : graph.outEdges(op))
            copy_[i] = std::max(copy_[i], graph.edge(e).bytes);
        if (const int g = graph.colocationGroup(op); g >= 0)
            groupBytes_[static_cast<size_t>(g)] += own_[i];
    }
    for (OpId op = 0; op < graph.opCount(); ++op)
        for (EdgeId e : graph.inEdges(op))
            inputCopies_[static_cast<size_t>(op)] += copy_[static_cast<size_t>(graph.edge(e).from)];
    for (DeviceId d = 0; d < deviceCount_; ++d)
        capacity_[static_cast<size_t>(d)] = cluster.device(d).memoryBytes;
}

double MemoryLedger::footprint(OpId op) const
{
    const int g = graph_.colocationGroup(op);
    return g < 0 ? ownBytes(op) : groupBytes_[static_cast<size_t>(g)];
}

double MemoryLedger::addedBytes(OpId op, DeviceId d) const
{
    double added = 0.0;
    const int g = graph_.colocationGroup(op);
    if (g < 0)
        added = ownBytes(op);
    else if (groupDevice_[static_cast<size_t>(g)] == kNoDevice)
        added = groupBytes_[static_cast<size_t>(g)];
    else if (groupDevice_[static_cast<size_t>(g)] != d)
        added = ownBytes(op); // a split group: callers never do this, but stay honest
    const auto in = graph_.inEdges(op);
    for (size_t k = 0; k < in.size(); ++k) {
        const OpId p = graph_.edge(in[k]).from;
        if (deviceOf(p) == kNoDevice || deviceOf(p) == d || consumers(p, d) > 0)
            continue;
        bool seen = false; // several edges from one producer need one copy
        for (size_t j = 0; j < k && !seen; ++j)
            seen = graph_.edge(in[j]).from == p;
        if (!seen)
            added += copyBytes(p);
    }
    return added;
}

bool MemoryLedger::fits(OpId op, DeviceId d, double limit) const
{
    const double room = std::min(capacity(d), limit) - loadBytes(d);
    // Schedulers ask this for every ready op and device each step: skip the exact count
    // when even the worst case (whole group, every input copied) fits.
    if (footprint(op) + inputCopies_[static_cast<size_t>(op)] <= room)
        return true;
    return addedBytes(op, d) <= room;
}

void MemoryLedger::place(OpId op, DeviceId d)
{
    const auto di = static_cast<size_t>(d);
    if (const int g = graph_.colocationGroup(op); g < 0) {
        load_[di] += ownBytes(op);
    } else {
        const auto gi = static_cast<size_t>(g);
        if (groupPlaced_[gi]++ == 0) {
            groupDevice_[gi] = d;
            load_[di] += groupBytes_[gi];
        } else if (groupDevice_[gi] != d) {
            load_[di] += ownBytes(op);
        }
    }
    for (EdgeId e : graph_.inEdges(op)) {
        const OpId p = graph_.edge(e).from;
        const DeviceId pd = deviceOf(p);
        if (++consumers(p, d) == 1 && pd != kNoDevice && pd != d)
            load_[di] += copyBytes(p);
    }
    for (DeviceId x = 0; x < deviceCount_; ++x)
        if (x != d && consumers(op, x) > 0)
            load_[static_cast<size_t>(x)] += copyBytes(op);
    device_[static_cast<size_t>(op)] = d;
}

void MemoryLedger::unplace(OpId op)
{
    const DeviceId d = deviceOf(op);
    if (d == kNoDevice)
        return;
    const auto di = static_cast<size_t>(d);
    device_[static_cast<size_t>(op)] = kNoDevice;
    for (DeviceId x = 0; x < deviceCount_; ++x)
        if (x != d && consumers(op, x) > 0)
            load_[static_cast<size_t>(x)] -= copyBytes(op);
    for (EdgeId e : graph_.inEdges(op)) {
        const OpId p = graph_.edge(e).from;
        const DeviceId pd = deviceOf(p);
        if (--consumers(p, d) == 0 && pd != kNoDevice && pd != d)
            load_[di] -= copyBytes(p);
    }
    if (const int g = graph_.colocationGroup(op); g < 0) {
        load_[di] -= ownBytes(op);
    } else {
        const auto gi = static_cast<size_t>(g);
        if (groupDevice_[gi] != d) {
            load_[di] -= ownBytes(op);
            --groupPlaced_[gi];
        } else if (--groupPlaced_[gi] == 0) {
            load_[di] -= groupBytes_[gi];
            groupDevice_[gi] = kNoDevice;
        }
    }
}

} // namespace post
