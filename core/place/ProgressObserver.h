#pragma once

#include "core/graph/Placement.h"

#include <cstdint>
#include <string>

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

// What a placer made of several searches (post@best, local-search, milp) does from sample
// `firstSample` on, so a chart can tell its parts apart: the classical placers' starts, the
// hill climb, each run of a race (a run's later rounds are new phases with its `run`), and
// milp's model solves (with the timings and climbs from their placements).
enum class PhaseKind : std::uint8_t { ClassicalStarts, LocalSearch, LearnerRun, ExactSolve, PlateauWalk };

struct PhaseEvent {
    int firstSample = 0; // samples drawn before the phase
    PhaseKind kind = PhaseKind::LearnerRun;
    int run = -1;      // LearnerRun: which run of the race (0-based); -1 otherwise
    std::string label; // "classical starts", "local search", "Post run 2 (warm: m-sct)", ...
};

// Receives progress from a placer. Called on the placer's thread, in sample order;
// keep it cheap (the GUI throttles before touching widgets).
class ProgressObserver {
public:
    virtual ~ProgressObserver() = default;
    virtual void onSample(const SampleEvent& event) = 0;
    virtual void onUpdate(const UpdateEvent& event) = 0;
    // A new phase starts (placers that have none never call it).
    virtual void onPhase(const PhaseEvent& /*event*/) { }
    // The seconds onSample has held the placer's thread while the run was paused (a paused
    // GUI run waits there), since the last call; a time-limited placer's deadline moves by as
    // much. Only pauses: the observer's own work counts in the time limit like the search's.
    virtual double takePausedSeconds() { return 0.0; }
};

} // namespace post
