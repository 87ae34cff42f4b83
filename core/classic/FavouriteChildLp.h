#pragma once

#include "core/graph/Ids.h"

#include <chrono>
#include <vector>

namespace post {

class Graph;
class Cluster;

// Picks each op's favourite child for m-SCT from the LP relaxation of the
// favourite-child formulation (Hanen & Munier's small-communication-time scheduling,
// as Baechi uses it), solved with GLPK's simplex. Variables: x_ij in [0,1] per edge
// (0 = j is i's favourite child, so j can run right after i on i's device and skip the
// transfer), a start time s_i >= 0 per op and the makespan w:
//     minimise w
//     s_i + p_i + c_ij x_ij <= s_j      for every edge i -> j
//     sum_j x_ij >= outdeg(i) - 1       (at most one favourite child)
//     sum_i x_ij >= indeg(j) - 1        (at most one favourite parent)
//     s_i + p_i <= w
// p_i is the op's time on its fastest GPU, c_ij the mean transfer time of the edge over
// links between distinct GPUs. Edges with x_ij <= threshold become favourites; rounding
// conflicts are resolved (smallest x first, then larger c_ij) so each op keeps at most
// one favourite child and one favourite parent.
//
// To keep the LP small, the topological order is cut into windows of at most
// `maxLpOps` ops, one LP per window; edges crossing windows are never favourites.
// When GLPK fails on a window (or exceeds its 20 s time limit), or the window's LP has
// more than 10,000 rows (a dense window), that window falls back to "the child behind the
// costliest transfer"; so do the windows left when `deadline` has passed (a placer's time
// budget), unless the windows hold at most 4,000 edges in all: such an LP (a few tenths of a
// second at most) is solved whole, so that its favourites do not depend on the clock.
class FavouriteChildLp {
public:
    FavouriteChildLp(const Graph& graph, const Cluster& cluster, int maxLpOps = 1000, double threshold = 0.5);

    // Per op its favourite child, or kNoOp.
    std::vector<OpId> solve(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

    int windowsSolved() const { return windowsSolved_; }
    int windowsFailed() const { return windowsFailed_; }
    int windowsSkipped() const { return windowsSkipped_; }
    // Sum over windows of the relaxed LP makespan (a lower bound when there is one window).
    double relaxedMakespanUs() const { return relaxedMakespanUs_; }

private:
    // x per edge of the window (1 for edges not in it); false when GLPK failed.
    bool solveWindow(const std::vector<OpId>& windowOps, std::vector<double>& x,
                     std::chrono::steady_clock::time_point deadline);

    const Graph& graph_;
    std::vector<double> opUs_;   // p_i
    std::vector<double> edgeUs_; // c_ij
    int maxLpOps_;
    double threshold_;
    std::vector<int> window_; // per op
    int windowsSolved_ = 0;
    int windowsFailed_ = 0;
    int windowsSkipped_ = 0;
    double relaxedMakespanUs_ = 0.0;
};

} // namespace post
