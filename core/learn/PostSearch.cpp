#include "core/learn/PostSearch.h"

#include "core/graph/Placement.h"

#include "core/cluster/Cluster.h"
#include "core/cluster/DeviceSymmetry.h"
#include "core/graph/CriticalPath.h"
#include "core/graph/Graph.h"
#include "core/learn/Adam.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/CrossEntropyStep.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/GroupLocalSearch.h"
#include "core/learn/Grouping.h"
#include "core/learn/GuidedSampler.h"
#include "core/learn/Policy.h"
#include "core/learn/PolicyLearner.h"
#include "core/learn/PpoObjective.h"
#include "core/place/ProgressObserver.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>

namespace post {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Chain-like graphs start from about this many contiguous chunks per device and width.
constexpr double kChunksPerDeviceAndWidth = 2.0;
// The policy counts as collapsed this far above the entropy floor the CE smoothing leaves.
constexpr double kCollapseMargin = 0.1;
// ... and the rule acts after this many CE intervals without a new best.
constexpr int kPatienceIntervals = 2;
// Probability on the new groups' devices after a refinement, and after a warm restart.
constexpr double kRefineMass = 0.6;
constexpr double kRestartMass = 0.5;
// Guided sampling places op by op on graphs up to this many ops (and in at most this many
// groups above).
constexpr int kGuidedOpLevelLimit = 4096;
// Guided sampling: each draw takes one of these fractions of the guide, so that every batch
// also explores away from the schedule's pull. The batch's draws are shared among them in
// proportion to how many elite samples each produced in the last CE interval (plus one),
// so the levels that find the elite get the draws and the others keep a few.
constexpr int kPulls = 4;
constexpr double kPullScales[kPulls] = {1.0, 1.0 / 3.0, 1.0 / 9.0, 0.0};
// A group whose largest probability is below this after a CE step has a split elite.
constexpr double kAgreement = 0.9;

double reward(double stepTimeUs) { return -std::sqrt(std::max(0.0, stepTimeUs)); }

// Normalised entropy of a group the CE step made unanimous: the floor of a collapsed policy.
double entropyFloor(double eps, int devices)
{
    if (devices < 2)
        return 0.0;
    const double q = eps / devices;
    const double top = 1.0 - eps + q;
    double h = -top * std::log(top);
    if (q > 0.0)
        h -= (devices - 1) * q * std::log(q);
    return h / std::log(static_cast<double>(devices));
}

} // namespace

struct PostSearchRun::State {
    State(const PlaceContext& context, const LearnerOptions& options, BatchEvaluator& evaluator,
          GroupLocalSearch& localSearch, EvaluationBudget& budget, std::uint64_t seed)
        : context(context)
        , options(options)
        , evaluator(evaluator)
        , ls(localSearch)
        , budget(budget)
        , rng(seed)
        , devices(context.cluster.deviceCount())
        // Windows of at most the sample budget: any --set value keeps memory within a multiple
        // of the graph (docs/learners.md).
        , batch(std::max(1, std::min(options.batchSize, context.samples)))
        , interval((std::min(options.ceInterval, std::max(context.samples, batch)) + batch - 1) / batch * batch)
        , floor(entropyFloor(options.ceSmoothing, devices))
    {
        if (options.guide > 0.0)
            sampler.emplace(context.graph, context.cluster, context.sim, options.guide, options.symmetryBreaking);
        if (sampler)
            sampler->setEntropyFloor(floor);
        GroupingOptions groupingOptions = options.grouping;
        if (sampler && groupingOptions.strategy == GroupingStrategy::Auto) {
            // Op by op (colocation groups) up to a size where the policy, the PPO surrogate
            // (batch x groups x devices per epoch) and the draws' offsets stay small; above
            // it, Auto's chains and chunks with room for more groups.
            if (context.graph.opCount() <= kGuidedOpLevelLimit)
                groupingOptions.strategy = GroupingStrategy::None;
            else
                groupingOptions.maxGroups = std::max(groupingOptions.maxGroups, kGuidedOpLevelLimit);
        }
        fine = groupOps(context.graph, groupingOptions);
        const bool warm = !options.warmStart.empty();
        if (warm) {
            if (auto problem = placementProblem(context.graph, context.cluster, options.warmStart))
                throw std::invalid_argument("warm start placement: " + *problem);
            if (options.refineGroupsByWarmStart)
                fine = fine.refinedBy(context.graph, options.warmStart, devices);
        }
        fineWeight.assign(static_cast<size_t>(fine.groupCount()), 0.0);
        for (int f = 0; f < fine.groupCount(); ++f)
            for (OpId op : fine.members(f))
                fineWeight[static_cast<size_t>(f)] += groupingWeight(context.graph, op);
        if (warm || !options.coarseToFine || sampler)
            cuts = allFine();
        else
            cuts = initialCuts();
        rebuild();
        if (sampler)
            sharePulls({});
        initialGroups = groups;
        if (warm) {
            placements[0] = options.warmStart;
            evaluator.evaluate(std::span(placements).first(1), std::span(evals).first(1));
            budget.record(placements[0], evals[0]);
            std::vector<DeviceId> choice = grouping.collapse(options.warmStart, devices);
            canonical(choice);
            consider(evals[0], placements[0], choice);
            setWarm(choice, options.warmStartMass);
            startPending = options.localSearch;
        }
    }

