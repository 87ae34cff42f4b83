#include "ui/document/SimulatedStep.h"

#include "core/graph/Placement.h"
#include "core/sim/CriticalPath.h"
#include "core/sim/Simulator.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace post {

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
        Simulator simulator(graph, cluster, document->sim);
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
    // A collective runs on its device's communication channel, overlapping the compute lane's
    // bars: a lane of its own for each device that ran one, after the devices'.
    std::vector<int> collectiveLane(static_cast<size_t>(devices), -1);
    for (const OpSpan& span : timeline.ops)
        if (graph.op(span.op).isCollective())
            collectiveLane[static_cast<size_t>(span.device)] = 0;
    for (DeviceId d = 0; d < devices; ++d) {
        if (collectiveLane[static_cast<size_t>(d)] < 0)
            continue;
        collectiveLane[static_cast<size_t>(d)] = static_cast<int>(step->lanes.size());
        TimelineLane lane = step->lanes[static_cast<size_t>(d)];
        lane.name += QStringLiteral(" collectives");
        lane.fullName += QStringLiteral(" collectives");
        step->lanes.push_back(std::move(lane));
        ++step->collectiveLaneCount;
    }
    step->deviceLaneCount = devices + step->collectiveLaneCount;
    step->barOfOp.assign(static_cast<size_t>(graph.opCount()), BarRef{});
    // Timeline::ops is in start order, so each lane's bars come out in start order too.
    for (const OpSpan& span : timeline.ops) {
        const int laneIndex = graph.op(span.op).isCollective() ? collectiveLane[static_cast<size_t>(span.device)]
                                                               : span.device;
        auto& bars = step->lanes[static_cast<size_t>(laneIndex)].bars;
        step->barOfOp[static_cast<size_t>(span.op)] = BarRef{laneIndex, static_cast<int>(bars.size())};
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
    CriticalPath critical = criticalPath(graph, step->result);
    step->criticalOps = std::move(critical.ops);
    step->criticalTransfers = std::move(critical.transfers);
    step->opOnCriticalPath = std::move(critical.opOnPath);
    step->transferOnCriticalPath = std::move(critical.transferOnPath);
    return step;
}

} // namespace post
