#include "core/exact/MilpPlacer.h"

#include "core/classic/ClassicalPlacers.h"
#include "core/classic/ClassicalReport.h"
#include "core/cluster/Cluster.h"
#include "core/exact/MilpGrouping.h"
#include "core/exact/MilpModel.h"
#include "core/graph/DeviceKind.h"
#include "core/graph/Graph.h"
#include "core/place/ProgressObserver.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace post {

namespace {

// Reports every simulation of the search to the context's observer as the next sample, with
// the phases a chart tells apart (classical starts, hill climb, the model's solves), so a run
// of milp is drawn like any other search. Without an observer it costs nothing.
class MilpProgress {
public:
    explicit MilpProgress(ProgressObserver* observer)
        : observer_(observer)
    {
    }
    void phase(int firstSample, PhaseKind kind, std::string label) const
    {
        if (observer_)
            observer_->onPhase(PhaseEvent{firstSample, kind, -1, std::move(label)});
    }
    void sample(int index, const Placement& placement, double stepUs, bool feasible) const
    {
        if (observer_)
            observer_->onSample(SampleEvent{index, stepUs, feasible, &placement});
    }

private:
    ProgressObserver* observer_;
};

// The best classical placement: the incumbent the search starts from and must beat. Every
// classical placer's simulations count as samples (`samples`), each reported as the
// placement that placer returned, as local-search reports its starts. They run against
// `secondsLeft()` (deadlineHooks), the first even under a stop, so there is an incumbent.
template <class SecondsLeft>
PlaceResult bestClassical(const PlaceContext& context, const MilpProgress& progress, int& samples, SecondsLeft secondsLeft)
{
    const ClassicalRunHooks hooks = deadlineHooks(
        secondsLeft, [&context] { return context.stop && context.stop->load(std::memory_order_relaxed); }, true);
    const std::vector<ClassicalStart> starts = runClassicalPlacers(context, classicalStartOrder(), hooks);
    progress.phase(samples, PhaseKind::ClassicalStarts, "classical starts");
    for (const ClassicalStart& start : starts)
        for (int i = 0; i < start.result.samplesUsed; ++i)
            progress.sample(samples++, start.result.best, start.result.bestStepTimeUs, start.result.feasible);
    return bestStart(starts, context.cluster.name(), "milp").result;
}

// Hill climb by the simulator over single-unit moves from `unitDevice` (first improvement,
// until none improves or `expired`): a better incumbent lowers the model's horizon, which
// prunes more. Returns whether it improved; `bestUs` and `unitDevice` hold the result.
template <class Expired>
bool climb(const MilpInstance& m, Simulator& simulator, std::vector<int>& unitDevice, double& bestUs, int& samples,
           const MilpProgress& progress, Expired expired)
{
    bool improved = false;
    for (bool again = true; again && !expired();) {
        again = false;
        for (int u = 0; u < m.unitCount && !expired(); ++u) {
            const int was = unitDevice[static_cast<size_t>(u)];
            for (int d = 0; d < m.deviceCount; ++d) {
                if (d == was || !m.unitAllowed[static_cast<size_t>(u)][static_cast<size_t>(d)])
                    continue;
                unitDevice[static_cast<size_t>(u)] = d;
                const Placement placement = m.placementOf(unitDevice);
                const SimResult& r = simulator.run(placement);
                progress.sample(samples++, placement, r.stepTimeUs, r.feasible);
                if (r.feasible && r.stepTimeUs < bestUs) {
                    bestUs = r.stepTimeUs;
                    again = improved = true;
                    break;
                }
                unitDevice[static_cast<size_t>(u)] = was;
            }
        }
    }
    return improved;
}

struct Candidate {
    std::vector<int> units; // unit -> device
    double stepUs = 0.0;    // simulated
};

// Times the placements of a solve not timed before (its incumbent, then the others CBC kept)
// with the simulator, adds each to `seen` and `excluded`, and returns the fastest feasible one.
std::optional<Candidate> timeCandidates(const MilpInstance& m, Simulator& simulator, const MilpOutcome& outcome,
                                        std::set<std::vector<int>>& seen, std::vector<std::vector<int>>& excluded,
                                        int& samples, const MilpProgress& progress)
{
    std::vector<const std::vector<int>*> placements;
    if (outcome.unitDevice)
        placements.push_back(&*outcome.unitDevice);
    for (const std::vector<int>& other : outcome.others)
        placements.push_back(&other);
    std::optional<Candidate> fastest;
    for (const std::vector<int>* units : placements) {
        if (seen.contains(*units))
            continue;
        const Placement placement = m.placementOf(*units);
        const SimResult& run = simulator.run(placement);
        progress.sample(samples++, placement, run.stepTimeUs, run.feasible);
        seen.insert(*units);
        excluded.push_back(*units);
        if (run.feasible && (!fastest || run.stepTimeUs < fastest->stepUs))
            fastest = Candidate{*units, run.stepTimeUs};
    }
    return fastest;
}

bool fitsLimits(const MilpInstance& m)
{
    const MilpSize size = milpSize(m);
    return m.opCount <= MilpPlacer::kMaxOps && size.binaries <= MilpPlacer::kMaxBinaries
        && size.rows <= MilpPlacer::kMaxRows;
}

PlaceResult placeOpLevel(const PlaceContext& context, int firstSample = 0);

// The progress of a solve on the coarsening, as samples of the whole graph: each coarse
// placement expanded and timed by the graph's simulator, so what a chart or a sample log shows
// is always a step of the graph, never of its grouping. Used only when someone observes.
class ExpandingObserver : public ProgressObserver {
public:
    ExpandingObserver(ProgressObserver* target, const PlaceContext& context, const MilpCoarsening& grouping,
                      Simulator& simulator)
        : target_(target)
        , context_(context)
        , grouping_(grouping)
        , simulator_(simulator)
    {
    }
    void onSample(const SampleEvent& event) override
    {
        if (!event.placement)
            return;
        Placement placement = grouping_.expand(*event.placement);
        applyCpuPinning(context_.graph, context_.cluster, placement);
        const SimResult& run = simulator_.run(placement);
        target_->onSample(SampleEvent{event.index, run.stepTimeUs, run.feasible, &placement});
    }
    void onUpdate(const UpdateEvent&) override { }
    void onPhase(const PhaseEvent& event) override
    {
        PhaseEvent e = event;
        e.label = "grouped " + e.label;
        target_->onPhase(e);
    }
    double takePausedSeconds() override { return target_->takePausedSeconds(); }

private:
    ProgressObserver* target_;
    const PlaceContext& context_;
    const MilpCoarsening& grouping_;
    Simulator& simulator_;
};

// Grouped mode: the op-level model on `chunks` chunks (0: the most that fit).
PlaceResult placeGrouped(const PlaceContext& context, int chunks)
{
    const auto start = PlacerClock::now();
    const Graph& graph = context.graph;
    const Cluster& cluster = context.cluster;
    const double budget = context.seconds > 0.0 ? context.seconds : MilpPlacer::kDefaultSeconds;
    // The op-level answer is never worse than the best classical placement: a coarsening
    // can leave too little freedom to match it (docs/placers.md, "Grouped mode").
    const MilpProgress progress(context.observer);
    int classicalSamples = 0;
    auto secondsLeft = [&] { return budget - std::chrono::duration<double>(PlacerClock::now() - start).count(); };
    const PlaceResult classical = bestClassical(context, progress, classicalSamples, secondsLeft);
    const MilpCoarsening grouping = milpGrouping(graph, cluster, context.sim, chunks);
    Simulator simulator(graph, cluster, context.sim);
    ExpandingObserver expanding(context.observer, context, grouping, simulator);
    PlaceContext coarse{grouping.coarse, cluster, context.sim};
    coarse.seed = context.seed;
    coarse.threads = context.threads;
    coarse.stop = context.stop;
    coarse.observer = context.observer ? &expanding : nullptr;
    coarse.seconds = std::max(0.01, secondsLeft());
    const PlaceResult r = placeOpLevel(coarse, classicalSamples);

    const Placement expanded = grouping.expand(r.best);
    const SimResult& grouped = simulator.run(expanded);
    const int samples = classicalSamples + r.samplesUsed;
    progress.sample(samples, expanded, grouped.stepTimeUs, grouped.feasible);
    const bool keepGrouped = grouped.feasible && (!classical.feasible || grouped.stepTimeUs <= classical.bestStepTimeUs);
    PlaceResult result = reportPlacement(context, keepGrouped ? expanded : classical.best, start, samples + 2);
    result.bounds.groupedBoundUs = r.bounds.solverBoundUs;
    result.bounds.groupedBoundGroups = grouping.chunkCount();
    result.bounds.groupedOptimal = r.bounds.provenOptimal;
    result.stopped = r.stopped || result.stopped;
    // The op-level claim the polynomial bound alone supports: a placement that meets it is optimal.
    const double polynomial = context.lowerBoundUs > 0.0 ? context.lowerBoundUs
                                                         : lowerBound(graph, cluster, context.sim).valueUs();
    if (result.feasible && result.bestStepTimeUs <= polynomial * (1 + 1e-9)) {
        result.bounds.solverBoundUs = result.bestStepTimeUs;
        result.bounds.solverBoundOpLevel = true;
        result.bounds.provenOptimal = true;
    }
    return result;
}

// The op-level search; its samples are numbered from `firstSample` (grouped mode's classical
// starts on the whole graph come first).
PlaceResult placeOpLevel(const PlaceContext& context, int firstSample)
{
    const auto start = PlacerClock::now();
    const Graph& graph = context.graph;
    const Cluster& cluster = context.cluster;
    if (cluster.deviceCount() == 0)
        throw InputError(cluster.name(), "devices", "milp needs at least one device");
    if (graph.opCount() > MilpPlacer::kMaxOps)
        throw InputError(graph.name(), "ops",
                         "milp solves graphs of up to " + std::to_string(MilpPlacer::kMaxOps)
                             + " ops exactly and this one has " + std::to_string(graph.opCount())
                             + "; use post@best or local-search, whose gap to lower_bound_ms is certified");
    const double budget = context.seconds > 0.0 ? context.seconds : MilpPlacer::kDefaultSeconds;
    auto elapsed = [&] { return std::chrono::duration<double>(PlacerClock::now() - start).count(); };
    auto stopRequested = [&] { return context.stop && context.stop->load(std::memory_order_relaxed); };

    const MilpInstance instance = prepareMilp(graph, cluster, context.sim);
    const MilpProgress progress(context.observer);
    int samples = firstSample;
    PlaceResult incumbent = bestClassical(context, progress, samples, [&] { return budget - elapsed(); });
    Simulator simulator(graph, cluster, context.sim);
    // The best simulated step of a memory-feasible placement, and every placement timed so far
    // (cut off from later models: their simulated steps are all known to be no better).
    double upper = incumbent.feasible ? incumbent.bestStepTimeUs : instance.safeHorizonUs;
    bool haveFeasible = incumbent.feasible;
    std::vector<std::vector<int>> excluded;
    std::set<std::vector<int>> seen;
    double bound = instance.lowerBoundUs; // valid for every placement: lowerBound()
    bool optimal = false;
    bool stopped = false;
    if (upper <= 0.0) { // nothing takes time
        optimal = haveFeasible;
        bound = 0.0;
    }
    auto expired = [&] { return stopRequested() || elapsed() >= budget; };
    if (haveFeasible) {
        progress.phase(samples, PhaseKind::LocalSearch, "hill climb");
        std::vector<int> units = instance.unitDevices(incumbent.best);
        if (climb(instance, simulator, units, upper, samples, progress, expired)) {
            incumbent.best = instance.placementOf(units);
            incumbent.bestStepTimeUs = upper;
        }
    }
    Timeline startTimeline;
    Placement startPlacement = incumbent.best;
    if (haveFeasible)
        startTimeline = simulator.run(startPlacement, true).timeline;
    // Model tolerances: CBC accepts integers within 1e-6 and rows within 1e-7 of the scaled
    // horizon (1000), so the model's values are trusted to 1e-6 of the horizon.
    if (haveFeasible && instance.lowerBoundUs >= upper * (1 - 1e-9)) {
        optimal = true; // the classical placement meets the polynomial bound
        bound = upper;
    }
    // The model is built only when the bound leaves a gap: refused if it would be too large.
    if (!optimal && upper > 0.0) {
        const MilpSize size = milpSize(instance);
        if (size.binaries > MilpPlacer::kMaxBinaries || size.rows > MilpPlacer::kMaxRows)
            throw InputError(graph.name(), "ops",
                             "milp's model of this graph on " + cluster.name() + " would have "
                                 + std::to_string(size.binaries) + " binary variables and " + std::to_string(size.rows)
                                 + " rows, above its limits of " + std::to_string(MilpPlacer::kMaxBinaries) + " and "
                                 + std::to_string(MilpPlacer::kMaxRows)
                                 + "; use post@best or local-search, whose gap to lower_bound_ms is certified");
    }
    bool solving = false;
    while (!optimal && upper > 0.0) {
        if (haveFeasible && bound >= upper * (1 - 1e-9)) {
            optimal = true; // the incumbent meets a proven bound (a better one found meanwhile)
            break;
        }
        const double left = budget - elapsed();
        if (stopRequested()) {
            stopped = true;
            break;
        }
        if (left <= 0.01)
            break;
        MilpRequest request;
        request.horizonUs = upper * (1 + 1e-6); // room for CBC's tolerances at the incumbent
        // CBC's work after its limit (its cut generators and heuristics run between the
        // simplex checks) took up to 0.2 s past it on pipedream resnet50: stop it that much
        // before the end (at most a tenth of what is left).
        request.seconds = left - std::min(0.2, 0.1 * left);
        request.stop = context.stop;
        request.excluded = excluded;
        if (haveFeasible && !seen.contains(instance.unitDevices(startPlacement))) {
            request.startPlacement = &startPlacement;
            request.startTimeline = &startTimeline;
        }
        if (!std::exchange(solving, true))
            progress.phase(samples, PhaseKind::ExactSolve, "MILP solves");
        const MilpOutcome outcome = solveMilp(instance, request);
        const double tolerance = 1e-6 * upper;
        // Every placement left in the model steps no faster than outcome.bestBoundUs (up to the
        // tolerance); every one cut off no faster than `upper`.
        bound = std::max(bound, std::min(upper, outcome.bestBoundUs) - tolerance);
        if (outcome.status == MilpOutcome::Status::Infeasible) {
            optimal = haveFeasible;
            break;
        }
        // The model's placement and the other incumbents CBC kept, each timed by the simulator
        // and cut off from the next model; then a hill climb from the fastest of them (the
        // simulator may time a neighbour better than the placement the model schedules best).
        if (std::optional<Candidate> fastest = timeCandidates(instance, simulator, outcome, seen, excluded, samples,
                                                              progress)) {
            climb(instance, simulator, fastest->units, fastest->stepUs, samples, progress, expired);
            if (!haveFeasible || fastest->stepUs < upper) {
                upper = fastest->stepUs;
                haveFeasible = true;
                incumbent.best = instance.placementOf(fastest->units);
                incumbent.bestStepTimeUs = upper;
                incumbent.feasible = true;
                startPlacement = incumbent.best;
                startTimeline = simulator.run(startPlacement, true).timeline;
            }
        }
        if (outcome.status == MilpOutcome::Status::Optimal && haveFeasible && outcome.objectiveUs >= upper - tolerance) {
            optimal = true; // the model's optimum is a simulated step
            bound = std::max(bound, upper - tolerance);
            break;
        }
        if (outcome.status == MilpOutcome::Status::Stopped) {
            stopped = outcome.stopFlag;
            break;
        }
    }
    bound = haveFeasible ? std::min(bound, upper) : bound;
    optimal = optimal || (haveFeasible && bound >= upper * (1 - 1e-9));

    PlaceResult result = reportPlacement(context, incumbent.best, start, samples + 1);
    result.samplesUsed -= firstSample; // this search's own: grouped mode adds its starts
    result.bounds.solverBoundUs = std::max(0.0, bound);
    result.bounds.solverBoundOpLevel = true;
    // Claimed only when the simulator's time of the placement returned meets the proven bound.
    result.bounds.provenOptimal = optimal && result.feasible
        && result.bestStepTimeUs <= result.bounds.solverBoundUs + 1e-5 * std::max(1.0, result.bestStepTimeUs);
    result.stopped = stopped || stopRequested();
    return result;
}

} // namespace

