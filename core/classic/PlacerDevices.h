#pragma once

#include "core/graph/Ids.h"

#include <span>
#include <vector>

namespace post {

class Cluster;
class Graph;
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

// An op's weight when balancing work over devices like `reference` (round-robin's chunks,
// METIS's vertex weights): time_us[kind] (a speed-1 time); where the op has a time for the
// reference's type (Op::typedTimes), that time x the reference's speed, in the same units.
double balanceWeightUs(const Op& op, const Device& reference);

// Each of `devices`' share of the work (summing to 1): by speed; where some op has a time for
// the type of one of them (a mixed cluster), by throughput on this graph instead (1 / the
// device's total op time, opTimeUs), which the speeds no longer describe.
std::vector<double> workShares(const Graph& graph, const Cluster& cluster, std::span<const DeviceId> devices);

} // namespace post
