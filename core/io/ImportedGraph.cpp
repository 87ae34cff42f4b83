#include "core/io/ImportedGraph.h"

#include "core/io/tf/TfDeviceName.h"
#include "core/util/InputError.h"

#include <stdexcept>
#include <unordered_map>

namespace post {

Placement givenPlacement(const ImportedGraph& imported, const Cluster& cluster)
{
    if (!imported.hasGivenPlacement())
        throw std::logic_error("givenPlacement: the graph gives no placement");
    const Graph& g = imported.graph;
    std::unordered_map<std::string, DeviceId> byName;
    std::string known;
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
        const std::string& name = cluster.device(d).name;
        byName.emplace(normalizeTfDeviceName(name).value_or(name), d);
        known += (known.empty() ? "" : ", ") + name;
    }
    Placement placement(static_cast<std::size_t>(g.opCount()), kNoDevice);
    std::vector<DeviceId> groupDevice(static_cast<std::size_t>(g.colocationGroupCount()), kNoDevice);
    for (OpId op = 0; op < g.opCount(); ++op) {
        const std::string& device = imported.givenDevices[static_cast<std::size_t>(op)];
        if (device.empty())
            continue;
        const auto it = byName.find(device);
        if (it == byName.end())
            throw InputError(imported.source, imported.givenDeviceLocations[static_cast<std::size_t>(op)],
                             "device '" + device + "' of op '" + g.op(op).name + "' is not in cluster '"
                                 + cluster.name() + "' (devices: " + known + ")");
        placement[static_cast<std::size_t>(op)] = it->second;
        const int group = g.colocationGroup(op);
        if (group >= 0 && groupDevice[static_cast<std::size_t>(group)] == kNoDevice)
            groupDevice[static_cast<std::size_t>(group)] = it->second;
    }
    DeviceId fallback = 0;
    for (DeviceId d = cluster.deviceCount() - 1; d >= 0; --d)
        if (cluster.device(d).kind == DeviceKind::Gpu)
            fallback = d;
    for (OpId op = 0; op < g.opCount(); ++op) {
        DeviceId& d = placement[static_cast<std::size_t>(op)];
        if (d != kNoDevice)
            continue;
        const int group = g.colocationGroup(op);
        d = group >= 0 && groupDevice[static_cast<std::size_t>(group)] != kNoDevice
            ? groupDevice[static_cast<std::size_t>(group)]
            : fallback;
    }
    // An op without a GPU kernel written on a GPU runs on the CPU, as under TensorFlow's
    // soft placement (without it TensorFlow refuses the graph).
    applyCpuPinning(g, cluster, placement);
    return placement;
}

std::string dataDependentSizesNote(const std::vector<DataDependentSize>& sizes)
{
    std::string given;
    std::string most;
    int givenCount = 0;
    int mostCount = 0;
    for (const DataDependentSize& s : sizes) {
        if (s.value < 0)
            continue;
        std::string& list = s.atMost ? most : given;
        ++(s.atMost ? mostCount : givenCount);
        list += (list.empty() ? "" : ", ") + ("'" + s.node + "' " + std::to_string(s.value));
    }
    std::string note;
    if (givenCount > 0)
        note = std::to_string(givenCount) + " size(s) that depend on the data as given (--count): " + given;
    if (mostCount > 0)
        note += (note.empty() ? "" : "; ") + std::to_string(mostCount)
            + " at the most their ops can give (--count-max), so the step is a worst case: " + most;
    return note;
}

std::string unshapedTensorsProblem(const ImportedGraph& imported)
{
    if (imported.unshapedTensors.empty())
        return {};
    const std::string first = imported.unshapedFrom.empty() ? "tensor '" + imported.unshapedTensors.front() + "'"
                                                            : imported.unshapedFrom;
    std::string text = std::to_string(imported.unshapedTensors.size())
        + " tensor(s) on the compute path have no inferred shape, the first made at " + first
        + ", so every cost that depends on them would be a guess (each unknown dimension counting as 1)";
    std::string sizes;
    for (const DataDependentSize& s : imported.dataDependentSizes)
        if (s.value < 0)
            sizes += "\n  " + s.location + ": " + s.what + ", at most " + std::to_string(s.largest)
                + ": give it with --count " + s.node + "=N";
    if (!sizes.empty())
        text += "; these sizes depend on the data:" + sizes
            + "\n  or take each at its most with --count-max (the step is then a worst case)";
    return text;
}

} // namespace post