    std::vector<int> allFine() const
    {
        std::vector<int> c(static_cast<size_t>(fine.groupCount()));
        for (int f = 0; f < fine.groupCount(); ++f)
            c[static_cast<size_t>(f)] = f;
        return c;
    }

    // From the graph's shape: branchy graphs (work / critical path >= 3) start at the fine
    // grouping; chain-like ones at a few contiguous, compute-balanced chunks of it.
    std::vector<int> initialCuts() const
    {
        const Graph& g = context.graph;
        std::vector<double> w(static_cast<size_t>(g.opCount()));
        double work = 0.0;
        for (OpId op = 0; op < g.opCount(); ++op)
            work += w[static_cast<size_t>(op)] = groupingWeight(g, op);
        const double path = criticalPath(g, w).lengthUs;
        const double width = path > 0.0 ? work / path : 1.0;
        const int fineCount = fine.groupCount();
        if (width >= options.coarseWidthLimit || fineCount <= 2)
            return allFine();
        const int chunks = std::clamp(static_cast<int>(std::ceil(kChunksPerDeviceAndWidth * devices * width)), 2,
                                      fineCount);
        if (chunks >= fineCount)
            return allFine();
        double total = 0.0;
        for (double x : fineWeight)
            total += x;
        std::vector<int> c{0};
        double before = 0.0;
        for (int f = 0; f < fineCount; ++f) {
            // A fine group goes to the chunk its weight's midpoint falls in.
            const double mid = before + 0.5 * fineWeight[static_cast<size_t>(f)];
            const int chunk = total > 0.0 ? std::min(chunks - 1, static_cast<int>(mid / total * chunks))
                                          : f * chunks / fineCount;
            if (f > 0 && chunk > static_cast<int>(c.size()) - 1)
                c.push_back(f);
            before += fineWeight[static_cast<size_t>(f)];
        }
        return c;
    }

    // The current grouping from `cuts` (each group a run of fine groups in their order).
    void rebuild()
    {
        std::vector<int> coarseOf(static_cast<size_t>(fine.groupCount()));
        for (size_t k = 0; k < cuts.size(); ++k) {
            const int end = k + 1 < cuts.size() ? cuts[k + 1] : fine.groupCount();
            for (int f = cuts[k]; f < end; ++f)
                coarseOf[static_cast<size_t>(f)] = static_cast<int>(k);
        }
        std::vector<int> labels(static_cast<size_t>(context.graph.opCount()));
        for (OpId op = 0; op < context.graph.opCount(); ++op)
            labels[static_cast<size_t>(op)] = coarseOf[static_cast<size_t>(fine.groupOf(op))];
        grouping = Grouping(context.graph, labels);
        groups = grouping.groupCount();
        pinned = pinnedGroups(grouping, context.graph, context.cluster);
        intervalOf.assign(static_cast<size_t>(groups), 0);
        for (size_t k = 0; k < cuts.size(); ++k)
            intervalOf[static_cast<size_t>(grouping.groupOf(fine.members(cuts[k]).front()))] = static_cast<int>(k);
        policy = Policy(groups, devices);
        adam = Adam(groups, devices, options.adam);
        if (sampler) {
            sampler->setGrouping(grouping);
            offsets.assign(static_cast<size_t>(batch) * static_cast<size_t>(groups) * static_cast<size_t>(devices), 0.0);
        }
        choices.assign(static_cast<size_t>(interval) * static_cast<size_t>(groups), 0);
        times.assign(static_cast<size_t>(interval), 0.0);
        pullOf.assign(static_cast<size_t>(interval), 0);
        logProbs.assign(static_cast<size_t>(interval), 0.0);
        advantages.assign(static_cast<size_t>(batch), 0.0);
        placements.resize(static_cast<size_t>(batch));
        evals.resize(static_cast<size_t>(batch));
        fill = 0;
        if (haveBest) {
            bestChoice = grouping.collapse(result.best, devices);
            bestExact = grouping.expand(bestChoice) == result.best;
            canonical(bestChoice);
        }
        bestPolished = false;
    }

