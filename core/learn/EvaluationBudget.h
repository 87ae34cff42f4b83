#pragma once

#include "core/graph/Placement.h"
#include "core/learn/Evaluation.h"

#include <atomic>
#include <chrono>
#include <limits>

namespace post {

class ProgressObserver;

// The evaluations (simulations) and wall time a search may spend, shared by every part of
// it (sampling, local search, the arms of a race) so all of them come out of one budget.
// Every evaluation is recorded in order and reported to the observer as a sample.
class EvaluationBudget {
public:
    using Clock = std::chrono::steady_clock;

    // `limit` evaluations (<= 0: none); `seconds` of wall time from `start` (<= 0: no limit).
    EvaluationBudget(int limit, double seconds, const std::atomic<bool>* stop, ProgressObserver* observer,
                     Clock::time_point start = Clock::now());

    int used() const { return used_; }
    int limit() const { return limit_; }
    // Evaluations left before the limit or the current allowance, whichever is nearer.
    int left() const;
    bool timeUp() const;
    // Wall time left before the deadline (0 when up; infinity without a time budget).
    double secondsLeft() const;
    bool stopRequested() const { return stop_ && stop_->load(std::memory_order_relaxed); }
    bool exhausted() const { return left() <= 0 || timeUp() || stopRequested(); }
    bool stopped() const { return stopSeen_; }

    // Caps further spending at `evaluations` more from now (an arm's share of a race, a
    // polish step); allow() without argument lifts the cap.
    void allow(int evaluations)
    {
        cap_ = evaluations >= std::numeric_limits<int>::max() - used_ ? std::numeric_limits<int>::max()
                                                                      : used_ + evaluations;
    }
    void allow() { cap_ = std::numeric_limits<int>::max(); }
    int cap() const { return cap_; }
    // Ends the time budget early, at `until` (a race's part of it), until uncapTime(); allow()
    // leaves it. Without a time budget it has no effect.
    void capTime(Clock::time_point until) { timeCap_ = until; }
    void uncapTime() { timeCap_ = Clock::time_point::max(); }
    void setCap(int cap) { cap_ = cap; }

    // Counts one evaluation and reports it to the observer as the next sample.
    void record(const Placement& placement, const Evaluation& evaluation);
    // Counts evaluations made elsewhere (a classical placer's own simulations), unreported.
    void charge(int evaluations) { used_ += evaluations; }
    ProgressObserver* observer() const { return observer_; }
    // Marks that the search ended on the stop flag (checked by exhausted()).
    void noteStop() { stopSeen_ = stopSeen_ || stopRequested(); }

private:
    int limit_;
    Clock::time_point deadline_;
    bool timed_;
    const std::atomic<bool>* stop_;
    ProgressObserver* observer_;
    int used_ = 0;
    int cap_ = std::numeric_limits<int>::max();
    Clock::time_point timeCap_ = Clock::time_point::max();
    bool stopSeen_ = false;
};

} // namespace post
