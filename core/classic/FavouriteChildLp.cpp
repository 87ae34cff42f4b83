#include "core/classic/FavouriteChildLp.h"

#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"

#include <glpk.h>

#include <algorithm>
#include <limits>
#include <memory>

namespace post {
namespace {

constexpr int kWindowTimeLimitMs = 20000;
// A window whose LP has more rows than this (about one per edge) is dense: it takes the
// fallback without a solve. A Chakra step's 1,000-op windows of 17,605-35,255 rows took 5 s
// to past the time limit each; those of the real profiles and graphs have at most 1,729.
// Unlike the time limit, it gives every machine the same favourites.
constexpr size_t kMaxWindowRows = 10000;
// An LP whose windows hold at most this many edges in all is solved whole whatever the
// deadline: so that a search's m-SCT start, whose deadline is what the other starts left of
// their share, does not depend on how fast they ran. nasnetamobile's two windows (2,691 rows,
// 0.1-0.2 s here) fell back or not by a few milliseconds, and its 2 s search ended in one of
// two basins, 668 or 708 ms on k80x4, with it; the real profiles hold at most 3,075 edges.
constexpr int kWholeLpEdges = 4000;

struct ProblemDeleter {
    // GLPK keeps a per-thread environment that outlives the problem; placers run on pool
    // and worker threads that come and go, so free it with the (only) problem.
    void operator()(glp_prob* p) const
    {
        glp_delete_prob(p);
        glp_free_env();
    }
};

} // namespace

FavouriteChildLp::FavouriteChildLp(const Graph& graph, const Cluster& cluster, int maxLpOps, double threshold)
    : graph_(graph)
    , opUs_(static_cast<size_t>(graph.opCount()))
    , edgeUs_(static_cast<size_t>(graph.edgeCount()), 0.0)
    , maxLpOps_(std::max(2, maxLpOps))
    , threshold_(threshold)
    , window_(static_cast<size_t>(graph.opCount()), 0)
{
    const std::vector<DeviceId> gpus = placerDevices(cluster).primary;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        double fastest = std::numeric_limits<double>::infinity();
        for (DeviceId d : gpus)
            fastest = std::min(fastest, opTimeOn(graph.op(op), cluster.device(d)));
        opUs_[static_cast<size_t>(op)] = fastest;
    }
    int pairs = 0;
    for (DeviceId a : gpus)
        for (DeviceId b : gpus)
            if (a != b) {
                ++pairs;
                for (EdgeId e = 0; e < graph.edgeCount(); ++e)
                    edgeUs_[static_cast<size_t>(e)] += cluster.link(a, b).transferUs(graph.edge(e).bytes);
            }
    if (pairs > 0)
        for (double& c : edgeUs_)
            c /= pairs;
}

bool FavouriteChildLp::solveWindow(const std::vector<OpId>& windowOps, std::vector<double>& x,
                                   std::chrono::steady_clock::time_point deadline)
{
    const Graph& g = graph_;
    const int w = window_[static_cast<size_t>(windowOps.front())];
    auto inWindow = [&](OpId op) { return window_[static_cast<size_t>(op)] == w; };

    // Columns (1-based): one x per inner edge, one s per op, then the makespan.
    std::vector<int> column(static_cast<size_t>(g.edgeCount()), 0);
    std::vector<int> startColumn(static_cast<size_t>(g.opCount()), 0);
    int columns = 0;
    std::vector<EdgeId> innerEdges;
    for (OpId op : windowOps)
        for (EdgeId e : g.outEdges(op))
            if (inWindow(g.edge(e).to)) {
                innerEdges.push_back(e);
                column[static_cast<size_t>(e)] = ++columns;
            }
    for (OpId op : windowOps)
        startColumn[static_cast<size_t>(op)] = ++columns;
    const int makespan = ++columns;

    std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
    glp_set_obj_dir(lp.get(), GLP_MIN);
    glp_add_cols(lp.get(), columns);
    for (EdgeId e : innerEdges)
        glp_set_col_bnds(lp.get(), column[static_cast<size_t>(e)], GLP_DB, 0.0, 1.0);
    for (int c = static_cast<int>(innerEdges.size()) + 1; c <= columns; ++c)
        glp_set_col_bnds(lp.get(), c, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp.get(), makespan, 1.0);

    // Rows are collected first and added in one call: GLPK's per-call row growth is slow.
    struct Row {
        int type;
        double bound;
    };
    std::vector<Row> rowSpecs;
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0.0};
    auto entry = [&](int col, double value) {
        ia.push_back(static_cast<int>(rowSpecs.size()));
        ja.push_back(col);
        ar.push_back(value);
    };
    auto addRow = [&](int type, double bound) { rowSpecs.push_back(Row{type, bound}); };
    for (EdgeId e : innerEdges) {
        const Edge& edge = g.edge(e);
        addRow(GLP_UP, -opUs_[static_cast<size_t>(edge.from)]);
        entry(startColumn[static_cast<size_t>(edge.from)], 1.0);
        entry(startColumn[static_cast<size_t>(edge.to)], -1.0);
        entry(column[static_cast<size_t>(e)], edgeUs_[static_cast<size_t>(e)]);
    }
    for (OpId op : windowOps) {
        int out = 0;
        for (EdgeId e : g.outEdges(op))
            out += column[static_cast<size_t>(e)] > 0;
        if (out >= 2) {
            addRow(GLP_LO, out - 1.0);
            for (EdgeId e : g.outEdges(op))
                if (column[static_cast<size_t>(e)] > 0)
                    entry(column[static_cast<size_t>(e)], 1.0);
        }
        int in = 0;
        for (EdgeId e : g.inEdges(op))
            in += column[static_cast<size_t>(e)] > 0;
        if (in >= 2) {
            addRow(GLP_LO, in - 1.0);
            for (EdgeId e : g.inEdges(op))
                if (column[static_cast<size_t>(e)] > 0)
                    entry(column[static_cast<size_t>(e)], 1.0);
        }
        // Only ops with no successor in the window bound the makespan directly.
        if (out == 0) {
            addRow(GLP_UP, -opUs_[static_cast<size_t>(op)]);
            entry(startColumn[static_cast<size_t>(op)], 1.0);
            entry(makespan, -1.0);
        }
    }
    if (rowSpecs.size() > kMaxWindowRows)
        return false;
    glp_add_rows(lp.get(), static_cast<int>(rowSpecs.size()));
    for (size_t r = 0; r < rowSpecs.size(); ++r)
        glp_set_row_bnds(lp.get(), static_cast<int>(r) + 1, rowSpecs[r].type, rowSpecs[r].bound, rowSpecs[r].bound);
    glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());

    glp_smcp parameters;
    glp_init_smcp(&parameters);
    parameters.msg_lev = GLP_MSG_OFF;
    // Dual simplex with steepest-edge pricing is 5-25x faster than the primal default
    // on these LPs; the time limit turns a pathological window into the fallback.
    parameters.meth = GLP_DUALP;
    parameters.pricing = GLP_PT_PSE;
    parameters.tm_lim = kWindowTimeLimitMs;
    // Never past the caller's deadline: one window's simplex on a dense graph can take seconds.
    if (deadline != std::chrono::steady_clock::time_point::max()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline
                                                                                - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        parameters.tm_lim = static_cast<int>(std::min<long long>(parameters.tm_lim, left.count()));
    }
    const int previousOutput = glp_term_out(GLP_OFF);
    const int code = glp_simplex(lp.get(), &parameters);
    glp_term_out(previousOutput);
    if (code != 0 || glp_get_status(lp.get()) != GLP_OPT)
        return false;
    for (EdgeId e : innerEdges)
        x[static_cast<size_t>(e)] = glp_get_col_prim(lp.get(), column[static_cast<size_t>(e)]);
    relaxedMakespanUs_ += glp_get_col_prim(lp.get(), makespan);
    return true;
}