    // Guided draws are canonical along the sampler's order: a choice from elsewhere (a warm
    // start, a climbed best) is relabelled so that it votes in the same labels. It simulates
    // the same: only interchangeable devices are exchanged.
    void canonical(std::vector<DeviceId>& choice) const
    {
        if (sampler)
            sampler->canonicalize(choice);
    }

    void setWarm(const std::vector<DeviceId>& choice, double mass)
    {
        const double rest = devices > 1 ? (1.0 - mass) / (devices - 1) : 0.0;
        PolicyMatrix p = PolicyMatrix::Constant(groups, devices, rest);
        for (int g = 0; g < groups; ++g)
            p(g, choice[static_cast<size_t>(g)]) = devices > 1 ? mass : 1.0;
        policy.setProbabilities(p);
        adam.reset();
        fill = 0;
    }

    std::span<DeviceId> slot(int i)
    {
        return std::span<DeviceId>(choices).subspan(static_cast<size_t>(i) * static_cast<size_t>(groups),
                                                    static_cast<size_t>(groups));
    }

    void consider(const Evaluation& e, const Placement& placement, std::span<const DeviceId> choice)
    {
        const bool better = e.feasible ? (!result.feasible || e.rawStepTimeUs < result.bestStepTimeUs)
                                       : (!result.feasible && (!haveBest || e.stepTimeUs < bestPenalised));
        if (!better)
            return;
        haveBest = true;
        result.best = placement;
        result.bestStepTimeUs = e.rawStepTimeUs;
        result.feasible = e.feasible;
        bestPenalised = e.stepTimeUs;
        bestEval = e;
        bestChoice.assign(choice.begin(), choice.end());
        canonical(bestChoice);
        bestExact = true;
        bestPolished = false;
        finestPolished = false;
        lastImprovement = budget.used();
    }

    void advance()
    {
        while (!budget.exhausted()) {
            if (startPending) {
                startPending = false;
                polishBest(std::numeric_limits<int>::max());
                continue;
            }
            const int count = std::min(batch, budget.left());
            if (count <= 0)
                break;
            const auto began = std::chrono::steady_clock::now();
            const double polishedBefore = polishSeconds;
            drawAndEvaluate(count);
            if (count < batch)
                break;
            update();
            sampleSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()
                - (polishSeconds - polishedBefore);
            sampleEvaluations += count;
        }
        budget.noteStop();
    }

    void drawAndEvaluate(int count)
    {
        for (int j = 0; j < count; ++j) {
            const std::span<DeviceId> choice = slot(fill + j);
            if (sampler) {
                logProbs[static_cast<size_t>(fill + j)] = sampler->sample(
                    policy, rng, choice, placements[static_cast<size_t>(j)], offsetsOf(j),
                    kPullScales[pullOf[static_cast<size_t>(fill + j)] = pullLevel(j)]);
                continue;
            }
            double logProb = policy.sample(rng, choice);
            // Groups of ops without a GPU kernel are on the CPU whatever the policy samples,
            // and the sample says so (the guided sampler's do already).
            bool changed = pinChoice(pinned, context.cluster, choice);
            if (options.symmetryBreaking && !ls.symmetry().trivial()) {
                ls.symmetry().canonicalize(choice);
                changed = true;
            }
            if (changed)
                logProb = policy.logProb(choice);
            logProbs[static_cast<size_t>(fill + j)] = logProb;
            grouping.expand(choice, placements[static_cast<size_t>(j)]);
            applyCpuPinning(context.graph, context.cluster, placements[static_cast<size_t>(j)]);
        }
        evaluator.evaluate(std::span(placements).first(static_cast<size_t>(count)),
                           std::span(evals).first(static_cast<size_t>(count)));
        if (sampler) {
            int outOfMemory = 0;
            for (int j = 0; j < count; ++j)
                outOfMemory += evals[static_cast<size_t>(j)].feasible ? 0 : 1;
            sampler->noteBatch(count, outOfMemory);
        }
        for (int j = 0; j < count; ++j) {
            const Evaluation& e = evals[static_cast<size_t>(j)];
            times[static_cast<size_t>(fill + j)] = e.stepTimeUs;
            budget.record(placements[static_cast<size_t>(j)], e);
            consider(e, placements[static_cast<size_t>(j)], slot(fill + j));
        }
    }

