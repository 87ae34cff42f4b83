#include "core/cost/OpTime.h"

#include "core/cluster/Cluster.h"
#include "core/cluster/Device.h"
#include "core/cost/CostModel.h"
#include "core/graph/Graph.h"
#include "core/graph/Op.h"

#include <algorithm>
#include <utility>

namespace post {
namespace {

double firstPositive(double a, double b, double c)
{
    if (a > 0.0)
        return a;
    return b > 0.0 ? b : c;
}

} // namespace

bool usesTypedTime(const Op& op, const Device& device) { return op.typedTime(device.type) != nullptr; }

std::string hopperEstimateNote(const Graph& graph, const Cluster& cluster)
{
    constexpr double kHopperTf32Flops = 400e12;
    for (const Device& d : cluster.devices()) {
        if (d.kind != DeviceKind::Gpu || d.peakTf32Flops < kHopperTf32Flops || d.memoryEfficiency > 0.0)
            continue;
        const auto ops = graph.ops();
        if (std::none_of(ops.begin(), ops.end(), [&d](const Op& op) { return usesRoofline(op, d); }))
            continue;
        const std::string type = d.type.empty() ? std::string("TYPE") : d.type;
        return "op times on " + d.name + (d.type.empty() ? std::string() : " (" + d.type + ")")
            + " are roofline estimates at the cost model's reference efficiencies, which came out 1.1-3x faster than "
              "ten measured training steps on an H200 (PyTorch 2.11; docs/cost-model.md, \"Fidelity against measured "
              "traces\"): give the device a \"memory_efficiency\" (0.35 in the h100x8-nvlink preset, 0.2 measured on "
              "an H200; docs/clusters.md, \"Efficiencies\"), or --costs "
            + type + "=TRACE for a trace's measured times";
    }
    return {};
}

bool usesKindTime(const Op& op, const Device& device)
{
    return !usesTypedTime(op, device) && !usesRoofline(op, device);
}

bool usesRoofline(const Op& op, const Device& device)
{
    return !op.measured(device.kind) && !usesTypedTime(op, device) && (op.flops > 0.0 || op.memoryBytes > 0.0)
        && device.peakFlops > 0.0 && device.memoryBandwidth > 0.0;
}

double rooflinePeakFlops(const Op& op, const Device& device)
{
    if (!op.matrixOp)
        return device.peakFlops;
    switch (op.precision) {
    case ElementPrecision::Int8:
        return firstPositive(device.peakInt8Ops, device.peakFp16Flops, device.peakFlops);
    case ElementPrecision::Half:
        return firstPositive(device.peakFp16Flops, 0.0, device.peakFlops);
    case ElementPrecision::Fp32:
        break;
    }
    if (device.precision == PrecisionMode::Amp)
        return firstPositive(device.peakFp16Flops, device.peakTf32Flops, device.peakFlops);
    // cuDNN runs a convolution over <= 4 input channels per group on FP32 kernels.
    if (op.narrowConvolution)
        return device.peakFlops;
    switch (device.precision) {
    case PrecisionMode::Fp32:
    case PrecisionMode::Amp:
        return device.peakFlops;
    case PrecisionMode::Tf32:
        return firstPositive(device.peakTf32Flops, 0.0, device.peakFlops);
    case PrecisionMode::Pytorch: // convolutions in TF32, matrix products in FP32
        return op.convolution ? firstPositive(device.peakTf32Flops, 0.0, device.peakFlops) : device.peakFlops;
    }
    return device.peakFlops;
}

double opTimeUs(const Op& op, const Device& device)
{
    if (const TypedTime* typed = op.typedTime(device.type))
        return typed->us;
    if (usesRoofline(op, device)) {
        static const auto reference = CostModelOptions::defaultReferenceDevices();
        DeviceSpec spec = reference[static_cast<size_t>(device.kind)];
        const std::pair<double, double DeviceSpec::*> efficiencies[] = {
            {device.computeEfficiency, &DeviceSpec::computeEfficiency},
            {device.tensorCoreEfficiency, &DeviceSpec::tensorCoreEfficiency},
            {device.memoryEfficiency, &DeviceSpec::memoryEfficiency},
            {device.streamingMemoryEfficiency, &DeviceSpec::streamingMemoryEfficiency}};
        for (const auto& [given, member] : efficiencies)
            if (given > 0.0)
                spec.*member = given;
        spec.peakFlops = rooflinePeakFlops(op, device);
        const bool tensorCores = spec.peakFlops != device.peakFlops;
        if (tensorCores)
            spec.computeEfficiency = spec.tensorCoreEfficiency;
        spec.peakFlops *= device.clockScale();
        spec.memoryBandwidth = device.memoryBandwidth;
        OpCost cost;
        cost.streaming = op.streaming || isStreamingOpType(op.type);
        cost.flops = op.flops;
        cost.bytesRead = op.memoryBytes;
        if (!tensorCores && op.precision == ElementPrecision::Fp32) {
            // cuDNN's Winograd kernels are FP32 CUDA-core ones; on tensor cores it runs implicit GEMM.
            cost.winogradFlops = op.winogradFlops;
            cost.winogradGemmBytes = op.winogradGemmBytes;
            cost.winogradTransformBytes = op.winogradTransformBytes;
            // and its atomic-add input gradient of a strided convolution is an FP32 kernel too
            cost.passBytes = op.passBytes;
        } else if (!op.matrixOp) {
            cost.passBytes = op.passBytes; // a zeroing kernel (ATen's max-pool backward) at any precision
        }
        if (device.precision == PrecisionMode::Amp && device.peakFp16Flops > 0.0
            && op.precision == ElementPrecision::Fp32) {
            cost.bytesRead *= kAmpBytesFactor;
            cost.passBytes *= kAmpBytesFactor;
        }
        return rooflineTimeUs(cost, spec);
    }
    return device.speed > 0.0 ? op.time(device.kind) / device.speed : op.time(device.kind);
}

} // namespace post
