#include "core/sim/ChromeTraceWriter.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/sim/SimResult.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace post {
namespace {

constexpr int kPid = 1;

nlohmann::json metadata(const char* name, int tid, nlohmann::json args)
{
    return {{"name", name}, {"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"args", std::move(args)}};
}

} // namespace

std::string chromeTraceJson(const Graph& graph, const Cluster& cluster, const SimResult& result)
{
    using nlohmann::json;
    const int devices = cluster.deviceCount();
    // Rows: devices first (tid = device + 1), then the links in use, in link-index order, then
    // the collectives' channels in use (docs/simulator.md, "Collectives"), in device order.
    auto linkTid = [devices](DeviceId from, DeviceId to) { return devices + 1 + from * devices + to; };
    auto channelTid = [devices](DeviceId d) { return devices * devices + devices + 1 + d; };

    json events = json::array();
    events.push_back(metadata("process_name", 0, {{"name", "Post Studio: " + graph.name() + " on " + cluster.name()}}));
    for (DeviceId d = 0; d < devices; ++d) {
        events.push_back(metadata("thread_name", d + 1, {{"name", cluster.device(d).name}}));
        events.push_back(metadata("thread_sort_index", d + 1, {{"sort_index", d}}));
    }
    std::vector<char> linkUsed(static_cast<size_t>(devices) * static_cast<size_t>(devices), 0);
    for (const TransferSpan& t : result.timeline.transfers)
        linkUsed[static_cast<size_t>(t.from) * static_cast<size_t>(devices) + static_cast<size_t>(t.to)] = 1;
    for (DeviceId from = 0; from < devices; ++from)
        for (DeviceId to = 0; to < devices; ++to) {
            if (!linkUsed[static_cast<size_t>(from) * static_cast<size_t>(devices) + static_cast<size_t>(to)])
                continue;
            const int tid = linkTid(from, to);
            events.push_back(
                metadata("thread_name", tid, {{"name", cluster.device(from).name + " -> " + cluster.device(to).name}}));
            events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
        }
    std::vector<char> channelUsed(static_cast<size_t>(devices), 0);
    for (const OpSpan& s : result.timeline.ops)
        if (graph.op(s.op).isCollective())
            channelUsed[static_cast<size_t>(s.device)] = 1;
    for (DeviceId d = 0; d < devices; ++d)
        if (channelUsed[static_cast<size_t>(d)]) {
            const int tid = channelTid(d);
            events.push_back(metadata("thread_name", tid, {{"name", cluster.device(d).name + " collectives"}}));
            events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
        }

    for (const OpSpan& s : result.timeline.ops) {
        const Op& op = graph.op(s.op);
        events.push_back({{"name", op.name},
                          {"cat", "op"},
                          {"ph", "X"},
                          {"pid", kPid},
                          {"tid", op.isCollective() ? channelTid(s.device) : s.device + 1},
                          {"ts", s.startUs},
                          {"dur", s.endUs - s.startUs},
                          {"args", {{"type", op.type}, {"op", s.op}, {"output_bytes", op.outputBytes}}}});
    }
    for (const TransferSpan& t : result.timeline.transfers) {
        events.push_back(
            {{"name", graph.op(t.producer).name},
             {"cat", "transfer"},
             {"ph", "X"},
             {"pid", kPid},
             {"tid", linkTid(t.from, t.to)},
             {"ts", t.startUs},
             {"dur", t.endUs - t.startUs},
             {"args", {{"bytes", t.bytes}, {"requested_us", t.requestUs}, {"waited_us", t.startUs - t.requestUs}}}});
    }

    json trace = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
    // Op names come from user files: replace invalid UTF-8 rather than throw.
    return trace.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace post
