#include "core/io/native/PlacementFile.h"

#include "core/io/json/JsonInput.h"
#include "core/io/json/JsonOutput.h"
#include "core/util/FileText.h"
#include "core/util/Fnv1a.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace post {
namespace {

using nlohmann::json;

constexpr std::string_view kFamily = "post-placement";
constexpr int kVersion = 1;
constexpr std::string_view kFingerprintPrefix = "fnv1a64:";

// Exact device names first; TensorFlow's full names ("/job:localhost/replica:0/task:0
// /device:GPU:0") are accepted too, as our TensorFlow export writes them.
std::optional<DeviceId> findDevice(const Cluster& cluster, const std::string& name)
{
    if (auto id = cluster.find(name))
        return id;
    if (name.starts_with("/job:"))
        if (auto at = name.find("/device:"); at != std::string::npos)
            return cluster.find(std::string_view(name).substr(at));
    return std::nullopt;
}

std::string deviceList(const Cluster& cluster)
{
    std::string list;
    for (const Device& d : cluster.devices())
        list += (list.empty() ? "" : ", ") + d.name;
    return list;
}

// What made it: informational, checked for type ("dispatch" and "precision" for their values too).
PlacementProvenance readProvenance(const JsonInput& in, const json& root)
{
    PlacementProvenance made;
    if (const json* a = in.find(root, "algorithm"))
        made.algorithm = in.string(*a, "algorithm");
    if (const json* seed = in.find(root, "seed")) {
        in.nonNegative(*seed, "seed");
        if (seed->is_number_unsigned())
            made.seed = seed->get<std::uint64_t>();
    }
    if (const json* step = in.find(root, "step_time_us"))
        made.stepTimeUs = in.nonNegative(*step, "step_time_us");
    if (const json* dispatch = in.find(root, "dispatch")) {
        const auto rule = dispatchFromName(in.string(*dispatch, "dispatch"));
        if (!rule)
            in.fail("dispatch", "must be \"ready\" or \"critical-path\"");
        made.dispatch = *rule;
    }
    if (const json* precision = in.find(root, "precision")) {
        const auto mode = parsePrecisionMode(in.string(*precision, "precision"));
        if (!mode)
            in.fail("precision", "must be \"fp32\", \"tf32\", \"amp\" or \"pytorch\"");
        made.precision = *mode;
    }
    if (const json* start = in.find(root, "start")) {
        in.object(*start, "start");
        in.rejectUnknownKeys(*start, {"file", "step_time_us", "fingerprint"}, "start");
        PlacementStart s;
        if (const json* file = in.find(*start, "file"))
            s.file = in.string(*file, "start.file");
        if (const json* step = in.find(*start, "step_time_us"))
            s.stepTimeUs = in.nonNegative(*step, "start.step_time_us");
        s.fingerprint = in.string(in.require(*start, "fingerprint", "start"), "start.fingerprint");
        const bool hex = s.fingerprint.size() == kFingerprintPrefix.size() + 16
            && s.fingerprint.starts_with(kFingerprintPrefix)
            && std::all_of(s.fingerprint.begin() + static_cast<std::ptrdiff_t>(kFingerprintPrefix.size()),
                           s.fingerprint.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
        if (!hex)
            in.fail("start.fingerprint", "must be \"fnv1a64:\" and 16 hex digits (0-9, a-f)");
        made.start = std::move(s);
    }
    return made;
}

} // namespace

PlacementProvenance checkPlacementHeader(const JsonInput& in, const nlohmann::json& root)
{
    in.requireFormat(root, kFamily, kVersion);
    in.rejectUnknownKeys(root,
                         {"format", "graph", "cluster", "algorithm", "seed", "step_time_us", "dispatch", "precision",
                          "start", "placement", "modules"},
                         {});
    // "graph" and "cluster" name what the placement was made for; they are informational
    // (op and device names are what must match).
    if (const json* g = in.find(root, "graph"))
        in.string(*g, "graph");
    if (const json* c = in.find(root, "cluster"))
        in.string(*c, "cluster");
    return readProvenance(in, root);
}

Placement parsePlacement(std::string_view text, const std::string& source, const Graph& graph, const Cluster& cluster)
{
    return parsePlacementWithProvenance(text, source, graph, cluster).placement;
}

PlacementWithProvenance parsePlacementWithProvenance(std::string_view text, const std::string& source,
                                                     const Graph& graph, const Cluster& cluster)
{
    const JsonInput in(source);
    const json root = in.parse(text);
    PlacementProvenance made = checkPlacementHeader(in, root);
    std::string graphName, clusterName; // what the file was made for (checked by checkPlacementHeader)
    if (const json* g = in.find(root, "graph"))
        graphName = g->get<std::string>();
    if (const json* c = in.find(root, "cluster"))
        clusterName = c->get<std::string>();
    // A placement of another graph: its errors say which one the file records.
    const std::string otherGraph = graphName.empty() || graphName == graph.name()
        ? std::string()
        : "; the file was made for graph \"" + graphName + "\", not \"" + graph.name() + "\"";
    const std::string otherCluster = clusterName.empty() || clusterName == cluster.name()
        ? std::string()
        : "; the file was made for cluster \"" + clusterName + "\"";

    // "modules" (op -> PyTorch module path, docs/pytorch.md) is for post_torch; checked, not used.
    if (const json* modules = in.find(root, "modules")) {
        const json& byOp = in.object(*modules, "modules");
        for (auto it = byOp.begin(); it != byOp.end(); ++it) {
            const std::string path = JsonInput::member("modules", it.key());
            in.string(it.value(), path);
            if (!graph.find(it.key()))
                in.fail(path, "unknown op \"" + it.key() + "\" (not in graph \"" + graph.name() + "\")" + otherGraph);
        }
    }

    const json& map = in.object(in.require(root, "placement", {}), "placement");
    Placement placement(static_cast<size_t>(graph.opCount()), kNoDevice);
    for (auto it = map.begin(); it != map.end(); ++it) {
        const std::string path = JsonInput::member("placement", it.key());
        const auto op = graph.find(it.key());
        if (!op)
            in.fail(path, "unknown op \"" + it.key() + "\" (not in graph \"" + graph.name() + "\")" + otherGraph);
        const std::string deviceName = in.string(it.value(), path);
        const auto device = findDevice(cluster, deviceName);
        if (!device)
            in.fail(path,
                    "unknown device \"" + deviceName + "\" (cluster \"" + cluster.name()
                        + "\" has: " + deviceList(cluster) + ")" + otherCluster);
        placement[static_cast<size_t>(*op)] = *device;
    }

    std::string missing;
    int missingCount = 0;
    for (OpId op = 0; op < graph.opCount(); ++op)
        if (placement[static_cast<size_t>(op)] == kNoDevice && ++missingCount <= 5)
            missing += (missing.empty() ? "\"" : ", \"") + graph.op(op).name + "\"";
    if (missingCount > 0)
        in.fail("placement",
                std::to_string(missingCount) + " of " + std::to_string(graph.opCount())
                    + " ops have no device: " + missing + (missingCount > 5 ? ", ..." : "") + otherGraph);
    if (auto problem = placementProblem(graph, cluster, placement))
        in.fail("placement", *problem);
    return {std::move(placement), std::move(made), std::move(graphName), std::move(clusterName)};
}

Placement readPlacementFile(const std::string& path, const Graph& graph, const Cluster& cluster)
{
    return readPlacementFileWithProvenance(path, graph, cluster).placement;
}

PlacementWithProvenance readPlacementFileWithProvenance(const std::string& path, const Graph& graph,
                                                        const Cluster& cluster)
{
    return parsePlacementWithProvenance(JsonInput::readFile(path, JsonInput::kMaxPlacementBytes), path, graph, cluster);
}

std::string placementFingerprint(const Graph& graph, const Cluster& cluster, const Placement& placement)
{
    if (static_cast<int>(placement.size()) != graph.opCount())
        throw std::invalid_argument("placementFingerprint: placement size does not match the graph");
    Fnv1a64 hash;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const DeviceId d = placement[static_cast<size_t>(op)];
        if (d < 0 || d >= cluster.deviceCount())
            throw std::invalid_argument("placementFingerprint: op '" + graph.op(op).name + "' has no device");
        hash.add(graph.op(op).name);
        hash.add("\t");
        hash.add(cluster.device(d).name);
        hash.add("\n");
    }
    return hash.fingerprint();
}

