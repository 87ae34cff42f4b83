#include "ui/learn/LearnerWorker.h"

#include "core/classic/ClassicalPlacers.h"
#include "core/run/LocalSearchPlacer.h"
#include "core/run/PlacerRegistry.h"
#include "core/run/WarmStartName.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/Beside.h"
#include "core/util/VectorState.h"
#include "ui/learn/SamplePlacements.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <future>
#include <limits>
#include <stdexcept>
#include <utility>

namespace post {

namespace {

using Clock = std::chrono::steady_clock;

// Fastest step time with every op on one GPU (the baseline a placement has to beat).
double singleDeviceMs(const Graph& graph, const Cluster& cluster, const SimOptions& sim)
{
    Simulator simulator(graph, cluster, sim);
    double best = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
        if (cluster.device(d).kind != DeviceKind::Gpu)
            continue;
        const SimResult& r = simulator.run(Placement(static_cast<size_t>(graph.opCount()), d));
        if (r.feasible && r.stepTimeUs < best)
            best = r.stepTimeUs;
    }
    return best == std::numeric_limits<double>::infinity() ? std::numeric_limits<double>::quiet_NaN() : best / 1000.0;
}

// The fastest feasible classical placement (the line a learner should get below), run by the
// rules of the searches' own starts (core's runClassicalStarts: classicalStartHooks), which
// then take these runs instead of running the placers again (PlaceContext::classicalStarts):
// under the run's time budget `seconds` (counted from `began`; 0: none) a placer starts while
// time is left and one with a time-bounded part gets what is left (m-SCT's LP windows half of
// it: 53 s on the Chakra step without a bound). Stops early on `stop`. `warmStarter` (a
// classical placer, or empty) also sets out.warmStartMs. `step(name, i, n)` is called before
// each placer (the window shows what runs). Returns the runs, in the table's order.
template <class Step>
std::vector<ClassicalStart> bestClassical(const Graph& graph, const Cluster& cluster, const SimOptions& sim,
                                          double seconds, Clock::time_point began, const std::atomic<bool>* stop,
                                          const std::string& warmStarter, LearnerSnapshot& out, const Step& step)
{
    PlaceContext context{graph, cluster, sim};
    context.stop = stop;
    ClassicalRunHooks hooks = classicalStartHooks(
        [seconds, began] {
            return seconds > 0.0 ? seconds - std::chrono::duration<double>(Clock::now() - began).count()
                                 : std::numeric_limits<double>::infinity();
        },
        [stop] { return stop && stop->load(); });
    hooks.starting = [&step](const std::string& name, size_t i, size_t n) {
        step(name, static_cast<int>(i) + 1, static_cast<int>(n));
    };
    hooks.done = [&](const ClassicalStart& start) {
        const PlaceResult& r = start.result;
        const double ms = r.bestStepTimeUs / 1000.0;
        if (r.feasible && !r.stopped && !(ms >= out.classicalMs)) {
            out.classicalMs = ms;
            out.classicalName = QString::fromStdString(start.name);
        }
        if (start.name == warmStarter && r.feasible && !r.stopped)
            out.warmStartMs = ms;
    };
    return runClassicalPlacers(context, classicalStartOrder(), hooks);
}

// The classical placer a "LEARNER@PLACER" run starts from (core's WarmStartedPlacer,
// which evaluates that start without reporting it as a sample), or empty for any other
// name; post@best is a race whose starts are sampled, so it has none.
std::string warmStarterOf(const std::string& algorithm)
{
    const auto name = splitWarmStartName(algorithm);
    if (!name || findPlacer(algorithm) || !findClassicalPlacer(std::string(name->starter)))
        return {};
    return std::string(name->starter);
}

// The start's step time when the classical reference was not computed (NaN if it does not fit).
double warmStartMs(const Graph& graph, const Cluster& cluster, const SimOptions& sim, double seconds,
                   const std::atomic<bool>* stop, const std::string& starter)
{
    PlaceContext context{graph, cluster, sim};
    context.seconds = seconds;
    context.stop = stop;
    const std::vector<ClassicalStart> run = runClassicalPlacers(context, {starter});
    if (run.empty() || !run.front().result.feasible || run.front().result.stopped)
        return std::numeric_limits<double>::quiet_NaN();
    return run.front().result.bestStepTimeUs / 1000.0;
}

// Buffers events on the learner thread and hands them out in timed batches.
class SnapshotObserver : public ProgressObserver {
public:
    // `bound`: the lower bound being computed beside the placer (none: the prototype has it);
    // the snapshots carry it from the first flush after it is ready.
    SnapshotObserver(LearnerWorker& worker, LearnerControl& control, LearnerSnapshot prototype, SamplePlacements* keep,
                     int offset, std::future<LowerBound>* bound)
        : worker_(worker)
        , control_(control)
        , keep_(keep)
        , offset_(offset)
        , bound_(bound)
        , pending_(std::move(prototype))
        , lastFlush_(Clock::now())
    {
    }

