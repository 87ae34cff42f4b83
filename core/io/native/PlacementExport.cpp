#include "core/io/native/PlacementExport.h"

#include <stdexcept>

namespace post {
namespace {

void requireComplete(const Graph& graph, const Cluster& cluster, const Placement& placement)
{
    if (static_cast<int>(placement.size()) != graph.opCount())
        throw std::invalid_argument("placement size does not match the graph");
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const DeviceId d = placement[static_cast<size_t>(op)];
        if (d < 0 || d >= cluster.deviceCount())
            throw std::invalid_argument("op '" + graph.op(op).name + "' has no device");
    }
}

std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

} // namespace

std::string placementCsv(const Graph& graph, const Cluster& cluster, const Placement& placement)
{
    requireComplete(graph, cluster, placement);
    std::string text = "op,device\n";
    for (OpId op = 0; op < graph.opCount(); ++op)
        text += csvField(graph.op(op).name) + "," + csvField(cluster.device(placement[static_cast<size_t>(op)]).name)
            + "\n";
    return text;
}

std::string tensorFlowDeviceName(const Cluster& cluster, DeviceId device)
{
    const std::string& name = cluster.device(device).name;
    if (name.starts_with("/job:"))
        return name;
    if (name.starts_with("/device:"))
        return "/job:localhost/replica:0/task:0" + name;
    const DeviceKind kind = cluster.device(device).kind;
    int ordinal = 0;
    for (DeviceId d = 0; d < device; ++d)
        ordinal += cluster.device(d).kind == kind ? 1 : 0;
    return "/job:localhost/replica:0/task:0/device:" + std::string(kind == DeviceKind::Cpu ? "CPU" : "GPU") + ":"
        + std::to_string(ordinal);
}

std::string placementTensorFlow(const Graph& graph, const Cluster& cluster, const Placement& placement)
{
    requireComplete(graph, cluster, placement);
    std::vector<std::string> names;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
        names.push_back(tensorFlowDeviceName(cluster, d));
    std::string text;
    for (OpId op = 0; op < graph.opCount(); ++op)
        text += graph.op(op).name + "\t" + names[static_cast<size_t>(placement[static_cast<size_t>(op)])] + "\n";
    return text;
}

} // namespace post
