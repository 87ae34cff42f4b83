#pragma once

#include "core/learn/StepEvaluator.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace post {

struct PenaltyOptions;
struct PlaceContext;

// Evaluates batches of placements on a fixed pool of threads (the caller's thread plus
// threads - 1 workers), each with its own evaluator. Results land at the index of their
// placement, so they do not depend on the thread count or on scheduling. The factory makes
// evaluator 0 on the caller's thread and each worker's on that worker's thread, one call at a
// time in index order, before the constructor returns; an exception of one is rethrown there.
class BatchEvaluator {
public:
    BatchEvaluator(const StepEvaluatorFactory& factory, int threads);
    ~BatchEvaluator();
    BatchEvaluator(const BatchEvaluator&) = delete;
    BatchEvaluator& operator=(const BatchEvaluator&) = delete;

    int threads() const { return static_cast<int>(evaluators_.size()); }

    // Tells every PlacementEvaluator of the pool that the next placements are neighbours of
    // `reference` (PlacementEvaluator::setReference); results do not change.
    void setReference(const Placement& reference);

    // Fills results[i] for placements[i]; rethrows the first evaluator exception.
    void evaluate(std::span<const Placement> placements, std::span<Evaluation> results);

private:
    void workerLoop(size_t evaluator);
    void stopWorkers(); // ends and joins every worker
    void drain(size_t evaluator);

    std::vector<std::unique_ptr<StepEvaluator>> evaluators_; // [0] belongs to the caller's thread
    std::vector<std::thread> workers_;

    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable finished_;
    std::uint64_t generation_ = 0;
    int busyWorkers_ = 0;
    bool quit_ = false;
    std::exception_ptr error_;

    std::span<const Placement> placements_;
    std::span<Evaluation> results_;
    std::atomic<size_t> next_{0};
};

// Makes the evaluator of one thread of a search (a learner's setEvaluatorMaker: a stand-in for the
// simulator, in tests); empty: a PlacementEvaluator.
using EvaluatorMaker = std::function<std::unique_ptr<StepEvaluator>(const PlaceContext&)>;

// Threads a search uses for `context` (context.threads; 0: all cores), at most `width` (the
// placements it evaluates at once: a batch, a window), at least 1.
int searchThreads(const PlaceContext& context, int width);

// The pool every learner and search evaluates on: searchThreads(context, width) evaluators, each
// `maker`'s for `context`, or without one a PlacementEvaluator of the context's graph, cluster and
// simulator options with `penalty`.
BatchEvaluator makeSearchPool(const PlaceContext& context, int width, const PenaltyOptions& penalty,
                              const EvaluatorMaker& maker = {});

} // namespace post
