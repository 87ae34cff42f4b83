#pragma once

#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <vector>

namespace post {

class Cluster;

// The coarsening milp's grouped mode solves (docs/placers.md, "Grouped mode").
//
// Clusters: the graph's topological order is cut into `bands` contiguous bands of about equal
// compute (a new band also where the order passes between CPU-pinned and free ops); within a
// band, the parts no edge inside the band joins (parallel branches) are packed into at most
// `width` cells of about equal compute. A placement unit (a colocation group, or a free op)
// belongs to the cell of its first op, and each of its ops with it: the clusters, one device
// each, are what the coarse graph places (a variable and its gradient update stay together).
//
// Chunks: the ops of one cluster within one band, each one op of `coarse`; chunks of one
// cluster share a colocation group there, so a placement of `coarse` expands to one that
// keeps every colocation group whole. Edges between bands run forward, so `coarse` is acyclic
// when each band's chunks are; a band whose chunks form a cycle (an op whose cluster began in
// an earlier band, between two ops of another cluster) is halved until none do.
//
// A coarse op takes, on a device of each kind present in the cluster, the sum of its ops'
// times on the first device of that kind (measured, so time / speed on the others: exact when
// the cluster's devices of one kind differ only by speed) and, for each device type the graph
// has times for (Op::typedTimes), the sum of its ops' times on the first device of that type
// (exact when devices of one type are alike), holds the sum of their parameters
// and resident bytes, outputs the sum of the tensors that leave the chunk or end the step
// (those consumed inside it are left out), and waits for all of its inputs; an edge between two chunks
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

// About `bands` bands (more where pinned and free ops alternate or a band is halved).
MilpCoarsening coarsenForMilp(const Graph& graph, const Cluster& cluster, int bands, int width);

} // namespace post
