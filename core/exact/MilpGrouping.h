#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <vector>

namespace post {

class Cluster;

// The coarsening milp's grouped mode solves (docs/placers.md, "Grouped mode"). The graph's
// topological order is cut into `bands` contiguous bands of about equal compute (a new band
// also where the order passes between CPU-pinned and free ops); within a band, the parts that
// no edge inside the band joins (parallel branches) are packed into at most `width` chunks of
// about equal compute. Each chunk is one op of `coarse`: no edge joins two chunks of one band
// and edges between bands run forward, so `coarse` is acyclic. Chunks joined by a colocation
// group share one colocation group there, so a placement of `coarse` expands to one that
// keeps every colocation group whole.
//
// A coarse op takes, on a device of each kind present in the cluster, the sum of its ops'
// times on the first device of that kind (measured, so time / speed on the others: exact when
// the cluster's devices of one kind differ only by speed), holds the sum of their parameters,
// resident and output bytes, and waits for all of its inputs; an edge between two chunks
// carries, per producer, the largest tensor it sends into the other chunk. The grouped
// problem is the simulator's on `coarse`: its bounds hold for that graph only, not for the
// op-level problem (a chunk cannot start before all its inputs arrive).
struct MilpCoarsening {
    Graph coarse;
    std::vector<int> chunkOf; // op of the original graph -> op of `coarse`

    int chunkCount() const { return coarse.opCount(); }
    // The op-level placement: each op on the device of its chunk.
    Placement expand(const Placement& coarsePlacement) const;
};

// At most `width` chunks per band; about `bands` bands (more only where pinned and free ops
// alternate).
MilpCoarsening coarsenForMilp(const Graph& graph, const Cluster& cluster, int bands, int width);

} // namespace post
