#pragma once

#include "core/graph/Collective.h"
#include "core/graph/DeviceKind.h"
#include "core/graph/Precision.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// An op's time on every device of one type (Device::type, docs/clusters.md "Device types").
struct TypedTime {
    std::string type;      // e.g. "v100": a valid deviceTypeProblem() name
    double us = 0.0;       // microseconds on such a device; its speed does not apply
    bool measured = false; // taken from a trace (e.g. --costs v100=trace.json.gz), not given by hand
};

// One operation of a training step.
struct Op {
    std::string name;
    std::string type;
    // Microseconds on a device of each kind whose speed is 1.0, indexed by DeviceKind.
    std::array<double, kDeviceKindCount> timeUs{};
    double outputBytes = 0.0; // bytes of the op's output tensor(s)
    double paramBytes = 0.0;  // bytes of the parameters the op owns
    // Bytes held on the op's device for the whole step when the source gives a total
    // (MSR's node `size`: weights plus activations). Unlike paramBytes it is not
    // multiplied by the optimizer-state factor: it already is the memory the op needs.
    double residentBytes = 0.0;
    std::string colocate; // colocation group name; empty when the op is free
    // Only a CPU may run the op (TensorFlow has no GPU kernel for it: docs/importers.md).
    // Its whole colocation group is pinned with it; every placer and learner keeps them
    // on the cluster's CPU (applyCpuPinning, placementProblem).
    bool cpuOnly = false;
    // Shape-derived cost of one run of this op (0 = unknown), set by the cost model: with a
    // device's roofline figures they give the op's time on that device (cost/OpTime.h).
    double flops = 0.0;
    double memoryBytes = 0.0; // bytes read plus bytes written (memory traffic, not memory held)
    // A matrix product or convolution (tensor-core work), and the element type it computes
    // in: they pick the device's peak for the roofline (cost/OpTime.h, docs/cost-model.md).
    bool matrixOp = false;
    ElementPrecision precision = ElementPrecision::Fp32;
    // A matrix op that is a convolution: PrecisionMode::Pytorch runs these in TF32 and other
    // matrix products in FP32. Narrow: <= 4 input channels per group (an image network's
    // first layer), which cuDNN runs on an FP32 kernel in every mode but amp.
    bool convolution = false;
    bool narrowConvolution = false;
    // A streaming element-wise kernel (one read of each input, one write): the roofline takes
    // the streaming memory efficiency. Ops with an ONNX or TensorFlow type are told by it
    // (isStreamingOpType); an op named by another framework (a PyTorch execution trace's
    // aten::relu_) carries what it was costed as here.
    bool streaming = false;
    // A 3x3 stride-1 FP32 convolution (or its gradient) as cuDNN's Winograd F(4x4, 3x3): the
    // batched product's FLOPs and bytes and its transforms' bytes (OpCost::winograd*; 0 = not
    // eligible). At the FP32 peak the roofline takes the faster of this and the direct cost.
    double winogradFlops = 0.0;
    double winogradGemmBytes = 0.0;
    double winogradTransformBytes = 0.0;
    // Bytes of streaming kernels run besides the main one, not overlapped with it (OpCost::
    // passBytes: a strided FP32 convolution's input gradient, zeroed and accumulated with atomic
    // adds; 0 = none). On FP32 units the roofline adds them at the streaming efficiency.
    double passBytes = 0.0;
    // Bit k set: timeUs[k] was measured (e.g. --costs from torch.profiler), so devices of kind
    // k take timeUs[k] / speed rather than the roofline estimate (cost/OpTime.h).
    unsigned measuredKinds = 0;
    // Where the measured times come from (the --costs file: a torch.profiler trace or a
    // post-costs/1 file); empty when nothing is measured. The inspector and `info` show it.
    std::string measuredBy;
    // Bit k set: the input gave no time for kind k, so timeUs[k] is the other kind's time
    // scaled by ImportOptions::cpuSlowdown (derivedCpuTimeUs: a PipeDream profile's or a Chakra
    // step's CPU times). `info` and the inspector say so rather than call it given.
    unsigned derivedKinds = 0;
    // Times per device type, sorted by type, one per type (setTypedTime keeps them so). On a
    // device whose type has one it is the op's time there, before every other source
    // (cost/OpTime.h); devices of other types (or none) take the kind's time as above.
    std::vector<TypedTime> typedTimes;
    // A control-flow op (ONNX If / Loop / Scan): its bodies and how their cost was counted,
    // e.g. "body: 12 ops, x 30 iterations" (docs/cost-model.md); empty for other ops.
    std::string body;
    // Kernel fusion (docs/cost-model.md, "Kernel fusion"): the op whose kernel runs this one
    // (its cost is counted there, this op costs nothing); empty for an op with its own kernel.
    // Informational, like `body`: the inspector shows it.
    std::string fusedInto;
    // A collective between ranks (docs/simulator.md, "Collectives"): the simulator runs it on its
    // device's communication channel, beside the device's compute, so independent compute
    // overlaps it while its dependencies still order it. Its time is its measured (or typed)
    // time where it has one, else the ring model over the cluster's links (collectiveTimeUs,
    // core/sim/CollectiveTime.h) for `collectiveBytes` among `collectiveRanks` ranks.
    CollectiveKind collective = CollectiveKind::None;
    double collectiveBytes = 0.0; // its buffer (nccl-tests' size); 0: latency only
    int collectiveRanks = 0;      // ranks in its group; 0: the cluster's GPUs (all its devices without GPUs)

    bool isCollective() const { return collective != CollectiveKind::None; }
    double time(DeviceKind kind) const { return timeUs[static_cast<int>(kind)]; }
    bool measured(DeviceKind kind) const { return (measuredKinds >> static_cast<int>(kind)) & 1U; }
    bool derived(DeviceKind kind) const { return (derivedKinds >> static_cast<int>(kind)) & 1U; }
    // The time for devices of `type`, or nullptr (also for an empty type).
    const TypedTime* typedTime(std::string_view type) const
    {
        if (type.empty())
            return nullptr;
        for (const TypedTime& t : typedTimes)
            if (t.type == type)
                return &t;
        return nullptr;
    }
    // This op takes `us` on every device of `type`, replacing an earlier time for that type;
    // `measured`: it comes from a trace. The one entry point for per-type times (readers,
    // measured costs); GraphBuilder::addOp validates the type name and the value.
    void setTypedTime(std::string_view type, double us, bool measured = false)
    {
        auto it = typedTimes.begin();
        while (it != typedTimes.end() && it->type < type)
            ++it;
        if (it != typedTimes.end() && it->type == type)
            *it = TypedTime{std::string(type), us, measured};
        else
            typedTimes.insert(it, TypedTime{std::string(type), us, measured});
    }
};

} // namespace post
