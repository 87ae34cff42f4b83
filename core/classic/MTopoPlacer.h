#pragma once

#include "core/place/Placer.h"

#include <vector>

namespace post {

// Baechi's m-TOPO (Jeon et al., SoCC 2020), "uniform" variant with colocation: ops in
// topological order fill one GPU after another. A GPU takes ops while the static
// footprints (parameters x factor + outputs) placed on it stay within
//     total footprint / #GPUs + largest single footprint
// and its memory estimate (MemoryLedger) within its capacity, so the pieces are
// contiguous and balanced by memory. A colocation group goes where its first op lands.
// The last GPU takes what remains up to its capacity; beyond that ops go to a CPU
// (see docs/placers.md).
class MTopoPlacer : public Placer {
public:
    std::string name() const override { return "m-topo"; }
    PlaceResult place(const PlaceContext& context) override;

    static Placement split(const PlaceContext& context, const std::vector<double>& budgets);
};

} // namespace post
