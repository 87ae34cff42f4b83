#include "core/classic/ListScheduler.h"

#include "core/classic/MemoryLedger.h"
#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace post {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

std::vector<double> bottomLevels(const Graph& graph, const Cluster& cluster, std::span<const DeviceId> devices)
{
    std::vector<double> level(static_cast<size_t>(graph.opCount()), 0.0);
    const auto order = graph.topologicalOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const OpId op = *it;
        double fastest = kInf;
        for (DeviceId d : devices)
            fastest = std::min(fastest, opTimeOn(graph.op(op), cluster.device(d)));
        double after = 0.0;
        for (EdgeId e : graph.outEdges(op))
            after = std::max(after, level[static_cast<size_t>(graph.edge(e).to)]);
        level[static_cast<size_t>(op)] = fastest + after;
    }
    return level;
}

ListScheduler::ListScheduler(const Graph& graph, const Cluster& cluster, const SimOptions& options,
                             std::vector<double> budgets)
    : graph_(graph)
    , cluster_(cluster)
    , options_(options)
    , budgets_(std::move(budgets))
{
}

ListSchedule ListScheduler::run(std::span<const OpId> favouriteChild) const
{
    const Graph& graph = graph_;
    const int n = graph.opCount();
    const int deviceCount = cluster_.deviceCount();
    const PlacerDevices devices = placerDevices(cluster_);
    const std::vector<double> level = bottomLevels(graph, cluster_, devices.primary);
    const bool sct = !favouriteChild.empty();
    auto at = [deviceCount](OpId op, DeviceId d) {
        return static_cast<size_t>(op) * static_cast<size_t>(deviceCount) + static_cast<size_t>(d);
    };

    MemoryLedger ledger(graph, cluster_, options_, budgets_);
    ListSchedule schedule;
    Placement& placement = schedule.placement;
    placement.assign(static_cast<size_t>(n), kNoDevice);
    std::vector<double> opUs(static_cast<size_t>(n) * static_cast<size_t>(deviceCount));
    for (OpId op = 0; op < n; ++op)
        for (DeviceId d = 0; d < deviceCount; ++d)
            opUs[at(op, d)] = opTimeOn(graph.op(op), cluster_.device(d));
    std::vector<double> finish(static_cast<size_t>(n), 0.0);
    std::vector<double> dataReady(static_cast<size_t>(n) * static_cast<size_t>(deviceCount), 0.0);
    std::vector<double> urgent(static_cast<size_t>(n), 0.0); // inputs could be on every device
    std::vector<double> available(static_cast<size_t>(deviceCount), 0.0);
    std::vector<OpId> lastOp(static_cast<size_t>(deviceCount), kNoOp);
    std::vector<DeviceId> groupDevice(static_cast<size_t>(graph.colocationGroupCount()), kNoDevice);
    std::vector<int> waiting(static_cast<size_t>(n));
    std::vector<char> isReady(static_cast<size_t>(n), 0);
    std::vector<OpId> ready;
    std::vector<DeviceId> allowed;

    auto makeReady = [&](OpId op) {
        for (DeviceId d = 0; d < deviceCount; ++d) {
            double t = 0.0;
            for (EdgeId e : graph.inEdges(op)) {
                const Edge& edge = graph.edge(e);
                const DeviceId from = placement[static_cast<size_t>(edge.from)];
                const double arrive = finish[static_cast<size_t>(edge.from)]
                    + (from == d ? 0.0 : cluster_.link(from, d).transferUs(edge.bytes));
                t = std::max(t, arrive);
            }
            dataReady[at(op, d)] = t;
        }
        double u = 0.0;
        for (DeviceId d : devices.primary)
            u = std::max(u, dataReady[at(op, d)]);
        urgent[static_cast<size_t>(op)] = u;
        isReady[static_cast<size_t>(op)] = 1;
        ready.push_back(op);
    };
    // The devices `op` may start on now: the CPU for a CPU-pinned op, its group's device,
    // else the GPUs with room, else one overflow device.
    const DeviceId pinDevice = cpuPinDevice(cluster_);
    auto allowedDevices = [&](OpId op) {
        allowed.clear();
        if (pinDevice != kNoDevice && graph.isCpuPinned(op)) {
            allowed.push_back(pinDevice); // no GPU kernel: scheduled where it will run
            return;
        }
        const int g = graph.colocationGroup(op);
        if (g >= 0 && groupDevice[static_cast<size_t>(g)] != kNoDevice) {
            allowed.push_back(groupDevice[static_cast<size_t>(g)]);
            return;
        }
        for (DeviceId d : devices.primary)
            if (ledger.fits(op, d))
                allowed.push_back(d);
        if (allowed.empty())
            allowed.push_back(overflowDevice(ledger, op, devices));
    };
    auto startOn = [&](OpId op, DeviceId d) { return std::max(available[static_cast<size_t>(d)], dataReady[at(op, d)]); };
    // m-SCT: the favourite child a device is being kept for, or kNoOp.
    auto keptFor = [&](DeviceId d) -> OpId {
        const OpId last = lastOp[static_cast<size_t>(d)];
        if (!sct || last == kNoOp)
            return kNoOp;
        const OpId child = favouriteChild[static_cast<size_t>(last)];
        if (child == kNoOp || !isReady[static_cast<size_t>(child)] || placement[static_cast<size_t>(child)] != kNoDevice)
            return kNoOp;
        allowedDevices(child);
        const double here = startOn(child, d);
        for (DeviceId other : allowed)
            if (startOn(child, other) < here)
                return kNoOp;
        return std::find(allowed.begin(), allowed.end(), d) != allowed.end() ? child : kNoOp;
    };

    for (OpId op = 0; op < n; ++op) {
        waiting[static_cast<size_t>(op)] = static_cast<int>(graph.inEdges(op).size());
        if (waiting[static_cast<size_t>(op)] == 0)
            makeReady(op);
    }
    std::vector<OpId> kept(static_cast<size_t>(deviceCount), kNoOp);
    for (int scheduled = 0; scheduled < n; ++scheduled) {
        for (DeviceId d = 0; d < deviceCount; ++d)
            kept[static_cast<size_t>(d)] = keptFor(d);
        // Key: start, then not-a-kept-favourite, then longer bottom level, earlier
        // finish, lower op index, lower device index.
        using Key = std::tuple<double, int, double, double, OpId, DeviceId>;
        Key best{kInf, 1, 0.0, kInf, kNoOp, kNoDevice};
        for (OpId op : ready) {
            allowedDevices(op);
            for (DeviceId d : allowed) {
                const OpId keptChild = kept[static_cast<size_t>(d)];
                double start = startOn(op, d);
                if (keptChild != kNoOp && keptChild != op)
                    start = std::max(start, urgent[static_cast<size_t>(op)]);
                const double end = start + opUs[at(op, d)];
                const Key key{start, keptChild == op ? 0 : 1, -level[static_cast<size_t>(op)], end, op, d};
                if (key < best)
                    best = key;
            }
        }
        const OpId op = std::get<4>(best);
        const DeviceId d = std::get<5>(best);
        const double end = std::get<3>(best);
        placement[static_cast<size_t>(op)] = d;
        finish[static_cast<size_t>(op)] = end;
        available[static_cast<size_t>(d)] = end;
        lastOp[static_cast<size_t>(d)] = op;
        if (const int g = graph.colocationGroup(op); g >= 0)
            groupDevice[static_cast<size_t>(g)] = d;
        ledger.place(op, d);
        schedule.makespanUs = std::max(schedule.makespanUs, end);
        ready.erase(std::find(ready.begin(), ready.end(), op));
        for (EdgeId e : graph.outEdges(op)) {
            const OpId next = graph.edge(e).to;
            if (--waiting[static_cast<size_t>(next)] == 0)
                makeReady(next);
        }
    }
    return schedule;
}

} // namespace post
