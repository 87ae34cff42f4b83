#include "core/classic/PlacerDevices.h"

#include "core/classic/MemoryLedger.h"
#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Op.h"
#include "core/util/InputError.h"

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

} // namespace post
