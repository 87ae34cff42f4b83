#pragma once

#include "core/place/Placer.h"

namespace post {

// Every op on one device: the device whose simulated step time is lowest among those
// where the whole graph fits. When it fits nowhere, the device with the least total
// compute time is returned and the result says it is infeasible.
// Simulates once per device (samplesUsed = device count).
class SingleDevicePlacer : public Placer {
public:
    std::string name() const override { return "single"; }
    PlaceResult place(const PlaceContext& context) override;
};

} // namespace post
