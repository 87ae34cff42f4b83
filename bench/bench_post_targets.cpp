// The targets of issue 15 (docs/learners.md, "Targets"): on every graph of the shared data
// on k80x4 and v100x4-nvlink, Post from scratch against the best classical placer (and
// m-ETF/m-SCT on the branchy graphs), the default placer against local-search, REINFORCE's
// 2,400-sample result reached by Post at what fraction of the samples, wall times, and an
// ablation of Post's ingredients (each turned off). Prints one row per pair and a summary.
//
// usage: bench_post_targets DATA [--seconds 2] [--seeds 1] [--threads 2] [--ablations]
//                           [--clusters k80x4,v100x4-nvlink] [--only SUBSTRING]
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/learn/LearnerOptionSetter.h"
#include "core/place/ProgressObserver.h"
#include "core/run/PlacerRegistry.h"
#include "core/sim/LowerBound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace post;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kUnlimited = 100000000;

// Best feasible step time after each sample.
class BestCurve final : public ProgressObserver {
public:
    void onSample(const SampleEvent& e) override
    {
        if (e.feasible)
            best = std::min(best, e.stepTimeUs);
        curve.push_back(best);
    }
    void onUpdate(const UpdateEvent&) override { }
    double best = kInf;
    std::vector<double> curve;
};

PlaceResult runPlacer(const std::string& name, const Graph& g, const Cluster& c, int samples, double seconds,
                      std::uint64_t seed, int threads, const LearnerOptions& options = {},
                      ProgressObserver* observer = nullptr)
{
    auto placer = makePlacer(name, options);
    PlaceContext ctx{g, c, SimOptions{}};
    ctx.samples = samples;
    ctx.seconds = seconds;
    ctx.seed = seed;
    ctx.threads = threads;
    ctx.observer = observer;
    return placer->place(ctx);
}

double value(const PlaceResult& r) { return r.feasible ? r.bestStepTimeUs : kInf; }

double mean(const std::vector<double>& v)
{
    double s = 0.0;
    for (double x : v)
        s += x;
    return v.empty() ? kInf : s / static_cast<double>(v.size());
}

