#include "ui/layout/GraphLayoutWorker.h"

#include "ui/layout/GraphvizLayout.h"

#include <new>

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
    LayoutResult result;
    try {
        result = runGraphvizLayout(input, [this, id] { return id <= cancelledUpTo_.load(); });
    } catch (const std::bad_alloc&) {
        // On this thread an escaping exception would end the program: report it instead.
        result = LayoutResult{};
        result.requestId = id;
        result.status = LayoutResult::Status::Failed;
        result.error = QStringLiteral("not enough memory to lay the graph out");
    }
    emit finished(result);
}

} // namespace post
