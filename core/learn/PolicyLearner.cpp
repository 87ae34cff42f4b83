#include "core/learn/PolicyLearner.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/learn/Adam.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/CrossEntropyStep.h"
#include "core/learn/Grouping.h"
#include "core/learn/Policy.h"
#include "core/learn/PpoObjective.h"
#include "core/place/ProgressObserver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace post {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void requireOption(bool ok, const char* what)
{
    if (!ok)
        throw std::invalid_argument(std::string("learner option out of range: ") + what);
}

} // namespace

void validateLearnerOptions(const LearnerOptions& o)
{
    requireOption(o.batchSize >= 1, "batchSize >= 1");
    requireOption(o.ceInterval >= 1, "ceInterval >= 1");
    requireOption(o.eliteFraction > 0.0 && o.eliteFraction <= 1.0, "0 < eliteFraction <= 1");
    requireOption(o.ceSmoothing >= 0.0 && o.ceSmoothing <= 1.0, "0 <= ceSmoothing <= 1");
    requireOption(o.ppoEpochs >= 0, "ppoEpochs >= 0");
    requireOption(o.ppoClip > 0.0 && std::isfinite(o.ppoClip), "ppoClip > 0");
    requireOption(std::isfinite(o.entropyBonus), "entropyBonus finite");
    requireOption(o.reinforceBaselineDecay >= 0.0 && o.reinforceBaselineDecay < 1.0, "0 <= reinforceBaselineDecay < 1");
    requireOption(o.adam.learningRate > 0.0 && std::isfinite(o.adam.learningRate), "learningRate > 0");
    requireOption(o.adam.beta1 >= 0.0 && o.adam.beta1 < 1.0 && o.adam.beta2 >= 0.0 && o.adam.beta2 < 1.0,
                  "0 <= Adam betas < 1");
    requireOption(o.warmStartMass >= 0.0 && o.warmStartMass <= 1.0, "0 <= warmStartMass <= 1");
    requireOption(o.grouping.maxGroups >= 1, "grouping.maxGroups >= 1");
    requireOption(o.penalty.base >= 0.0 && o.penalty.slope >= 0.0 && o.penalty.fixedFactor > 0.0, "penalty factors >= 0");
}

namespace {

double reward(double stepTimeUs) { return -std::sqrt(std::max(0.0, stepTimeUs)); }

// One call of place(): the policy, the sample window and the best placement so far.
class LearningRun {
public:
    LearningRun(const PlaceContext& context, const LearnerRules& rules, const LearnerOptions& options,
                const EvaluatorMaker& maker)
        : context_(context)
        , rules_(rules)
        , options_(options)
        , grouping_(makeGrouping(context, options))
        , groups_(grouping_.groupCount())
        , pinned_(pinnedGroups(grouping_, context.graph, context.cluster))
        , devices_(context.cluster.deviceCount())
        , batch_(options.batchSize)
        , ceInterval_((options.ceInterval + batch_ - 1) / batch_ * batch_)
        , window_(windowSize(rules.crossEntropy ? ceInterval_ : batch_, batch_, context.samples))
        , policy_(groups_, devices_)
        , adam_(groups_, devices_, options.adam)
        , evaluator_(makeSearchPool(context, batch_, options.penalty, maker))
        , rng_(context.seed)
        , choices_(static_cast<size_t>(window_) * static_cast<size_t>(groups_))
        , stepTimes_(static_cast<size_t>(window_))
        , logProbs_(static_cast<size_t>(window_))
        , advantages_(static_cast<size_t>(batch_))
        , placements_(static_cast<size_t>(batch_))
        , evaluations_(static_cast<size_t>(batch_))
        , deadline_(std::chrono::steady_clock::now()
                    + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(std::max(0.0, context.seconds))))
    {
        if (!options.warmStart.empty())
            warmStart(options.warmStart);
    }

    PlaceResult run()
    {
        const int budget = std::max(0, context_.samples);
        while (drawn_ < budget) {
            if (context_.stop && context_.stop->load(std::memory_order_relaxed)) {
                result_.stopped = true;
                break;
            }
            if (context_.seconds > 0.0 && std::chrono::steady_clock::now() >= deadline_)
                break; // the time budget ended (checked before each batch)
            const int count = std::min(batch_, budget - drawn_);
            drawAndEvaluate(count);
            if (count < batch_)
                break; // the budget ended mid-batch: nothing left to learn for
            update();
        }
        result_.samplesUsed = drawn_;
        if (!haveBest_) // zero budget: report the policy's most likely placement unevaluated
        {
            result_.best = grouping_.expand(modeChoice());
            applyCpuPinning(context_.graph, context_.cluster, result_.best);
        }
        return std::move(result_);
    }

private:
    static Grouping makeGrouping(const PlaceContext& context, const LearnerOptions& options)
    {
        Grouping grouping = groupOps(context.graph, options.grouping);
        if (options.warmStart.empty())
            return grouping;
        if (auto problem = placementProblem(context.graph, context.cluster, options.warmStart))
            throw std::invalid_argument("warm start placement: " + *problem);
        if (!options.refineGroupsByWarmStart)
            return grouping;
        return grouping.refinedBy(context.graph, options.warmStart, context.cluster.deviceCount());
    }

