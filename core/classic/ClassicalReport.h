#pragma once

#include "core/place/Placer.h"

#include <chrono>

namespace post {

struct SimResult;

using PlacerClock = std::chrono::steady_clock;

// Fills a PlaceResult for a finished classical placement: moves CPU-pinned ops to the
// CPU (applyCpuPinning; a placer that already did costs nothing), checks it with
// placementProblem() (a failure is a placer bug: throws std::logic_error), simulates
// it once unless `simulated` is given, tells the observer, and stamps the wall time.
// `samplesUsed` counts every simulation the placer ran, this one included.
PlaceResult reportPlacement(const PlaceContext& context, Placement placement, PlacerClock::time_point start,
                            int samplesUsed = 1, const SimResult* simulated = nullptr);

} // namespace post