std::string placementJson(const Graph& graph, const Cluster& cluster, const Placement& placement,
                          const std::vector<std::optional<std::string>>& modules, const PlacementProvenance& made)
{
    if (!modules.empty() && static_cast<int>(modules.size()) != graph.opCount())
        throw std::invalid_argument("placementJson: module list size does not match the graph");
    if (static_cast<int>(placement.size()) != graph.opCount())
        throw std::invalid_argument("placementJson: placement size does not match the graph");
    using nlohmann::ordered_json;
    ordered_json root;
    root["format"] = std::string(kFamily) + "/" + std::to_string(kVersion);
    root["graph"] = graph.name();
    root["cluster"] = cluster.name();
    if (!made.algorithm.empty()) {
        root["algorithm"] = made.algorithm;
        if (made.seed)
            root["seed"] = *made.seed;
    }
    if (made.stepTimeUs && std::isfinite(*made.stepTimeUs)) {
        root["step_time_us"] = JsonOutput::number(*made.stepTimeUs);
        if (made.dispatch != Dispatch::ReadyOrder)
            root["dispatch"] = std::string(dispatchName(made.dispatch));
        if (made.precision)
            root["precision"] = std::string(toString(*made.precision));
    }
    if (!made.algorithm.empty() && made.start) {
        ordered_json start = ordered_json::object();
        if (!made.start->file.empty())
            start["file"] = made.start->file;
        if (made.start->stepTimeUs && std::isfinite(*made.start->stepTimeUs))
            start["step_time_us"] = JsonOutput::number(*made.start->stepTimeUs);
        start["fingerprint"] = made.start->fingerprint;
        root["start"] = std::move(start);
    }
    std::string text = JsonOutput::document(root);
    // The op map is written by hand: ordered_json's object lookups are linear, which is
    // quadratic for graphs with thousands of ops.
    text.erase(text.rfind("\n}"));
    text += ",\n  \"placement\": {";
    for (OpId op = 0; op < graph.opCount(); ++op) {
        const DeviceId d = placement[static_cast<size_t>(op)];
        if (d < 0 || d >= cluster.deviceCount())
            throw std::invalid_argument("placementJson: op '" + graph.op(op).name + "' has no device");
        text += (op == 0 ? "\n    " : ",\n    ") + json(graph.op(op).name).dump() + ": "
            + json(cluster.device(d).name).dump();
    }
    text += graph.opCount() > 0 ? "\n  }" : "}";
    if (!modules.empty()) {
        text += ",\n  \"modules\": {";
        bool first = true;
        for (OpId op = 0; op < graph.opCount(); ++op)
            if (const auto& module = modules[static_cast<size_t>(op)]) {
                text += (first ? "\n    " : ",\n    ") + json(graph.op(op).name).dump() + ": " + json(*module).dump();
                first = false;
            }
        text += first ? "}" : "\n  }";
    }
    text += "\n}\n";
    return text;
}

} // namespace post