    void update()
    {
        fill += batch;
        if (fill >= interval) {
            crossEntropyStep();
            return;
        }
        ppoStep();
    }

    void notify(UpdateKind kind, double threshold)
    {
        if (!context.observer)
            return;
        UpdateEvent event;
        event.afterSample = budget.used();
        event.kind = kind;
        event.eliteThresholdUs = threshold;
        event.bestStepTimeUs = result.feasible ? result.bestStepTimeUs : kInf;
        event.entropy = policy.normalizedEntropy();
        context.observer->onUpdate(event);
    }

    void crossEntropyStep()
    {
        const std::vector<int> elite = selectElite(times, options.eliteFraction);
        if (sampler)
            sharePulls(elite);
        // The best placement so far votes with the elite (when the groups can express it).
        std::vector<DeviceId> rows;
        rows.reserve((elite.size() + 1) * static_cast<size_t>(groups));
        for (int i : elite) {
            const auto c = slot(i);
            rows.insert(rows.end(), c.begin(), c.end());
        }
        if (haveBest && bestExact)
            rows.insert(rows.end(), bestChoice.begin(), bestChoice.end());
        std::vector<int> all(rows.size() / static_cast<size_t>(groups));
        for (size_t i = 0; i < all.size(); ++i)
            all[i] = static_cast<int>(i);
        policy.setProbabilities(eliteDistribution(rows, groups, devices, all, options.ceSmoothing));
        adam.reset();
        const double threshold = times[static_cast<size_t>(elite.back())];
        const int bestElite = elite.front();
        const std::vector<DeviceId> eliteChoice(slot(bestElite).begin(), slot(bestElite).end());
        const double eliteTime = times[static_cast<size_t>(bestElite)];
        fill = 0;
        notify(UpdateKind::CrossEntropy, threshold);
        if (options.localSearch)
            polish(eliteChoice, eliteTime);
        if (options.restarts)
            maybeRestart();
    }

    // Hill-climbs the best placement (until it is a local optimum of the current groups),
    // then, once it is, the best elite sample of each interval.
    // The local search's share after each CE step: as many evaluations as the interval
    // sampled (half of the budget), or under a time budget as many as take the interval's wall
    // time (half of the time): a sampled placement costs its draw and PPO's share on top of its
    // simulation, so the climb's cheaper evaluations get several times as many.
    int polishShare() const
    {
        constexpr double kMaxRatio = 20.0;
        if (context.seconds <= 0.0 || sampleEvaluations == 0 || polishEvaluations == 0 || polishSeconds <= 0.0)
            return interval;
        const double ratio = (sampleSeconds / sampleEvaluations) / (polishSeconds / polishEvaluations);
        return static_cast<int>(interval * std::clamp(ratio, 1.0, kMaxRatio));
    }

    void polish(const std::vector<DeviceId>& eliteChoice, double eliteTime)
    {
        const auto began = std::chrono::steady_clock::now();
        const int usedBefore = budget.used();
        polishWithin(polishShare(), eliteChoice, eliteTime);
        polishSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        polishEvaluations += budget.used() - usedBefore;
    }

