#pragma once

#include "core/graph/Ids.h"

#include <vector>

namespace post {

struct OpSpan {
    OpId op = kNoOp;
    DeviceId device = kNoDevice;
    double startUs = 0.0;
    double endUs = 0.0;
};

// One tensor crossing a directed link (sent once per destination device).
struct TransferSpan {
    OpId producer = kNoOp;
    DeviceId from = kNoDevice;
    DeviceId to = kNoDevice;
    double bytes = 0.0;
    double requestUs = 0.0; // when the producer ended
    double startUs = 0.0;   // when the link took it
    double endUs = 0.0;     // arrival
};

// The whole simulated step, filled only when asked for.
struct Timeline {
    std::vector<OpSpan> ops;             // in order of start time
    std::vector<TransferSpan> transfers; // in order of start time
};

} // namespace post