MilpCoarsening milpGrouping(const Graph& graph, const Cluster& cluster, const SimOptions& sim, int groups)
{
    // Parallel branches within a band are kept apart up to the accelerators' count.
    int width = 0;
    for (int d = 0; d < cluster.deviceCount(); ++d)
        width += cluster.device(d).kind != DeviceKind::Cpu ? 1 : 0;
    width = std::max(1, width);
    // The most bands whose chunks (at most `chunks`, or kMaxOps) make a model within the limits,
    // stepping down by about a tenth.
    const int most = groups > 0 ? groups : MilpPlacer::kMaxOps;
    std::optional<MilpCoarsening> coarsening;
    std::optional<MilpSize> smallestRefused;
    for (int bands = std::min(most, graph.opCount()); bands >= 1; bands -= std::max(1, bands / 10)) {
        MilpCoarsening c = coarsenForMilp(graph, cluster, bands, width);
        if (c.chunkCount() > most)
            continue;
        const MilpInstance m = prepareMilp(c.coarse, cluster, sim);
        if (fitsLimits(m)) {
            coarsening = std::move(c);
            break;
        }
        smallestRefused = milpSize(m);
    }
    if (!coarsening)
        throw InputError(graph.name(), groups > 0 ? "milp-groups" : "ops",
                         "milp found no grouping of this graph into at most " + std::to_string(most)
                             + " chunks whose model fits its limits of " + std::to_string(MilpPlacer::kMaxBinaries)
                             + " binaries and " + std::to_string(MilpPlacer::kMaxRows) + " rows on " + cluster.name()
                             + (smallestRefused ? " (the smallest tried had " + std::to_string(smallestRefused->binaries)
                                        + " binaries and " + std::to_string(smallestRefused->rows) + " rows)"
                                                : std::string())
                             + "; use post@best or local-search, whose gap to lower_bound_ms is certified");

    return std::move(*coarsening);
}

bool milpFitsOpLevel(const Graph& graph, const Cluster& cluster, const SimOptions& sim)
{
    return graph.opCount() <= MilpPlacer::kMaxOps && fitsLimits(prepareMilp(graph, cluster, sim));
}

PlaceResult MilpPlacer::place(const PlaceContext& context)
{
    if (context.cluster.deviceCount() == 0)
        throw InputError(context.cluster.name(), "devices", "milp needs at least one device");
    // Its model runs every op on its device's compute queue: a collective, which the simulator
    // runs on the device's communication channel beside compute (docs/simulator.md,
    // "Collectives"), would make its bound and its optimality claims wrong.
    for (const Op& op : context.graph.ops())
        if (op.isCollective())
            throw InputError(context.graph.name(), "ops",
                             "milp's model has no communication channel for collectives ('" + op.name
                                 + "' is one), so its bound would not hold; use post@best or local-search, whose "
                                   "gap to lower_bound_ms is certified");
    if (groups_ > 0 && groups_ < context.graph.opCount())
        return placeGrouped(context, groups_);
    if (groups_ > 0 || milpFitsOpLevel(context.graph, context.cluster, context.sim))
        return placeOpLevel(context);
    return placeGrouped(context, 0);
}

} // namespace post
