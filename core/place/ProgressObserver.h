#pragma once

#include "core/graph/Placement.h"

#include <cstdint>

namespace post {

enum class UpdateKind : std::uint8_t { Ppo, CrossEntropy, Reinforce };

struct SampleEvent {
    int index = 0;           // 0-based sample number
    double stepTimeUs = 0.0; // simulated (penalised when infeasible)
    bool feasible = true;
    // The sampled placement, valid only during onSample (lets a UI keep the best one
    // without the placer knowing about it); may be null.
    const Placement* placement = nullptr;
};

struct UpdateEvent {
    int afterSample = 0; // number of samples drawn so far
    UpdateKind kind = UpdateKind::Ppo;
    double eliteThresholdUs = 0.0; // worst elite step time (CE), or NaN
    double bestStepTimeUs = 0.0;   // best feasible so far
    double entropy = 0.0;          // mean entropy / log(#devices), 0..1
};

// Receives progress from a placer. Called on the placer's thread, in sample order;
// keep it cheap (the GUI throttles before touching widgets).
class ProgressObserver {
public:
    virtual ~ProgressObserver() = default;
    virtual void onSample(const SampleEvent& event) = 0;
    virtual void onUpdate(const UpdateEvent& event) = 0;
};

} // namespace post
