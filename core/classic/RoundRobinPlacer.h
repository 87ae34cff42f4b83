#pragma once

#include "core/place/Placer.h"

#include <vector>

namespace post {

// The "expert" layer split: the topological order cut into one contiguous chunk per
// GPU, chunks balanced by GPU compute time, chunk i on GPU i. The order walked is that
// of placement units (OpGroups: a colocation group, e.g. a layer's forward and backward
// ops, counts with its whole compute where its first op falls). A unit goes to chunk
// floor(k x (compute before it + half its own) / total compute). When a unit would
// overflow its GPU's memory the cut moves earlier (the rest spills to the next GPU);
// past the last GPU, units go to a CPU. Memory is checked with MemoryLedger and the
// simulator (placeWithMemoryFeedback).
class RoundRobinPlacer : public Placer {
public:
    std::string name() const override { return "round-robin"; }
    PlaceResult place(const PlaceContext& context) override;

    // The placement alone for given per-device memory budgets (bytes), unsimulated.
    static Placement split(const PlaceContext& context, const std::vector<double>& budgets);
};

} // namespace post
