// Incremental re-timing against full simulation (issue 21, docs/performance.md): on zoo
// graphs unrolled to ~10k, ~30k and ~100k ops, the time to re-time a placement after one
// group moves to another device, with the full Simulator and with IncrementalSimulator
// resuming the unmoved placement's run; then the learner's local search (GroupLocalSearch
// over colocation groups, as `local-search` climbs) with a fixed number of evaluations,
// evaluating every candidate in full ("before") and incrementally ("after"). Every
// incremental result is checked against the full one (a mismatch is printed and fails).
//
// usage: bench_incremental [--model nmt-8] [--steps 20,60,200] [--cluster k80x4]
//                          [--moves 60] [--evaluations 200] [--threads 2] [--seed 1]
//                          [--effects 1]  (what moves change, from the two full timelines)
//                          [--base pipeline|m-etf|PLACEMENT.json]
#include "core/classic/MEtfPlacer.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/PlacementFile.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/GroupLocalSearch.h"
#include "core/learn/Grouping.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/sim/IncrementalSimulator.h"
#include "core/sim/Simulator.h"
#include "core/zoo/ZooRegistry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace post;

namespace {

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// A pipeline: the ops in topological order cut into one run of equal compute per GPU.
Placement pipelinePlacement(const Graph& g, const Cluster& c)
{
    std::vector<DeviceId> gpus;
    for (DeviceId d = 0; d < c.deviceCount(); ++d)
        if (c.device(d).kind == DeviceKind::Gpu)
            gpus.push_back(d);
    if (gpus.empty())
        gpus.push_back(0);
    double total = 0.0;
    for (OpId op = 0; op < g.opCount(); ++op)
        total += groupingWeight(g, op);
    Placement p(static_cast<size_t>(g.opCount()));
    double done = 0.0;
    for (OpId op : g.topologicalOrder()) {
        const auto part = std::min(gpus.size() - 1, static_cast<size_t>(done / total * static_cast<double>(gpus.size())));
        p[static_cast<size_t>(op)] = gpus[part];
        done += groupingWeight(g, op);
    }
    // A colocation group goes where its first op went.
    std::vector<DeviceId> groupDevice(static_cast<size_t>(g.colocationGroupCount()), kNoDevice);
    for (OpId op : g.topologicalOrder()) {
        const int group = g.colocationGroup(op);
        if (group < 0)
            continue;
        auto& d = groupDevice[static_cast<size_t>(group)];
        if (d == kNoDevice)
            d = p[static_cast<size_t>(op)];
        p[static_cast<size_t>(op)] = d;
    }
    applyCpuPinning(g, c, p);
    return p;
}

// The local search's evaluator without the incremental path: BatchEvaluator::setReference
// only reaches PlacementEvaluators, so this one simulates every candidate in full.
class FullEvaluator final : public StepEvaluator {
public:
    FullEvaluator(const Graph& g, const Cluster& c)
        : inner_(g, c, SimOptions{}, PenaltyOptions{})
    {
    }
    Evaluation evaluate(const Placement& placement) override { return inner_.evaluate(placement); }

private:
    PlacementEvaluator inner_;
};

struct MoveFigures {
    double fullMs = 0.0;
    double incrementalMs = 0.0;
    double medianRatio = 0.0;
    double resumedAt = 0.0; // mean resume time / step time
    double fifth = 0.0;     // share of moves re-timed in at most a fifth of the full run's time
    int mismatches = 0;
};

// When the simulation first reads each op's device (its first producer's end, 0 for an op
// without inputs) as a share of the step: the earliest point a move of the op can resume.
std::vector<double> firstReadShares(const Graph& g, const Cluster& c, const Placement& base)
{
    IncrementalSimulator inc(g, c);
    const double step = inc.run(base).stepTimeUs;
    const auto end = inc.opEndUs();
    std::vector<double> out;
    for (OpId op = 0; op < g.opCount(); ++op) {
        double first = g.inEdges(op).empty() ? 0.0 : step;
        for (EdgeId e : g.inEdges(op))
            first = std::min(first, end[static_cast<size_t>(g.edge(e).from)]);
        out.push_back(first / step);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Each op whose first read comes after `share` of the step, alone: moves that can resume
// late. Colocation is ignored (the simulator does not check it): a real move of such an op
// takes its colocation group along, which in a training step holds forward ops.
std::vector<std::vector<OpId>> lateOps(const Graph& g, const Cluster& c, const Placement& base, double share)
{
    IncrementalSimulator inc(g, c);
    const double step = inc.run(base).stepTimeUs;
    const auto end = inc.opEndUs();
    std::vector<std::vector<OpId>> out;
    for (OpId op = 0; op < g.opCount(); ++op) {
        bool late = !g.inEdges(op).empty() && !g.isCpuPinned(op);
        for (EdgeId e : g.inEdges(op))
            late = late && end[static_cast<size_t>(g.edge(e).from)] > share * step;
        if (late)
            out.push_back({op});
    }
    return out;
}

std::vector<std::vector<OpId>> groupsOf(const Grouping& grouping)
{
    std::vector<std::vector<OpId>> out;
    for (int group = 0; group < grouping.groupCount(); ++group) {
        const auto members = grouping.members(group);
        out.emplace_back(members.begin(), members.end());
    }
    return out;
}

// `base` with one random group moved to a random other device (CPU-only ops pinned back).
Placement randomMove(const Graph& g, const Cluster& c, const Placement& base,
                     const std::vector<std::vector<OpId>>& groups, std::mt19937& rng)
{
    Placement p = base;
    const auto& members = groups[rng() % groups.size()];
    const DeviceId from = p[static_cast<size_t>(members.front())];
    DeviceId to = from;
    while (to == from)
        to = static_cast<DeviceId>(rng() % static_cast<unsigned>(c.deviceCount()));
    for (OpId op : members)
        p[static_cast<size_t>(op)] = to;
    applyCpuPinning(g, c, p);
    return p;
}

MoveFigures timeMoves(const Graph& g, const Cluster& c, const Placement& base,
                      const std::vector<std::vector<OpId>>& groups, int moves, std::mt19937& rng)
{
    Simulator full(g, c);
    IncrementalSimulator inc(g, c);
    full.run(base);
    const double step = inc.run(base).stepTimeUs;
    MoveFigures f;
    std::vector<double> ratios;
    double fullTotal = 0.0;
    double incTotal = 0.0;
    for (int m = 0; m < moves; ++m) {
        const Placement p = randomMove(g, c, base, groups, rng);
        auto t0 = std::chrono::steady_clock::now();
        const SimResult& a = full.run(p);
        const double fullS = seconds(t0);
        const double fullStep = a.stepTimeUs;
        const std::vector<double> fullPeaks = a.peakMemoryBytes;
        t0 = std::chrono::steady_clock::now();
        const SimResult& b = inc.run(p);
        const double incS = seconds(t0);
        if (b.stepTimeUs != fullStep || b.peakMemoryBytes != fullPeaks)
            ++f.mismatches;
        f.resumedAt += inc.stats().resumedAtUs / step;
        fullTotal += fullS;
        incTotal += incS;
        ratios.push_back(incS / fullS);
        f.fifth += incS <= 0.2 * fullS ? 1.0 : 0.0;
    }
    f.fifth /= moves;
    std::sort(ratios.begin(), ratios.end());
    f.fullMs = 1e3 * fullTotal / moves;
    f.incrementalMs = 1e3 * incTotal / moves;
    f.medianRatio = ratios[ratios.size() / 2];
    f.resumedAt /= moves;
    return f;
}

// What a move actually changes, by comparing the two full timelines: the first time an op's
// start or end differs (the earliest point any exact resume could start from), the share of
// ops that start at or after it (what a resume there must replay), and the share of ops whose
// start or end differs at all (what a method that recomputes only changed ops must touch).
struct EffectFigures {
    std::vector<double> firstEffect; // per move, share of the step
    std::vector<double> replay;      // per move, share of ops starting at or after the first effect
    std::vector<double> changed;     // per move, share of ops whose times differ
    int stepChanged = 0;             // moves whose step time differs
    std::vector<double> commonShift; // per move, share of changed ops shifted by the most common amount
    std::vector<double> pathCost;    // the same with the critical path from each op started (placement's durations)
    std::vector<double> cutoffCost; // per move, share of op starts simulated before a device bound exceeds the base step
    int worse = 0;                  // moves whose step is longer than the base's
};

EffectFigures measureEffects(const Graph& g, const Cluster& c, const Placement& base,
                             const std::vector<std::vector<OpId>>& groups, int moves, std::mt19937& rng)
{
    Simulator sim(g, c);
    const auto n = static_cast<size_t>(g.opCount());
    std::vector<double> baseStart(n), baseEnd(n);
    const SimResult& r0 = sim.run(base, true);
    const double step = r0.stepTimeUs;
    for (const OpSpan& s : r0.timeline.ops) {
        baseStart[static_cast<size_t>(s.op)] = s.startUs;
        baseEnd[static_cast<size_t>(s.op)] = s.endUs;
    }
    std::vector<double> sortedStarts = baseStart;
    std::sort(sortedStarts.begin(), sortedStarts.end());
    EffectFigures f;
    for (int m = 0; m < moves; ++m) {
        const Placement p = randomMove(g, c, base, groups, rng);
        const SimResult& r = sim.run(p, true);
        double first = step;
        size_t changed = 0;
        std::vector<double> shifts;
        for (const OpSpan& s : r.timeline.ops) {
            const auto i = static_cast<size_t>(s.op);
            if (s.startUs != baseStart[i] || s.endUs != baseEnd[i]) {
                ++changed;
                shifts.push_back(s.startUs - baseStart[i]);
                first = std::min(first, std::min(s.startUs, baseStart[i]));
            }
        }
        if (r.stepTimeUs != step)
            ++f.stepChanged;
        // A device can end no earlier than its idle time so far plus all of its work: the
        // first op start at which that exceeds the base step proves the move worse.
        {
            std::vector<double> work(static_cast<size_t>(c.deviceCount())), busy(work.size());
            for (const OpSpan& s : r.timeline.ops)
                work[static_cast<size_t>(s.device)] += s.endUs - s.startUs;
            double cost = 1.0;
            if (r.stepTimeUs > step) {
                ++f.worse;
                std::vector<OpSpan> spans = r.timeline.ops;
                std::stable_sort(spans.begin(), spans.end(),
                                 [](const OpSpan& a, const OpSpan& b) { return a.startUs < b.startUs; });
                for (size_t i = 0; i < spans.size(); ++i) {
                    const auto d = static_cast<size_t>(spans[i].device);
                    if (spans[i].startUs - busy[d] + work[d] > step) {
                        cost = static_cast<double>(i) / static_cast<double>(spans.size());
                        break;
                    }
                    busy[d] += spans[i].endUs - spans[i].startUs;
                }
            }
            f.cutoffCost.push_back(cost);
            // An op that starts at s ends the step no earlier than s plus the longest chain of
            // durations from it (transfers left out).
            std::vector<double> dur(n), tail(n);
            for (const OpSpan& s : r.timeline.ops)
                dur[static_cast<size_t>(s.op)] = s.endUs - s.startUs;
            const auto order = g.topologicalOrder();
            for (auto it = order.rbegin(); it != order.rend(); ++it) {
                double after = 0.0;
                for (EdgeId e : g.outEdges(*it))
                    after = std::max(after, tail[static_cast<size_t>(g.edge(e).to)]);
                tail[static_cast<size_t>(*it)] = dur[static_cast<size_t>(*it)] + after;
            }
            double pcost = 1.0;
            if (r.stepTimeUs > step) {
                std::vector<OpSpan> spans = r.timeline.ops;
                std::stable_sort(spans.begin(), spans.end(),
                                 [](const OpSpan& a, const OpSpan& b) { return a.startUs < b.startUs; });
                for (size_t i = 0; i < spans.size(); ++i)
                    if (spans[i].startUs + tail[static_cast<size_t>(spans[i].op)] > step) {
                        pcost = static_cast<double>(i) / static_cast<double>(spans.size());
                        break;
                    }
            }
            f.pathCost.push_back(pcost);
        }
        const auto later = static_cast<size_t>(sortedStarts.end()
                                               - std::lower_bound(sortedStarts.begin(), sortedStarts.end(), first));
        {
            std::sort(shifts.begin(), shifts.end());
            size_t best = 0;
            for (size_t i = 0; i < shifts.size();) {
                size_t j = i;
                while (j < shifts.size() && shifts[j] - shifts[i] <= 1e-6 * step)
                    ++j;
                best = std::max(best, j - i);
                i = j;
            }
            f.commonShift.push_back(shifts.empty() ? 0.0
                                                   : static_cast<double>(best) / static_cast<double>(shifts.size()));
        }
        f.firstEffect.push_back(first / step);
        f.replay.push_back(changed == 0 ? 0.0 : static_cast<double>(later) / static_cast<double>(n));
        f.changed.push_back(static_cast<double>(changed) / static_cast<double>(n));
    }
    return f;
}

void printEffects(const char* label, EffectFigures f)
{
    auto stats = [](std::vector<double>& v, double& mean, double& median) {
        std::sort(v.begin(), v.end());
        mean = 0.0;
        for (double x : v)
            mean += x;
        mean /= static_cast<double>(v.size());
        median = v[v.size() / 2];
    };
    double fm, fmed, rm, rmed, cm, cmed, km, kmed, pm, pmed, sm, smed;
    stats(f.commonShift, sm, smed);
    stats(f.cutoffCost, km, kmed);
    stats(f.pathCost, pm, pmed);
    stats(f.firstEffect, fm, fmed);
    stats(f.replay, rm, rmed);
    stats(f.changed, cm, cmed);
    size_t small = 0;
    for (double x : f.changed)
        small += x <= 0.2 ? 1 : 0;
    std::printf("%-17s | %-10s first effect at %.3f (median %.3f) of the step; ops from there: %.3f (median %.3f); "
                "ops whose times change: %.3f (median %.3f), <= 1/5 in %zu of %zu moves; step changed in %d\n",
                "", label, fm, fmed, rm, rmed, cm, cmed, small, f.changed.size(), f.stepChanged);
    std::printf("%-17s | %-10s %d of %zu moves worse; simulated until a device bound proves it (share of op starts, "
                "1 for the rest): mean %.3f, median %.3f\n",
                "", "", f.worse, f.cutoffCost.size(), km, kmed);
    std::printf("%-17s | %-10s until a started op's critical path proves it: mean %.3f, median %.3f; changed ops "
                "sharing the most common shift: mean %.3f, median %.3f\n",
                "", "", pm, pmed, sm, smed);
}

struct SearchFigures {
    double wallS = 0.0;
    int evaluations = 0;
    double stepUs = 0.0;
    long resumed = 0;       // candidates re-timed incrementally
    long referenceRuns = 0; // the incremental simulators' own runs (references, from the start)
};

SearchFigures timeSearch(const Graph& g, const Cluster& c, const Placement& start, bool incremental, int evaluations,
                         int threads)
{
    std::vector<PlacementEvaluator*> evaluators;
    const StepEvaluatorFactory factory = [&]() -> std::unique_ptr<StepEvaluator> {
        if (incremental) {
            auto e = std::make_unique<PlacementEvaluator>(g, c, SimOptions{}, PenaltyOptions{});
            evaluators.push_back(e.get());
            return e;
        }
        return std::make_unique<FullEvaluator>(g, c);
    };
    GroupingOptions colocation;
    colocation.strategy = GroupingStrategy::None;
    const Grouping groups = groupOps(g, colocation);
    const auto t0 = std::chrono::steady_clock::now();
    BatchEvaluator pool(factory, threads);
    GroupLocalSearch search(g, c, SimOptions{}, pool);
    EvaluationBudget budget(evaluations, 1e9, nullptr, nullptr, std::chrono::steady_clock::now());
    PlacementEvaluator first(g, c, SimOptions{}, PenaltyOptions{});
    Evaluation current = first.evaluate(start);
    budget.record(start, current);
    std::vector<DeviceId> choice = groups.collapse(start, c.deviceCount());
    search.climb(groups, choice, current, budget, evaluations);
    SearchFigures f;
    f.wallS = seconds(t0);
    f.evaluations = budget.used();
    f.stepUs = current.stepTimeUs;
    for (const PlacementEvaluator* e : evaluators) {
        f.resumed += e->resumedEvaluations();
        f.referenceRuns += static_cast<long>(e->incrementalStats().fromStart);
    }
    return f;
}

std::vector<int> parseList(const std::string& text)
{
    std::vector<int> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(std::stoi(item));
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    std::string model = "nmt-8";
    std::string clusterName = "k80x4";
    std::vector<int> steps = {20, 60, 200};
    int moves = 60;
    int evaluations = 200;
    int threads = 2;
    unsigned seed = 1;
    bool effectsOnly = false;
    std::string baseName = "pipeline";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string arg = argv[i];
        const std::string value = argv[i + 1];
        if (arg == "--model")
            model = value;
        else if (arg == "--steps")
            steps = parseList(value);
        else if (arg == "--cluster")
            clusterName = value;
        else if (arg == "--moves")
            moves = std::stoi(value);
        else if (arg == "--evaluations")
            evaluations = std::stoi(value);
        else if (arg == "--threads")
            threads = std::stoi(value);
        else if (arg == "--effects") // what moves change (no timing); value ignored
            effectsOnly = value != "0";
        else if (arg == "--base") // pipeline (default), m-etf or a placement file: where the moves start
            baseName = value;
        else if (arg == "--seed")
            seed = static_cast<unsigned>(std::stoul(value));
        else {
            std::fprintf(stderr, "unknown option %s\n", arg.c_str());
            return 2;
        }
    }
    const Cluster cluster = loadCluster(clusterName);
    int failures = 0;
    std::printf("%s on %s; re-timing one move (mean of %d random moves), local search of %d evaluations on %d "
                "threads\n",
                model.c_str(), clusterName.c_str(), moves, evaluations, threads);
    std::printf("%-8s %8s | %-10s %9s %9s %7s %7s %7s %6s | %9s %9s %7s %s\n", "steps", "ops", "moves of", "full ms",
                "incr ms", "ratio", "median", "resume", "<=1/5", "search s", "before s", "speedup", "same result");
    for (int s : steps) {
        const Graph g = ZooRegistry::generate(model, 0, {}, nullptr, s);
        Placement base = pipelinePlacement(g, cluster);
        if (baseName == "m-etf") {
            MEtfPlacer metf;
            const PlaceContext context{g, cluster, SimOptions{}};
            base = metf.place(context).best;
        } else if (baseName != "pipeline") { // a post-placement/1 file of this graph (one --steps value)
            base = readPlacementFile(baseName, g, cluster);
        }
        GroupingOptions autoGroups;
        const Grouping chunks = groupOps(g, autoGroups);
        GroupingOptions colocation;
        colocation.strategy = GroupingStrategy::None;
        const Grouping single = groupOps(g, colocation);
        std::mt19937 rng(seed);
        if (effectsOnly) {
            std::printf("%-8d %8d |\n", s, g.opCount());
            printEffects("op group", measureEffects(g, cluster, base, groupsOf(single), moves, rng));
            printEffects("chunk", measureEffects(g, cluster, base, groupsOf(chunks), moves, rng));
            std::fflush(stdout);
            continue;
        }
        const MoveFigures a = timeMoves(g, cluster, base, groupsOf(single), moves, rng);
        const MoveFigures b = timeMoves(g, cluster, base, groupsOf(chunks), moves, rng);
        const std::vector<double> shares = firstReadShares(g, cluster, base);
        auto quantile = [&](double q) { return shares[static_cast<size_t>(q * static_cast<double>(shares.size() - 1))]; };
        const auto late = lateOps(g, cluster, base, 0.5);
        const MoveFigures l = late.empty() ? MoveFigures{} : timeMoves(g, cluster, base, late, moves, rng);
        const SearchFigures after = timeSearch(g, cluster, base, true, evaluations, threads);
        const SearchFigures before = timeSearch(g, cluster, base, false, evaluations, threads);
        const bool same = after.stepUs == before.stepUs && after.evaluations == before.evaluations;
        failures += a.mismatches + b.mismatches + (same ? 0 : 1);
        std::printf("%-8d %8d | %-10s %9.2f %9.2f %7.3f %7.3f %7.3f %6.2f | %9.2f %9.2f %7.2f %s\n", s, g.opCount(),
                    "op group", a.fullMs, a.incrementalMs, a.incrementalMs / a.fullMs, a.medianRatio, a.resumedAt,
                    a.fifth, after.wallS, before.wallS, before.wallS / after.wallS, same ? "yes" : "NO");
        std::printf("%-8s %8s | %-10s %9.2f %9.2f %7.3f %7.3f %7.3f %6.2f | %d groups (Auto grouping); search: %ld of "
                    "%d resumed, %ld runs from the start\n",
                    "", "", "chunk", b.fullMs, b.incrementalMs, b.incrementalMs / b.fullMs, b.medianRatio, b.resumedAt,
                    b.fifth, chunks.groupCount(), after.resumed, after.evaluations, after.referenceRuns);
        if (!late.empty())
            std::printf(
                "%-8s %8s | %-10s %9.2f %9.2f %7.3f %7.3f %7.3f %6.2f | %zu ops whose inputs all end after half the "
                "step, alone\n",
                "", "", "late op", l.fullMs, l.incrementalMs, l.incrementalMs / l.fullMs, l.medianRatio, l.resumedAt,
                l.fifth, late.size());
        failures += l.mismatches;
        std::printf("%-8s %8s | first read of an op's device, share of the step: median %.3f, 90%% %.3f, 99%% %.3f, "
                    "max %.3f\n",
                    "", "", quantile(0.5), quantile(0.9), quantile(0.99), shares.back());
        std::fflush(stdout);
    }
    if (failures > 0)
        std::printf("%d MISMATCHES between incremental and full simulation\n", failures);
    return failures > 0 ? 1 : 0;
}
