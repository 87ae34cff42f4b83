#include "core/classic/MemoryLedger.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <algorithm>

namespace post {

MemoryLedger::MemoryLedger(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                           std::span<const double> budgets)
    : graph_(graph)
    , deviceCount_(cluster.deviceCount())
    , params_(static_cast<size_t>(graph.opCount()))
    , output_(static_cast<size_t>(graph.opCount()))
    , copy_(static_cast<size_t>(graph.opCount()))
    , groupParams_(static_cast<size_t>(graph.colocationGroupCount()), 0.0)
    , groupFootprint_(static_cast<size_t>(graph.colocationGroupCount()), 0.0)
    , capacity_(static_cast<size_t>(cluster.deviceCount()))
    , paramLoad_(static_cast<size_t>(cluster.deviceCount()), 0.0)
    , live_(static_cast<size_t>(cluster.deviceCount()), 0.0)
    , peakLive_(static_cast<size_t>(cluster.deviceCount()), 0.0)
    , device_(static_cast<size_t>(graph.opCount()), kNoDevice)
    , groupDevice_(static_cast<size_t>(graph.colocationGroupCount()), kNoDevice)
    , unplacedConsumers_(static_cast<size_t>(graph.opCount()))
    , hasCopy_(static_cast<size_t>(graph.opCount()) * static_cast<size_t>(cluster.deviceCount()), 0)
    , seenAt_(static_cast<size_t>(graph.opCount()), 0U)
{
    const double factor = optimizerStateFactor(graph, options);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const Op& o = graph.op(op);
        const auto i = static_cast<size_t>(op);
        params_[i] = o.paramBytes * factor + o.residentBytes; // held all step, as in the simulator
        output_[i] = o.outputBytes;
        copy_[i] = o.outputBytes;
        for (EdgeId e : graph.outEdges(op))
            copy_[i] = std::max(copy_[i], graph.edge(e).bytes);
        unplacedConsumers_[i] = static_cast<int>(graph.outEdges(op).size());
        if (const int g = graph.colocationGroup(op); g >= 0) {
            groupParams_[static_cast<size_t>(g)] += params_[i];
            groupFootprint_[static_cast<size_t>(g)] += params_[i] + output_[i];
        }
    }
    copyInOffset_.reserve(static_cast<size_t>(graph.opCount()) + 1);
    copyInOffset_.push_back(0);
    for (OpId op = 0; op < graph.opCount(); ++op) {
        for (EdgeId e : graph.inEdges(op)) {
            const OpId p = graph.edge(e).from;
            if (copy_[static_cast<size_t>(p)] != 0.0)
                copyInFrom_.push_back(p);
        }
        copyInOffset_.push_back(static_cast<int>(copyInFrom_.size()));
    }
    for (DeviceId d = 0; d < deviceCount_; ++d)
        capacity_[static_cast<size_t>(d)] = budgets.empty() ? cluster.device(d).memoryBytes
                                                            : budgets[static_cast<size_t>(d)];
}

double MemoryLedger::footprint(OpId op) const
{
    const int g = graph_.colocationGroup(op);
    return g < 0 ? params_[static_cast<size_t>(op)] + output_[static_cast<size_t>(op)]
                 : groupFootprint_[static_cast<size_t>(g)];
}

double MemoryLedger::peakBytes(DeviceId d) const
{
    return paramLoad_[static_cast<size_t>(d)] + peakLive_[static_cast<size_t>(d)];
}

double MemoryLedger::newParams(OpId op, DeviceId d) const
{
    const int g = graph_.colocationGroup(op);
    if (g < 0)
        return params_[static_cast<size_t>(op)];
    const DeviceId home = groupDevice_[static_cast<size_t>(g)];
    if (home == kNoDevice)
        return groupParams_[static_cast<size_t>(g)];
    return home == d ? 0.0 : params_[static_cast<size_t>(op)]; // a split group: callers never do this
}

