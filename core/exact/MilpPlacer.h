#pragma once

#include "core/place/Placer.h"

namespace post {

// The exact placer (docs/placers.md, "milp"): a mixed-integer model of placement and schedule
// under the simulator's semantics, solved with CBC inside the time budget, with cuts that
// exclude placements whose simulated step is no better than the best found, until the
// model's optimum is a simulated step time (then `best` is optimal) or time runs out. Its
// result carries the proven bound (PlaceResult::solverBoundUs). Graphs of more than kMaxOps
// ops, or whose model would exceed kMaxBinaries binaries or kMaxRows rows, are refused
// (InputError).
class MilpPlacer : public Placer {
public:
    static constexpr int kMaxOps = 60;
    static constexpr long kMaxBinaries = 20000;
    static constexpr long kMaxRows = 20000;         // above, one LP of the model takes seconds
    static constexpr double kDefaultSeconds = 10.0; // when PlaceContext::seconds is 0

    std::string name() const override { return "milp"; }
    PlaceResult place(const PlaceContext& context) override;
};

} // namespace post
