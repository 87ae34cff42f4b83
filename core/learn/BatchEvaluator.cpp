#include "core/learn/BatchEvaluator.h"

#include "core/learn/LearnerOptions.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/place/Placer.h"
#include "core/util/VectorState.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace post {

BatchEvaluator::BatchEvaluator(const StepEvaluatorFactory& factory, int threads)
{
    const int count = std::max(1, threads);
    evaluators_.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i)
        evaluators_.push_back(factory());
    workers_.reserve(static_cast<size_t>(count - 1));
    for (size_t i = 1; i < evaluators_.size(); ++i)
        workers_.emplace_back([this, i] { workerLoop(i); });
}

BatchEvaluator::~BatchEvaluator()
{
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_)
        worker.join();
}

void BatchEvaluator::setReference(const Placement& reference)
{
    for (const auto& evaluator : evaluators_)
        if (auto* placement = dynamic_cast<PlacementEvaluator*>(evaluator.get()))
            placement->setReference(reference);
}

void BatchEvaluator::evaluate(std::span<const Placement> placements, std::span<Evaluation> results)
{
    if (results.size() < placements.size())
        throw std::invalid_argument("BatchEvaluator: fewer result slots than placements");
    // The caller's thread may carry a dirty upper AVX state (a GUI thread's, inherited):
    // every SSE instruction of the simulation would pay for it (core/util/VectorState.h).
    clearUpperVectorState();
    // Waking workers costs more than it saves for a single placement.
    if (workers_.empty() || placements.size() < 2) {
        for (size_t i = 0; i < placements.size(); ++i)
            results[i] = evaluators_[0]->evaluate(placements[i]);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        placements_ = placements;
        results_ = results;
        next_.store(0, std::memory_order_relaxed);
        error_ = nullptr;
        busyWorkers_ = static_cast<int>(workers_.size());
        ++generation_;
    }
    wake_.notify_all();
    drain(0);
    std::exception_ptr error;
    {
        std::unique_lock lock(mutex_);
        finished_.wait(lock, [this] { return busyWorkers_ == 0; });
        error = error_;
        placements_ = {};
        results_ = {};
    }
    if (error)
        std::rethrow_exception(error);
}

void BatchEvaluator::drain(size_t evaluator)
{
    try {
        for (;;) {
            const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
            if (i >= placements_.size())
                return;
            results_[i] = evaluators_[evaluator]->evaluate(placements_[i]);
        }
    } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_)
            error_ = std::current_exception();
        next_.store(placements_.size(), std::memory_order_relaxed); // the others stop early
    }
}

void BatchEvaluator::workerLoop(size_t evaluator)
{
    clearUpperVectorState(); // a new thread starts with its creator's vector state
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
            if (quit_)
                return;
            seen = generation_;
        }
        drain(evaluator);
        {
            std::lock_guard lock(mutex_);
            --busyWorkers_;
        }
        finished_.notify_one();
    }
}

int searchThreads(const PlaceContext& context, int width)
{
    const int threads = context.threads > 0 ? context.threads : static_cast<int>(std::thread::hardware_concurrency());
    return std::clamp(threads, 1, std::max(1, width));
}

BatchEvaluator makeSearchPool(const PlaceContext& context, int width, const PenaltyOptions& penalty,
                              const EvaluatorMaker& maker)
{
    const StepEvaluatorFactory factory = [&]() -> std::unique_ptr<StepEvaluator> {
        if (maker)
            return maker(context);
        return std::make_unique<PlacementEvaluator>(context.graph, context.cluster, context.sim, penalty);
    };
    return BatchEvaluator(factory, searchThreads(context, width));
}

} // namespace post
