#pragma once

#include "core/graph/Placement.h"
#include "core/place/Placer.h"
#include "core/place/ProgressObserver.h"

#include <QMetaType>
#include <QString>

#include <limits>
#include <vector>

namespace post {

struct LearnerSample {
    int index = 0;
    double stepMs = 0.0; // penalised when infeasible
    bool feasible = true;
};

struct LearnerUpdate {
    int afterSample = 0;
    UpdateKind kind = UpdateKind::Ppo;
    double eliteThresholdMs = std::numeric_limits<double>::quiet_NaN();
    double bestMs = std::numeric_limits<double>::infinity();
    double entropy = 0.0; // 0..1
};

// A part of a run that starts at `firstSample` (core's PhaseEvent): the chart separates them.
struct LearnerPhase {
    int firstSample = 0;
    PhaseKind kind = PhaseKind::LearnerRun;
    int run = -1; // which run of a race, -1 for the other phases
    QString label;
};

// What a learner did since the previous snapshot of the same run (throttled batches).
struct LearnerSnapshot {
    quint64 runId = 0;
    std::vector<LearnerSample> samples;
    std::vector<LearnerUpdate> updates;
    std::vector<LearnerPhase> phases; // phases that started since the previous snapshot
    int samplesDone = 0;
    double bestMs = std::numeric_limits<double>::infinity(); // best feasible so far
    Placement bestPlacement;                                 // only when the best improved since the previous snapshot
    double lowerBoundMs = 0.0;                               // core lowerBound() of the run's graph and cluster
    QString lowerBoundSource; // which part of lowerBound() gives it: critical-path, work, fork-join, device-windows
    double singleDeviceMs = std::numeric_limits<double>::quiet_NaN(); // fastest all-on-one-GPU, NaN if none fits
    double classicalMs = std::numeric_limits<double>::quiet_NaN();    // best feasible classical placer, NaN if none
    QString classicalName;                                            // which placer gave classicalMs
    // A LEARNER@PLACER run's starting placement, evaluated before sample 0 but not a sample
    // (NaN when the run has no warm start or it does not fit): the best so far from the start.
    double warmStartMs = std::numeric_limits<double>::quiet_NaN();
};

struct LearnerOutcome {
    quint64 runId = 0;
    QString algorithm;
    PlaceResult result;
    QString error;                 // non-empty when the placer threw
    double referenceSeconds = 0.0; // the reference lines computed before the placer's clock started
};

} // namespace post

Q_DECLARE_METATYPE(post::LearnerSnapshot)
Q_DECLARE_METATYPE(post::LearnerOutcome)
