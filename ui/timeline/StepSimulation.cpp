#include "ui/timeline/StepSimulation.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

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
    return shown.graph == document.graph && shown.cluster == document.cluster && shown.placement == document.placement;
}

void StepSimulation::setDocument(DocumentPtr document)
{
    latest_ = document;
    if (document && !running_ && sameStep(*document))
        return; // e.g. the same placement again: nothing to redo
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
    running_ = true;
    jobDocument_ = document;
    current_.reset();
    emit busyChanged(true);
    watcher_->setFuture(QtConcurrent::run([document = std::move(document)] { return SimulatedStep::simulate(document); }));
}

void StepSimulation::onFinished()
{
    running_ = false;
    StepPtr step = watcher_->future().result();
    DocumentPtr job = std::move(jobDocument_);
    jobDocument_.reset();
    if (pending_) {
        DocumentPtr next = std::move(pending_);
        pending_.reset();
        setDocument(std::move(next));
        if (!running_)
            emit busyChanged(false);
        return;
    }
    emit busyChanged(false);
    // Otherwise a document without placement came meanwhile and was reported already.
    if (job == latest_) {
        current_ = std::move(step);
        emit simulated(current_);
    }
}

} // namespace post