    // The samples kept: N for a cross-entropy step (K otherwise), but never more than the
    // budget draws (a step every N samples never comes when N exceeds the budget), so the
    // memory is at most min(N, samples) x groups choices whatever N and K are
    // (`--set ce-interval=100000000`). A multiple of K whenever an update can run, as
    // lastBatch() needs; when K exceeds the budget no update runs.
    static int windowSize(int wanted, int batch, int samples)
    {
        const long long budget = std::max(samples, 1);
        if (budget < batch)
            return static_cast<int>(budget);
        return static_cast<int>(std::min<long long>(wanted, (budget + batch - 1) / batch * batch));
    }

    std::span<DeviceId> slotChoice(int slot)
    {
        return std::span<DeviceId>(choices_).subspan(static_cast<size_t>(slot) * static_cast<size_t>(groups_),
                                                     static_cast<size_t>(groups_));
    }

    std::vector<DeviceId> modeChoice() const
    {
        std::vector<DeviceId> choice(static_cast<size_t>(groups_));
        policy_.mode(choice);
        return choice;
    }

    void warmStart(const Placement& start)
    {
        const std::vector<DeviceId> device = grouping_.collapse(start, devices_);
        const double mass = options_.warmStartMass;
        const double rest = devices_ > 1 ? (1.0 - mass) / (devices_ - 1) : 0.0;
        PolicyMatrix p = PolicyMatrix::Constant(groups_, devices_, rest);
        for (int g = 0; g < groups_; ++g)
            p(g, device[static_cast<size_t>(g)]) = devices_ > 1 ? mass : 1.0;
        policy_.setProbabilities(p);
        // Evaluated once (not a sample) so the result is never worse than the start.
        placements_[0] = start;
        evaluator_.evaluate(std::span(placements_).first(1), std::span(evaluations_).first(1));
        consider(evaluations_[0], placements_[0]);
    }

    void consider(const Evaluation& e, const Placement& placement)
    {
        const bool better = e.feasible ? (!result_.feasible || e.rawStepTimeUs < result_.bestStepTimeUs)
                                       : (!result_.feasible && (!haveBest_ || e.stepTimeUs < bestPenalisedUs_));
        if (!better)
            return;
        haveBest_ = true;
        result_.best = placement;
        result_.bestStepTimeUs = e.rawStepTimeUs;
        result_.feasible = e.feasible;
        bestPenalisedUs_ = e.stepTimeUs;
    }

