#pragma once

namespace post {

// What a learner sees of one simulated placement.
struct Evaluation {
    double stepTimeUs = 0.0;        // the learning signal: raw step time, penalised when infeasible
    double rawStepTimeUs = 0.0;     // simulated step time
    bool feasible = true;           // every device's peak memory fits
    double excessMemoryBytes = 0.0; // sum over devices of peak memory above capacity
};

} // namespace post
