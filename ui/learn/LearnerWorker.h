#pragma once

#include "learn/LearnerControl.h"
#include "learn/LearnerRequest.h"
#include "learn/LearnerSnapshot.h"

#include <QObject>

#include <memory>

namespace post {

// Runs placers on the learner thread (owned by LearnerController). Progress is batched
// into LearnerSnapshot values, at most one per kSnapshotIntervalMs plus a final one.
class LearnerWorker : public QObject {
    Q_OBJECT

public:
    static constexpr int kSnapshotIntervalMs = 50;

    // Blocking; call on the worker's thread. Always emits finished().
    void run(const post::LearnerRequest& request, std::shared_ptr<post::LearnerControl> control);

signals:
    void snapshotReady(const post::LearnerSnapshot& snapshot);
    void finished(const post::LearnerOutcome& outcome);
};

} // namespace post
