#pragma once

#include "ui/learn/LearnerControl.h"
#include "ui/learn/LearnerRequest.h"
#include "ui/learn/LearnerSnapshot.h"
#include "ui/util/JobQueue.h"

#include <QObject>

#include <memory>

namespace post {

// Runs placers on the learner thread (owned by LearnerController). Progress is batched
// into LearnerSnapshot values, at most one per kSnapshotIntervalMs plus a final one.
class LearnerWorker : public QObject {
    Q_OBJECT

public:
    static constexpr int kSnapshotIntervalMs = 50;

    explicit LearnerWorker(QObject* parent = nullptr);
    // Thread-safe: runs `request` on the worker's thread, after the runs queued before it.
    void enqueue(post::LearnerRequest request, std::shared_ptr<post::LearnerControl> control);

    // Blocking; call on the worker's thread. Always emits finished().
    void run(const post::LearnerRequest& request, std::shared_ptr<post::LearnerControl> control);

signals:
    void snapshotReady(const post::LearnerSnapshot& snapshot);
    // What the run computes before its placer starts (the reference lines); empty when the
    // placer starts.
    void preparing(quint64 runId, const QString& what);
    void finished(const post::LearnerOutcome& outcome);
    void queued(); // internal: wakes the worker's thread for the next job

private:
    struct Job {
        LearnerRequest request;
        std::shared_ptr<LearnerControl> control;
    };
    void runNext();

    JobQueue<Job> jobs_;
};

} // namespace post
