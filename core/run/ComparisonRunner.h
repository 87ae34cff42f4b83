#pragma once

#include "core/sim/SimOptions.h"

#include "core/graph/Placement.h"
#include "core/learn/LearnerOptions.h"
#include "core/place/ProvenBounds.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace post {

class Graph;
class Cluster;

struct ComparisonOptions {
    std::vector<std::string> algorithms; // empty: defaultComparisonNames()
    int samples = 2400;                  // learners' budget per run
    double seconds = 0.0;                // learners' wall-time budget per run (0: none)
    int seeds = 5;                       // runs per learner (a deterministic placer runs once)
    std::uint64_t firstSeed = 1;
    int threads = 0;
    LearnerOptions learner;
    double lowerBoundUs = 0.0; // PlaceContext::lowerBoundUs of every run (0: not known)
    SimOptions sim;            // how every run is timed (its dispatch rule)
};

// One algorithm over its seeds.
struct ComparisonRow {
    std::string algorithm;
    std::vector<double> bestUs; // best step time of each run
    int feasibleRuns = 0;
    double samples = 0.0;     // mean per run
    double wallSeconds = 0.0; // mean per run
    Placement best;           // the best placement over the runs (feasible ones first)
    double bestUsOverRuns = 0.0;
    bool bestFeasible = false;
    bool stopped = false; // a run was cut short by the stop flag
    ProvenBounds bounds;  // the runs' bounds, merged (ProvenBounds::merge)

    int runs() const { return static_cast<int>(bestUs.size()); }
    bool allFeasible() const { return runs() > 0 && feasibleRuns == runs(); }
    double meanUs() const;
    double stddevUs() const; // sample standard deviation; 0 for one run
};

struct ComparisonProgress {
    double fraction = 0.0; // 0..1 of all runs, counting samples inside learner runs
    std::string algorithm; // running now
    int run = 0;           // 0-based run of `algorithm`
    int runs = 1;
};

// What `post-cli compare` does, shared with Post Studio's comparison view: every
// algorithm over several seeds on one graph and cluster. Callbacks run on the caller's
// thread; `stop` (may be null) is checked between samples and between runs.
class ComparisonRunner {
public:
    using ProgressFn = std::function<void(const ComparisonProgress&)>;
    using RowFn = std::function<void(const ComparisonRow&)>;

    ComparisonRunner(const Graph& graph, const Cluster& cluster, ComparisonOptions options);

    // The algorithm names this runner will use, in order. Unknown names are an error of
    // the caller: check with unknownAlgorithm() first.
    const std::vector<std::string>& algorithms() const { return algorithms_; }
    // The first name makePlacer() does not know, or empty.
    std::string unknownAlgorithm() const;

    // Runs every algorithm; rows of the algorithms that finished (a stopped run still
    // gives its row, marked stopped; algorithms after it are skipped).
    std::vector<ComparisonRow> run(const ProgressFn& progress = {}, const RowFn& rowDone = {},
                                   const std::atomic<bool>* stop = nullptr);
    // One algorithm over its seeds (progress covers this algorithm alone).
    ComparisonRow runAlgorithm(const std::string& algorithm, const ProgressFn& progress = {},
                               const std::atomic<bool>* stop = nullptr);

private:
    const Graph& graph_;
    const Cluster& cluster_;
    ComparisonOptions options_;
    std::vector<std::string> algorithms_;
};

} // namespace post
