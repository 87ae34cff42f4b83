#pragma once

#include "core/graph/Ids.h"

#include <vector>

namespace post {

class Cluster;
class MemoryLedger;
struct Op;
struct Device;

// The devices a classical placer spreads work over. Accelerators (GPUs) are the
// primary targets, as in Baechi and the "expert" layer split; the rest (CPUs) only take
// ops when no accelerator has memory left. A cluster without GPUs uses all devices.
struct PlacerDevices {
    std::vector<DeviceId> primary;
    std::vector<DeviceId> fallback;
};

// Throws InputError for a cluster without devices.
PlacerDevices placerDevices(const Cluster& cluster);

// Where an op goes when no primary device it may use has room: the first fallback
// device it fits on, else the primary device with the most free memory (the placement
// is then infeasible and the simulator will say so).
DeviceId overflowDevice(const MemoryLedger& ledger, OpId op, const PlacerDevices& devices);

// Microseconds `op` takes on `device` (opTimeUs: the roofline when op and device have figures).
double opTimeOn(const Op& op, const Device& device);

} // namespace post
