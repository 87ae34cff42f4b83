#pragma once

#include "ui/compare/ComparisonModel.h"
#include "ui/document/GraphDocument.h"
#include "ui/util/JobQueue.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace post {

struct ComparisonRequest {
    quint64 runId = 0;
    DocumentPtr document; // keeps graph and cluster alive during the run
    ComparisonOptions options;
};

// Runs core's ComparisonRunner on the comparison thread (owned by ComparisonView).
// Progress is sent at most every kProgressIntervalMs; rows as each algorithm ends.
class ComparisonWorker : public QObject {
    Q_OBJECT

public:
    static constexpr int kProgressIntervalMs = 50;

    explicit ComparisonWorker(QObject* parent = nullptr);
    // Thread-safe: runs `request` on the worker's thread, after the runs queued before it.
    void enqueue(post::ComparisonRequest request, std::shared_ptr<std::atomic<bool>> stop);

    // Blocking; call on the worker's thread. Always emits finished().
    void run(const post::ComparisonRequest& request, std::shared_ptr<std::atomic<bool>> stop);

signals:
    void started(quint64 runId, double lowerBoundUs, const QString& source);
    void progress(quint64 runId, double fraction, const QString& algorithm);
    void rowReady(quint64 runId, const post::ComparisonRow& row);
    void finished(quint64 runId, bool stopped, const QString& error);
    void queued(); // internal: wakes the worker's thread for the next job

private:
    struct Job {
        ComparisonRequest request;
        std::shared_ptr<std::atomic<bool>> stop;
    };
    void runNext();

    JobQueue<Job> jobs_;
};

} // namespace post
