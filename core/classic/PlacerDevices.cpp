#include "core/classic/PlacerDevices.h"

#include "core/classic/MemoryLedger.h"
#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"
#include "core/graph/Op.h"
#include "core/util/InputError.h"

#include <algorithm>

namespace post {

PlacerDevices placerDevices(const Cluster& cluster)
{
    if (cluster.deviceCount() == 0)
        throw InputError(cluster.name(), "devices", "the cluster has no devices to place ops on");
    PlacerDevices sets;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        (cluster.device(d).kind == DeviceKind::Gpu ? sets.primary : sets.fallback).push_back(d);
    if (sets.primary.empty())
        sets.primary.swap(sets.fallback);
    return sets;
}

DeviceId overflowDevice(const MemoryLedger& ledger, OpId op, const PlacerDevices& devices)
{
    for (DeviceId d : devices.fallback)
        if (ledger.fits(op, d))
            return d;
    DeviceId roomiest = devices.primary.front();
    for (DeviceId d : devices.primary)
        if (ledger.freeBytes(d) > ledger.freeBytes(roomiest))
            roomiest = d;
    return roomiest;
}

double opTimeOn(const Op& op, const Device& device) { return opTimeUs(op, device); }

double balanceWeightUs(const Op& op, const Device& reference)
{
    if (const TypedTime* typed = op.typedTime(reference.type))
        return typed->us * reference.speed;
    return op.time(reference.kind);
}

std::vector<double> workShares(const Graph& graph, const Cluster& cluster, std::span<const DeviceId> devices)
{
    bool typed = false;
    for (DeviceId d : devices)
        typed = typed
            || std::binary_search(graph.deviceTypes().begin(), graph.deviceTypes().end(), cluster.device(d).type);
    std::vector<double> shares;
    for (DeviceId d : devices) {
        double total = 0.0;
        if (typed)
            for (const Op& op : graph.ops())
                total += opTimeUs(op, cluster.device(d));
        typed = typed && total > 0.0; // a device that does everything in no time: speeds decide
        shares.push_back(total);
    }
    double sum = 0.0;
    for (size_t i = 0; i < shares.size(); ++i) {
        shares[i] = typed ? 1.0 / shares[i] : cluster.device(devices[i]).speed;
        sum += shares[i];
    }
    for (double& share : shares)
        share = sum > 0.0 ? share / sum : 1.0 / static_cast<double>(shares.size());
    return shares;
}

} // namespace post
