#pragma once

#include "core/graph/Dispatch.h"

namespace post {

struct SimOptions {
    // Parameter memory per device is param_bytes x this factor: weights, their
    // gradients and one optimizer slot (SGD with momentum, as PipeDream profiled).
    // Op::residentBytes is added unscaled.
    double optimizerStateFactor = 3.0;
    // Leave out the edges no run depends on (core/sim/ImpliedEdges.h); false: every edge as
    // given (the tests check that both time every placement alike, bit for bit).
    bool leaveOutImpliedEdges = true;
    Dispatch dispatch = Dispatch::ReadyOrder;
};

} // namespace post
