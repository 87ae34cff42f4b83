#include "core/run/ComparisonRunner.h"

#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace post {
namespace {

// Turns a learner's samples (or, under a time limit, its time if further along) into the
// fraction of the whole comparison done.
class FractionObserver : public ProgressObserver {
public:
    FractionObserver(const ComparisonRunner::ProgressFn& progress, ComparisonProgress base, double runShare,
                     int samples, double seconds)
        : progress_(progress)
        , base_(std::move(base))
        , runShare_(runShare)
        , samples_(std::max(samples, 1))
        , seconds_(seconds)
        , began_(std::chrono::steady_clock::now())
    {
    }

    void onSample(const SampleEvent& event) override
    {
        double done = static_cast<double>(event.index + 1) / samples_;
        if (seconds_ > 0.0)
            done = std::max(done,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count() / seconds_);
        ComparisonProgress p = base_;
        p.fraction += runShare_ * std::min(1.0, done);
        progress_(p);
    }
    void onUpdate(const UpdateEvent&) override { }

private:
    const ComparisonRunner::ProgressFn& progress_;
    ComparisonProgress base_;
    double runShare_;
    int samples_;
    double seconds_;
    std::chrono::steady_clock::time_point began_;
};

bool stopped(const std::atomic<bool>* stop) { return stop && stop->load(); }

} // namespace

double ComparisonRow::meanUs() const
{
    if (bestUs.empty())
        return 0.0;
    double s = 0.0;
    for (double v : bestUs)
        s += v;
    return s / static_cast<double>(bestUs.size());
}

double ComparisonRow::stddevUs() const
{
    if (bestUs.size() < 2)
        return 0.0;
    const double m = meanUs();
    double s = 0.0;
    for (double v : bestUs)
        s += (v - m) * (v - m);
    return std::sqrt(s / static_cast<double>(bestUs.size() - 1));
}

ComparisonRunner::ComparisonRunner(const Graph& graph, const Cluster& cluster, ComparisonOptions options)
    : graph_(graph)
    , cluster_(cluster)
    , options_(std::move(options))
    , algorithms_(options_.algorithms.empty() ? defaultComparisonNames() : options_.algorithms)
{
}

std::string ComparisonRunner::unknownAlgorithm() const
{
    for (const std::string& a : algorithms_)
        if (!makePlacer(a))
            return a;
    return {};
}

std::vector<ComparisonRow> ComparisonRunner::run(const ProgressFn& progress, const RowFn& rowDone,
                                                 const std::atomic<bool>* stop)
{
    // Each run (a seed of a learner, or a classical placer) is one equal share of the bar.
    int totalRuns = 0;
    for (const std::string& a : algorithms_)
        totalRuns += placerUsesSeed(a) ? options_.seeds : 1;
    std::vector<ComparisonRow> rows;
    int runsBefore = 0;
    for (const std::string& a : algorithms_) {
        if (stopped(stop))
            break;
        const int runs = placerUsesSeed(a) ? options_.seeds : 1;
        ProgressFn scaled;
        if (progress)
            scaled = [&](const ComparisonProgress& p) {
                ComparisonProgress q = p;
                q.fraction = (runsBefore + p.fraction * runs) / std::max(totalRuns, 1);
                progress(q);
            };
        rows.push_back(runAlgorithm(a, scaled, stop));
        runsBefore += runs;
        if (rowDone)
            rowDone(rows.back());
    }
    return rows;
}

ComparisonRow ComparisonRunner::runAlgorithm(const std::string& algorithm, const ProgressFn& progress,
                                             const std::atomic<bool>* stop)
{
    ComparisonRow row;
    row.algorithm = algorithm;
    const bool seeded = placerUsesSeed(algorithm);
    const int runs = seeded ? options_.seeds : 1;
    for (int i = 0; i < runs; ++i) {
        if (i > 0 && stopped(stop))
            break;
        std::unique_ptr<Placer> placer = makePlacer(algorithm, options_.learner);
        if (!placer)
            return row;
        ComparisonProgress base{static_cast<double>(i) / runs, algorithm, i, runs};
        if (progress)
            progress(base);
        FractionObserver observer(progress, base, 1.0 / runs, options_.samples, options_.seconds);
        PlaceContext ctx{graph_, cluster_, options_.sim};
        ctx.samples = options_.samples;
        ctx.seconds = options_.seconds;
        ctx.seed = options_.firstSeed + static_cast<std::uint64_t>(i);
        ctx.threads = options_.threads;
        ctx.lowerBoundUs = options_.lowerBoundUs;
        ctx.stop = stop;
        if (progress && seeded)
            ctx.observer = &observer;
        PlaceResult r = placer->place(ctx);
        row.bestUs.push_back(r.bestStepTimeUs);
        row.feasibleRuns += r.feasible ? 1 : 0;
        row.samples += r.samplesUsed;
        row.wallSeconds += r.wallSeconds;
        row.stopped = row.stopped || r.stopped;
        row.bounds.merge(r.bounds);
        // Feasible beats infeasible, then the faster step.
        const bool better = row.best.empty() || (r.feasible && !row.bestFeasible)
            || (r.feasible == row.bestFeasible && r.bestStepTimeUs < row.bestUsOverRuns);
        if (better && !r.best.empty()) {
            row.best = std::move(r.best);
            row.bestUsOverRuns = r.bestStepTimeUs;
            row.bestFeasible = r.feasible;
        }
    }
    if (!row.bestUs.empty()) {
        row.samples /= row.runs();
        row.wallSeconds /= row.runs();
    }
    if (progress)
        progress({1.0, algorithm, row.runs() - 1, runs});
    return row;
}

} // namespace post