std::vector<OpId> FavouriteChildLp::solve(std::chrono::steady_clock::time_point deadline)
{
    const Graph& g = graph_;
    windowsSolved_ = windowsFailed_ = windowsSkipped_ = 0;
    relaxedMakespanUs_ = 0.0;
    std::vector<double> x(static_cast<size_t>(g.edgeCount()), 1.0);
    const auto order = g.topologicalOrder();
    for (size_t i = 0; i < order.size(); ++i)
        window_[static_cast<size_t>(order[i])] = static_cast<int>(i / static_cast<size_t>(maxLpOps_));
    int windowEdges = 0;
    for (EdgeId e = 0; e < g.edgeCount(); ++e)
        windowEdges += window_[static_cast<size_t>(g.edge(e).from)] == window_[static_cast<size_t>(g.edge(e).to)];
    if (windowEdges <= kWholeLpEdges)
        deadline = std::chrono::steady_clock::time_point::max();
    for (size_t begin = 0; begin < order.size(); begin += static_cast<size_t>(maxLpOps_)) {
        const size_t end = std::min(order.size(), begin + static_cast<size_t>(maxLpOps_));
        std::vector<OpId> windowOps(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                    order.begin() + static_cast<std::ptrdiff_t>(end));
        const int w = window_[static_cast<size_t>(windowOps.front())];
        if (std::chrono::steady_clock::now() >= deadline) {
            ++windowsSkipped_;
        } else if (solveWindow(windowOps, x, deadline)) {
            ++windowsSolved_;
            continue;
        } else {
            ++windowsFailed_;
        }
        // Fallback: the child behind the costliest transfer is the favourite.
        for (OpId op : windowOps) {
            EdgeId costliest = -1;
            for (EdgeId e : g.outEdges(op))
                if (window_[static_cast<size_t>(g.edge(e).to)] == w
                    && (costliest < 0 || edgeUs_[static_cast<size_t>(e)] > edgeUs_[static_cast<size_t>(costliest)]))
                    costliest = e;
            if (costliest >= 0)
                x[static_cast<size_t>(costliest)] = 0.0;
        }
    }

    // Round: each parent (in topological order) takes its candidate edge with the
    // smallest x, then the costliest transfer, whose child has no favourite parent yet.
    std::vector<OpId> favourite(static_cast<size_t>(g.opCount()), kNoOp);
    std::vector<char> hasParent(static_cast<size_t>(g.opCount()), 0);
    std::vector<EdgeId> candidates;
    for (OpId op : order) {
        candidates.clear();
        for (EdgeId e : g.outEdges(op))
            if (x[static_cast<size_t>(e)] <= threshold_ + 1e-9)
                candidates.push_back(e);
        std::sort(candidates.begin(), candidates.end(), [&](EdgeId a, EdgeId b) {
            if (x[static_cast<size_t>(a)] != x[static_cast<size_t>(b)])
                return x[static_cast<size_t>(a)] < x[static_cast<size_t>(b)];
            if (edgeUs_[static_cast<size_t>(a)] != edgeUs_[static_cast<size_t>(b)])
                return edgeUs_[static_cast<size_t>(a)] > edgeUs_[static_cast<size_t>(b)];
            return a < b;
        });
        for (EdgeId e : candidates) {
            const OpId child = g.edge(e).to;
            if (!hasParent[static_cast<size_t>(child)]) {
                hasParent[static_cast<size_t>(child)] = 1;
                favourite[static_cast<size_t>(op)] = child;
                break;
            }
        }
    }
    return favourite;
}

} // namespace post
