#pragma once

#include "core/place/Placer.h"

#include <vector>

namespace post {

// Offload (docs/placers.md, "offload"): m-TOPO for a graph the accelerators cannot hold
// together. Before the split, the colocation groups (and lone ops) that cost least time per
// byte to run on the fallback device (the CPU) instead are moved there, cheapest first, until
// the rest's static bytes fit the accelerators' budgets; the rest fill the accelerators one
// after another in topological order, each while the ledger says it fits (m-TOPO's order,
// without its balance share). m-TOPO and the other splitters send to the CPU
// whatever comes last in their order when the GPUs are full, whatever it costs there. Where
// the accelerators hold the graph, or there is no fallback device, it is m-TOPO.
class OffloadPlacer : public Placer {
public:
    std::string name() const override { return "offload"; }
    PlaceResult place(const PlaceContext& context) override;

    static Placement split(const PlaceContext& context, const std::vector<double>& budgets);
};

} // namespace post
