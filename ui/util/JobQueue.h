#pragma once

#include <deque>
#include <mutex>
#include <optional>

namespace post {

// Jobs handed from the GUI thread to a worker thread, first in first out. The worker is told
// by a queued signal that carries nothing; the job itself goes through this std::mutex, so
// ThreadSanitizer sees the hand-over (and everything the GUI wrote before it, such as the
// graph the job points to). Qt's event queue locks inside libQt6Core, which TSan cannot see.
template <typename Job> class JobQueue {
public:
    void push(Job job)
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
    }

    std::optional<Job> pop()
    {
        std::lock_guard lock(mutex_);
        if (jobs_.empty())
            return std::nullopt;
        std::optional<Job> job(std::move(jobs_.front()));
        jobs_.pop_front();
        return job;
    }

private:
    std::mutex mutex_;
    std::deque<Job> jobs_;
};

} // namespace post
