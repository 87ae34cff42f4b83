#pragma once

#include "ui/learn/LearnerRequest.h"
#include "ui/learn/LearnerSnapshot.h"
#include "ui/util/LatestJob.h"

#include <QObject>
#include <QThread>

#include <memory>

namespace post {

class LearnerControl;
class LearnerWorker;

// The GUI side of learner runs: owns the one learner thread and its worker, numbers
// runs (LatestJob) and passes on only the current run's snapshots. Destroying it stops the run
// (releasing a pause) and joins the thread.
class LearnerController : public QObject {
    Q_OBJECT

public:
    enum class State { Idle, Running, Paused };

    explicit LearnerController(QObject* parent = nullptr);
    ~LearnerController() override;

    // Stops any current run and starts `request` (its runId is overwritten); returns the id.
    quint64 start(LearnerRequest request);
    void pause();
    void resume();
    void stop();

    State state() const { return state_; }
    bool isActive() const { return state_ != State::Idle; }
    quint64 currentRun() const { return run_.current(); }

signals:
    void snapshot(const post::LearnerSnapshot& snapshot);
    // The current run's work before its placer starts (LearnerWorker::preparing).
    void preparing(const QString& what);
    void finished(const post::LearnerOutcome& outcome);
    void stateChanged(post::LearnerController::State state);

private:
    void deliverSnapshot(const post::LearnerSnapshot& snapshot);
    void deliverFinished(const post::LearnerOutcome& outcome);
    void setState(State state);

    QThread thread_;
    LearnerWorker* worker_ = nullptr; // lives on thread_, deleted when it finishes
    std::shared_ptr<LearnerControl> control_;
    LatestJob run_;
    State state_ = State::Idle;
};

} // namespace post
