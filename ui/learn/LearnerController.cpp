#include "ui/learn/LearnerController.h"

#include "ui/learn/LearnerControl.h"
#include "ui/learn/LearnerWorker.h"
#include "ui/util/BackgroundPriority.h"

namespace post {

LearnerController::LearnerController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<post::LearnerSnapshot>();
    qRegisterMetaType<post::LearnerOutcome>();
    qRegisterMetaType<post::LearnerRequest>();
    thread_.setObjectName(QStringLiteral("learner"));
    worker_ = new LearnerWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &LearnerWorker::snapshotReady, this, &LearnerController::deliverSnapshot, Qt::QueuedConnection);
    connect(worker_, &LearnerWorker::finished, this, &LearnerController::deliverFinished, Qt::QueuedConnection);
    connect(
        worker_, &LearnerWorker::preparing, this,
        [this](quint64 runId, const QString& what) {
            if (run_.isCurrent(runId))
                emit preparing(what);
        },
        Qt::QueuedConnection);
    runAtBackgroundPriority(thread_);
    thread_.start();
}

LearnerController::~LearnerController()
{
    if (control_)
        control_->requestStop();
    thread_.quit();
    thread_.wait();
}

quint64 LearnerController::start(LearnerRequest request)
{
    if (control_)
        control_->requestStop(); // the old run ends at its next sample; its results are dropped
    control_ = std::make_shared<LearnerControl>();
    const quint64 id = run_.begin();
    request.runId = id;
    worker_->enqueue(std::move(request), control_);
    setState(State::Running);
    return id;
}

void LearnerController::pause()
{
    if (state_ != State::Running)
        return;
    control_->setPaused(true);
    setState(State::Paused);
}

void LearnerController::resume()
{
    if (state_ != State::Paused)
        return;
    control_->setPaused(false);
    setState(State::Running);
}

void LearnerController::stop()
{
    if (!control_ || state_ == State::Idle)
        return;
    control_->requestStop(); // finished() follows with the best found so far
}

void LearnerController::deliverSnapshot(const LearnerSnapshot& snapshot)
{
    if (run_.isCurrent(snapshot.runId))
        emit this->snapshot(snapshot);
}

void LearnerController::deliverFinished(const LearnerOutcome& outcome)
{
    if (!run_.finish(outcome.runId))
        return;
    control_.reset();
    setState(State::Idle);
    emit finished(outcome);
}

void LearnerController::setState(State state)
{
    if (state == state_)
        return;
    state_ = state;
    emit stateChanged(state);
}

} // namespace post
