#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace post {

// Shared between the GUI and one run: stop flag (PlaceContext::stop) and pause gate.
// Stop also opens the gate, so a paused run can always end.
class LearnerControl {
public:
    void requestStop()
    {
        {
            std::lock_guard lock(mutex_);
            stop_.store(true);
        }
        wake_.notify_all();
    }
    void setPaused(bool paused)
    {
        {
            std::lock_guard lock(mutex_);
            paused_ = paused;
        }
        wake_.notify_all();
    }
    bool isPaused() const
    {
        std::lock_guard lock(mutex_);
        return paused_;
    }
    // Blocks the calling (worker) thread while paused and not stopped.
    void waitWhilePaused()
    {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return !paused_ || stop_.load(); });
    }
    const std::atomic<bool>* stopFlag() const { return &stop_; }
    bool stopRequested() const { return stop_.load(); }

private:
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool paused_ = false;
};

} // namespace post
