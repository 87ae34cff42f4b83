#pragma once

namespace post {

struct SimOptions {
    // Parameter memory per device is param_bytes x this factor: weights, their
    // gradients and one optimizer slot (SGD with momentum, as PipeDream profiled).
    // Op::residentBytes is added unscaled.
    double optimizerStateFactor = 3.0;
};

} // namespace post
