#pragma once

#include <QtGlobal>

#include <atomic>
#include <memory>

namespace post {

// "Latest result wins", written once: numbers the jobs an owner starts (a file read, a
// layout, a learner run, a comparison, a step simulation) and says which results are
// still wanted. Starting a job makes every earlier one stale; drop() makes them all stale.
// Results of stale jobs are dropped on arrival, never shown. Lives on the owner's thread;
// tickets let a worker thread see cheaply that its job was superseded.
class LatestJob {
public:
    // What a worker thread keeps of its job: whether it is still the newest.
    class Ticket {
    public:
        Ticket() = default;
        quint64 id() const { return id_; }
        bool isStale() const { return !latest_ || latest_->load(std::memory_order_relaxed) != id_; }

    private:
        friend class LatestJob;
        Ticket(std::shared_ptr<const std::atomic<quint64>> latest, quint64 id)
            : latest_(std::move(latest))
            , id_(id)
        {
        }
        std::shared_ptr<const std::atomic<quint64>> latest_;
        quint64 id_ = 0;
    };

    // A new job: its id (never 0). Every earlier job is stale from now on.
    quint64 begin()
    {
        current_ = ++next_;
        latest_->store(current_, std::memory_order_relaxed);
        return current_;
    }
    // No job is wanted any more (cancel): whatever arrives now is stale. Returns the id of
    // the job that was current (0 when none was).
    quint64 drop()
    {
        const quint64 id = current_;
        current_ = 0;
        latest_->store(0, std::memory_order_relaxed);
        return id;
    }
    // Job `id`'s final result arrived: true when it is the current job (deliver it; the job
    // is over), false when it is stale (drop it).
    bool finish(quint64 id)
    {
        if (!isCurrent(id))
            return false;
        current_ = 0;
        return true;
    }
    // An intermediate result of job `id` (progress, a snapshot) is wanted.
    bool isCurrent(quint64 id) const { return id != 0 && id == current_; }
    // A job was begun and has neither finished nor been dropped.
    bool isBusy() const { return current_ != 0; }
    quint64 current() const { return current_; }
    Ticket ticket(quint64 id) const { return Ticket(latest_, id); }

private:
    quint64 next_ = 0;
    quint64 current_ = 0;
    std::shared_ptr<std::atomic<quint64>> latest_ = std::make_shared<std::atomic<quint64>>(0); // current_, for workers
};

} // namespace post
