#pragma once

#include "core/sim/Timeline.h"

#include <vector>

namespace post {

struct SimResult {
    double stepTimeUs = 0.0;             // when the last op or transfer ends
    bool feasible = true;                // every device's peak memory fits its capacity
    std::vector<double> deviceBusyUs;    // per device
    std::vector<double> peakMemoryBytes; // per device: params x factor + peak of live tensors
    std::vector<double> linkBytes;       // per directed link, index from * devices + to
    std::vector<double> linkBusyUs;      // per directed link, index from * devices + to
    Timeline timeline;                   // only when requested
};

} // namespace post
