#include "ui/document/StepSimulation.h"
#include "ui/util/BackgroundJobs.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace post {

StepSimulation::StepSimulation(QObject* parent)
    : QObject(parent)
    , watcher_(new QFutureWatcher<StepPtr>(this))
{
    connect(watcher_, &QFutureWatcher<StepPtr>::finished, this, &StepSimulation::onFinished);
}

StepSimulation::~StepSimulation()
{
    // One simulation at most (the job owns its document): short, and it keeps the pool
    // from finishing work for a window that is gone.
    watcher_->waitForFinished();
}

bool StepSimulation::sameStep(const GraphDocument& document) const
{
    if (!current_)
        return false;
    const GraphDocument& shown = *current_->document;
    return shown.graphId == document.graphId && shown.cluster == document.cluster
        && shown.sim.dispatch == document.sim.dispatch && shown.placement == document.placement;
}

void StepSimulation::setDocument(DocumentPtr document)
{
    if (document && !running_ && sameStep(*document))
        return;  // e.g. the same placement again: nothing to redo
    job_.drop(); // whatever the running job gives is not this document's step
    if (!document || !document->isPlaced()) {
        pending_.reset();
        current_.reset();
        emit simulated(nullptr);
        return;
    }
    if (running_) {
        pending_ = std::move(document);
        return;
    }
    if (document->opCount() <= synchronousMaxOps_) {
        current_ = SimulatedStep::simulate(std::move(document));
        emit simulated(current_);
        return;
    }
    start(std::move(document));
}

void StepSimulation::start(DocumentPtr document)
{
    running_ = job_.begin();
    current_.reset();
    emit busyChanged(true);
    watcher_->setFuture(runInBackground([document = std::move(document)] { return SimulatedStep::simulate(document); }));
}

void StepSimulation::onFinished()
{
    const quint64 id = std::exchange(running_, 0);
    StepPtr step = watcher_->future().result();
    if (pending_) {
        setDocument(std::exchange(pending_, nullptr));
        if (!running_)
            emit busyChanged(false);
        return;
    }
    emit busyChanged(false);
    // A stale job: a document without placement came meanwhile and was reported already.
    if (job_.finish(id)) {
        current_ = std::move(step);
        emit simulated(current_);
    }
}

} // namespace post
