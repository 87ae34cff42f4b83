#include "core/learn/EvaluationBudget.h"

#include "core/place/ProgressObserver.h"

#include <algorithm>
#include <limits>

namespace post {

EvaluationBudget::EvaluationBudget(int limit, double seconds, const std::atomic<bool>* stop, ProgressObserver* observer,
                                   Clock::time_point start)
    : limit_(std::max(0, limit))
    , deadline_(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, seconds))))
    , timed_(seconds > 0.0)
    , stop_(stop)
    , observer_(observer)
{
}

int EvaluationBudget::left() const { return std::min(limit_, cap_) - used_; }

bool EvaluationBudget::timeUp() const { return timed_ && Clock::now() >= std::min(deadline_, timeCap_); }

double EvaluationBudget::secondsLeft() const
{
    if (!timed_)
        return std::numeric_limits<double>::infinity();
    return std::max(0.0, std::chrono::duration<double>(std::min(deadline_, timeCap_) - Clock::now()).count());
}

void EvaluationBudget::record(const Placement& placement, const Evaluation& evaluation)
{
    if (observer_) {
        observer_->onSample(SampleEvent{used_, evaluation.stepTimeUs, evaluation.feasible, &placement});
        // A paused run's wait is not search time; the observer's own work is.
        if (const double paused = observer_->takePausedSeconds(); timed_ && paused > 0.0)
            deadline_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(paused));
    }
    ++used_;
}

} // namespace post
