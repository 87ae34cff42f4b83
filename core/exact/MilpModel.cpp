#include "core/exact/MilpModel.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Timeline.h"

#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <ClpEventHandler.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <CoinTime.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>

namespace post {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

size_t at(int a, int b, int n) { return static_cast<size_t>(a) * static_cast<size_t>(n) + static_cast<size_t>(b); }

// Whether swapping devices a and b maps the cluster onto itself for these ops: same durations
// of every op, same memory, same allowed units, links to and from every other device equal.
bool interchangeable(const MilpInstance& m, int a, int b)
{
    for (int o = 0; o < m.opCount; ++o)
        if (m.duration(o, a) != m.duration(o, b))
            return false;
    if (m.deviceMemoryBytes[static_cast<size_t>(a)] != m.deviceMemoryBytes[static_cast<size_t>(b)])
        return false;
    for (int u = 0; u < m.unitCount; ++u)
        if (m.unitAllowed[static_cast<size_t>(u)][static_cast<size_t>(a)]
            != m.unitAllowed[static_cast<size_t>(u)][static_cast<size_t>(b)])
            return false;
    const int n = m.deviceCount;
    auto same = [&](size_t i, size_t j) {
        return m.linkLatencyUs[i] == m.linkLatencyUs[j] && m.linkBytesPerUs[i] == m.linkBytesPerUs[j];
    };
    for (int x = 0; x < n; ++x) {
        if (x == a || x == b)
            continue;
        if (!same(at(a, x, n), at(b, x, n)) || !same(at(x, a, n), at(x, b, n)))
            return false;
    }
    return same(at(a, b, n), at(b, a, n));
}

} // namespace

std::vector<int> MilpInstance::unitDevices(const Placement& placement) const
{
    std::vector<int> devices(static_cast<size_t>(unitCount), -1);
    for (int o = 0; o < opCount; ++o)
        devices[static_cast<size_t>(unitOf[static_cast<size_t>(o)])] = placement[static_cast<size_t>(o)];
    return devices;
}

Placement MilpInstance::placementOf(const std::vector<int>& unitDevice) const
{
    Placement p(static_cast<size_t>(opCount), 0);
    for (int o = 0; o < opCount; ++o)
        p[static_cast<size_t>(o)] = static_cast<DeviceId>(unitDevice[static_cast<size_t>(unitOf[static_cast<size_t>(o)])]);
    return p;
}

