#include "ui/session/RunRecorder.h"

#include "core/sim/LowerBound.h"
#include "ui/learn/LearnerPanel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace post {

RunRecorder::RunRecorder(LearnerPanel* panel, QObject* parent)
    : QObject(parent)
    , panel_(panel)
{
    connect(panel, &LearnerPanel::runStarted, this, &RunRecorder::onStarted);
    connect(panel, &LearnerPanel::snapshot, this, &RunRecorder::onSnapshot);
    connect(panel, &LearnerPanel::finished, this, &RunRecorder::onFinished);
    connect(panel, &LearnerPanel::resetRequested, this, &RunRecorder::clear);
    connect(panel->controller(), &LearnerController::stateChanged, this, [this](LearnerController::State state) {
        if (state == LearnerController::State::Paused && run_.state == SessionRunState::Running)
            run_.state = SessionRunState::Paused;
        else if (state == LearnerController::State::Running && run_.state == SessionRunState::Paused)
            run_.state = SessionRunState::Running;
    });
}

void RunRecorder::clear()
{
    learner_ = {};
    dispatch_ = Dispatch::ReadyOrder;
    run_ = {};
    samples_.clear();
    updates_.clear();
    extras_ = {};
}

void RunRecorder::restore(const Session& session)
{
    learner_ = session.learner;
    dispatch_ = session.dispatch;
    run_ = session.run;
    // A run that was going when the session was saved (an autosave) is over now.
    if (run_.state == SessionRunState::Running || run_.state == SessionRunState::Paused)
        run_.state = SessionRunState::Stopped;
    samples_ = session.samples;
    updates_ = session.updates;
    extras_ = session.studio;
    extras_.document.clear();
    extras_.comparison.reset();
}

void RunRecorder::onStarted(int plannedSamples)
{
    // 0: the run has no sample budget (a classical placer, milp); the file keeps the panel's
    // setting, which a continued or repeated run would take (post-session/1's samples >= 1).
    if (plannedSamples < 1)
        plannedSamples = std::max(1, panel_->plannedSamples());
    if (panel_->continuedFrom() > 0 && hasRun()) {
        // A restored run going on: its log, lines and best stay, new samples follow.
        learner_.samples = plannedSamples;
        run_.state = SessionRunState::Running;
        return;
    }
    clear();
    learner_.algorithm = panel_->algorithm().toStdString();
    learner_.samples = plannedSamples;
    learner_.seed = panel_->seed();
    learner_.seconds = panel_->timeLimit();
    dispatch_ = panel_->dispatch();
    extras_.start = panel_->runStart();
    run_.state = SessionRunState::Running;
    samples_.reserve(static_cast<size_t>(std::min(plannedSamples, 100000)));
}

void RunRecorder::onSnapshot(const LearnerSnapshot& snapshot)
{
    if (run_.state == SessionRunState::None)
        return;
    run_.lowerBoundUs = snapshot.lowerBoundMs * 1000.0;
    run_.singleDeviceUs = snapshot.singleDeviceMs * 1000.0; // NaN stays NaN
    if (std::isfinite(snapshot.classicalMs)) {
        extras_.classicalUs = snapshot.classicalMs * 1000.0;
        extras_.classicalPlacer = snapshot.classicalName.toStdString();
    }
    if (std::isfinite(snapshot.warmStartMs))
        extras_.warmStartUs = snapshot.warmStartMs * 1000.0;
    if (!snapshot.bestPlacement.empty() && std::isfinite(snapshot.bestMs)
        && !(snapshot.bestMs * 1000.0 >= extras_.bestUs)) {
        extras_.best = snapshot.bestPlacement;
        extras_.bestUs = snapshot.bestMs * 1000.0;
    }
    for (const LearnerSample& s : snapshot.samples)
        samples_.push_back(SampleEvent{s.index, s.stepMs * 1000.0, s.feasible, nullptr});
    for (const LearnerUpdate& u : snapshot.updates)
        updates_.push_back(UpdateEvent{u.afterSample, u.kind, u.eliteThresholdMs * 1000.0, u.bestMs * 1000.0, u.entropy});
    emit changed();
}

void RunRecorder::onFinished(const LearnerOutcome& outcome)
{
    if (run_.state == SessionRunState::None)
        return;
    run_.state = outcome.result.stopped || !outcome.error.isEmpty() ? SessionRunState::Stopped : SessionRunState::Done;
    const PlaceResult& r = outcome.result;
    if (outcome.error.isEmpty() && r.feasible && !r.best.empty() && !(r.bestStepTimeUs >= extras_.bestUs)) {
        extras_.best = r.best; // a final pick that was no sample
        extras_.bestUs = r.bestStepTimeUs;
    }
    emit runEnded();
}

LearnerSnapshot RunRecorder::snapshotOf(const Session& session, const LowerBound& current)
{
    LearnerSnapshot snapshot;
    snapshot.samples.reserve(session.samples.size());
    for (const SampleEvent& s : session.samples) {
        snapshot.samples.push_back({s.index, s.stepTimeUs / 1000.0, s.feasible});
        if (s.feasible)
            snapshot.bestMs = std::min(snapshot.bestMs, s.stepTimeUs / 1000.0);
    }
    snapshot.updates.reserve(session.updates.size());
    for (const UpdateEvent& u : session.updates)
        snapshot.updates.push_back(
            {u.afterSample, u.kind, u.eliteThresholdUs / 1000.0, u.bestStepTimeUs / 1000.0, u.entropy});
    snapshot.samplesDone = session.samples.empty() ? 0 : session.samples.back().index + 1;
    snapshot.lowerBoundMs = std::isfinite(session.run.lowerBoundUs) ? session.run.lowerBoundUs / 1000.0 : 0.0;
    // The file keeps the bound's value, not what gave it: named again when this graph and cluster
    // give the same value (they do unless the bound changed between builds).
    if (snapshot.lowerBoundMs > 0.0
        && std::abs(current.valueUs() - session.run.lowerBoundUs) <= 1e-9 * session.run.lowerBoundUs)
        snapshot.lowerBoundSource = QString::fromLatin1(current.source());
    snapshot.singleDeviceMs = session.run.singleDeviceUs / 1000.0;
    snapshot.classicalMs = session.studio.classicalUs / 1000.0; // NaN stays NaN
    snapshot.classicalName = QString::fromStdString(session.studio.classicalPlacer);
    snapshot.warmStartMs = session.studio.warmStartUs / 1000.0;
    return snapshot;
}

} // namespace post
