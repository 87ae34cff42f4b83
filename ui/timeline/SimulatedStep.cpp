#include "ui/timeline/SimulatedStep.h"

#include "core/graph/Placement.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace post {
namespace {

// Walks back from the op that ends last: at each op, the input whose arrival is its start
// (a transfer's end, or the producer's end on the same device), else the op the device ran
// just before it, if that ended at its start; the input arriving last when nothing matches.
void findCriticalPath(SimulatedStep& step)
{
    const Graph& graph = *step.document->graph;
    const Timeline& timeline = step.result.timeline;
    const auto ops = static_cast<size_t>(graph.opCount());
    step.opOnCriticalPath.assign(ops, false);
    step.transferOnCriticalPath.assign(timeline.transfers.size(), false);
    if (timeline.ops.empty())
        return;
    std::vector<const OpSpan*> spanOf(ops, nullptr);
    std::vector<OpId> previousOnDevice(ops, kNoOp);
    std::map<DeviceId, OpId> lastOnDevice;
    for (const OpSpan& span : timeline.ops) { // in start order
        spanOf[static_cast<size_t>(span.op)] = &span;
        if (auto it = lastOnDevice.find(span.device); it != lastOnDevice.end())
            previousOnDevice[static_cast<size_t>(span.op)] = it->second;
        lastOnDevice[span.device] = span.op;
    }
    std::map<std::pair<OpId, DeviceId>, int> transferTo;
    for (size_t i = 0; i < timeline.transfers.size(); ++i)
        transferTo[{timeline.transfers[i].producer, timeline.transfers[i].to}] = static_cast<int>(i);
    const OpSpan* last = &*std::max_element(timeline.ops.begin(), timeline.ops.end(),
                                            [](const OpSpan& a, const OpSpan& b) { return a.endUs < b.endUs; });
    const double eps = 1e-9 * std::max(1.0, step.result.stepTimeUs);
    std::vector<OpId> path;
    std::vector<int> transfers;
    for (const OpSpan* at = last; at && path.size() < ops;) {
        path.push_back(at->op);
        if (at->startUs <= eps)
            break;
        const OpSpan* next = nullptr;
        int via = -1;
        double latest = -1.0;
        const OpSpan* latestSpan = nullptr;
        int latestVia = -1;
        for (EdgeId e : graph.inEdges(at->op)) {
            const OpSpan* producer = spanOf[static_cast<size_t>(graph.edge(e).from)];
            if (!producer)
                continue;
            double arrival = producer->endUs;
            int transfer = -1;
            if (producer->device != at->device) {
                const auto it = transferTo.find({producer->op, at->device});
                if (it == transferTo.end())
                    continue;
                transfer = it->second;
                arrival = timeline.transfers[static_cast<size_t>(transfer)].endUs;
            }
            if (arrival > latest) {
                latest = arrival;
                latestSpan = producer;
                latestVia = transfer;
            }
            if (!next && std::abs(arrival - at->startUs) <= eps) {
                next = producer;
                via = transfer;
            }
        }
        if (!next) {
            const OpId before = previousOnDevice[static_cast<size_t>(at->op)];
            const OpSpan* prior = before == kNoOp ? nullptr : spanOf[static_cast<size_t>(before)];
            if (prior && std::abs(prior->endUs - at->startUs) <= eps) {
                next = prior;
            } else {
                next = latestSpan;
                via = latestVia;
            }
        }
        if (via >= 0)
            transfers.push_back(via);
        at = next;
    }
    std::reverse(path.begin(), path.end());
    std::reverse(transfers.begin(), transfers.end());
    for (OpId op : path)
        step.opOnCriticalPath[static_cast<size_t>(op)] = true;
    for (int t : transfers)
        step.transferOnCriticalPath[static_cast<size_t>(t)] = true;
    step.criticalOps = std::move(path);
    step.criticalTransfers = std::move(transfers);
}

} // namespace

QString SimulatedStep::shortDeviceName(const std::string& name)
{
    const QString full = QString::fromStdString(name);
    const qsizetype at = full.lastIndexOf(QLatin1String("/device:"));
    return at >= 0 ? full.mid(at + 8) : full;
}

std::shared_ptr<const SimulatedStep> SimulatedStep::simulate(DocumentPtr document)
{
    if (!document || !document->isPlaced())
        return nullptr;
    const Graph& graph = *document->graph;
    const Cluster& cluster = *document->cluster;
    if (placementProblem(graph, cluster, document->placement))
        return nullptr;

    auto step = std::make_shared<SimulatedStep>();
    step->document = document;
    {
        Simulator simulator(graph, cluster);
        step->result = simulator.run(document->placement, /*recordTimeline=*/true);
    }
    const int devices = cluster.deviceCount();
    const Timeline& timeline = step->result.timeline;

    step->lanes.resize(static_cast<size_t>(devices));
    for (DeviceId d = 0; d < devices; ++d) {
        TimelineLane& lane = step->lanes[static_cast<size_t>(d)];
        lane.kind = TimelineLane::Kind::Device;
        lane.device = d;
        lane.fullName = QString::fromStdString(cluster.device(d).name);
        lane.name = shortDeviceName(cluster.device(d).name);
    }
    step->deviceLaneCount = devices;
    step->barOfOp.assign(static_cast<size_t>(graph.opCount()), BarRef{});
    // Timeline::ops is in start order, so each lane's bars come out in start order too.
    for (const OpSpan& span : timeline.ops) {
        auto& bars = step->lanes[static_cast<size_t>(span.device)].bars;
        step->barOfOp[static_cast<size_t>(span.op)] = BarRef{span.device, static_cast<int>(bars.size())};
        bars.push_back(TimelineBar{span.startUs, span.endUs, span.op});
    }

    // Link lanes in link-index order (as the Chrome trace orders its rows).
    std::vector<int> laneOfLink(static_cast<size_t>(devices) * static_cast<size_t>(devices), -1);
    for (const TransferSpan& t : timeline.transfers)
        laneOfLink[static_cast<size_t>(t.from) * static_cast<size_t>(devices) + static_cast<size_t>(t.to)] = 0;
    for (DeviceId from = 0; from < devices; ++from)
        for (DeviceId to = 0; to < devices; ++to) {
            int& slot = laneOfLink[static_cast<size_t>(from) * static_cast<size_t>(devices) + static_cast<size_t>(to)];
            if (slot < 0)
                continue;
            slot = static_cast<int>(step->lanes.size());
            TimelineLane lane;
            lane.kind = TimelineLane::Kind::Link;
            lane.device = from;
            lane.to = to;
            lane.name = shortDeviceName(cluster.device(from).name) + QStringLiteral(" → ")
                + shortDeviceName(cluster.device(to).name);
            lane.fullName = QString::fromStdString(cluster.device(from).name) + QStringLiteral(" → ")
                + QString::fromStdString(cluster.device(to).name);
            step->lanes.push_back(std::move(lane));
        }
    for (size_t i = 0; i < timeline.transfers.size(); ++i) {
        const TransferSpan& t = timeline.transfers[i];
        const int lane = laneOfLink[static_cast<size_t>(t.from) * static_cast<size_t>(devices) + static_cast<size_t>(t.to)];
        step->lanes[static_cast<size_t>(lane)].bars.push_back(TimelineBar{t.startUs, t.endUs, static_cast<int>(i)});
    }
    findCriticalPath(*step);
    return step;
}

} // namespace post
