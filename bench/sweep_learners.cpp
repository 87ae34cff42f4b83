// Runs a learner on a real graph for several seeds and prints the mean best step time,
// so option defaults can be chosen by experiment (docs/learners.md records a sweep).
//   sweep_learners GRAPH [learner=post] [samples=2400] [seeds=3] [threads=2] [cluster=k80x4]
//                  [K=..] [N=..] [rho=..] [eps=..] [lr=..]
//                  [epochs=..] [clip=..] [groups=..] [grouping=auto|none|chains|chunks|scopes]
//                  [chain_share=..] [penalty=growing|fixed] [entropy=..] [trace=1]
//                  [warm=split|PLACER] [warm_mass=..]   (warm start: split = the groups' topological
//                                                  order cut into one compute-balanced run per GPU;
//                                                  PLACER = a classical placer, e.g. m-sct)
#include "core/cluster/Cluster.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/Grouping.h"
#include "core/learn/PlacementEvaluator.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/LowerBound.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>

using namespace post;

namespace {

GroupingStrategy parseGrouping(const std::string& s)
{
    if (s == "none")
        return GroupingStrategy::None;
    if (s == "chains")
        return GroupingStrategy::Chains;
    if (s == "chunks")
        return GroupingStrategy::Chunks;
    if (s == "scopes")
        return GroupingStrategy::NameScopes;
    return GroupingStrategy::Auto;
}

// trace=1: one line per update (batch mean, best, entropy).
class TraceObserver final : public ProgressObserver {
public:
    void onSample(const SampleEvent& e) override
    {
        sum_ += e.stepTimeUs;
        ++count_;
        infeasible_ += !e.feasible;
    }
    void onUpdate(const UpdateEvent& e) override
    {
        const char* kind = e.kind == UpdateKind::CrossEntropy ? "CE " : e.kind == UpdateKind::Ppo ? "PPO" : "RF ";
        std::printf("    %5d %s mean %9.0f infeasible %3d best %9.0f elite %9.0f entropy %.3f\n", e.afterSample, kind,
                    sum_ / count_, infeasible_, e.bestStepTimeUs, e.eliteThresholdUs, e.entropy);
        sum_ = 0.0;
        count_ = 0;
        infeasible_ = 0;
    }

private:
    double sum_ = 0.0;
    int count_ = 0;
    int infeasible_ = 0;
};

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sweep_learners GRAPH [key=value ...]\n");
        return 2;
    }
    std::map<std::string, std::string> args;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        const auto eq = a.find('=');
        if (eq == std::string::npos) {
            std::fprintf(stderr, "expected key=value, got '%s'\n", argv[i]);
            return 2;
        }
        args[a.substr(0, eq)] = a.substr(eq + 1);
    }
    auto num = [&](const char* key, double fallback) {
        auto it = args.find(key);
        return it == args.end() ? fallback : std::strtod(it->second.c_str(), nullptr);
    };
    auto str = [&](const char* key, const char* fallback) {
        auto it = args.find(key);
        return it == args.end() ? std::string(fallback) : it->second;
    };

    const Graph graph = readGraphFile(argv[1]);
    const Cluster cluster = loadCluster(str("cluster", "k80x4"));

    LearnerOptions o;
    o.batchSize = static_cast<int>(num("K", o.batchSize));
    o.ceInterval = static_cast<int>(num("N", o.ceInterval));
    o.eliteFraction = num("rho", o.eliteFraction);
    o.ceSmoothing = num("eps", o.ceSmoothing);
    o.adam.learningRate = num("lr", o.adam.learningRate);
    o.ppoEpochs = static_cast<int>(num("epochs", o.ppoEpochs));
    o.ppoClip = num("clip", o.ppoClip);
    o.entropyBonus = num("entropy", o.entropyBonus);
    o.grouping.maxGroups = static_cast<int>(num("groups", o.grouping.maxGroups));
    o.grouping.chainMaxComputeShare = num("chain_share", o.grouping.chainMaxComputeShare);
    o.grouping.strategy = parseGrouping(str("grouping", "auto"));
    if (str("penalty", "growing") == "fixed")
        o.penalty.kind = InfeasiblePenalty::Fixed;

    const std::string learnerName = str("learner", "post");
    const int seeds = static_cast<int>(num("seeds", 3));
    const int samples = static_cast<int>(num("samples", 2400));
    const int threads = static_cast<int>(num("threads", 2));

    PlacementEvaluator evaluator(graph, cluster, SimOptions{}, o.penalty);
    const DeviceId gpu = cluster.hasKind(DeviceKind::Gpu) ? cluster.fastestOfKind(DeviceKind::Gpu) : 0;
    const Evaluation single = evaluator.evaluate(Placement(static_cast<size_t>(graph.opCount()), gpu));
    const Grouping grouping = groupOps(graph, o.grouping);
    std::printf("%s on %s: %d ops, %d groups; 1 GPU %.0f us%s; lower bound %.0f us\n", graph.name().c_str(),
                cluster.name().c_str(), graph.opCount(), grouping.groupCount(), single.rawStepTimeUs,
                single.feasible ? "" : " (OOM)", lowerBound(graph, cluster).valueUs());
    if (str("warm", "") == "split") {
        // Groups in topological order cut into one run per GPU, balanced by compute.
        std::vector<DeviceId> gpus;
        for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
            if (cluster.device(d).kind == DeviceKind::Gpu)
                gpus.push_back(d);
        std::vector<double> weight(static_cast<size_t>(grouping.groupCount()), 0.0);
        double total = 0.0;
        for (OpId op = 0; op < graph.opCount(); ++op) {
            weight[static_cast<size_t>(grouping.groupOf(op))] += groupingWeight(graph, op);
            total += groupingWeight(graph, op);
        }
        std::vector<DeviceId> choice(weight.size());
        double before = 0.0;
        for (size_t k = 0; k < weight.size(); ++k) {
            const auto run = static_cast<size_t>((before + 0.5 * weight[k]) / total * static_cast<double>(gpus.size()));
            choice[k] = gpus[std::min(run, gpus.size() - 1)];
            before += weight[k];
        }
        o.warmStart = grouping.expand(choice);
        o.warmStartMass = num("warm_mass", o.warmStartMass);
        o.refineGroupsByWarmStart = num("refine", 1) != 0;
        const Evaluation e = evaluator.evaluate(o.warmStart);
        std::printf("warm start: balanced split over %zu GPUs %.0f us%s\n", gpus.size(), e.rawStepTimeUs,
                    e.feasible ? "" : " (OOM)");
    } else if (const std::string warm = str("warm", ""); !warm.empty()) {
        auto placer = makeClassicalPlacer(warm);
        if (!placer) {
            std::fprintf(stderr, "unknown warm start '%s'\n", warm.c_str());
            return 2;
        }
        const PlaceResult start = placer->place(PlaceContext{.graph = graph,
                                                             .cluster = cluster,
                                                             .sim = {},
                                                             .samples = 0,
                                                             .seed = 1,
                                                             .threads = 1,
                                                             .observer = nullptr,
                                                             .stop = nullptr});
        o.warmStart = start.best;
        o.warmStartMass = num("warm_mass", o.warmStartMass);
        o.refineGroupsByWarmStart = num("refine", 1) != 0;
        std::printf("warm start: %s %.0f us%s\n", warm.c_str(), start.bestStepTimeUs, start.feasible ? "" : " (OOM)");
    }
    double sum = 0.0, sumSq = 0.0, wall = 0.0;
    int feasible = 0;
    TraceObserver trace;
    for (int s = 1; s <= seeds; ++s) {
        auto learner = makeLearner(learnerName, o);
        const PlaceContext context{.graph = graph,
                                   .cluster = cluster,
                                   .sim = {},
                                   .samples = samples,
                                   .seed = static_cast<std::uint64_t>(s),
                                   .threads = threads,
                                   .observer = num("trace", 0) != 0 ? &trace : nullptr,
                                   .stop = nullptr};
        const PlaceResult r = learner->place(context);
        sum += r.bestStepTimeUs;
        sumSq += r.bestStepTimeUs * r.bestStepTimeUs;
        wall += r.wallSeconds;
        feasible += r.feasible;
        std::printf("  seed %d: best %.0f us%s (%.2f s)\n", s, r.bestStepTimeUs, r.feasible ? "" : " INFEASIBLE",
                    r.wallSeconds);
    }
    const double mean = sum / seeds;
    std::printf("RESULT %s %s mean %.0f sd %.0f feasible %d/%d wall %.2f s\n", learnerName.c_str(), graph.name().c_str(),
                mean, std::sqrt(std::max(0.0, sumSq / seeds - mean * mean)), feasible, seeds, wall / seeds);
    return 0;
}