    void polishWithin(int polishBudget, const std::vector<DeviceId>& eliteChoice, double eliteTime)
    {
        if (haveBest && bestExact && !bestPolished) {
            polishBest(polishBudget);
            return;
        }
        if (haveBest && bestPolished && !finestPolished && groups == fine.groupCount()) {
            polishFinest(polishBudget);
            return;
        }
        if (!(eliteTime > bestPenalised))
            return;
        std::vector<DeviceId> choice = eliteChoice;
        Evaluation e;
        grouping.expand(choice, scratch);
        applyCpuPinning(context.graph, context.cluster, scratch);
        e.stepTimeUs = eliteTime;
        // The elite's own evaluation is not kept; re-evaluating it costs one simulation.
        placements[0] = scratch;
        evaluator.evaluate(std::span(placements).first(1), std::span(evals).first(1));
        budget.record(placements[0], evals[0]);
        e = evals[0];
        ls.climb(grouping, choice, e, budget, polishBudget / 2);
        grouping.expand(choice, scratch);
        applyCpuPinning(context.graph, context.cluster, scratch);
        consider(e, scratch, choice);
    }

    void polishBest(int maxEvaluations)
    {
        if (!haveBest || !bestExact)
            return;
        std::vector<DeviceId> choice = bestChoice;
        Evaluation e = bestEval;
        const bool converged = ls.climb(grouping, choice, e, budget, maxEvaluations);
        if (e.stepTimeUs < bestPenalised) {
            grouping.expand(choice, scratch);
            applyCpuPinning(context.graph, context.cluster, scratch);
            consider(e, scratch, choice);
        }
        bestPolished = converged;
    }

    // At the finest policy level, the best placement is climbed further over colocation
    // groups (what `local-search` moves), which the policy's groups may bundle.
    void polishFinest(int maxEvaluations)
    {
        if (colocation.groupCount() == 0) {
            GroupingOptions none;
            none.strategy = GroupingStrategy::None;
            colocation = groupOps(context.graph, none);
        }
        std::vector<DeviceId> choice = colocation.collapse(result.best, devices);
        Evaluation e = bestEval;
        const bool converged = ls.climb(colocation, choice, e, budget, maxEvaluations);
        finestPolished = converged;
        if (e.stepTimeUs < bestPenalised) {
            colocation.expand(choice, scratch);
            applyCpuPinning(context.graph, context.cluster, scratch);
            const std::vector<DeviceId> mine = grouping.collapse(scratch, devices);
            const bool exact = grouping.expand(mine) == scratch;
            consider(e, scratch, mine);
            bestExact = exact;
            bestPolished = !exact; // nothing more for the policy's groups to climb when it left them
            finestPolished = converged;
        }
    }

    void maybeRestart()
    {
        if (policy.normalizedEntropy() >= floor + kCollapseMargin)
            return;
        if (budget.used() - lastImprovement < kPatienceIntervals * interval)
            return;
        if (options.coarseToFine && groups < fine.groupCount() && haveBest)
            refine();
        else
            restart();
        lastImprovement = budget.used();
    }

    // Splits the groups on the best placement's critical path and those whose elite
    // disagreed (all splittable ones when neither applies) at their compute midpoint.
    void refine()
    {
        std::vector<char> split(static_cast<size_t>(groups), 0);
        if (bestExact)
            for (int g : ls.criticalGroups(grouping, result.best, bestEval, budget))
                split[static_cast<size_t>(g)] = 1;
        const PolicyMatrix& p = policy.probabilities();
        for (int g = 0; g < groups; ++g)
            if (p.row(g).maxCoeff() < kAgreement)
                split[static_cast<size_t>(g)] = 1;
        auto length = [&](int k) {
            const int end = static_cast<size_t>(k) + 1 < cuts.size() ? cuts[static_cast<size_t>(k) + 1]
                                                                     : fine.groupCount();
            return end - cuts[static_cast<size_t>(k)];
        };
        bool any = false;
        for (int g = 0; g < groups; ++g)
            any = any || (split[static_cast<size_t>(g)] && length(intervalOf[static_cast<size_t>(g)]) >= 2);
        std::vector<char> splitInterval(cuts.size(), 0);
        for (int g = 0; g < groups; ++g)
            splitInterval[static_cast<size_t>(intervalOf[static_cast<size_t>(g)])] = !any
                || split[static_cast<size_t>(g)];
        std::vector<int> next;
        for (size_t k = 0; k < cuts.size(); ++k) {
            next.push_back(cuts[k]);
            const int n = length(static_cast<int>(k));
            if (!splitInterval[k] || n < 2)
                continue;
            double total = 0.0;
            for (int f = cuts[k]; f < cuts[k] + n; ++f)
                total += fineWeight[static_cast<size_t>(f)];
            double before = 0.0;
            int at = cuts[k] + 1;
            for (int f = cuts[k]; f < cuts[k] + n - 1; ++f) {
                before += fineWeight[static_cast<size_t>(f)];
                at = f + 1;
                if (before >= 0.5 * total)
                    break;
            }
            next.push_back(at);
        }
        cuts = std::move(next);
        rebuild();
        if (haveBest)
            setWarm(bestChoice, kRefineMass);
        ++refinements;
    }

