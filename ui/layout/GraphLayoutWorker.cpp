#include "ui/layout/GraphLayoutWorker.h"

#include "ui/layout/GraphvizLayout.h"

namespace post {

GraphLayoutWorker::GraphLayoutWorker(QObject* parent)
    : QObject(parent)
{
    connect(this, &GraphLayoutWorker::queued, this, &GraphLayoutWorker::layoutNext, Qt::QueuedConnection);
}

void GraphLayoutWorker::enqueue(LayoutInput input)
{
    jobs_.push(std::move(input));
    emit queued();
}

void GraphLayoutWorker::layoutNext()
{
    if (std::optional<LayoutInput> input = jobs_.pop())
        layout(*input);
}

void GraphLayoutWorker::cancelUpTo(quint64 requestId)
{
    quint64 current = cancelledUpTo_.load();
    while (current < requestId && !cancelledUpTo_.compare_exchange_weak(current, requestId)) { }
}

void GraphLayoutWorker::layout(const LayoutInput& input)
{
    const quint64 id = input.requestId;
    LayoutResult result = runGraphvizLayout(input, [this, id] { return id <= cancelledUpTo_.load(); });
    emit finished(result);
}

} // namespace post