double MemoryLedger::newTensors(OpId op, DeviceId d) const
{
    double bytes = output_[static_cast<size_t>(op)];
    // Several edges from one producer need one copy: producers are marked with this call's
    // stamp (linear in the in-degree; comparing with the earlier edges was quadratic, 73% of
    // m-ETF's time on a Chakra step with ops of thousands of inputs). Producers whose copy
    // takes no bytes are not visited (copyInFrom_).
    const auto first = static_cast<size_t>(copyInOffset_[static_cast<size_t>(op)]);
    const auto last = static_cast<size_t>(copyInOffset_[static_cast<size_t>(op) + 1]);
    if (first == last)
        return bytes;
    if (++stamp_ == 0) {
        std::fill(seenAt_.begin(), seenAt_.end(), 0U);
        stamp_ = 1;
    }
    for (size_t k = first; k < last; ++k) {
        const OpId p = copyInFrom_[k];
        const DeviceId pd = deviceOf(p);
        if (pd == kNoDevice || pd == d || hasCopy_[at(p, d)] || seenAt_[static_cast<size_t>(p)] == stamp_)
            continue;
        seenAt_[static_cast<size_t>(p)] = stamp_;
        bytes += copy_[static_cast<size_t>(p)];
    }
    return bytes;
}

double MemoryLedger::peakAfter(OpId op, DeviceId d) const
{
    const auto di = static_cast<size_t>(d);
    const double live = std::max(peakLive_[di], live_[di] + newTensors(op, d));
    return paramLoad_[di] + newParams(op, d) + live;
}

void MemoryLedger::place(OpId op, DeviceId d)
{
    const auto di = static_cast<size_t>(d);
    const double params = newParams(op, d);
    const double tensors = newTensors(op, d);
    if (const int g = graph_.colocationGroup(op); g >= 0 && groupDevice_[static_cast<size_t>(g)] == kNoDevice)
        groupDevice_[static_cast<size_t>(g)] = d;
    for (EdgeId e : graph_.inEdges(op)) {
        const OpId p = graph_.edge(e).from;
        const DeviceId pd = deviceOf(p);
        if (pd != kNoDevice && pd != d)
            hasCopy_[at(p, d)] = 1;
    }
    device_[static_cast<size_t>(op)] = d;
    paramLoad_[di] += params;
    live_[di] += tensors;
    peakLive_[di] = std::max(peakLive_[di], live_[di]);

    // Once placed, the op has run: inputs whose last consumer it was are freed, and an
    // output nobody reads dies at once.
    for (EdgeId e : graph_.inEdges(op)) {
        const OpId p = graph_.edge(e).from;
        if (--unplacedConsumers_[static_cast<size_t>(p)] == 0 && deviceOf(p) != kNoDevice)
            release(p);
    }
    if (unplacedConsumers_[static_cast<size_t>(op)] == 0)
        release(op);
}

void MemoryLedger::reset()
{
    std::fill(device_.begin(), device_.end(), kNoDevice);
    std::fill(groupDevice_.begin(), groupDevice_.end(), kNoDevice);
    std::fill(paramLoad_.begin(), paramLoad_.end(), 0.0);
    std::fill(live_.begin(), live_.end(), 0.0);
    std::fill(peakLive_.begin(), peakLive_.end(), 0.0);
    std::fill(hasCopy_.begin(), hasCopy_.end(), char{0});
    for (OpId op = 0; op < graph_.opCount(); ++op)
        unplacedConsumers_[static_cast<size_t>(op)] = static_cast<int>(graph_.outEdges(op).size());
}

void MemoryLedger::release(OpId producer)
{
    live_[static_cast<size_t>(deviceOf(producer))] -= output_[static_cast<size_t>(producer)];
    for (DeviceId x = 0; x < deviceCount_; ++x)
        if (hasCopy_[at(producer, x)]) {
            hasCopy_[at(producer, x)] = 0;
            live_[static_cast<size_t>(x)] -= copy_[static_cast<size_t>(producer)];
        }
}

std::vector<double> MemoryLedger::placementPeaks(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                                                 const Placement& placement)
{
    MemoryLedger ledger(graph, cluster, options);
    for (OpId op : graph.topologicalOrder())
        ledger.place(op, placement[static_cast<size_t>(op)]);
    std::vector<double> peaks(static_cast<size_t>(cluster.deviceCount()));
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        peaks[static_cast<size_t>(d)] = ledger.peakBytes(d);
    return peaks;
}

} // namespace post