std::vector<std::string> split(const std::string& list)
{
    std::vector<std::string> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

struct Ablation {
    const char* name;
    const char* key;
};
// -guide turns guided sampling off: the per-group policy alone, with coarse-to-fine groups
// (which guided sampling replaces).
const Ablation kAblations[] = {{"-guide", "guide"},
                               {"-symmetry", "symmetry"},
                               {"-local", "local-search"},
                               {"-restarts", "restarts"}};

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: %s DATA [--seconds S] [--seeds N] [--threads T] [--ablations] [--clusters A,B] "
                     "[--only SUBSTRING]\n",
                     argv[0]);
        return 2;
    }
    const std::string data = argv[1];
    double seconds = 2.0;
    int samples = kUnlimited; // --samples N: equal-sample budgets instead of the time budget
    int seeds = 1;
    int threads = 2;
    bool ablations = false;
    std::vector<std::string> clusters{"k80x4", "v100x4-nvlink"};
    std::string only;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--seconds")
            seconds = std::atof(next().c_str());
        else if (a == "--samples") {
            samples = std::atoi(next().c_str());
            seconds = 0.0;
        } else if (a == "--seeds")
            seeds = std::atoi(next().c_str());
        else if (a == "--threads")
            threads = std::atoi(next().c_str());
        else if (a == "--ablations")
            ablations = true;
        else if (a == "--clusters")
            clusters = split(next());
        else if (a == "--only")
            only = next();
    }
    std::vector<std::string> graphs;
    for (const char* dir : {"pipedream", "msr/LayerGraphs", "msr/OperatorGraphs"}) {
        const std::filesystem::path root = std::filesystem::path(data) / dir;
        if (!std::filesystem::is_directory(root))
            continue;
        std::vector<std::string> found;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
            const std::string p = entry.path().string();
            if (entry.is_regular_file() && (entry.path().filename() == "graph.txt" || entry.path().extension() == ".json"))
                found.push_back(p);
        }
        std::sort(found.begin(), found.end());
        for (const std::string& p : found)
            if (only.empty() || p.find(only) != std::string::npos)
                graphs.push_back(p);
    }
    if (graphs.empty()) {
        std::fprintf(stderr, "no graphs under %s\n", data.c_str());
        return 1;
    }
    if (samples < kUnlimited)
        std::printf("budget %d samples per run (post, post@best, local-search), %d seed(s), %d threads; REINFORCE and "
                    "the curve run 2,400 samples\n",
                    samples, seeds, threads);
    else
        std::printf("budget %.1f s per run (post, post@best, local-search), %d seed(s), %d threads; REINFORCE and the "
                    "curve run 2,400 samples\n",
                    seconds, seeds, threads);
    std::printf("%-34s %-14s %5s %10s %-11s %10s %10s %10s %10s %10s %7s %7s %6s %6s %6s", "graph", "cluster", "ops",
                "classical", "(which)", "m-etf", "m-sct", "post", "local", "default", "post/c", "def/ls", "R@", "wall",
                "sctw");
    if (ablations)
        for (const Ablation& a : kAblations)
            std::printf(" %10s", a.name);
    std::printf("\n");

    int pairs = 0, postWins = 0, postWithin1 = 0, defaultBeatsLs = 0, reinforceFast = 0, wallOk = 0;
    std::vector<double> postRatio, defaultRatio, lsRatio;
    std::vector<std::vector<double>> ablationRatio(std::size(kAblations));
    std::string branchy, nasnet;
    for (const std::string& path : graphs) {
        Graph g;
        try {
            g = readGraphFile(path);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "skipping %s: %s\n", path.c_str(), e.what());
            continue;
        }
        const std::string rel = std::filesystem::relative(path, data).string();
        for (const std::string& cname : clusters) {
            const Cluster c = loadCluster(cname);
            double classical = kInf, metf = kInf, msct = kInf, msctWall = 0.0;
            std::string which = "-";
            for (const std::string& name : classicalPlacerNames()) {
                const PlaceResult r = runPlacer(name, g, c, kUnlimited, 0.0, 1, threads);
                if (value(r) < classical) {
                    classical = value(r);
                    which = name;
                }
                if (name == "m-etf")
                    metf = value(r);
                if (name == "m-sct") {
                    msct = value(r);
                    msctWall = r.wallSeconds;
                }
            }
            std::vector<double> post, local, dflt, walls, fractions;
            std::vector<std::vector<double>> ablated(std::size(kAblations));
            for (int s = 1; s <= seeds; ++s) {
                const auto seed = static_cast<std::uint64_t>(s);
                const PlaceResult p = runPlacer("post", g, c, samples, seconds, seed, threads);
                post.push_back(value(p));
                local.push_back(value(runPlacer("local-search", g, c, samples, seconds, seed, threads)));
                const PlaceResult d = runPlacer("post@best", g, c, samples, seconds, seed, threads);
                dflt.push_back(value(d));
                walls.push_back(std::max(p.wallSeconds, d.wallSeconds));
                // REINFORCE's 2,400-sample result, and when Post's curve reaches it.
                const double reinforce = value(runPlacer("reinforce", g, c, 2400, 0.0, seed, threads));
                BestCurve curve;
                runPlacer("post", g, c, 2400, 0.0, seed, threads, {}, &curve);
                double at = kInf;
                for (size_t i = 0; i < curve.curve.size(); ++i)
                    if (curve.curve[i] <= reinforce) {
                        at = static_cast<double>(i + 1) / 2400.0;
                        break;
                    }
                fractions.push_back(at);
                if (ablations)
                    for (size_t k = 0; k < std::size(kAblations); ++k) {
                        LearnerOptions o;
                        setLearnerOption(o, kAblations[k].key, "0");
                        ablated[k].push_back(value(runPlacer("post", g, c, samples, seconds, seed, threads, o)));
                    }
            }
            const double pm = mean(post), lm = mean(local), dm = mean(dflt);
            const double frac = *std::max_element(fractions.begin(), fractions.end());
            const double wall = *std::max_element(walls.begin(), walls.end());
            ++pairs;
            postWins += pm <= classical ? 1 : 0;
            postWithin1 += pm <= 1.01 * classical ? 1 : 0;
            defaultBeatsLs += dm <= lm ? 1 : 0;
            reinforceFast += frac <= 0.2 ? 1 : 0;
            wallOk += wall <= std::max(2.0, 2.0 * msctWall) * 1.05 ? 1 : 0; // meaningful for the time budget
            postRatio.push_back(pm / classical);
            defaultRatio.push_back(dm / classical);
            lsRatio.push_back(lm / classical);
            std::printf("%-34s %-14s %5d %10.1f %-11s %10.1f %10.1f %10.1f %10.1f %10.1f %7.3f %7.4f %6.3f %6.2f %6.2f",
                        rel.c_str(), cname.c_str(), g.opCount(), classical / 1000, which.c_str(), metf / 1000,
                        msct / 1000, pm / 1000, lm / 1000, dm / 1000, pm / classical, dm / lm, frac, wall, msctWall);
            for (size_t k = 0; ablations && k < std::size(kAblations); ++k) {
                std::printf(" %10.1f", mean(ablated[k]) / 1000);
                ablationRatio[k].push_back(mean(ablated[k]) / pm);
            }
            std::printf("\n");
            std::fflush(stdout);
            const bool isBranchy = rel.find("nasnet") != std::string::npos || rel.find("ncep") != std::string::npos;
            char line[400];
            if (isBranchy) {
                // Where no placement can reach the target, the lower bound says so.
                const double bound = lowerBound(g, c).valueUs();
                const double best = std::min(metf, msct);
                std::snprintf(line, sizeof line,
                              "  %s on %s: post %.3f of m-ETF, %.3f of m-SCT (target <= 0.97; inf: placer "
                              "infeasible); lower bound %.3f of the better\n",
                              rel.c_str(), cname.c_str(), std::isfinite(metf) ? pm / metf : kInf,
                              std::isfinite(msct) ? pm / msct : kInf, bound / best);
                branchy += line;
            }
            if (rel.find("nasnet") != std::string::npos) {
                std::snprintf(line, sizeof line, "  %s on %s: default %.3f of m-ETF, %.3f of m-SCT (target <= 0.90)\n",
                              rel.c_str(), cname.c_str(), dm / metf, dm / msct);
                nasnet += line;
            }
        }
    }
    auto geo = [](const std::vector<double>& v) {
        double s = 0.0;
        for (double x : v)
            s += std::log(x);
        return v.empty() ? 1.0 : std::exp(s / static_cast<double>(v.size()));
    };
    std::printf("\nsummary over %d graph/cluster pairs (%d seed(s), %.1f s budget):\n", pairs, seeds, seconds);
    std::printf("  post from scratch <= best classical: %d/%d (target 90%%), within 1%%: %d/%d; geomean post/classical "
                "%.3f\n",
                postWins, pairs, postWithin1, pairs, geo(postRatio));
    std::printf("  branchy graphs, post from scratch against m-ETF / m-SCT:\n%s", branchy.c_str());
    std::printf("  default <= local-search: %d/%d (target all); geomean default/classical %.4f, local-search/classical "
                "%.4f\n",
                defaultBeatsLs, pairs, geo(defaultRatio), geo(lsRatio));
    std::printf("  NASNet, default placer against m-ETF / m-SCT:\n%s", nasnet.c_str());
    std::printf("  REINFORCE's 2,400-sample result reached by post within 20%% of the samples: %d/%d\n", reinforceFast,
                pairs);
    std::printf("  wall <= max(2 s, 2 x m-SCT) (5%% slack): %d/%d\n", wallOk, pairs);
    if (ablations)
        for (size_t k = 0; k < std::size(kAblations); ++k)
            std::printf("  ablation %-10s geomean (post without it) / post = %.4f\n", kAblations[k].name,
                        geo(ablationRatio[k]));
    return 0;
}
