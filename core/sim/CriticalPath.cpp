#include "core/sim/CriticalPath.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace post {

// Walks back from the op that ends last: at each op, the input whose arrival is its start
// (a transfer's end, or the producer's end on the same device), else the op the device ran
// just before it (on the same queue: compute, or the device's collectives), if that ended at its start; the input arriving last when nothing matches.
CriticalPath criticalPath(const Graph& graph, const SimResult& result)
{
    CriticalPath critical;
    const Timeline& timeline = result.timeline;
    const auto ops = static_cast<size_t>(graph.opCount());
    critical.opOnPath.assign(ops, false);
    critical.transferOnPath.assign(timeline.transfers.size(), false);
    if (timeline.ops.empty())
        return critical;
    std::vector<const OpSpan*> spanOf(ops, nullptr);
    std::vector<OpId> previousOnDevice(ops, kNoOp);
    std::map<std::pair<DeviceId, bool>, OpId> lastOnDevice; // a device's compute, and its collectives' channel
    for (const OpSpan& span : timeline.ops) {               // in start order
        spanOf[static_cast<size_t>(span.op)] = &span;
        const std::pair<DeviceId, bool> queue{span.device, graph.op(span.op).isCollective()};
        if (auto it = lastOnDevice.find(queue); it != lastOnDevice.end())
            previousOnDevice[static_cast<size_t>(span.op)] = it->second;
        lastOnDevice[queue] = span.op;
    }
    std::map<std::pair<OpId, DeviceId>, int> transferTo;
    for (size_t i = 0; i < timeline.transfers.size(); ++i)
        transferTo[{timeline.transfers[i].producer, timeline.transfers[i].to}] = static_cast<int>(i);
    const OpSpan* last = &*std::max_element(timeline.ops.begin(), timeline.ops.end(),
                                            [](const OpSpan& a, const OpSpan& b) { return a.endUs < b.endUs; });
    const double eps = 1e-9 * std::max(1.0, result.stepTimeUs);
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
        critical.opOnPath[static_cast<size_t>(op)] = true;
    for (int t : transfers)
        critical.transferOnPath[static_cast<size_t>(t)] = true;
    critical.ops = std::move(path);
    critical.transfers = std::move(transfers);
    return critical;
}

} // namespace post
