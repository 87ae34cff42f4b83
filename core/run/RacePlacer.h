#pragma once

#include "core/learn/LearnerOptions.h"
#include "core/place/Placer.h"

#include <string>

namespace post {

// `post@best`, the default placer (docs/learners.md, "The default placer"): every
// classical placer, then `local-search` from the best of them (the same climb, so at the
// same sample budget the result is never worse than local-search, the best classical
// placer or the best single device), then the rest of the budget raced between Post runs
// warm-started from the distinct classical placements (the climbed one first) and cold
// ones, by successive halving: each round gives the surviving runs equal shares and keeps
// the better half; then the plateau walk (PlateauWalk) from the best, and the local search
// with kicks where the walk stalls (walkThenKicks), in the last LearnerOptions::kickShare of
// the budget and in whatever the race leaves when a round of it finds nothing faster (with
// LearnerOptions::plateauWalk off: the local search with kicks alone, after the whole race).
// Every evaluation comes out of one budget (samples and/or seconds).
class RacePlacer final : public Placer {
public:
    explicit RacePlacer(LearnerOptions options = {});
    std::string name() const override { return "post@best"; }
    PlaceResult place(const PlaceContext& context) override;

    // Cold runs in the race, besides one warm run per distinct classical placement (at most kWarmRuns).
    static constexpr int kColdRuns = 2;
    static constexpr int kWarmRuns = 3;

private:
    LearnerOptions options_;
};

} // namespace post
