#include "ui/layout/LayoutController.h"

#include "ui/layout/GraphLayoutWorker.h"

#include <limits>

namespace post {

LayoutController::LayoutController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<post::LayoutInput>();
    qRegisterMetaType<post::LayoutResult>();
    thread_.setObjectName(QStringLiteral("graph layout"));
    worker_ = new GraphLayoutWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &GraphLayoutWorker::finished, this, &LayoutController::deliver, Qt::QueuedConnection);
    thread_.start();
}

LayoutController::~LayoutController()
{
    // A running Graphviz phase cannot be interrupted; LayoutPolicy keeps it short.
    worker_->cancelUpTo(std::numeric_limits<quint64>::max());
    thread_.quit();
    thread_.wait();
}

quint64 LayoutController::request(LayoutInput input)
{
    const quint64 id = job_.begin();
    input.requestId = id;
    worker_->cancelUpTo(id - 1);
    worker_->enqueue(std::move(input));
    setBusy(true);
    emit started(id);
    return id;
}

void LayoutController::cancel()
{
    if (!job_.isBusy())
        return;
    const quint64 id = job_.drop(); // nothing is current: whatever arrives now is stale
    worker_->cancelUpTo(id);
    setBusy(false);
    emit cancelled(id);
}

void LayoutController::deliver(const LayoutResult& result)
{
    if (!job_.finish(result.requestId))
        return; // superseded or cancelled
    setBusy(false);
    switch (result.status) {
    case LayoutResult::Status::Done:
        emit layoutReady(result);
        break;
    case LayoutResult::Status::Failed:
        emit layoutFailed(result.requestId, result.error);
        break;
    case LayoutResult::Status::Cancelled:
        emit cancelled(result.requestId);
        break;
    }
}

void LayoutController::setBusy(bool busy)
{
    if (busy_ == busy)
        return;
    busy_ = busy;
    emit busyChanged(busy);
}

} // namespace post
