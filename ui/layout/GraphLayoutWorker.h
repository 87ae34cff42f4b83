#pragma once

#include "ui/layout/LayoutInput.h"
#include "ui/layout/LayoutResult.h"
#include "ui/util/JobQueue.h"

#include <QObject>

#include <atomic>

namespace post {

// Runs Graphviz layouts. Lives on the one layout thread (LayoutController owns it), so
// every Graphviz call in the UI happens there, one at a time.
class GraphLayoutWorker : public QObject {
    Q_OBJECT

public:
    explicit GraphLayoutWorker(QObject* parent = nullptr);

    // Thread-safe: requests with an id <= `requestId` are abandoned at the next phase
    // boundary (or skipped if they have not started).
    void cancelUpTo(quint64 requestId);
    // Thread-safe: lays `input` out on the worker's thread, after the requests before it.
    void enqueue(post::LayoutInput input);

public slots:
    void layout(const post::LayoutInput& input);

signals:
    // Emitted for every request, including cancelled and failed ones.
    void finished(const post::LayoutResult& result);
    void queued(); // internal: wakes the worker's thread for the next job

private:
    void layoutNext();

    JobQueue<LayoutInput> jobs_;
    std::atomic<quint64> cancelledUpTo_{0};
};

} // namespace post