    // Alternately from uniform and from the best placement at a low mass. A guided search
    // restarting from uniform halves the guide: the schedule's pull led to the local optimum
    // that collapsed, so the next run strays further from it.
    void restart()
    {
        ++restarts;
        if (restarts % 2 == 1 || !haveBest || !bestExact) {
            if (sampler)
                sampler->setGuide(0.5 * sampler->guide());
            policy = Policy(groups, devices);
            adam.reset();
            fill = 0;
        } else {
            setWarm(bestChoice, kRestartMass);
        }
    }

    // The pull level of draw j of a batch: levels in turn, each taking its share of the batch.
    int pullLevel(int j) const
    {
        int at = j;
        for (int k = 0; k < kPulls; ++k) {
            if (at < pullShare[static_cast<size_t>(k)])
                return k;
            at -= pullShare[static_cast<size_t>(k)];
        }
        return 0;
    }

    // Shares of the next batches from the elite of the last interval (largest remainders).
    void sharePulls(const std::vector<int>& elite)
    {
        std::array<double, kPulls> weight{};
        for (int k = 0; k < kPulls; ++k)
            weight[static_cast<size_t>(k)] = 1.0;
        for (int i : elite)
            weight[static_cast<size_t>(pullOf[static_cast<size_t>(i)])] += 1.0;
        double total = 0.0;
        for (double w : weight)
            total += w;
        int given = 0;
        std::array<double, kPulls> rest{};
        for (int k = 0; k < kPulls; ++k) {
            const double exact = batch * weight[static_cast<size_t>(k)] / total;
            pullShare[static_cast<size_t>(k)] = static_cast<int>(exact);
            rest[static_cast<size_t>(k)] = exact - pullShare[static_cast<size_t>(k)];
            given += pullShare[static_cast<size_t>(k)];
        }
        while (given < batch) {
            const auto k = static_cast<size_t>(std::max_element(rest.begin(), rest.end()) - rest.begin());
            ++pullShare[k];
            rest[k] = -1.0;
            ++given;
        }
    }

    std::span<double> offsetsOf(int j)
    {
        const size_t row = static_cast<size_t>(groups) * static_cast<size_t>(devices);
        return std::span<double>(offsets).subspan(static_cast<size_t>(j) * row, row);
    }

    SampleBatch lastBatch() const
    {
        const size_t first = static_cast<size_t>(fill - batch);
        const size_t k = static_cast<size_t>(batch);
        return SampleBatch{std::span<const DeviceId>(choices).subspan(first * static_cast<size_t>(groups),
                                                                      k * static_cast<size_t>(groups)),
                           groups, std::span<const double>(logProbs).subspan(first, k), advantages};
    }

    void ppoStep()
    {
        const auto last = std::span<const double>(times).subspan(static_cast<size_t>(fill - batch),
                                                                 static_cast<size_t>(batch));
        double mean = 0.0;
        for (double t : last)
            mean += reward(t);
        mean /= batch;
        double var = 0.0;
        for (double t : last)
            var += (reward(t) - mean) * (reward(t) - mean);
        const double sd = std::sqrt(var / batch);
        if (sd > 1e-12 * std::max(1.0, std::abs(mean))) {
            for (int i = 0; i < batch; ++i)
                advantages[static_cast<size_t>(i)] = (reward(last[static_cast<size_t>(i)]) - mean) / sd;
            const SampleBatch b = lastBatch();
            std::optional<GuidedSurrogate> guided;
            if (sampler)
                guided.emplace(b, offsets, devices);
            for (int epoch = 0; epoch < options.ppoEpochs; ++epoch) {
                if (guided)
                    guided->evaluate(policy, options.ppoClip, &gradient);
                else
                    clippedSurrogate(policy, b, options.ppoClip, &gradient);
                if (options.entropyBonus != 0.0)
                    policy.addNormalizedEntropyGradient(options.entropyBonus, gradient);
                logits = policy.logits();
                adam.ascend(logits, gradient);
                policy.setLogits(logits);
            }
        }
        notify(UpdateKind::Ppo, kNaN);
    }

