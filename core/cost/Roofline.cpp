#include "core/cost/CostModel.h"

#include <algorithm>
#include <stdexcept>

namespace post {
namespace {

// Figures and reasons in docs/cost-model.md ("Reference devices").
constexpr double kV100PeakFlops = 15.7e12;        // Tesla V100 SXM2, FP32, boost clock
constexpr double kV100Bandwidth = 900e9;          // HBM2
constexpr double kNotionalCpuPeakFlops = 1.57e12; // one tenth of the V100 (docs/clusters.md)
constexpr double kNotionalCpuBandwidth = 90e9;    // one tenth too: CPU time = 10 x GPU time
// Shares of peak reached by real kernels, calibrated against published ResNet-50 and
// BERT-base training throughputs with kernel fusion modelled (docs/cost-model.md,
// "Calibration"; before fusion: tensor cores 0.6, memory 0.7; before per-precision peaks:
// compute 0.6, memory 0.3, launch 5 us, no tensor cores). Compute: cuDNN / cuBLAS FP32 on a
// V100 reach 60-75 % (PipeDream's ResNet-50 1x1 convolutions: 64-68 %, its AlexNet fully
// connected layer 71 %). Tensor cores: cuDNN's and cuBLAS's TF32 / FP16 kernels reach a
// smaller share of their much higher peak. Memory: STREAM-like copies reach ~85 % of HBM2,
// framework element-wise and normalisation kernels less.
constexpr double kComputeEfficiency = 0.7;
constexpr double kTensorCoreEfficiency = 0.5;
constexpr double kMemoryEfficiency = 0.6;
// Streaming element-wise kernels (ReLU, the residual add, their gradients, the accumulation of
// gradients): PyTorch's on a V100 move 0.88-0.94 of the HBM2 bandwidth (docs/cost-model.md,
// "Fidelity against measured traces").
constexpr double kStreamingMemoryEfficiency = 0.9;
// Fixed cost per op: kernel launch plus the framework's dispatch (asynchronous launches
// overlap most of it with the previous kernel).
constexpr double kGpuLaunchUs = 2.0;
constexpr double kCpuLaunchUs = 2.0;
// cuDNN's non-fused Winograd runs four kernels: data, filter and output transforms around the
// batched product.
constexpr double kWinogradKernels = 4.0;

} // namespace

std::array<DeviceSpec, kDeviceKindCount> CostModelOptions::defaultReferenceDevices()
{
    std::array<DeviceSpec, kDeviceKindCount> specs{};
    DeviceSpec& gpu = specs[static_cast<size_t>(DeviceKind::Gpu)];
    gpu.peakFlops = kV100PeakFlops;
    gpu.memoryBandwidth = kV100Bandwidth;
    gpu.computeEfficiency = kComputeEfficiency;
    gpu.tensorCoreEfficiency = kTensorCoreEfficiency;
    gpu.memoryEfficiency = kMemoryEfficiency;
    gpu.streamingMemoryEfficiency = kStreamingMemoryEfficiency;
    gpu.launchOverheadUs = kGpuLaunchUs;
    DeviceSpec& cpu = specs[static_cast<size_t>(DeviceKind::Cpu)];
    cpu.peakFlops = kNotionalCpuPeakFlops;
    cpu.memoryBandwidth = kNotionalCpuBandwidth;
    cpu.computeEfficiency = kComputeEfficiency;
    cpu.tensorCoreEfficiency = kTensorCoreEfficiency;
    cpu.memoryEfficiency = kMemoryEfficiency;
    cpu.streamingMemoryEfficiency = kStreamingMemoryEfficiency;
    cpu.launchOverheadUs = kCpuLaunchUs;
    return specs;
}

double rooflineTimeUs(const OpCost& cost, const DeviceSpec& device)
{
    const double bytes = cost.bytesRead + cost.bytesWritten;
    if (cost.flops <= 0.0 && bytes <= 0.0)
        return 0.0; // nothing runs: no kernel, no launch (Reshape and friends)
    const double flopRate = device.peakFlops * device.computeEfficiency;
    const double byteRate = device.memoryBandwidth
        * (cost.streaming ? device.streamingMemoryEfficiency : device.memoryEfficiency);
    if (!(flopRate > 0.0) || !(byteRate > 0.0))
        throw std::invalid_argument(
            "rooflineTimeUs: the device needs peak FLOP/s, memory bandwidth and efficiencies > 0");
    const double seconds = std::max(cost.flops / flopRate, bytes / byteRate);
    // Streaming traffic not overlapped with the main roofline (a strided convolution's input
    // gradient zeroed by a kernel of its own, one more launch, then accumulated with atomic adds
    // inside the product's kernel: docs/cost-model.md, "Backward of strided convolutions").
    const double passes = cost.passBytes > 0.0
        ? cost.passBytes / (device.memoryBandwidth * device.streamingMemoryEfficiency) * 1e6 + device.launchOverheadUs
        : 0.0;
    const double direct = seconds * 1e6 + device.launchOverheadUs + passes;
    if (!(cost.winogradFlops > 0.0))
        return direct;
    // Winograd (docs/cost-model.md, "Winograd convolutions"): the batched product as a
    // roofline of its own, the transforms as streaming passes, a launch per kernel; cuDNN
    // runs whichever is faster. Traffic beyond the convolution's own (a gradient accumulation
    // charged to it) is in winogradTransformBytes.
    const double product = std::max(cost.winogradFlops / flopRate, cost.winogradGemmBytes / byteRate);
    const double transforms = cost.winogradTransformBytes / (device.memoryBandwidth * device.streamingMemoryEfficiency);
    const double winograd = (product + transforms) * 1e6 + kWinogradKernels * device.launchOverheadUs;
    return std::min(direct, winograd);
}

} // namespace post
