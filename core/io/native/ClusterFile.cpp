#include "core/io/native/ClusterFile.h"

#include "core/io/json/JsonInput.h"
#include "core/io/json/JsonOutput.h"
#include "core/util/FileText.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

namespace post {
namespace {

using nlohmann::json;

constexpr std::string_view kFamily = "post-cluster";
constexpr int kVersion = 1;
constexpr double kFlopsPerTflops = 1e12;
constexpr double kBytesPerGB = 1e9;

// Limits (docs/formats.md): the link table holds devices x devices entries, and speed and
// bandwidth divide times and sizes, so tiny values would turn them into infinity.
constexpr size_t kMaxDevices = 1024;
constexpr double kMinSpeed = 1e-6, kMaxSpeed = 1e6;
constexpr double kMinBandwidthGBps = 1e-6, kMaxBandwidthGBps = 1e9;
constexpr double kMaxLatencyUs = 1e12;
// Roofline times divide FLOPs and bytes by these: the same span as speed and bandwidth.
constexpr double kMinPeakTflops = 1e-6, kMaxPeakTflops = 1e9;
constexpr double kMinMemoryBandwidthGBps = 1e-6, kMaxMemoryBandwidthGBps = 1e9;
constexpr double kMinClockMHz = 1.0, kMaxClockMHz = 1e5;
// Memory sums many op sizes (each at most GraphBuilder's 1e24 bytes) and is written back.
constexpr double kMaxMemoryBytes = 1e30;

// Missing fields keep the values of `base`.
Link readLink(const JsonInput& in, const json& value, const std::string& path, Link base)
{
    if (const json* bw = in.find(value, "bandwidth_GBps")) {
        const std::string field = JsonInput::member(path, "bandwidth_GBps");
        in.positive(*bw, field);
        base.bytesPerUs = in.within(*bw, field, kMinBandwidthGBps, kMaxBandwidthGBps) * Link::kBytesPerUsPerGBps;
    }
    if (const json* latency = in.find(value, "latency_us")) {
        const std::string field = JsonInput::member(path, "latency_us");
        in.nonNegative(*latency, field);
        base.latencyUs = in.within(*latency, field, 0.0, kMaxLatencyUs);
    }
    return base;
}

// The roofline's efficiencies a device may give (Device::computeEfficiency, ...): shares of a
// peak, so in (0, 1]; below 1 % no kernel would be worth modelling.
constexpr double kMinEfficiency = 0.01;
constexpr std::pair<const char*, double Device::*> kEfficiencyFields[] = {
    {"compute_efficiency", &Device::computeEfficiency},
    {"tensor_core_efficiency", &Device::tensorCoreEfficiency},
    {"memory_efficiency", &Device::memoryEfficiency},
    {"streaming_memory_efficiency", &Device::streamingMemoryEfficiency}};

Device readDevice(const JsonInput& in, const json& value, const std::string& path)
{
    in.object(value, path);
    in.rejectUnknownKeys(value,
                         {"name", "kind", "type", "speed", "memory_bytes", "peak_tflops", "peak_tf32_tflops",
                          "peak_fp16_tflops", "peak_int8_tops", "memory_bandwidth_GBps", "clock_MHz",
                          "sustained_clock_MHz", "compute_efficiency", "tensor_core_efficiency", "memory_efficiency",
                          "streaming_memory_efficiency"},
                         path);
    Device d;
    d.name = in.nonEmptyString(in.require(value, "name", path), JsonInput::member(path, "name"));
    const std::string kindPath = JsonInput::member(path, "kind");
    const std::string kindText = in.string(in.require(value, "kind", path), kindPath);
    const auto kind = parseDeviceKind(kindText);
    if (!kind || kindText != toString(*kind))
        in.fail(kindPath, "unknown device kind \"" + kindText + "\" (expected \"cpu\" or \"gpu\")");
    d.kind = *kind;
    if (const json* type = in.find(value, "type")) {
        const std::string field = JsonInput::member(path, "type");
        d.type = in.string(*type, field);
        if (std::string problem = deviceTypeProblem(d.type); !problem.empty())
            in.fail(field, problem);
    }
    if (const json* speed = in.find(value, "speed")) {
        in.positive(*speed, JsonInput::member(path, "speed"));
        d.speed = in.within(*speed, JsonInput::member(path, "speed"), kMinSpeed, kMaxSpeed);
    }
    if (const json* memory = in.find(value, "memory_bytes")) {
        const std::string field = JsonInput::member(path, "memory_bytes");
        in.positive(*memory, field);
        d.memoryBytes = in.within(*memory, field, 0.0, kMaxMemoryBytes);
    }
    if (const json* peak = in.find(value, "peak_tflops")) {
        const std::string field = JsonInput::member(path, "peak_tflops");
        in.positive(*peak, field);
        d.peakFlops = in.within(*peak, field, kMinPeakTflops, kMaxPeakTflops) * kFlopsPerTflops;
    }
    // Tensor-core peaks: the same bounds as the FP32 peak.
    const std::pair<const char*, double Device::*> tensorPeaks[] = {{"peak_tf32_tflops", &Device::peakTf32Flops},
                                                                    {"peak_fp16_tflops", &Device::peakFp16Flops},
                                                                    {"peak_int8_tops", &Device::peakInt8Ops}};
    for (const auto& [key, member] : tensorPeaks)
        if (const json* peak = in.find(value, key)) {
            const std::string field = JsonInput::member(path, key);
            in.positive(*peak, field);
            d.*member = in.within(*peak, field, kMinPeakTflops, kMaxPeakTflops) * kFlopsPerTflops;
        }
    if (const json* bw = in.find(value, "memory_bandwidth_GBps")) {
        const std::string field = JsonInput::member(path, "memory_bandwidth_GBps");
        in.positive(*bw, field);
        d.memoryBandwidth = in.within(*bw, field, kMinMemoryBandwidthGBps, kMaxMemoryBandwidthGBps) * kBytesPerGB;
    }
    // Clocks: the roofline scales the compute peaks by sustained / quoted, so one without the
    // other means nothing.
    const json* clock = in.find(value, "clock_MHz");
    const json* sustained = in.find(value, "sustained_clock_MHz");
    for (const auto& [key, given, member] : {std::tuple{"clock_MHz", clock, &Device::clockMHz},
                                             std::tuple{"sustained_clock_MHz", sustained, &Device::sustainedClockMHz}})
        if (given) {
            const std::string field = JsonInput::member(path, key);
            in.positive(*given, field);
            d.*member = in.within(*given, field, kMinClockMHz, kMaxClockMHz);
        }
    if ((clock == nullptr) != (sustained == nullptr))
        in.fail(JsonInput::member(path, clock ? "clock_MHz" : "sustained_clock_MHz"),
                "\"clock_MHz\" and \"sustained_clock_MHz\" go together: the compute peaks scale by their ratio");
    for (const auto& [key, member] : kEfficiencyFields)
        if (const json* e = in.find(value, key)) {
            const std::string field = JsonInput::member(path, key);
            in.positive(*e, field);
            d.*member = in.within(*e, field, kMinEfficiency, 1.0);
        }
    return d;
}

nlohmann::ordered_json linkFields(const Link& link)
{
    nlohmann::ordered_json o;
    o["bandwidth_GBps"] = JsonOutput::number(link.bytesPerUs / Link::kBytesPerUsPerGBps);
    o["latency_us"] = JsonOutput::number(link.latencyUs);
    return o;
}

bool sameLink(const Link& a, const Link& b) { return a.bytesPerUs == b.bytesPerUs && a.latencyUs == b.latencyUs; }

} // namespace

Cluster parseCluster(std::string_view text, const std::string& source)
{
    const JsonInput in(source);
    const json root = in.parse(text);
    in.requireFormat(root, kFamily, kVersion);
    in.rejectUnknownKeys(
        root, {"format", "name", "precision", "devices", "links", "default_link", "host_dispatch_us_per_op"}, {});

    std::string name = std::filesystem::path(source).stem().string();
    if (const json* n = in.find(root, "name"))
        name = in.string(*n, "name");

    const json& devicesField = in.array(in.require(root, "devices", {}), "devices");
    if (devicesField.empty())
        in.fail("devices", "a cluster needs at least one device");
    if (devicesField.size() > kMaxDevices)
        in.fail("devices",
                std::to_string(devicesField.size()) + " devices: at most " + std::to_string(kMaxDevices)
                    + " are supported");
    std::vector<Device> devices;
    std::unordered_map<std::string, size_t> firstIndex;
    for (size_t i = 0; i < devicesField.size(); ++i) {
        const std::string path = JsonInput::element("devices", i);
        Device d = readDevice(in, devicesField[i], path);
        auto [it, inserted] = firstIndex.emplace(d.name, i);
        if (!inserted)
            in.fail(JsonInput::member(path, "name"),
                    "duplicate device \"" + d.name + "\" (first defined at devices[" + std::to_string(it->second) + "])");
        devices.push_back(std::move(d));
    }

    Link defaultLink;
    if (const json* dl = in.find(root, "default_link")) {
        in.object(*dl, "default_link");
        in.rejectUnknownKeys(*dl, {"bandwidth_GBps", "latency_us"}, "default_link");
        defaultLink = readLink(in, *dl, "default_link", defaultLink);
    }
    Cluster cluster(name, std::move(devices), defaultLink);
    if (const json* p = in.find(root, "precision")) {
        const std::string text = in.string(*p, "precision");
        const auto mode = parsePrecisionMode(text);
        if (!mode)
            in.fail("precision", "unknown precision mode \"" + text + "\" (expected \"fp32\", \"tf32\" or \"amp\")");
        cluster.setPrecision(*mode);
    }
    if (const json* h = in.find(root, "host_dispatch_us_per_op")) {
        cluster.setHostDispatchUsPerOp(in.within(*h, "host_dispatch_us_per_op", 0.1, 1e6));
    }

    if (const json* linksField = in.find(root, "links")) {
        in.array(*linksField, "links");
        std::map<std::pair<DeviceId, DeviceId>, size_t> setBy;
        for (size_t i = 0; i < linksField->size(); ++i) {
            const std::string path = JsonInput::element("links", i);
            const json& value = in.object((*linksField)[i], path);
            in.rejectUnknownKeys(value, {"from", "to", "bandwidth_GBps", "latency_us", "bidirectional"}, path);
            DeviceId ends[2];
            const char* keys[2] = {"from", "to"};
            for (int k = 0; k < 2; ++k) {
                const std::string field = JsonInput::member(path, keys[k]);
                const std::string deviceName = in.nonEmptyString(in.require(value, keys[k], path), field);
                const auto id = cluster.find(deviceName);
                if (!id)
                    in.fail(field, "unknown device \"" + deviceName + "\"");
                ends[k] = *id;
            }
            if (ends[0] == ends[1])
                in.fail(path,
                        "a link joins two different devices (\"from\" and \"to\" are both \""
                            + cluster.device(ends[0]).name + "\")");
            const Link link = readLink(in, value, path, defaultLink);
            bool both = false;
            if (const json* b = in.find(value, "bidirectional"))
                both = in.boolean(*b, JsonInput::member(path, "bidirectional"));
            for (int dir = 0; dir < (both ? 2 : 1); ++dir) {
                const DeviceId from = ends[dir], to = ends[1 - dir];
                auto [it, inserted] = setBy.emplace(std::make_pair(from, to), i);
                if (!inserted)
                    in.fail(path,
                            "the link " + cluster.device(from).name + " -> " + cluster.device(to).name
                                + " is already given by links[" + std::to_string(it->second) + "]");
                cluster.setLink(from, to, link);
            }
        }
    }
    return cluster;
}

Cluster readClusterFile(const std::string& path)
{
    return parseCluster(JsonInput::readFile(path, JsonInput::kMaxClusterBytes), path);
}

std::string clusterJson(const Cluster& cluster)
{
    using nlohmann::ordered_json;
    ordered_json root;
    root["format"] = std::string(kFamily) + "/" + std::to_string(kVersion);
    root["name"] = cluster.name();
    if (cluster.precision() != PrecisionMode::Tf32)
        root["precision"] = std::string(toString(cluster.precision()));
    if (const auto us = cluster.hostDispatchUsPerOp())
        root["host_dispatch_us_per_op"] = JsonOutput::number(*us);
    ordered_json devices = ordered_json::array();
    for (const Device& d : cluster.devices()) {
        ordered_json o;
        o["name"] = d.name;
        o["kind"] = std::string(toString(d.kind));
        if (!d.type.empty())
            o["type"] = d.type;
        o["speed"] = JsonOutput::number(d.speed);
        if (std::isfinite(d.memoryBytes))
            o["memory_bytes"] = JsonOutput::number(d.memoryBytes);
        if (d.peakFlops > 0.0)
            o["peak_tflops"] = JsonOutput::number(d.peakFlops / kFlopsPerTflops);
        if (d.peakTf32Flops > 0.0)
            o["peak_tf32_tflops"] = JsonOutput::number(d.peakTf32Flops / kFlopsPerTflops);
        if (d.peakFp16Flops > 0.0)
            o["peak_fp16_tflops"] = JsonOutput::number(d.peakFp16Flops / kFlopsPerTflops);
        if (d.peakInt8Ops > 0.0)
            o["peak_int8_tops"] = JsonOutput::number(d.peakInt8Ops / kFlopsPerTflops);
        if (d.memoryBandwidth > 0.0)
            o["memory_bandwidth_GBps"] = JsonOutput::number(d.memoryBandwidth / kBytesPerGB);
        if (d.clockMHz > 0.0 && d.sustainedClockMHz > 0.0) {
            o["clock_MHz"] = JsonOutput::number(d.clockMHz);
            o["sustained_clock_MHz"] = JsonOutput::number(d.sustainedClockMHz);
        }
        for (const auto& [key, member] : kEfficiencyFields)
            if (d.*member > 0.0)
                o[key] = JsonOutput::number(d.*member);
        devices.push_back(std::move(o));
    }
    root["devices"] = std::move(devices);
    root["default_link"] = linkFields(cluster.defaultLink());

    ordered_json links = ordered_json::array();
    const int n = cluster.deviceCount();
    for (DeviceId a = 0; a < n; ++a)
        for (DeviceId b = 0; b < n; ++b) {
            if (a == b || sameLink(cluster.link(a, b), cluster.defaultLink()))
                continue;
            const bool symmetric = sameLink(cluster.link(a, b), cluster.link(b, a));
            if (symmetric && b < a)
                continue; // written with the (b, a) entry
            ordered_json o;
            o["from"] = cluster.device(a).name;
            o["to"] = cluster.device(b).name;
            const ordered_json fields = linkFields(cluster.link(a, b));
            for (auto it = fields.begin(); it != fields.end(); ++it)
                o[it.key()] = it.value();
            if (symmetric)
                o["bidirectional"] = true;
            links.push_back(std::move(o));
        }
    if (!links.empty())
        root["links"] = std::move(links);
    return JsonOutput::document(root);
}

} // namespace post
