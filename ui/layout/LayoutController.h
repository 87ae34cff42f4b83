#pragma once

#include "ui/layout/LayoutInput.h"
#include "ui/layout/LayoutResult.h"
#include "ui/util/LatestJob.h"

#include <QObject>
#include <QThread>

namespace post {

class GraphLayoutWorker;

// The GUI side of graph layout: owns the layout thread and its worker, numbers the
// requests (LatestJob) and passes on only the result of the newest one. A new request
// supersedes (cancels) older ones; results that arrive for them are dropped.
class LayoutController : public QObject {
    Q_OBJECT

public:
    explicit LayoutController(QObject* parent = nullptr);
    ~LayoutController() override;

    // Starts laying out `input` (its requestId is overwritten) and returns the new id.
    quint64 request(LayoutInput input);
    // Abandons the current request; emits cancelled() now, its result will be dropped.
    void cancel();

    bool isBusy() const { return busy_; }
    quint64 currentRequest() const { return job_.current(); }

    // Where the worker's results arrive (public so tests can feed stale results).
    void deliver(const post::LayoutResult& result);

signals:
    void started(quint64 requestId);
    void layoutReady(const post::LayoutResult& result);
    void layoutFailed(quint64 requestId, const QString& message);
    void cancelled(quint64 requestId);
    void busyChanged(bool busy);

private:
    void setBusy(bool busy);

    QThread thread_;
    GraphLayoutWorker* worker_ = nullptr; // lives on thread_, deleted when it finishes
    LatestJob job_;
    bool busy_ = false; // job_.isBusy(), as last reported by busyChanged
};

} // namespace post
