#pragma once
// Device types (docs/clusters.md, "Device types"): what a graph's per-type times and a
// cluster's typed devices have to do with each other, and the one entry point for measured
// times per type.

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace post {

// One op's measured time on devices of a type.
struct MeasuredTypeTime {
    OpId op = kNoOp;
    double us = 0.0;
};

// A copy of `graph` where each listed op takes `us` on every device of `type` (Device::type),
// marked measured (Op::TypedTime::measured: post-graph/1 lists the type under "measured");
// an earlier time of that op for that type is replaced, other types and the kind times stay.
// This is how a trace of a run on one device type becomes costs (e.g. --costs v100=trace.json):
// such a time then comes before the measured kind time, the roofline and time_us[kind] / speed
// on devices of that type (cost/OpTime.h). Throws GraphError for an invalid type name
// (deviceTypeProblem), an op id out of range, or a negative, non-finite or too large time.
// A non-empty `source` (the trace) becomes the listed ops' Op::measuredBy.
Graph withMeasuredTypeTimes(const Graph& graph, std::string_view type, std::span<const MeasuredTypeTime> times,
                            std::string_view source = {});

// Types that one side names and the other never uses, for a note (empty when they match):
// the graph has times for types no device of the cluster has (those times go unused), or the
// cluster has typed devices while the graph has per-type times for none of their types.
struct DeviceTypeMismatch {
    std::vector<std::string> timedWithoutDevice;  // in Graph::deviceTypes(), on no device
    std::vector<std::string> devicesWithoutTimes; // typed devices no op has a time for
    bool empty() const { return timedWithoutDevice.empty() && devicesWithoutTimes.empty(); }
};
DeviceTypeMismatch deviceTypeMismatch(const Graph& graph, const Cluster& cluster);

// One line saying what deviceTypeMismatch found ("" when the graph has no per-type times or
// every type matches), e.g. "the graph's times for device type a100 are unused: no device of
// cluster k80x4 has that type".
std::string deviceTypeNote(const Graph& graph, const Cluster& cluster);

// A note when measured times keyed by kind (the graph's own, as a Chakra trace's, or an untyped
// --costs trace's) meet devices of that kind
// whose speed is not 1: such a time counts as a speed-1 device's and is divided by the speed,
// so a trace recorded on those very devices comes out 1/speed too slow or fast; its type
// (--costs TYPE=TRACE) keeps it as measured. "" when no such pair exists, e.g. "measured GPU
// times keyed by kind (...) are times on a speed-1 GPU, divided by each GPU's speed here
// (/device:GPU:0 0.857); if they were measured on these very devices, ... --costs rtx2080ti=TRACE".
std::string measuredSpeedNote(const Graph& graph, const Cluster& cluster);

// A note when measured GPU times keyed by kind were recorded on `gpuName` (a --costs trace's
// deviceProperties, e.g. "NVIDIA GeForce RTX 2080 Ti") and the cluster's GPUs are typed as
// another GPU (a type whose letters and digits are not in the name, as "v100" is in "Tesla
// V100-DGXS-32GB"): the step is then that GPU's, not theirs. "" when the name is unknown, no
// op has a measured GPU time, or every typed GPU is that GPU or has its own times.
std::string measuredGpuNote(std::string_view gpuName, const Graph& graph, const Cluster& cluster);

} // namespace post