    void onSample(const SampleEvent& original) override
    {
        SampleEvent event = original;
        event.index += offset_;
        pending_.samples.push_back({event.index, event.stepTimeUs / 1000.0, event.feasible});
        pending_.samplesDone = event.index + 1;
        if (keep_ && event.placement)
            keep_->add(event.index, *event.placement);
        const double ms = event.stepTimeUs / 1000.0;
        if (event.feasible && ms < pending_.bestMs) {
            pending_.bestMs = ms;
            if (event.placement)
                pending_.bestPlacement = *event.placement;
        }
        if (control_.isPaused()) {
            flush(); // the UI shows exactly where it stopped
            const Clock::time_point before = Clock::now();
            control_.waitWhilePaused();
            lastFlush_ = Clock::now();
            pausedSeconds_ += std::chrono::duration<double>(lastFlush_ - before).count();
        } else if (Clock::now() - lastFlush_ >= std::chrono::milliseconds(LearnerWorker::kSnapshotIntervalMs)) {
            flush();
        }
    }

    void onUpdate(const UpdateEvent& event) override
    {
        pending_.updates.push_back({event.afterSample + offset_, event.kind, event.eliteThresholdUs / 1000.0,
                                    event.bestStepTimeUs / 1000.0, event.entropy});
    }

    double takePausedSeconds() override { return std::exchange(pausedSeconds_, 0.0); }

    void onPhase(const PhaseEvent& event) override
    {
        pending_.phases.push_back(
            {event.firstSample + offset_, event.kind, event.run, QString::fromStdString(event.label)});
    }

    void flush()
    {
        lastFlush_ = Clock::now();
        takeBound(false);
        if (pending_.samples.empty() && pending_.updates.empty() && pending_.bestPlacement.empty()
            && pending_.phases.empty() && !boundNew_)
            return;
        emit worker_.snapshotReady(pending_);
        boundNew_ = false;
        clearUpperVectorState(); // after Qt's code (the queued signal's copy and post)
        pending_.samples.clear();
        pending_.updates.clear();
        pending_.phases.clear();
        pending_.bestPlacement.clear();
    }

    // After the placer: waits for the bound, and sends what is pending with it.
    void finish()
    {
        takeBound(true);
        flush();
    }

private:
    // The bound into the pending snapshot once it is ready (`wait`: waits for it; a deferred
    // one, where no thread could start, runs then); the next flush sends it, samples or not.
    void takeBound(bool wait)
    {
        if (bound_ == nullptr || !bound_->valid())
            return;
        if (!wait && bound_->wait_for(std::chrono::seconds(0)) != std::future_status::ready)
            return;
        const LowerBound bound = bound_->get();
        pending_.lowerBoundMs = bound.valueUs() / 1000.0;
        pending_.lowerBoundSource = QString::fromLatin1(bound.source());
        boundNew_ = true;
    }

    LearnerWorker& worker_;
    LearnerControl& control_;
    SamplePlacements* keep_;
    int offset_; // a continued run's samples go on from the restored ones
    std::future<LowerBound>* bound_;
    bool boundNew_ = false; // taken since the last snapshot sent
    LearnerSnapshot pending_;
    Clock::time_point lastFlush_;
    double pausedSeconds_ = 0.0; // waited while paused since takePausedSeconds()
};

} // namespace

LearnerWorker::LearnerWorker(QObject* parent)
    : QObject(parent)
{
    connect(this, &LearnerWorker::queued, this, &LearnerWorker::runNext, Qt::QueuedConnection);
}

void LearnerWorker::enqueue(LearnerRequest request, std::shared_ptr<LearnerControl> control)
{
    jobs_.push({std::move(request), std::move(control)});
    emit queued();
}

void LearnerWorker::runNext()
{
    if (std::optional<Job> job = jobs_.pop())
        run(job->request, std::move(job->control));
}

