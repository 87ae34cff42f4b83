#include "core/learn/EvaluationBudget.h"

#include "core/place/ProgressObserver.h"

#include <algorithm>

namespace post {

EvaluationBudget::EvaluationBudget(int limit, double seconds, const std::atomic<bool>* stop,
                                   ProgressObserver* observer, Clock::time_point start)
    : limit_(std::max(0, limit))
    , deadline_(start
                + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, seconds))))
    , timed_(seconds > 0.0)
    , stop_(stop)
    , observer_(observer)
{
}

int EvaluationBudget::left() const { return std::min(limit_, cap_) - used_; }

bool EvaluationBudget::timeUp() const { return timed_ && Clock::now() >= deadline_; }

void EvaluationBudget::record(const Placement& placement, const Evaluation& evaluation)
{
    if (observer_)
        observer_->onSample(SampleEvent{used_, evaluation.stepTimeUs, evaluation.feasible, &placement});
    ++used_;
}

} // namespace post
