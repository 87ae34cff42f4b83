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
    input.requestId = ++next_;
    current_ = input.requestId;
    worker_->cancelUpTo(current_ - 1);
    worker_->enqueue(std::move(input));
    setBusy(true);
    emit started(current_);
    return current_;
}

void LayoutController::cancel()
{
    if (!busy_)
        return;
    worker_->cancelUpTo(current_);
    const quint64 id = current_;
    current_ = 0; // nothing is current: whatever arrives now is stale
    setBusy(false);
    emit cancelled(id);
}

void LayoutController::deliver(const LayoutResult& result)
{
    if (result.requestId == 0 || result.requestId != current_)
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
