#pragma once

#include <string>

namespace post {

struct Op;
struct Device;
class Graph;
class Cluster;

// Microseconds `op` takes on `device`, from the first source that applies
// (docs/clusters.md, "Device types"):
//  1. the op's time for the device's type (Op::typedTimes: time_us["v100"]), as is;
//  2. its measured time for the device's kind (Op::measuredKinds), / speed;
//  3. the roofline estimate (below);
//  4. time_us[kind] / speed.
// Every consumer that times an op on a device calls this (or reads a table built by it once
// per graph and cluster: the simulator's SimWork, the list schedulers, the lower bound).
// The roofline time on the device's own figures when
// both are known (the op's flops or memoryBytes > 0, the device's peakFlops and
// memoryBandwidth > 0), with the efficiencies and launch overhead of the cost model's
// reference device of that kind; otherwise (and always where the op's time on that kind of
// device was measured) time_us[kind] / speed.
// The peak is rooflinePeakFlops's, reached at the reference's tensorCoreEfficiency when it
// is a tensor-core peak; under PrecisionMode::Amp on a device with FP16 tensor cores an FP32
// op's memory traffic is kAmpBytesFactor of its FP32 bytes (activations in 16 bits).
double opTimeUs(const Op& op, const Device& device);

// Whether opTimeUs uses the op's time for the device's type for this pair.
bool usesTypedTime(const Op& op, const Device& device);

// Whether opTimeUs uses the roofline for this pair.
bool usesRoofline(const Op& op, const Device& device);

// A note when ops take roofline estimates on a Hopper-class GPU (TF32 tensor cores at 400
// TFLOP/s or more: H100, H200) that gives no memory efficiency of its own: at the reference
// efficiencies the estimates ran 1.1-3x faster than measured training steps there
// (docs/cost-model.md, "Fidelity against measured traces"). "" otherwise.
std::string hopperEstimateNote(const Graph& graph, const Cluster& cluster);

// Whether opTimeUs is time_us[kind] / speed for this pair (steps 2 and 4 above): the same
// for every device of that kind up to its speed.
bool usesKindTime(const Op& op, const Device& device);

// The peak FLOP/s the roofline gives `op` on `device` (docs/cost-model.md, "Precision"):
// matrix products and convolutions of fp16/bf16 or int8 type at the device's FP16 or INT8
// tensor-core peak; FP32 ones at the TF32 peak (mode tf32; mode pytorch for convolutions
// only) or FP16 peak (mode amp), or the FP32 peak (mode fp32, and pytorch's matrix
// products); a narrow convolution (Op::narrowConvolution) at the FP32 peak in every mode
// but amp; a peak the device lacks falls back to the next lower one it has and finally to
// the FP32 peak. Every other op runs at the FP32 peak.
double rooflinePeakFlops(const Op& op, const Device& device);

// Memory traffic under automatic mixed precision, relative to FP32.
inline constexpr double kAmpBytesFactor = 0.5;

} // namespace post
