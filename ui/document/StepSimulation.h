#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/document/SimulatedStep.h"
#include "ui/util/LatestJob.h"

#include <QObject>

template <typename T> class QFutureWatcher;

namespace post {

// Simulates the shown placement whenever the document changes, for the timeline and the
// status bar. Small graphs are simulated at once; larger ones on a pool thread, one job at
// a time: documents arriving meanwhile replace each other and only the newest is run next,
// so a learner streaming placements never queues work, and stale results (LatestJob) are
// never shown.
class StepSimulation : public QObject {
    Q_OBJECT

public:
    // Above this many ops the simulation leaves the GUI thread (a step of 5,000 ops with
    // its timeline takes a few milliseconds).
    static constexpr int kSynchronousMaxOps = 5000;

    explicit StepSimulation(QObject* parent = nullptr);
    ~StepSimulation() override;

    void setDocument(DocumentPtr document);
    // The step of the newest document, null while it is being simulated or has no placement.
    const StepPtr& current() const { return current_; }
    bool isBusy() const { return running_ != 0; }
    void setSynchronousMaxOps(int ops) { synchronousMaxOps_ = ops; }

signals:
    // The newest document's step (null: nothing to simulate).
    void simulated(post::StepPtr step);
    void busyChanged(bool busy);

private:
    void start(DocumentPtr document);
    void onFinished();
    bool sameStep(const GraphDocument& document) const;

    QFutureWatcher<StepPtr>* watcher_;
    LatestJob job_;       // the pool job whose step is wanted (none once a newer document came)
    quint64 running_ = 0; // the id of the job on the pool, 0 when none runs
    DocumentPtr pending_; // waits for the running job
    StepPtr current_;
    int synchronousMaxOps_ = kSynchronousMaxOps;
};

} // namespace post
