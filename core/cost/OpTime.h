#pragma once

namespace post {

struct Op;
struct Device;

// Microseconds `op` takes on `device`. The roofline time on the device's own figures when
// both are known (the op's flops or memoryBytes > 0, the device's peakFlops and
// memoryBandwidth > 0), with the efficiencies and launch overhead of the cost model's
// reference device of that kind; otherwise (and always where the op's time on that kind of
// device was measured) time_us[kind] / speed.
double opTimeUs(const Op& op, const Device& device);

// Whether opTimeUs uses the roofline for this pair.
bool usesRoofline(const Op& op, const Device& device);

} // namespace post
