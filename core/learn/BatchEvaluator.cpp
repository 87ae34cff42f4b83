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
    evaluators_.resize(static_cast<size_t>(count));
    evaluators_[0] = factory();
    // Each worker builds its own evaluator, on its own thread: what the evaluator allocates then
    // comes from that thread's malloc arena, and so does what it frees and reallocates while it
    // evaluates. Built on this thread, the workers' buffers sat in this thread's arena, and the
    // same climb ran 1.2-1.7x slower or not depending on which threads the process had started
    // before (docs/performance.md, "Where a worker's evaluator is built"). One at a time, in
    // index order, as a factory need not be thread-safe.
    struct Turns { // shared with the workers, which may still hold it as this returns
        std::mutex mutex;
        std::condition_variable changed;
        size_t next = 1;
        std::vector<std::exception_ptr> errors;
    };
    auto turns = std::make_shared<Turns>();
    turns->errors.resize(static_cast<size_t>(count));
    workers_.reserve(static_cast<size_t>(count - 1));
    for (size_t i = 1; i < evaluators_.size(); ++i)
        workers_.emplace_back([this, i, turns, &factory] {
            clearUpperVectorState(); // a new thread starts with its creator's vector state
            {
                std::unique_lock lock(turns->mutex);
                turns->changed.wait(lock, [&] { return turns->next == i; });
                try {
                    evaluators_[i] = factory(); // alive: the constructor waits for every turn
                } catch (...) {
                    turns->errors[i] = std::current_exception();
                }
                ++turns->next;
            }
            turns->changed.notify_all();
            workerLoop(i);
        });
    {
        std::unique_lock lock(turns->mutex);
        turns->changed.wait(lock, [&] { return turns->next == evaluators_.size(); });
    }
    for (const std::exception_ptr& error : turns->errors)
        if (error) {
            stopWorkers();
            std::rethrow_exception(error);
        }
}

BatchEvaluator::~BatchEvaluator() { stopWorkers(); }

void BatchEvaluator::stopWorkers()
{
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_)
        worker.join();
    workers_.clear();
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