    const PlaceContext& context;
    const LearnerOptions& options;
    BatchEvaluator& evaluator;
    GroupLocalSearch& ls;
    EvaluationBudget& budget;
    std::mt19937_64 rng;
    int devices;
    int batch;
    int interval;
    double floor;

    std::optional<GuidedSampler> sampler;
    std::vector<double> offsets; // the guided draws' logit offsets of the current batch
    std::vector<int> pullOf;     // per sample of the interval: its pull level
    std::array<int, kPulls> pullShare{};
    Grouping fine;
    std::vector<double> fineWeight;
    std::vector<int> cuts;
    std::vector<int> intervalOf;
    Grouping grouping;
    int groups = 0;
    std::vector<char> pinned; // pinnedGroups() of `grouping`: sampled onto the CPU, where they run
    Policy policy;
    Adam adam;

    std::vector<DeviceId> choices;
    std::vector<double> times;
    std::vector<double> logProbs;
    std::vector<double> advantages;
    std::vector<Placement> placements;
    std::vector<Evaluation> evals;
    PolicyMatrix gradient;
    PolicyMatrix logits;
    Placement scratch;
    int fill = 0;

    PlaceResult result;
    bool haveBest = false;
    double bestPenalised = kInf;
    Evaluation bestEval;
    std::vector<DeviceId> bestChoice;
    bool bestExact = false;
    bool bestPolished = false;
    bool finestPolished = false;
    Grouping colocation;
    bool startPending = false;
    int lastImprovement = 0;

    // Wall time and evaluations of sampling (draws, simulations, updates) and of polishing.
    double sampleSeconds = 0.0;
    int sampleEvaluations = 0;
    double polishSeconds = 0.0;
    int polishEvaluations = 0;

    int initialGroups = 0;
    int refinements = 0;
    int restarts = 0;
};

PostSearchRun::PostSearchRun(const PlaceContext& context, const LearnerOptions& options, BatchEvaluator& evaluator,
                             GroupLocalSearch& localSearch, EvaluationBudget& budget, std::uint64_t seed)
    : s_(std::make_unique<State>(context, options, evaluator, localSearch, budget, seed))
{
}

PostSearchRun::~PostSearchRun() = default;

void PostSearchRun::advance(int evaluations)
{
    s_->budget.allow(evaluations);
    s_->advance();
}

const PlaceResult& PostSearchRun::result() const
{
    if (!s_->haveBest) // nothing evaluated: the policy's most likely placement
        s_->result.best = s_->grouping.expand(std::vector<DeviceId>(static_cast<size_t>(s_->groups), 0));
    applyCpuPinning(s_->context.graph, s_->context.cluster, s_->result.best);
    return s_->result;
}

double PostSearchRun::bestPenalisedUs() const { return s_->bestPenalised; }
int PostSearchRun::groupCount() const { return s_->groups; }
int PostSearchRun::initialGroupCount() const { return s_->initialGroups; }
int PostSearchRun::refinements() const { return s_->refinements; }
int PostSearchRun::restarts() const { return s_->restarts; }

PostSearchLearner::PostSearchLearner(LearnerOptions options)
    : options_(std::move(options))
{
}

PlaceResult PostSearchLearner::place(const PlaceContext& context)
{
    const auto start = std::chrono::steady_clock::now();
    validateLearnerOptions(options_);
    if (context.cluster.deviceCount() < 1)
        throw std::invalid_argument("cluster '" + context.cluster.name() + "' has no devices");
    BatchEvaluator evaluator = makeSearchPool(context, options_.batchSize, options_.penalty, evaluatorMaker_);
    GroupLocalSearch ls(context.graph, context.cluster, context.sim, evaluator);
    ls.setBlockMoves(options_.blockMoves);
    EvaluationBudget budget(context.samples, context.seconds, context.stop, context.observer, start);
    PostSearchRun run(context, options_, evaluator, ls, budget, context.seed);
    run.advance(std::numeric_limits<int>::max());
    PlaceResult result = run.result();
    result.samplesUsed = budget.used();
    result.stopped = budget.stopped();
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace post
