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
        // Time spent in the observer (a paused GUI run waits there) is not search time.
        const auto before = timed_ ? Clock::now() : Clock::time_point{};
        observer_->onSample(SampleEvent{used_, evaluation.stepTimeUs, evaluation.feasible, &placement});
        if (timed_)
            deadline_ += Clock::now() - before;
    }
    ++used_;
}

} // namespace post
