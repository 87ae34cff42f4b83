#include "core/cost/OpTime.h"

#include "core/cluster/Device.h"
#include "core/cost/CostModel.h"
#include "core/graph/Op.h"

namespace post {

bool usesRoofline(const Op& op, const Device& device)
{
    return !op.measured(device.kind) && (op.flops > 0.0 || op.memoryBytes > 0.0) && device.peakFlops > 0.0
        && device.memoryBandwidth > 0.0;
}

double opTimeUs(const Op& op, const Device& device)
{
    if (usesRoofline(op, device)) {
        static const auto reference = CostModelOptions::defaultReferenceDevices();
        DeviceSpec spec = reference[static_cast<size_t>(device.kind)];
        spec.peakFlops = device.peakFlops;
        spec.memoryBandwidth = device.memoryBandwidth;
        OpCost cost;
        cost.flops = op.flops;
        cost.bytesRead = op.memoryBytes;
        return rooflineTimeUs(cost, spec);
    }
    return device.speed > 0.0 ? op.time(device.kind) / device.speed : op.time(device.kind);
}

} // namespace post
