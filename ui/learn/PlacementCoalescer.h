#pragma once

#include "core/graph/Placement.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>

class QTimer;

namespace post {

// Hands a learner's new best placements on no faster than the window can show them, latest
// wins (issue 21 item 2). On a 107k-op graph each best costs the GUI thread a recolour, the
// tables, the inspector and a step simulation, so bests that arrive within one frame of the
// previous one, or while the previous one's step is still being simulated (`setBusy`), wait,
// each replacing the one waiting before it: only the newest is applied, never an older one
// after it. A best that arrives after a quiet frame with nothing busy is applied at once.
// flush() applies the waiting one now (a run's end: its final best is always shown);
// drop() forgets it (another document came from elsewhere, which is newer).
class PlacementCoalescer : public QObject {
    Q_OBJECT

public:
    static constexpr int kFrameMs = 16;    // at most one best a frame
    static constexpr int kMaxHoldMs = 250; // how long a busy gate may hold the newest best

    explicit PlacementCoalescer(QObject* parent = nullptr);

    // "The previous best is still being shown" (the window: its step is being simulated);
    // a waiting best is held while it says so, at most kMaxHoldMs. Empty: never busy.
    void setBusy(std::function<bool()> busy) { busy_ = std::move(busy); }
    void setFrameMs(int ms) { frameMs_ = ms; }
    void setMaxHoldMs(int ms) { maxHoldMs_ = ms; }

    // A new best: applied now, or replaces the one waiting.
    void offer(Placement placement);
    // Applies the waiting best now, if any (busy or not).
    void flush();
    // Forgets the waiting best.
    void drop();
    bool hasPending() const { return pending_; }
    // How many bests were offered, applied and superseded by a newer one while waiting.
    int offered() const { return offered_; }
    int appliedCount() const { return applied_; }
    int superseded() const { return superseded_; }

public slots:
    // The busy gate may have opened (the step arrived): the waiting best goes at the next
    // turn of the event loop, not inside the signal that says so.
    void retry();

signals:
    void apply(const post::Placement& placement);

private:
    void schedule();
    void applyNow();

    QTimer* timer_;
    std::function<bool()> busy_;
    Placement placement_;
    bool pending_ = false;
    QElapsedTimer lastApply_; // invalid before the first
    QElapsedTimer heldSince_; // since the waiting best's first offer
    int frameMs_ = kFrameMs;
    int maxHoldMs_ = kMaxHoldMs;
    int offered_ = 0;
    int applied_ = 0;
    int superseded_ = 0;
};

} // namespace post
