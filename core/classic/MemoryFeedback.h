#pragma once

#include "core/classic/ClassicalReport.h"

#include <functional>
#include <vector>

namespace post {

// Builds a placement that keeps each device within the given memory budget (bytes).
using BudgetedPlacement = std::function<Placement(const std::vector<double>& budgets)>;

// The placers' memory estimate (MemoryLedger) assumes ops run in placement order; the
// simulator runs devices concurrently, so its peaks can differ a little. This runs
// `build` with the devices' capacities as budgets and simulates the result; while a
// device's simulated peak exceeds its capacity, that device's budget is scaled down by
// capacity / peak (less 3%) and the placer runs again, up to `maxRounds` simulations.
// Returns the first feasible placement, else the one with the least total overshoot
// (reported infeasible). samplesUsed = simulations run.
PlaceResult placeWithMemoryFeedback(const PlaceContext& context, const BudgetedPlacement& build,
                                    PlacerClock::time_point start, int maxRounds = 8);

} // namespace post
