#include "core/cluster/DeviceTypes.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace post {

Graph withMeasuredTypeTimes(const Graph& graph, std::string_view type, std::span<const MeasuredTypeTime> times,
                            std::string_view source)
{
    if (std::string problem = deviceTypeProblem(type); !problem.empty())
        throw GraphError(problem);
    std::vector<Op> ops(graph.ops().begin(), graph.ops().end());
    for (const MeasuredTypeTime& t : times) {
        if (t.op < 0 || t.op >= graph.opCount())
            throw GraphError("measured time for op #" + std::to_string(t.op) + " of a graph of "
                             + std::to_string(graph.opCount()) + " ops");
        ops[static_cast<size_t>(t.op)].setTypedTime(type, t.us, true);
        if (!source.empty())
            ops[static_cast<size_t>(t.op)].measuredBy = source;
    }
    return withOps(graph, std::move(ops)); // validates the times
}

DeviceTypeMismatch deviceTypeMismatch(const Graph& graph, const Cluster& cluster)
{
    DeviceTypeMismatch m;
    if (!graph.hasTypedTimes())
        return m;
    const auto timed = graph.deviceTypes();
    for (const std::string& type : timed) {
        const auto devices = cluster.devices();
        if (std::none_of(devices.begin(), devices.end(), [&](const Device& d) { return d.type == type; }))
            m.timedWithoutDevice.push_back(type);
    }
    for (const Device& d : cluster.devices())
        if (!d.type.empty() && !std::binary_search(timed.begin(), timed.end(), d.type)
            && std::find(m.devicesWithoutTimes.begin(), m.devicesWithoutTimes.end(), d.type)
                == m.devicesWithoutTimes.end())
            m.devicesWithoutTimes.push_back(d.type);
    return m;
}

std::string deviceTypeNote(const Graph& graph, const Cluster& cluster)
{
    const DeviceTypeMismatch m = deviceTypeMismatch(graph, cluster);
    auto list = [](const std::vector<std::string>& names) {
        std::string text;
        for (const std::string& n : names)
            text += (text.empty() ? "" : ", ") + n;
        return text;
    };
    std::string note;
    if (!m.timedWithoutDevice.empty())
        note = "the graph's times for device type" + std::string(m.timedWithoutDevice.size() > 1 ? "s " : " ")
            + list(m.timedWithoutDevice) + " are unused: no device of cluster " + cluster.name() + " has "
            + (m.timedWithoutDevice.size() > 1 ? "those types" : "that type");
    if (!m.devicesWithoutTimes.empty())
        note += (note.empty() ? "" : "; ") + std::string("devices of type ") + list(m.devicesWithoutTimes)
            + " take the per-kind time (or the roofline): the graph has no times for "
            + (m.devicesWithoutTimes.size() > 1 ? "those types" : "that type");
    return note;
}

std::string measuredSpeedNote(const Graph& graph, const Cluster& cluster)
{
    std::string note;
    for (DeviceKind kind : {DeviceKind::Gpu, DeviceKind::Cpu}) {
        const bool measured = std::any_of(graph.ops().begin(), graph.ops().end(),
                                          [kind](const Op& op) { return op.measured(kind); });
        if (!measured)
            continue;
        std::string scaled, type;
        const auto types = graph.deviceTypes();
        for (const Device& d : cluster.devices()) {
            if (d.kind != kind || d.speed == 1.0
                || (!d.type.empty() && std::find(types.begin(), types.end(), d.type) != types.end()))
                continue;
            std::ostringstream speed;
            speed << d.speed;
            scaled += (scaled.empty() ? "" : ", ") + d.name + " " + speed.str();
            if (type.empty())
                type = d.type;
        }
        if (scaled.empty())
            continue;
        const std::string k = kind == DeviceKind::Gpu ? "GPU" : "CPU";
        note += (note.empty() ? "" : "; ") + std::string("measured ") + k + " times keyed by kind (the graph's own, or "
            + "an untyped --costs trace's) are times on a speed-1 " + k + ", divided by each " + k + "'s speed here ("
            + scaled + "); if they were measured on these very devices, a cluster whose " + k
            + "s have speed 1 keeps them as measured, as does a --costs trace given their type: "
            + (type.empty() ? "a \"type\" in the cluster file and --costs TYPE=TRACE" : "--costs " + type + "=TRACE");
    }
    return note;
}

namespace {

// Lower-case letters and digits only: "Tesla V100-DGXS-32GB" -> "teslav100dgxs32gb".
std::string letters(std::string_view text)
{
    std::string out;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::string measuredGpuNote(std::string_view gpuName, const Graph& graph, const Cluster& cluster)
{
    const std::string name = letters(gpuName);
    if (name.empty() || std::none_of(graph.ops().begin(), graph.ops().end(), [](const Op& op) {
            return op.measured(DeviceKind::Gpu);
        }))
        return {};
    const auto timed = graph.deviceTypes();
    std::vector<std::string> others; // the GPU types that are not the traced GPU
    std::string devices;
    for (const Device& d : cluster.devices()) {
        if (d.kind != DeviceKind::Gpu || d.type.empty() || name.find(letters(d.type)) != std::string::npos
            || std::find(timed.begin(), timed.end(), d.type) != timed.end())
            continue;
        if (std::find(others.begin(), others.end(), d.type) == others.end())
            others.push_back(d.type);
        devices += (devices.empty() ? "" : ", ") + d.name;
    }
    if (others.empty())
        return {};
    std::string types;
    for (const std::string& t : others)
        types += (types.empty() ? "" : ", ") + t;
    return "the measured GPU times were recorded on " + std::string(gpuName) + ", and " + cluster.name()
        + "'s GPUs are " + types + " (" + devices
        + "): they take those times as a speed-1 GPU's, divided by their speed, so the step is the traced GPU's "
          "work, not theirs; a trace recorded on them, or a cluster of the traced GPU, gives theirs "
          "(docs/pytorch.md)";
}

} // namespace post