void LearnerWorker::run(const LearnerRequest& request, std::shared_ptr<LearnerControl> control)
{
    LearnerOutcome outcome;
    outcome.runId = request.runId;
    outcome.algorithm = QString::fromStdString(request.algorithm);
    // This thread was started by the GUI thread, whose upper AVX state Qt leaves dirty, and
    // runs Qt's code between jobs: the search's SSE arithmetic must not run in that state
    // (core/util/VectorState.h, docs/performance.md "The GUI learner against the CLI").
    clearUpperVectorState();
    try {
        const Graph& graph = *request.document->graph;
        const Cluster& cluster = *request.document->cluster;
        const SimOptions& sim = request.document->sim; // every time the run shows, under the document's rule
        // The reference lines (but the lower bound, below) come first and count in the time
        // budget, as post-cli place --time counts from the command's start: the placer gets
        // what is left (at least a tenth of it, never 0, which would mean no limit). The window
        // says what runs.
        const Clock::time_point referencesStart = Clock::now();
        const auto preparing = [&](const QString& what) { emit this->preparing(request.runId, what); };
        LearnerSnapshot prototype;
        prototype.runId = request.runId;
        prototype.bestMs = request.bestBeforeMs;
        // milp builds the lower bound into its model, so it gets it first; for every other
        // placer it is computed beside the placer and reaches the chart when ready (as
        // post-cli place does).
        const bool boundFirst = placerUsesLowerBound(request.algorithm);
        std::future<LowerBound> bound;
        double boundUs = 0.0;
        if (boundFirst) {
            preparing(tr("computing the lower bound"));
            const LowerBound first = lowerBound(graph, cluster, sim);
            boundUs = first.valueUs();
            prototype.lowerBoundMs = boundUs / 1000.0;
            prototype.lowerBoundSource = QString::fromLatin1(first.source());
        } else {
            bound = beside([&graph, &cluster, &sim] { return lowerBound(graph, cluster, sim); });
        }
        preparing(tr("timing every op on one GPU"));
        prototype.singleDeviceMs = singleDeviceMs(graph, cluster, sim);
        const std::string starter = warmStarterOf(request.algorithm);
        std::vector<ClassicalStart> starts;
        if (request.classicalReference) // goes out with the first samples
            starts = bestClassical(
                graph, cluster, sim, request.seconds, referencesStart, control->stopFlag(), starter, prototype,
                [&](const std::string& name, int i, int n) {
                    preparing(
                        tr("computing the reference placers: %1 %2/%3").arg(QString::fromStdString(name)).arg(i).arg(n));
                });
        else if (!starter.empty()) {
            preparing(tr("computing the warm start: %1").arg(QString::fromStdString(starter)));
            prototype.warmStartMs = warmStartMs(graph, cluster, sim, request.seconds, control->stopFlag(), starter);
        }
        outcome.referenceSeconds = std::chrono::duration<double>(Clock::now() - referencesStart).count();
        preparing(QString()); // the placer starts
        if (request.samplePlacements)
            request.samplePlacements->reset(graph.opCount(), cluster.deviceCount());
        SnapshotObserver observer(*this, *control, std::move(prototype), request.samplePlacements.get(),
                                  request.sampleOffset, boundFirst ? nullptr : &bound);
        PlaceContext context{graph, cluster, sim};
        auto placer = request.start.empty() ? makePlacer(request.algorithm, request.options)
                                            : makePlacerFrom(request.algorithm, request.options, request.start, context);
        if (!placer)
            throw std::invalid_argument("no placer named " + request.algorithm);
        context.samples = request.samples;
        context.seconds = request.seconds;
        if (request.seconds > 0.0)
            context.seconds = std::max(request.seconds - outcome.referenceSeconds, 0.1 * request.seconds);
        context.seed = request.seed;
        context.lowerBoundUs = boundUs; // 0 (unknown) where the bound runs beside
        context.observer = &observer;
        context.stop = control->stopFlag();
        if (request.classicalReference) // the searches' starts: not run twice
            context.classicalStarts = &starts;
        outcome.result = placer->place(context);
        observer.finish();
        outcome.result.stopped = outcome.result.stopped || control->stopRequested();
    } catch (const std::exception& e) {
        outcome.error = QString::fromStdString(e.what());
    }
    emit finished(outcome);
}

} // namespace post
