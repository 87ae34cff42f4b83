#pragma once

#include "place/Placer.h"

namespace post {

// Baechi's m-TOPO (Jeon et al., SoCC 2020), "uniform" variant with colocation: ops in
// topological order fill one GPU after another, each GPU up to
//     min(its memory, total memory / #GPUs + largest single footprint),
// so the pieces are contiguous and balanced by memory. A colocation group's whole
// footprint must fit where its first op lands. The last GPU takes what remains up to
// its capacity; beyond that ops go to a CPU (see docs/placers.md).
class MTopoPlacer : public Placer {
public:
    std::string name() const override { return "m-topo"; }
    PlaceResult place(const PlaceContext& context) override;

    static Placement split(const PlaceContext& context);
};

} // namespace post