    void drawAndEvaluate(int count)
    {
        for (int j = 0; j < count; ++j) {
            const int slot = (drawn_ + j) % window_;
            const std::span<DeviceId> choice = slotChoice(slot);
            logProbs_[static_cast<size_t>(slot)] = policy_.sample(rng_, choice);
            // Groups of ops without a GPU kernel are on the CPU whatever the policy samples,
            // and the sample says so: their policy learns the CPU, not the draws' noise.
            if (pinChoice(pinned_, context_.cluster, choice))
                logProbs_[static_cast<size_t>(slot)] = policy_.logProb(choice);
            grouping_.expand(choice, placements_[static_cast<size_t>(j)]);
            applyCpuPinning(context_.graph, context_.cluster, placements_[static_cast<size_t>(j)]);
        }
        evaluator_.evaluate(std::span(placements_).first(static_cast<size_t>(count)),
                            std::span(evaluations_).first(static_cast<size_t>(count)));
        for (int j = 0; j < count; ++j) {
            const Evaluation& e = evaluations_[static_cast<size_t>(j)];
            stepTimes_[static_cast<size_t>((drawn_ + j) % window_)] = e.stepTimeUs;
            consider(e, placements_[static_cast<size_t>(j)]);
            if (context_.observer) {
                context_.observer->onSample(
                    SampleEvent{drawn_ + j, e.stepTimeUs, e.feasible, &placements_[static_cast<size_t>(j)]});
                // A paused run's wait is not search time; the observer's own work is.
                if (const double paused = context_.observer->takePausedSeconds(); paused > 0.0)
                    deadline_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(paused));
            }
        }
        drawn_ += count;
    }

    void update()
    {
        if (rules_.crossEntropy && drawn_ % ceInterval_ == 0)
            crossEntropyStep();
        else if (rules_.ppo)
            ppoStep();
        else if (rules_.reinforce)
            reinforceStep();
    }

    void notify(UpdateKind kind, double eliteThresholdUs)
    {
        if (!context_.observer)
            return;
        UpdateEvent event;
        event.afterSample = drawn_;
        event.kind = kind;
        event.eliteThresholdUs = eliteThresholdUs;
        event.bestStepTimeUs = result_.feasible ? result_.bestStepTimeUs : kInf;
        event.entropy = policy_.normalizedEntropy();
        context_.observer->onUpdate(event);
    }

    void crossEntropyStep()
    {
        const std::vector<int> elite = selectElite(stepTimes_, options_.eliteFraction);
        policy_.setProbabilities(eliteDistribution(choices_, groups_, devices_, elite, options_.ceSmoothing));
        adam_.reset(); // the moments described logits that no longer exist
        notify(UpdateKind::CrossEntropy, stepTimes_[static_cast<size_t>(elite.back())]);
    }

    // The last K samples sit contiguously in the window (its size is a multiple of K).
    SampleBatch lastBatch() const
    {
        const size_t first = static_cast<size_t>((drawn_ - batch_) % window_);
        const size_t k = static_cast<size_t>(batch_);
        return SampleBatch{std::span<const DeviceId>(choices_).subspan(first * static_cast<size_t>(groups_),
                                                                       k * static_cast<size_t>(groups_)),
                           groups_, std::span<const double>(logProbs_).subspan(first, k), advantages_};
    }

    std::span<const double> lastStepTimes() const
    {
        return std::span<const double>(stepTimes_)
            .subspan(static_cast<size_t>((drawn_ - batch_) % window_), static_cast<size_t>(batch_));
    }

    void ppoStep()
    {
        const auto times = lastStepTimes();
        double mean = 0.0;
        for (double t : times)
            mean += reward(t);
        mean /= batch_;
        double var = 0.0;
        for (double t : times)
            var += (reward(t) - mean) * (reward(t) - mean);
        const double sd = std::sqrt(var / batch_);
        // Identical rewards carry no preference: leave the policy alone.
        if (sd > 1e-12 * std::max(1.0, std::abs(mean))) {
            for (int i = 0; i < batch_; ++i)
                advantages_[static_cast<size_t>(i)] = (reward(times[static_cast<size_t>(i)]) - mean) / sd;
            const SampleBatch batch = lastBatch();
            for (int epoch = 0; epoch < options_.ppoEpochs; ++epoch) {
                clippedSurrogate(policy_, batch, options_.ppoClip, &gradient_);
                if (options_.entropyBonus != 0.0)
                    policy_.addNormalizedEntropyGradient(options_.entropyBonus, gradient_);
                ascend();
            }
        }
        notify(UpdateKind::Ppo, kNaN);
    }

    void reinforceStep()
    {
        const auto times = lastStepTimes();
        if (!haveBaseline_) {
            baseline_ = 0.0;
            for (double t : times)
                baseline_ += reward(t) / batch_;
            haveBaseline_ = true;
        }
        gradient_.setZero(groups_, devices_);
        const SampleBatch batch = lastBatch();
        double total = 0.0;
        for (int i = 0; i < batch_; ++i) {
            const double w = (reward(times[static_cast<size_t>(i)]) - baseline_) / batch_;
            Policy::addChoiceTerm(batch.choice(i), w, gradient_);
            total += w;
        }
        policy_.addProbabilityTerm(total, gradient_);
        ascend();
        const double decay = options_.reinforceBaselineDecay;
        for (double t : times)
            baseline_ = decay * baseline_ + (1.0 - decay) * reward(t);
        notify(UpdateKind::Reinforce, kNaN);
    }

    void ascend()
    {
        logits_ = policy_.logits();
        adam_.ascend(logits_, gradient_);
        policy_.setLogits(logits_);
    }

    const PlaceContext& context_;
    const LearnerRules& rules_;
    const LearnerOptions& options_;
    Grouping grouping_;
    int groups_;
    std::vector<char> pinned_; // pinnedGroups(): sampled onto the CPU, where they run
    int devices_;
    int batch_;
    int ceInterval_;
    int window_;
    Policy policy_;
    Adam adam_;
    BatchEvaluator evaluator_;
    std::mt19937_64 rng_;

    // The last `window_` samples, slot = sample index mod window.
    std::vector<DeviceId> choices_;
    std::vector<double> stepTimes_;
    std::vector<double> logProbs_;
    std::vector<double> advantages_;
    std::vector<Placement> placements_;
    std::vector<Evaluation> evaluations_;
    PolicyMatrix gradient_;
    PolicyMatrix logits_;

    int drawn_ = 0;
    double baseline_ = 0.0;
    bool haveBaseline_ = false;
    bool haveBest_ = false;
    double bestPenalisedUs_ = kInf;
    PlaceResult result_;
    std::chrono::steady_clock::time_point deadline_;
};

} // namespace

PolicyLearner::PolicyLearner(std::string name, LearnerRules rules, LearnerOptions options)
    : name_(std::move(name))
    , rules_(rules)
    , options_(std::move(options))
{
}

PlaceResult PolicyLearner::place(const PlaceContext& context)
{
    const auto start = std::chrono::steady_clock::now();
    validateLearnerOptions(options_);
    if (context.cluster.deviceCount() < 1)
        throw std::invalid_argument("cluster '" + context.cluster.name() + "' has no devices");
    LearningRun run(context, rules_, options_, evaluatorMaker_);
    PlaceResult result = run.run();
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace post
