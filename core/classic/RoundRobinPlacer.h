#pragma once

#include "place/Placer.h"

namespace post {

// The "expert" layer split: the topological order cut into one contiguous chunk per
// GPU, chunks balanced by GPU compute time, chunk i on GPU i. An op goes to chunk
// floor(k x (compute before it + half its own) / total compute). A colocation group
// goes where its first op falls. When a chunk would overflow its GPU's memory the cut
// moves earlier (the rest spills to the next GPU); past the last GPU, ops go to a CPU.
class RoundRobinPlacer : public Placer {
public:
    std::string name() const override { return "round-robin"; }
    PlaceResult place(const PlaceContext& context) override;

    // The placement alone, without simulating it.
    static Placement split(const PlaceContext& context);
};

} // namespace post
