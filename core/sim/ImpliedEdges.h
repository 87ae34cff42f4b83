#pragma once

#include <vector>

namespace post {

class Graph;
class Cluster;

// Per op, where every valid placement puts it (placementProblem()): kAnywhere, kOnlyCpu when it
// is pinned to the cluster's one CPU, else its colocation group. Two ops with the same home
// other than kAnywhere always share a device (the lower bound's splits and the implied edges).
inline constexpr int kAnywhere = -1;
inline constexpr int kOnlyCpu = -2;
std::vector<int> deviceHomes(const Graph& graph, const Cluster& cluster);

// Edges the simulator may leave out without changing any run (docs/simulator.md, "Implied
// edges"), flagged per EdgeId. An edge u -> v is left out when
//   - it carries no bytes and u's output takes no memory (no out-edge of u carries bytes), so
//     dropping it changes no tensor's holders;
//   - u and v always share a device in every placement the simulator accepts
//     (placementProblem): one colocation group, or both pinned to the CPU of a cluster that
//     has one CPU; so the edge is always local, never a transfer;
//   - another path leads from u to v: v cannot start before that path's last op ends, which
//     is no earlier than u's end, so the edge never decides when v is ready.
// A Chakra step of ../shared/data has 181,878 edges, 124,056 of them such (ordering edges
// between CPU operators). Empty when nothing can be left out, or when the check would
// need more than about 16 MB (it keeps, per op, which candidate sources are its ancestors).
std::vector<char> impliedLocalEdges(const Graph& graph, const Cluster& cluster);

} // namespace post
