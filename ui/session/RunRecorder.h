#pragma once

#include "core/session/Session.h"
#include "core/sim/LowerBound.h"
#include "ui/learn/LearnerSnapshot.h"

#include <QObject>

namespace post {

class LearnerPanel;

// Keeps the current run's log for sessions: the learner panel's settings at Start, every
// sample and update from its snapshots (in core units, µs), and how the run ended.
// A restored session's run is taken over, so saving again keeps it.
class RunRecorder : public QObject {
    Q_OBJECT

public:
    explicit RunRecorder(LearnerPanel* panel, QObject* parent = nullptr);

    bool hasRun() const { return run_.state != SessionRunState::None; }
    const SessionLearner& learner() const { return learner_; }
    // The dispatch rule the run's samples were timed under.
    Dispatch dispatch() const { return dispatch_; }
    const SessionRun& run() const { return run_; }
    const std::vector<SampleEvent>& samples() const { return samples_; }
    const std::vector<UpdateEvent>& updates() const { return updates_; }
    // The chart's reference lines and the run's best placement (SessionStudio without the
    // document's name and the Compare table, which are not the run's).
    const SessionStudio& extras() const { return extras_; }

    // Takes over a restored session's run (settings, log and state).
    void restore(const Session& session);
    void clear();

    // A restored run as one snapshot, for the learning chart; `current` is the lower bound of
    // its graph on its cluster now, which names the component behind the bound the file kept.
    static LearnerSnapshot snapshotOf(const Session& session, const LowerBound& current);

signals:
    // New samples arrived (throttled like the snapshots), or the run ended.
    void changed();
    void runEnded();

private:
    void onStarted(int plannedSamples);
    void onSnapshot(const post::LearnerSnapshot& snapshot);
    void onFinished(const post::LearnerOutcome& outcome);

    LearnerPanel* panel_;
    SessionLearner learner_;
    Dispatch dispatch_ = Dispatch::ReadyOrder;
    SessionRun run_;
    std::vector<SampleEvent> samples_;
    std::vector<UpdateEvent> updates_;
    SessionStudio extras_;
};

} // namespace post