MilpInstance prepareMilp(const Graph& graph, const Cluster& cluster, const SimOptions& sim)
{
    MilpInstance m;
    m.opCount = graph.opCount();
    m.deviceCount = cluster.deviceCount();
    const int n = m.opCount;
    const int D = m.deviceCount;

    // Units: one per colocation group, one per free op.
    m.unitOf.assign(static_cast<size_t>(n), -1);
    std::vector<int> unitOfGroup(static_cast<size_t>(graph.colocationGroupCount()), -1);
    for (OpId o = 0; o < n; ++o) {
        const int g = graph.colocationGroup(o);
        int& u = g >= 0 ? unitOfGroup[static_cast<size_t>(g)] : m.unitOf[static_cast<size_t>(o)];
        if (u < 0)
            u = m.unitCount++;
        m.unitOf[static_cast<size_t>(o)] = u;
    }
    // CPU-pinned units go to a CPU when the cluster has one (placementProblem, applyCpuPinning).
    const bool pinning = cpuPinDevice(cluster) != kNoDevice;
    m.unitAllowed.assign(static_cast<size_t>(m.unitCount), std::vector<char>(static_cast<size_t>(D), 1));
    m.unitStaticBytes.assign(static_cast<size_t>(m.unitCount), 0.0);
    const double factor = optimizerStateFactor(graph, sim);
    for (OpId o = 0; o < n; ++o) {
        const auto u = static_cast<size_t>(m.unitOf[static_cast<size_t>(o)]);
        const Op& op = graph.op(o);
        m.unitStaticBytes[u] += op.paramBytes * factor + op.residentBytes;
        if (pinning && graph.isCpuPinned(o))
            for (int d = 0; d < D; ++d)
                if (cluster.device(d).kind != DeviceKind::Cpu)
                    m.unitAllowed[u][static_cast<size_t>(d)] = 0;
    }
    for (int d = 0; d < D; ++d)
        m.deviceMemoryBytes.push_back(cluster.device(d).memoryBytes);

    m.durationUs.resize(static_cast<size_t>(n) * static_cast<size_t>(D));
    for (OpId o = 0; o < n; ++o)
        for (int d = 0; d < D; ++d)
            m.durationUs[at(o, d, D)] = opTimeUs(graph.op(o), cluster.device(d));
    for (int a = 0; a < D; ++a)
        for (int b = 0; b < D; ++b) {
            const Link& l = cluster.link(a, b);
            m.linkLatencyUs.push_back(l.latencyUs);
            m.linkBytesPerUs.push_back(l.bytesPerUs);
        }

    // Distinct consumers with the largest bytes of parallel edges.
    m.consumers.assign(static_cast<size_t>(n), {});
    for (OpId u = 0; u < n; ++u) {
        std::map<int, double> best;
        for (EdgeId e : graph.outEdges(u)) {
            double& b = best[graph.edge(e).to];
            b = std::max(b, graph.edge(e).bytes);
        }
        for (const auto& [v, b] : best)
            m.consumers[static_cast<size_t>(u)].push_back({v, b});
        bool crosses = false;
        for (const auto& c : m.consumers[static_cast<size_t>(u)])
            crosses = crosses || m.unitOf[static_cast<size_t>(c.op)] != m.unitOf[static_cast<size_t>(u)];
        if (crosses)
            m.producers.push_back(u);
    }

    // Reachability in reverse topological order.
    m.ordered.assign(static_cast<size_t>(n), std::vector<char>(static_cast<size_t>(n), 0));
    std::vector<std::vector<char>> reach(static_cast<size_t>(n), std::vector<char>(static_cast<size_t>(n), 0));
    const auto order = graph.topologicalOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        auto& r = reach[static_cast<size_t>(*it)];
        for (const auto& c : m.consumers[static_cast<size_t>(*it)]) {
            r[static_cast<size_t>(c.op)] = 1;
            const auto& rc = reach[static_cast<size_t>(c.op)];
            for (int k = 0; k < n; ++k)
                r[static_cast<size_t>(k)] = static_cast<char>(r[static_cast<size_t>(k)] | rc[static_cast<size_t>(k)]);
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            m.ordered[static_cast<size_t>(i)][static_cast<size_t>(j)] = static_cast<char>(
                reach[static_cast<size_t>(i)][static_cast<size_t>(j)]
                | reach[static_cast<size_t>(j)][static_cast<size_t>(i)]);

    const OpWindows windows = opWindows(graph, cluster);
    m.headUs = windows.headUs;
    m.tailUs = windows.tailUs;
    m.lowerBoundUs = lowerBound(graph, cluster, sim).valueUs();

    // Without idle time the simulator always runs an op or a transfer (rule 4: an idle device
    // with a ready op starts it; a link with a queued transfer sends it), so no simulated
    // step outlasts every duration and every transfer laid end to end.
    double horizon = 0.0;
    for (int o = 0; o < n; ++o) {
        double longest = 0.0;
        for (int d = 0; d < D; ++d)
            longest = std::max(longest, m.duration(o, d));
        horizon += longest;
    }
    for (int u : m.producers) {
        double longest = 0.0;
        for (const auto& c : m.consumers[static_cast<size_t>(u)])
            for (int a = 0; a < D; ++a)
                for (int b = 0; b < D; ++b)
                    if (a != b)
                        longest = std::max(longest, m.transferUs(a, b, c.bytes));
        horizon += longest * std::max(0, D - 1);
    }
    m.safeHorizonUs = horizon;

    // Interchangeable devices: each joins the first class whose first device it can swap
    // with (if a~b and a~c, then b~c: the swap of b and c is (ab)(ac)(ab)).
    for (int d = 0; d < D; ++d) {
        bool joined = false;
        for (auto& cls : m.symmetricClasses)
            if (interchangeable(m, cls.front(), d)) {
                cls.push_back(d);
                joined = true;
                break;
            }
        if (!joined)
            m.symmetricClasses.push_back({d});
    }
    std::erase_if(m.symmetricClasses, [](const std::vector<int>& c) { return c.size() < 2; });
    return m;
}

namespace {

// Rows of `sum coef x >= / <= rhs` collected for one CoinPackedMatrix.
class Rows {
public:
    void begin() { pending_.clear(); }
    void add(int col, double coef)
    {
        if (coef != 0.0)
            pending_[col] += coef;
    }
    void end(double lo, double hi)
    {
        for (const auto& [c, v] : pending_)
            if (v != 0.0) {
                cols_.push_back(c);
                vals_.push_back(v);
            }
        starts_.push_back(static_cast<int>(cols_.size()));
        lo_.push_back(lo);
        hi_.push_back(hi);
    }
    int count() const { return static_cast<int>(lo_.size()); }

    CoinPackedMatrix matrix(int columns) const
    {
        std::vector<int> lengths;
        for (size_t r = 0; r + 1 < starts_.size(); ++r)
            lengths.push_back(starts_[r + 1] - starts_[r]);
        return CoinPackedMatrix(false, columns, count(), static_cast<CoinBigIndex>(cols_.size()), vals_.data(),
                                cols_.data(), starts_.data(), lengths.data());
    }
    const std::vector<double>& lower() const { return lo_; }
    const std::vector<double>& upper() const { return hi_; }

private:
    std::map<int, double> pending_;
    std::vector<int> cols_;
    std::vector<double> vals_;
    std::vector<int> starts_{0};
    std::vector<double> lo_, hi_;
};

// The columns of the model, by role.
struct Columns {
    int count = 0;
    std::vector<double> lo, hi;
    std::vector<char> integer;
    int add(double l, double h, bool isInteger)
    {
        lo.push_back(l);
        hi.push_back(h);
        integer.push_back(isInteger ? 1 : 0);
        return count++;
    }
};

class StopHandler : public CbcEventHandler {
public:
    explicit StopHandler(const std::atomic<bool>* flag)
        : flag_(flag)
    {
    }
    CbcAction event(CbcEvent) override
    {
        return flag_ && flag_->load(std::memory_order_relaxed) ? CbcEventHandler::stop : noAction;
    }
    CbcEventHandler* clone() const override { return new StopHandler(*this); }

private:
    const std::atomic<bool>* flag_;
};

// Stops Clp's simplex at the wall-clock deadline or the stop flag. CBC checks its own limit
// only between nodes, and one node's LP of a big model can take seconds (milp on a 786-op
// graph with `--time 2` took 4.5 s). A node whose LP was cut short may be pruned as if solved,
// so once this fires CBC's claims (optimal, infeasible, its best possible bound) are not
// trusted: `fired` is shared by the clones CBC and Clp make of the handler.
class DeadlineHandler : public ClpEventHandler {
public:
    DeadlineHandler(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop, bool* fired)
        : deadline_(deadline)
        , stop_(stop)
        , fired_(fired)
    {
    }
    int event(Event which) override
    {
        if (which != endOfIteration || ++iterations_ % 32 != 0)
            return -1;
        if (std::chrono::steady_clock::now() < deadline_ && !(stop_ && stop_->load(std::memory_order_relaxed)))
            return -1;
        *fired_ = true;
        return 0; // Clp status 5: stopped by this handler
    }
    ClpEventHandler* clone() const override { return new DeadlineHandler(*this); }

private:
    std::chrono::steady_clock::time_point deadline_;
    const std::atomic<bool>* stop_;
    bool* fired_;
    long iterations_ = 0;
};

std::mutex& cbcMutex()
{
    static std::mutex m;
    return m;
}

} // namespace

MilpSize milpSize(const MilpInstance& m)
{
    MilpSize s;
    const std::int64_t D = m.deviceCount;
    std::int64_t pairs = 0;
    for (int i = 0; i < m.opCount; ++i)
        for (int j = i + 1; j < m.opCount; ++j)
            pairs += m.ordered[static_cast<size_t>(i)][static_cast<size_t>(j)] ? 0 : 1;
    const auto p = static_cast<std::int64_t>(m.producers.size());
    s.binaries = m.unitCount * D + pairs + p * (p - 1) / 2 * D;
    // Device and link disjunctions, makespan and tail rows per op, transfer rows per
    // producer (requests) and per cross-unit consumer (arrival, duration, link marks).
    s.rows = pairs * D * 2 + p * (p - 1) / 2 * D * (D - 1) * 2 + m.opCount * 2 + m.unitCount + 2 * D;
    for (int u = 0; u < m.opCount; ++u) {
        s.rows += static_cast<std::int64_t>(m.consumers[static_cast<size_t>(u)].size());
        for (const auto& c : m.consumers[static_cast<size_t>(u)])
            if (m.unitOf[static_cast<size_t>(c.op)] != m.unitOf[static_cast<size_t>(u)])
                s.rows += D * (1 + 2 * (D - 1));
    }
    s.rows += p * D;
    return s;
}

namespace {

// The model's columns by role (docs/placers.md, "The model"): indices into Columns.
struct Variables {
    int D = 0;
    int P = 0; // producers with a consumer in another unit
    int C = -1;
    std::vector<int> x;                      // unit * D + device
    std::vector<int> S;                      // per op
    std::vector<int> T, tau;                 // producer * D + device
    std::vector<int> z;                      // (producer * D + from) * D + to; -1 where from == to
    std::vector<std::pair<int, int>> qPairs; // op pairs no path orders
    std::vector<int> q;                      // per pair in qPairs
    std::vector<int> r;                      // per producer pair k < l and destination

    int X(const MilpInstance& m, int op, int d) const { return x[at(m.unitOf[static_cast<size_t>(op)], d, D)]; }
    int Z(int k, int e, int d) const
    {
        return z[(static_cast<size_t>(k) * static_cast<size_t>(D) + static_cast<size_t>(e)) * static_cast<size_t>(D)
                 + static_cast<size_t>(d)];
    }
    // Producer k's transfer to d goes before producer l's (k < l).
    int R(int k, int l, int d) const
    {
        // index of (k, l) among pairs k < l, row-major
        const size_t pair = static_cast<size_t>(k) * static_cast<size_t>(P)
            - static_cast<size_t>(k) * static_cast<size_t>(k + 1) / 2 + static_cast<size_t>(l - k - 1);
        return r[pair * static_cast<size_t>(D) + static_cast<size_t>(d)];
    }
};

// Times are scaled so that the horizon is 1000: big-M terms and tolerances stay relative.
constexpr double kH = 1000.0;
constexpr double kM = kH;
// The windows and the bound are loosened by a millionth of the horizon: a model they pin
// exactly (the bound equal to the horizon) leaves CBC no room for its tolerances.
constexpr double kSlack = 1e-6 * kH;
// How many of its incumbents CBC keeps: each is a placement the simulator times and the next
// model cuts off.
constexpr int kSavedSolutions = 16;

Variables addColumns(const MilpInstance& m, double scale, Columns& cols)
{
    const int n = m.opCount;
    const int D = m.deviceCount;
    const int U = m.unitCount;
    Variables v;
    v.D = D;
    v.x.resize(static_cast<size_t>(U) * static_cast<size_t>(D));
    // A unit may go to d only when each of its ops ends within the horizon there: one that
    // does not (a CPU, or a slow device type of a mixed cluster) cannot be in any placement
    // the model looks for, and its duration, beyond the big-M, would make the one-op-a-time
    // rows of other placements infeasible.
    std::vector<char> fits(static_cast<size_t>(U) * static_cast<size_t>(D), 1);
    for (int o = 0; o < n; ++o)
        for (int d = 0; d < D; ++d)
            if (m.duration(o, d) * scale > kH)
                fits[at(m.unitOf[static_cast<size_t>(o)], d, D)] = 0;
    for (int u = 0; u < U; ++u)
        for (int d = 0; d < D; ++d) {
            bool ok = m.unitAllowed[static_cast<size_t>(u)][static_cast<size_t>(d)] != 0
                && m.unitStaticBytes[static_cast<size_t>(u)] <= m.deviceMemoryBytes[static_cast<size_t>(d)]
                && fits[at(u, d, D)] != 0;
            v.x[at(u, d, D)] = cols.add(0.0, ok ? 1.0 : 0.0, true);
        }
    v.S.resize(static_cast<size_t>(n));
    for (int o = 0; o < n; ++o) {
        const double lo = std::max(0.0, m.headUs[static_cast<size_t>(o)] * scale - kSlack);
        const double hi = std::max(lo, kH - m.tailUs[static_cast<size_t>(o)] * scale + kSlack);
        v.S[static_cast<size_t>(o)] = cols.add(lo, hi, false);
    }
    v.C = cols.add(std::max(0.0, std::min(kH, m.lowerBoundUs * scale) - kSlack), kH, false);
    const auto P = static_cast<int>(m.producers.size());
    v.P = P;
    v.T.resize(static_cast<size_t>(P) * static_cast<size_t>(D));
    v.tau.resize(v.T.size());
    v.z.assign(static_cast<size_t>(P) * static_cast<size_t>(D) * static_cast<size_t>(D), -1);
    for (int k = 0; k < P; ++k) {
        const int u = m.producers[static_cast<size_t>(k)];
        double longest = 0.0;
        for (const auto& c : m.consumers[static_cast<size_t>(u)])
            for (int a = 0; a < D; ++a)
                for (int b = 0; b < D; ++b)
                    if (a != b)
                        longest = std::max(longest, m.transferUs(a, b, c.bytes));
        for (int d = 0; d < D; ++d) {
            v.T[at(k, d, D)] = cols.add(0.0, kH, false);
            v.tau[at(k, d, D)] = cols.add(0.0, longest * scale, false);
            for (int e = 0; e < D; ++e)
                if (e != d)
                    v.z[(static_cast<size_t>(k) * static_cast<size_t>(D) + static_cast<size_t>(e)) * static_cast<size_t>(D)
                        + static_cast<size_t>(d)] = cols.add(0.0, 1.0, false);
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (!m.ordered[static_cast<size_t>(i)][static_cast<size_t>(j)]) {
                v.qPairs.emplace_back(i, j);
                v.q.push_back(cols.add(0.0, 1.0, true));
            }
    for (int k = 0; k < P; ++k)
        for (int l = k + 1; l < P; ++l)
            for (int d = 0; d < D; ++d)
                v.r.push_back(cols.add(0.0, 1.0, true));
    return v;
}

// Placement, makespan, device loads, memory and precedence rows.
void addPlacementRows(const MilpInstance& m, const Variables& v, double scale, Rows& rows)
{
    const int n = m.opCount;
    const int D = m.deviceCount;
    // Each unit on exactly one device.
    for (int u = 0; u < m.unitCount; ++u) {
        rows.begin();
        for (int d = 0; d < D; ++d)
            rows.add(v.x[at(u, d, D)], 1.0);
        rows.end(1.0, 1.0);
    }
    // Makespan: after every op's end and its tail.
    for (int o = 0; o < n; ++o) {
        rows.begin();
        rows.add(v.C, 1.0);
        rows.add(v.S[static_cast<size_t>(o)], -1.0);
        for (int d = 0; d < D; ++d)
            rows.add(v.X(m, o, d), -m.duration(o, d) * scale);
        rows.end(0.0, kInf);
        rows.begin();
        rows.add(v.C, 1.0);
        rows.add(v.S[static_cast<size_t>(o)], -1.0);
        rows.end(m.tailUs[static_cast<size_t>(o)] * scale - kSlack, kInf);
    }
    // Device loads.
    for (int d = 0; d < D; ++d) {
        rows.begin();
        rows.add(v.C, 1.0);
        for (int o = 0; o < n; ++o)
            rows.add(v.X(m, o, d), -m.duration(o, d) * scale);
        rows.end(0.0, kInf);
    }
    // Memory: what a device holds for the whole step (a relaxation of the simulator's peak).
    for (int d = 0; d < D; ++d) {
        const double cap = m.deviceMemoryBytes[static_cast<size_t>(d)];
        if (!std::isfinite(cap) || cap <= 0.0)
            continue;
        rows.begin();
        for (int u = 0; u < m.unitCount; ++u)
            rows.add(v.x[at(u, d, D)], m.unitStaticBytes[static_cast<size_t>(u)] / cap);
        rows.end(-kInf, 1.0);
    }
    // Precedence: a consumer starts after its producer ends (locally or after a transfer).
    for (int u = 0; u < n; ++u)
        for (const auto& c : m.consumers[static_cast<size_t>(u)]) {
            rows.begin();
            rows.add(v.S[static_cast<size_t>(c.op)], 1.0);
            rows.add(v.S[static_cast<size_t>(u)], -1.0);
            for (int d = 0; d < D; ++d)
                rows.add(v.X(m, u, d), -m.duration(u, d) * scale);
            rows.end(0.0, kInf);
        }
}

// Transfers (one per producer and destination, after the producer, before its consumers
// there) and one transfer at a time per directed link.
void addTransferRows(const MilpInstance& m, const Variables& v, double scale, Rows& rows)
{
    const int D = m.deviceCount;
    const int P = v.P;
    for (int k = 0; k < P; ++k) {
        const int u = m.producers[static_cast<size_t>(k)];
        for (int d = 0; d < D; ++d) {
            // Requested when the producer ends.
            rows.begin();
            rows.add(v.T[at(k, d, D)], 1.0);
            rows.add(v.S[static_cast<size_t>(u)], -1.0);
            for (int e = 0; e < D; ++e)
                rows.add(v.X(m, u, e), -m.duration(u, e) * scale);
            rows.end(0.0, kInf);
        }
        for (const auto& c : m.consumers[static_cast<size_t>(u)]) {
            if (m.unitOf[static_cast<size_t>(c.op)] == m.unitOf[static_cast<size_t>(u)])
                continue;
            for (int d = 0; d < D; ++d) {
                // Arrival before the consumer on d starts.
                rows.begin();
                rows.add(v.S[static_cast<size_t>(c.op)], 1.0);
                rows.add(v.T[at(k, d, D)], -1.0);
                rows.add(v.tau[at(k, d, D)], -1.0);
                rows.add(v.X(m, c.op, d), -kM);
                rows.end(-kM, kInf);
                for (int e = 0; e < D; ++e) {
                    if (e == d)
                        continue;
                    // Producer on e, consumer on d: the transfer e -> d exists and lasts at
                    // least latency + bytes / bandwidth (the largest edge to d decides).
                    const double cost = m.transferUs(e, d, c.bytes) * scale;
                    if (cost > 0.0) {
                        rows.begin();
                        rows.add(v.tau[at(k, d, D)], 1.0);
                        rows.add(v.X(m, u, e), -cost);
                        rows.add(v.X(m, c.op, d), -cost);
                        rows.end(-cost, kInf);
                    }
                    rows.begin();
                    rows.add(v.Z(k, e, d), 1.0);
                    rows.add(v.X(m, u, e), -1.0);
                    rows.add(v.X(m, c.op, d), -1.0);
                    rows.end(-1.0, kInf);
                }
            }
        }
    }
    // One transfer at a time per directed link.
    for (int k = 0; k < P; ++k)
        for (int l = k + 1; l < P; ++l)
            for (int d = 0; d < D; ++d)
                for (int e = 0; e < D; ++e) {
                    if (e == d)
                        continue;
                    // r = 1: k's transfer first.
                    rows.begin();
                    rows.add(v.T[at(l, d, D)], 1.0);
                    rows.add(v.T[at(k, d, D)], -1.0);
                    rows.add(v.tau[at(k, d, D)], -1.0);
                    rows.add(v.R(k, l, d), -kM);
                    rows.add(v.Z(k, e, d), -kM);
                    rows.add(v.Z(l, e, d), -kM);
                    rows.end(-3 * kM, kInf);
                    rows.begin();
                    rows.add(v.T[at(k, d, D)], 1.0);
                    rows.add(v.T[at(l, d, D)], -1.0);
                    rows.add(v.tau[at(l, d, D)], -1.0);
                    rows.add(v.R(k, l, d), kM);
                    rows.add(v.Z(k, e, d), -kM);
                    rows.add(v.Z(l, e, d), -kM);
                    rows.end(-2 * kM, kInf);
                }
}

// One op at a time per device, the symmetry rows and the placements cut off.
void addOrderRows(const MilpInstance& m, const Variables& v, const Columns& cols, const MilpRequest& request,
                  double scale, Rows& rows)
{
    const int D = m.deviceCount;
    const int U = m.unitCount;
    auto allowed = [&](int op, int d) { return cols.hi[static_cast<size_t>(v.X(m, op, d))] > 0.0; };
    // One op at a time per device, for pairs no path orders.
    for (size_t p = 0; p < v.qPairs.size(); ++p) {
        const auto [i, j] = v.qPairs[p];
        for (int d = 0; d < D; ++d) {
            if (!allowed(i, d) || !allowed(j, d))
                continue; // never both on d
            rows.begin();
            rows.add(v.S[static_cast<size_t>(j)], 1.0);
            rows.add(v.S[static_cast<size_t>(i)], -1.0);
            rows.add(v.q[p], -kM);
            rows.add(v.X(m, i, d), -kM);
            rows.add(v.X(m, j, d), -kM);
            rows.end(m.duration(i, d) * scale - 3 * kM, kInf);
            rows.begin();
            rows.add(v.S[static_cast<size_t>(i)], 1.0);
            rows.add(v.S[static_cast<size_t>(j)], -1.0);
            rows.add(v.q[p], kM);
            rows.add(v.X(m, i, d), -kM);
            rows.add(v.X(m, j, d), -kM);
            rows.end(m.duration(j, d) * scale - 2 * kM, kInf);
        }
    }
    // Symmetry: within a class of interchangeable devices, the k-th is used only after the
    // (k-1)-th, in order of the first unit on them (a renaming takes any placement there and
    // the simulator times renamed placements alike).
    for (const auto& cls : m.symmetricClasses)
        for (size_t k = 1; k < cls.size(); ++k)
            for (int u = 0; u < U; ++u) {
                rows.begin();
                rows.add(v.x[at(u, cls[k], D)], 1.0);
                for (int w = 0; w < u; ++w)
                    rows.add(v.x[at(w, cls[k - 1], D)], -1.0);
                rows.end(-kInf, 0.0);
            }
    // Placements already settled.
    for (const auto& placed : request.excluded) {
        rows.begin();
        for (int u = 0; u < U; ++u)
            rows.add(v.x[at(u, placed[static_cast<size_t>(u)], D)], 1.0);
        rows.end(-kInf, U - 1.0);
    }
}

// The integer values of a start placement: its devices, and the orders on devices and links
// read off the simulator's timeline of it.
std::vector<std::pair<int, double>> startValues(const MilpInstance& m, const Variables& v, const Placement& p,
                                                const Timeline& timeline)
{
    const int n = m.opCount;
    const int D = m.deviceCount;
    const int P = v.P;
    std::vector<std::pair<int, double>> start;
    const std::vector<int> unitDevice = m.unitDevices(p);
    for (int u = 0; u < m.unitCount; ++u)
        for (int d = 0; d < D; ++d)
            start.emplace_back(v.x[at(u, d, D)], unitDevice[static_cast<size_t>(u)] == d ? 1 : 0);
    std::vector<int> rank(static_cast<size_t>(n), 0);
    for (size_t i = 0; i < timeline.ops.size(); ++i)
        rank[static_cast<size_t>(timeline.ops[i].op)] = static_cast<int>(i);
    for (size_t k = 0; k < v.qPairs.size(); ++k)
        start.emplace_back(
            v.q[k], rank[static_cast<size_t>(v.qPairs[k].first)] < rank[static_cast<size_t>(v.qPairs[k].second)] ? 1 : 0);
    std::vector<int> producerIndex(static_cast<size_t>(n), -1);
    for (int k = 0; k < P; ++k)
        producerIndex[static_cast<size_t>(m.producers[static_cast<size_t>(k)])] = k;
    // Rank of each producer's transfer to each destination on its link.
    std::vector<int> transferRank(static_cast<size_t>(P) * static_cast<size_t>(D), -1);
    const auto& transfers = timeline.transfers;
    for (size_t i = 0; i < transfers.size(); ++i) {
        const int k = producerIndex[static_cast<size_t>(transfers[i].producer)];
        if (k >= 0)
            transferRank[at(k, transfers[i].to, D)] = static_cast<int>(i);
    }
    for (int k = 0; k < P; ++k)
        for (int l = k + 1; l < P; ++l)
            for (int d = 0; d < D; ++d) {
                const int a = transferRank[at(k, d, D)], b = transferRank[at(l, d, D)];
                start.emplace_back(v.R(k, l, d), a >= 0 && b >= 0 && a < b ? 1 : 0);
            }
    return start;
}

// The device of each unit in a solution of the model.
std::vector<int> unitDevicesOf(const MilpInstance& m, const Variables& v, const double* solution)
{
    const int D = m.deviceCount;
    std::vector<int> unitDevice(static_cast<size_t>(m.unitCount), 0);
    for (int u = 0; u < m.unitCount; ++u) {
        int pick = 0;
        for (int d = 0; d < D; ++d)
            if (solution[v.x[at(u, d, D)]] > solution[v.x[at(u, pick, D)]])
                pick = d;
        unitDevice[static_cast<size_t>(u)] = pick;
    }
    return unitDevice;
}

// What CBC's branch and bound ended with, in microseconds.
MilpOutcome readOutcome(const MilpInstance& m, const MilpRequest& request, const Variables& v, CbcModel& model,
                        double scale)
{
    MilpOutcome out;
    out.stopFlag = request.stop && request.stop->load();
    const double* best = model.bestSolution();
    if (best) {
        out.unitDevice = unitDevicesOf(m, v, best);
        out.objectiveUs = model.getObjValue() / scale;
        for (int i = 0; i < model.numberSavedSolutions(); ++i) {
            std::vector<int> placed = unitDevicesOf(m, v, model.savedSolution(i));
            if (placed != *out.unitDevice && std::find(out.others.begin(), out.others.end(), placed) == out.others.end())
                out.others.push_back(std::move(placed));
        }
    }
    const bool finished = !out.stopFlag && !model.isSecondsLimitReached() && model.status() == 0
        && (model.isProvenOptimal() || model.isProvenInfeasible());
    if (finished && best) {
        out.status = MilpOutcome::Status::Optimal;
        out.bestBoundUs = out.objectiveUs;
    } else if (finished && (model.isProvenInfeasible() || !best)) {
        out.status = MilpOutcome::Status::Infeasible;
        out.bestBoundUs = request.horizonUs;
    } else {
        out.status = MilpOutcome::Status::Stopped;
        const double bound = model.getBestPossibleObjValue();
        out.bestBoundUs = std::isfinite(bound) && bound < 1e40 ? bound / scale : m.lowerBoundUs;
        if (best)
            out.bestBoundUs = std::min(out.bestBoundUs, out.objectiveUs);
        out.bestBoundUs = std::max(out.bestBoundUs, m.lowerBoundUs);
    }
    return out;
}

// CBC's branch and bound on the built model, from the request's start when it has one.
MilpOutcome branchAndBound(const MilpInstance& m, const MilpRequest& request, const Variables& v, const Columns& cols,
                           const Rows& rows, double scale)
{
    std::vector<double> objective(static_cast<size_t>(cols.count), 0.0);
    objective[static_cast<size_t>(v.C)] = 1.0;

    MilpOutcome out;
    std::lock_guard lock(cbcMutex());
    // The budget counts from here (after waiting for the lock): each stage gets what is left.
    const auto begin = std::chrono::steady_clock::now();
    auto left = [&] {
        const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        return std::max(0.05, request.seconds - used);
    };
    OsiClpSolverInterface solver;
    solver.loadProblem(rows.matrix(cols.count), cols.lo.data(), cols.hi.data(), objective.data(), rows.lower().data(),
                       rows.upper().data());
    for (int c = 0; c < cols.count; ++c) {
        if (cols.integer[static_cast<size_t>(c)])
            solver.setInteger(c);
    }
    solver.messageHandler()->setLogLevel(0);
    CbcModel model(solver);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    model.solver()->messageHandler()->setLogLevel(0);
    model.setUseElapsedTime(true);

    model.setAllowableGap(0.0);
    model.setAllowableFractionGap(0.0);
    model.setAllowablePercentageGap(0.0);
    StopHandler handler(request.stop);
    model.passInEventHandler(&handler);
    bool lpCut = false;
    const DeadlineHandler deadline(begin
                                       + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                           std::chrono::duration<double>(std::max(0.05, request.seconds))),
                                   request.stop, &lpCut);
    if (request.startPlacement && request.startTimeline) {
        // The start's integers fixed, the LP gives its times: CBC's first incumbent.
        OsiClpSolverInterface fixed(solver);
        for (const auto& [column, value] : startValues(m, v, *request.startPlacement, *request.startTimeline)) {
            fixed.setColLower(column, value);
            fixed.setColUpper(column, value);
        }
        fixed.initialSolve();
        if (fixed.isProvenOptimal())
            model.setBestSolution(fixed.getColSolution(), cols.count, fixed.getObjValue(), true);
    }
    // CBC's branch and bound, without its solver front end (CbcMain1): that front end's
    // clean-up solve crashes on some of these models, and its cuts and heuristics did not pay
    // for themselves on big-M scheduling rows.
    // The root LP gets the budget too: CBC checks its own limit only between nodes.
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(model.solver())) {
        clp->getModelPtr()->setMaximumSeconds(left());
        clp->getModelPtr()->passInEventHandler(&deadline); // a clone, sharing lpCut
    }
    model.initialSolve();
    if (lpCut || (!model.solver()->isProvenOptimal() && !model.solver()->isProvenPrimalInfeasible())) {
        out.status = MilpOutcome::Status::Stopped; // the root LP ran out of time
        out.bestBoundUs = m.lowerBoundUs;
        out.stopFlag = request.stop && request.stop->load();
        return out;
    }
    // An LP-infeasible model (every placement cut off or too slow) is settled at once.
    if (model.solver()->isProvenPrimalInfeasible()) {
        out.status = MilpOutcome::Status::Infeasible;
        out.bestBoundUs = request.horizonUs;
        return out;
    }
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(model.solver()))
        clp->getModelPtr()->setMaximumSeconds(-1.0); // node LPs: CBC's own limit below
    // The root LP's optimum bounds every solution of this model, whatever happens below.
    const double rootBoundUs = model.solver()->getObjValue() / scale;
    model.setMaximumSeconds(left());
    model.setMaximumSavedSolutions(kSavedSolutions);
    model.branchAndBound();
    MilpOutcome solved = readOutcome(m, request, v, model, scale);
    if (lpCut) { // a node's LP was cut at the deadline: only the root's bound is proven
        solved.status = MilpOutcome::Status::Stopped;
        solved.bestBoundUs = std::max(m.lowerBoundUs,
                                      solved.unitDevice ? std::min(rootBoundUs, solved.objectiveUs) : rootBoundUs);
    }
    return solved;
}

} // namespace

MilpOutcome solveMilp(const MilpInstance& m, const MilpRequest& request)
{
    const double scale = kH / request.horizonUs;
    Columns cols;
    const Variables v = addColumns(m, scale, cols);
    Rows rows;
    addPlacementRows(m, v, scale, rows);
    addTransferRows(m, v, scale, rows);
    addOrderRows(m, v, cols, request, scale, rows);
    return branchAndBound(m, request, v, cols, rows, scale);
}

} // namespace post
