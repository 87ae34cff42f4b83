#include "place/WarmStartedPlacer.h"

#include "classic/ClassicalPlacerFactory.h"
#include "learn/LearnerFactory.h"

#include <chrono>

namespace post {
namespace {

// Feasible beats infeasible, then faster beats slower.
bool better(const PlaceResult& a, const PlaceResult& b)
{
    if (a.feasible != b.feasible)
        return a.feasible;
    return a.bestStepTimeUs < b.bestStepTimeUs;
}

} // namespace

WarmStartedPlacer::WarmStartedPlacer(std::string learner, std::vector<std::string> starters, std::string name)
    : learner_(std::move(learner))
    , starters_(std::move(starters))
    , name_(std::move(name))
{
}

PlaceResult WarmStartedPlacer::place(const PlaceContext& context)
{
    const auto began = std::chrono::steady_clock::now();
    PlaceResult start;
    int classicalSamples = 0;
    bool haveStart = false;
    for (const std::string& starter : starters_) {
        auto placer = makeClassicalPlacer(starter);
        PlaceContext quiet = context;
        quiet.observer = nullptr; // the live views show the learner's samples only
        PlaceResult r = placer->place(quiet);
        classicalSamples += r.samplesUsed;
        if (!haveStart || better(r, start)) {
            start = std::move(r);
            haveStart = true;
        }
    }

    LearnerOptions options;
    options.warmStart = start.best;
    PlaceResult result = makeLearner(learner_, options)->place(context);
    if (!result.stopped && better(start, result)) {
        result.best = start.best;
        result.bestStepTimeUs = start.bestStepTimeUs;
        result.feasible = start.feasible;
    }
    result.samplesUsed += classicalSamples;
    result.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return result;
}

} // namespace post
