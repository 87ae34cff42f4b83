#include "core/io/native/NativeGraphReader.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/json/JsonInput.h"
#include "core/io/json/JsonOutput.h"
#include "core/util/InputError.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace post {
namespace {

using nlohmann::json;

constexpr std::string_view kFamily = "post-graph";
constexpr int kVersion = 1;

std::string defaultName(const std::string& source) { return std::filesystem::path(source).stem().string(); }

// time_us: times per device kind ("gpu", "cpu") and per device type ("v100": docs/formats.md).
// A missing kind is derived from the other one; a type alone is refused, since devices of
// every other type (or none) need a kind's time.
void readTimes(const JsonInput& in, const json& times, const std::string& path, const ImportOptions& options, Op& op)
{
    in.object(times, path);
    bool given[kDeviceKindCount] = {};
    std::string firstType;
    for (auto it = times.begin(); it != times.end(); ++it) {
        const std::string field = JsonInput::member(path, it.key());
        if (it.key().starts_with("x-"))
            continue;
        const auto kind = parseDeviceKind(it.key());
        if (kind && it.key() == toString(*kind)) {
            op.timeUs[static_cast<size_t>(*kind)] = in.nonNegative(it.value(), field);
            given[static_cast<size_t>(*kind)] = true;
            continue;
        }
        if (std::string problem = deviceTypeProblem(it.key()); !problem.empty())
            in.fail(field,
                    "\"" + it.key() + "\" is neither a device kind (\"cpu\", \"gpu\") nor a device type: " + problem);
        op.setTypedTime(it.key(), in.nonNegative(it.value(), field));
        if (firstType.empty())
            firstType = it.key();
    }
    const auto cpu = static_cast<size_t>(DeviceKind::Cpu);
    const auto gpu = static_cast<size_t>(DeviceKind::Gpu);
    if (!firstType.empty() && !given[cpu] && !given[gpu])
        in.fail(JsonInput::member(path, firstType),
                "a time for device type \"" + firstType
                    + "\" needs one for a device kind too (\"gpu\" or \"cpu\"): devices of other types take it");
    if (given[gpu] && !given[cpu]) {
        op.timeUs[cpu] = derivedCpuTimeUs(op.timeUs[gpu], options); // capped: a bad GPU time is named as one
        op.derivedKinds |= 1U << cpu;
    } else if (given[cpu] && !given[gpu]) {
        op.timeUs[gpu] = op.timeUs[cpu] / options.cpuSlowdown;
        op.derivedKinds |= 1U << gpu;
    }
}

Op readOp(const JsonInput& in, const json& value, const std::string& path, const ImportOptions& options)
{
    in.object(value, path);
    in.rejectUnknownKeys(
        value,
        {"name",       "type",     "time_us",      "output_bytes", "param_bytes", "resident_bytes",     "colocate",
         "cpu_only",   "flops",    "memory_bytes", "matrix",       "convolution", "narrow_convolution", "streaming",
         "precision",  "measured", "measured_by",  "body",         "fused_into",  "winograd",           "pass_bytes",
         "collective", "derived"},
        path);
    Op op;
    op.name = in.nonEmptyString(in.require(value, "name", path), JsonInput::member(path, "name"));
    if (const json* type = in.find(value, "type"))
        op.type = in.string(*type, JsonInput::member(path, "type"));
    if (const json* times = in.find(value, "time_us"))
        readTimes(in, *times, JsonInput::member(path, "time_us"), options, op);
    if (const json* bytes = in.find(value, "output_bytes"))
        op.outputBytes = in.nonNegative(*bytes, JsonInput::member(path, "output_bytes"));
    if (const json* bytes = in.find(value, "param_bytes"))
        op.paramBytes = in.nonNegative(*bytes, JsonInput::member(path, "param_bytes"));
    if (const json* bytes = in.find(value, "resident_bytes"))
        op.residentBytes = in.nonNegative(*bytes, JsonInput::member(path, "resident_bytes"));
    if (const json* group = in.find(value, "colocate"))
        op.colocate = in.string(*group, JsonInput::member(path, "colocate"));
    if (const json* cpuOnly = in.find(value, "cpu_only"))
        op.cpuOnly = in.boolean(*cpuOnly, JsonInput::member(path, "cpu_only"));
    if (const json* body = in.find(value, "body"))
        op.body = in.string(*body, JsonInput::member(path, "body"));
    if (const json* root = in.find(value, "fused_into"))
        op.fusedInto = in.nonEmptyString(*root, JsonInput::member(path, "fused_into"));
    if (const json* flops = in.find(value, "flops"))
        op.flops = in.nonNegative(*flops, JsonInput::member(path, "flops"));
    if (const json* bytes = in.find(value, "memory_bytes"))
        op.memoryBytes = in.nonNegative(*bytes, JsonInput::member(path, "memory_bytes"));
    if (const json* matrix = in.find(value, "matrix"))
        op.matrixOp = in.boolean(*matrix, JsonInput::member(path, "matrix"));
    // Files written before "convolution" existed: a matrix op whose type names a convolution.
    op.convolution = op.matrixOp && op.type.find("Conv") != std::string::npos;
    if (const json* conv = in.find(value, "convolution"))
        op.convolution = in.boolean(*conv, JsonInput::member(path, "convolution"));
    if (const json* narrow = in.find(value, "narrow_convolution"))
        op.narrowConvolution = in.boolean(*narrow, JsonInput::member(path, "narrow_convolution"));
    if (const json* streaming = in.find(value, "streaming"))
        op.streaming = in.boolean(*streaming, JsonInput::member(path, "streaming"));
    if (const json* winograd = in.find(value, "winograd")) {
        const std::string at = JsonInput::member(path, "winograd");
        in.object(*winograd, at);
        in.rejectUnknownKeys(*winograd, {"flops", "gemm_bytes", "transform_bytes"}, at);
        op.winogradFlops = in.positive(in.require(*winograd, "flops", at), JsonInput::member(at, "flops"));
        op.winogradGemmBytes = in.nonNegative(in.require(*winograd, "gemm_bytes", at),
                                              JsonInput::member(at, "gemm_bytes"));
        op.winogradTransformBytes = in.nonNegative(in.require(*winograd, "transform_bytes", at),
                                                   JsonInput::member(at, "transform_bytes"));
    }
    if (const json* pass = in.find(value, "pass_bytes"))
        op.passBytes = in.nonNegative(*pass, JsonInput::member(path, "pass_bytes"));
    if (const json* collective = in.find(value, "collective")) {
        const std::string at = JsonInput::member(path, "collective");
        in.object(*collective, at);
        in.rejectUnknownKeys(*collective, {"kind", "bytes", "ranks"}, at);
        const std::string kindAt = JsonInput::member(at, "kind");
        const std::string kind = in.string(in.require(*collective, "kind", at), kindAt);
        const auto parsed = parseCollectiveKind(kind);
        if (!parsed)
            in.fail(kindAt,
                    "unknown collective \"" + kind
                        + "\" (all_reduce, reduce, all_gather, gather, scatter, broadcast, all_to_all, "
                          "reduce_scatter, barrier or other)");
        op.collective = *parsed;
        if (const json* bytes = in.find(*collective, "bytes"))
            op.collectiveBytes = in.nonNegative(*bytes, JsonInput::member(at, "bytes"));
        if (const json* ranks = in.find(*collective, "ranks"))
            op.collectiveRanks = static_cast<int>(
                in.within(*ranks, JsonInput::member(at, "ranks"), 0, GraphBuilder::kMaxCollectiveRanks));
    }
    if (const json* precision = in.find(value, "precision")) {
        const std::string field = JsonInput::member(path, "precision");
        const std::string text = in.string(*precision, field);
        if (text == "fp32")
            op.precision = ElementPrecision::Fp32;
        else if (text == "fp16" || text == "bf16")
            op.precision = ElementPrecision::Half;
        else if (text == "int8")
            op.precision = ElementPrecision::Int8;
        else
            in.fail(field, "unknown precision \"" + text + "\" (fp32, fp16, bf16 or int8)");
    }
    if (const json* measured = in.find(value, "measured")) {
        const std::string at = JsonInput::member(path, "measured");
        const json& kinds = in.array(*measured, at);
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            const std::string name = in.string(kinds[i], JsonInput::element(at, i));
            const auto kind = parseDeviceKind(name);
            if (kind) {
                op.measuredKinds |= 1U << static_cast<int>(*kind);
                continue;
            }
            const TypedTime* typed = op.typedTime(name);
            if (!typed)
                in.fail(JsonInput::element(at, i),
                        "unknown device kind \"" + name + "\" (cpu or gpu), nor a device type time_us gives");
            op.setTypedTime(name, typed->us, true);
        }
    }
    if (const json* by = in.find(value, "measured_by"))
        op.measuredBy = in.nonEmptyString(*by, JsonInput::member(path, "measured_by"));
    if (const json* derived = in.find(value, "derived")) {
        // Kinds whose time the file this graph was converted from did not give (Op::derivedKinds).
        const std::string at = JsonInput::member(path, "derived");
        const json& kinds = in.array(*derived, at);
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            const auto kind = parseDeviceKind(in.string(kinds[i], JsonInput::element(at, i)));
            if (!kind)
                in.fail(JsonInput::element(at, i), "unknown device kind (cpu or gpu)");
            if (op.measured(*kind))
                in.fail(JsonInput::element(at, i),
                        std::string("\"") + std::string(toString(*kind))
                            + "\" is in \"measured\" too: a time is one or the other");
            op.derivedKinds |= 1U << static_cast<int>(*kind);
        }
    }
    return op;
}

// "origin": the format the graph was first read from and what that import decided (docs/formats.md).
void readOrigin(const JsonInput& in, const json& root, ImportedGraph& imported)
{
    const json* origin = in.find(root, "origin");
    if (!origin)
        return;
    in.object(*origin, "origin");
    in.rejectUnknownKeys(
        *origin, {"format", "forward_flops", "kernel_fusion", "kernel_fusion_why", "eager_host", "data_dependent_sizes"},
        "origin");
    const std::string name = in.string(in.require(*origin, "format", "origin"), "origin.format");
    const auto format = parseGraphFormat(name);
    if (!format || *format == GraphFormat::Auto || *format == GraphFormat::PostGraph || *format == GraphFormat::Kineto)
        in.fail("origin.format",
                "unknown graph format \"" + name + "\" (a --format name other than auto and post-graph)");
    imported.origin = *format;
    if (const json* flops = in.find(*origin, "forward_flops"))
        imported.forwardFlops = in.nonNegative(*flops, "origin.forward_flops");
    if (const json* fused = in.find(*origin, "kernel_fusion"))
        imported.fused = in.boolean(*fused, "origin.kernel_fusion");
    if (const json* why = in.find(*origin, "kernel_fusion_why"))
        imported.fusionWhy = in.string(*why, "origin.kernel_fusion_why");
    if (const json* eager = in.find(*origin, "eager_host"))
        imported.eagerHost = in.boolean(*eager, "origin.eager_host");
    if (const json* sizes = in.find(*origin, "data_dependent_sizes")) {
        const json& list = in.array(*sizes, "origin.data_dependent_sizes");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = JsonInput::element("origin.data_dependent_sizes", i);
            const json& item = in.object(list[i], at);
            in.rejectUnknownKeys(item, {"node", "location", "what", "largest", "value", "at_most"}, at);
            auto count = [&](std::string_view key) {
                const std::string path = JsonInput::member(at, key);
                const double v = in.within(in.require(item, key, at), path, 0.0, 9007199254740992.0);
                if (v != std::floor(v))
                    in.fail(path, "expected a whole number, got " + JsonOutput::number(v).dump());
                return static_cast<std::int64_t>(v);
            };
            DataDependentSize& size = imported.dataDependentSizes.emplace_back();
            size.node = in.nonEmptyString(in.require(item, "node", at), JsonInput::member(at, "node"));
            size.location = in.stringOr(item, "location", at, size.node);
            size.what = in.stringOr(item, "what", at, "");
            size.largest = count("largest");
            size.value = count("value");
            if (size.value > size.largest)
                in.fail(JsonInput::member(at, "value"), "is above largest (" + std::to_string(size.largest) + ")");
            if (const json* most = in.find(item, "at_most"))
                size.atMost = in.boolean(*most, JsonInput::member(at, "at_most"));
        }
        if (std::string note = dataDependentSizesNote(imported.dataDependentSizes); !note.empty())
            imported.notes.push_back(std::move(note));
    }
}

Graph readGraph(const JsonInput& in, const json& root, const std::string& source, const ImportOptions& options)
{
    std::string name = defaultName(source);
    if (const json* n = in.find(root, "name"))
        name = in.string(*n, "name");
    const json& ops = in.array(in.require(root, "ops", {}), "ops");
    static const json kNoEdges = json::array();
    const json* edgesField = in.find(root, "edges");
    const json& edges = edgesField ? in.array(*edgesField, "edges") : kNoEdges;

    GraphBuilder builder(name);
    builder.reserve(ops.size(), edges.size());
    try {
        std::unordered_map<std::string, size_t> firstIndex;
        for (size_t i = 0; i < ops.size(); ++i) {
            const std::string path = JsonInput::element("ops", i);
            Op op = readOp(in, ops[i], path, options);
            auto [it, inserted] = firstIndex.emplace(op.name, i);
            if (!inserted)
                in.fail(JsonInput::member(path, "name"),
                        "duplicate op \"" + op.name + "\" (first defined at ops[" + std::to_string(it->second) + "])");
            try {
                builder.addOp(std::move(op));
            } catch (const GraphError& e) { // a value past GraphBuilder's limits
                in.fail(path, e.what());
            }
        }
        for (size_t i = 0; i < edges.size(); ++i) {
            const std::string path = JsonInput::element("edges", i);
            const json& edge = in.object(edges[i], path);
            in.rejectUnknownKeys(edge, {"from", "to", "bytes"}, path);
            OpId ends[2];
            const char* keys[2] = {"from", "to"};
            for (int k = 0; k < 2; ++k) {
                const std::string field = JsonInput::member(path, keys[k]);
                const std::string opName = in.nonEmptyString(in.require(edge, keys[k], path), field);
                const auto id = builder.find(opName);
                if (!id)
                    in.fail(field, "unknown op \"" + opName + "\"");
                ends[k] = *id;
            }
            if (ends[0] == ends[1])
                in.fail(path, "cycle: op \"" + builder.op(ends[0]).name + "\" feeds itself");
            double bytes = builder.op(ends[0]).outputBytes;
            if (const json* b = in.find(edge, "bytes"))
                bytes = in.nonNegative(*b, JsonInput::member(path, "bytes"));
            builder.addEdge(ends[0], ends[1], bytes);
        }
        return std::move(builder).build();
    } catch (const GraphError& e) {
        // Fields were checked above, so what is left is structural: a cycle.
        throw InputError(source, "edges", e.what());
    }
}

ImportedGraph readNative(std::string_view text, const std::string& source, const ImportOptions& options)
{
    if (!std::isfinite(options.cpuSlowdown) || options.cpuSlowdown <= 0.0)
        throw std::invalid_argument("ImportOptions::cpuSlowdown must be a finite number > 0");
    const JsonInput in(source);
    const json root = in.parse(text);
    in.requireFormat(root, kFamily, kVersion);
    in.rejectUnknownKeys(root, {"format", "name", "origin", "ops", "edges"}, {});
    ImportedGraph imported;
    readOrigin(in, root, imported);
    imported.graph = readGraph(in, root, source, options);
    imported.source = source;
    return imported;
}

} // namespace

Graph parseNativeGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    return std::move(readNative(text, source, options).graph);
}

ImportedGraph importNativeGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    return readNative(text, source, options);
}

namespace {

// The "origin" object of `imported`, or none: where it came from is post-graph/1 itself.
std::optional<nlohmann::ordered_json> originJson(const ImportedGraph& imported)
{
    const GraphFormat from = imported.originFormat();
    if (from == GraphFormat::Auto || from == GraphFormat::PostGraph)
        return std::nullopt;
    nlohmann::ordered_json origin;
    origin["format"] = std::string(toString(from));
    if (imported.forwardFlops >= 0.0)
        origin["forward_flops"] = JsonOutput::number(imported.forwardFlops);
    if (imported.fused) {
        origin["kernel_fusion"] = *imported.fused;
        if (!imported.fusionWhy.empty())
            origin["kernel_fusion_why"] = imported.fusionWhy;
    }
    if (imported.eagerHost)
        origin["eager_host"] = true;
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    for (const DataDependentSize& s : imported.dataDependentSizes)
        if (s.value >= 0) // the sizes the graph was read with: a worst case stays one
            sizes.push_back({{"node", s.node},
                             {"location", s.location},
                             {"what", s.what},
                             {"largest", s.largest},
                             {"value", s.value},
                             {"at_most", s.atMost}});
    if (!sizes.empty())
        origin["data_dependent_sizes"] = std::move(sizes);
    return origin;
}

std::string graphJson(const Graph& graph, const std::optional<nlohmann::ordered_json>& origin)
{
    using nlohmann::ordered_json;
    // JsonOutput::document's layout, written line by line: a tree of the whole graph first
    // took about 5 KB per op (2.6 GB for `zoo generate nmt-8 --steps 1000`).
    std::string text = "{\n  \"format\": " + JsonOutput::inlineText(std::string(kFamily) + "/" + std::to_string(kVersion))
        + ",\n  \"name\": " + JsonOutput::inlineText(graph.name())
        + (origin ? ",\n  \"origin\": " + JsonOutput::inlineText(*origin) : std::string()) + ",\n  \"ops\": ";
    const auto element = [&text](std::size_t i, std::size_t count, const ordered_json& value) {
        text += (i == 0 ? "[\n    " : "    ") + JsonOutput::inlineText(value) + (i + 1 < count ? ",\n" : "\n  ]");
    };
    if (graph.ops().empty())
        text += "[]";
    for (const Op& op : graph.ops()) {
        ordered_json o;
        o["name"] = op.name;
        if (!op.type.empty())
            o["type"] = op.type;
        o["time_us"]["gpu"] = JsonOutput::number(op.time(DeviceKind::Gpu));
        o["time_us"]["cpu"] = JsonOutput::number(op.time(DeviceKind::Cpu));
        for (const TypedTime& t : op.typedTimes)
            o["time_us"][t.type] = JsonOutput::number(t.us);
        o["output_bytes"] = JsonOutput::number(op.outputBytes);
        if (op.paramBytes != 0.0)
            o["param_bytes"] = JsonOutput::number(op.paramBytes);
        if (op.residentBytes != 0.0)
            o["resident_bytes"] = JsonOutput::number(op.residentBytes);
        if (!op.colocate.empty())
            o["colocate"] = op.colocate;
        if (op.cpuOnly)
            o["cpu_only"] = true;
        if (!op.body.empty())
            o["body"] = op.body;
        if (!op.fusedInto.empty())
            o["fused_into"] = op.fusedInto;
        if (op.flops != 0.0)
            o["flops"] = JsonOutput::number(op.flops);
        if (op.memoryBytes != 0.0)
            o["memory_bytes"] = JsonOutput::number(op.memoryBytes);
        if (op.matrixOp)
            o["matrix"] = true;
        if (op.convolution)
            o["convolution"] = true;
        if (op.narrowConvolution)
            o["narrow_convolution"] = true;
        if (op.streaming)
            o["streaming"] = true;
        if (op.winogradFlops > 0.0) {
            ordered_json w;
            w["flops"] = JsonOutput::number(op.winogradFlops);
            w["gemm_bytes"] = JsonOutput::number(op.winogradGemmBytes);
            w["transform_bytes"] = JsonOutput::number(op.winogradTransformBytes);
            o["winograd"] = std::move(w);
        }
        if (op.passBytes > 0.0)
            o["pass_bytes"] = JsonOutput::number(op.passBytes);
        if (op.isCollective()) {
            ordered_json c;
            c["kind"] = std::string(collectiveName(op.collective));
            if (op.collectiveBytes != 0.0)
                c["bytes"] = JsonOutput::number(op.collectiveBytes);
            if (op.collectiveRanks != 0)
                c["ranks"] = op.collectiveRanks;
            o["collective"] = std::move(c);
        }
        if (op.precision == ElementPrecision::Half)
            o["precision"] = "fp16";
        else if (op.precision == ElementPrecision::Int8)
            o["precision"] = "int8";
        ordered_json measured = ordered_json::array();
        for (DeviceKind kind : {DeviceKind::Cpu, DeviceKind::Gpu})
            if (op.measured(kind))
                measured.push_back(std::string(toString(kind)));
        for (const TypedTime& t : op.typedTimes)
            if (t.measured)
                measured.push_back(t.type);
        if (!measured.empty())
            o["measured"] = std::move(measured);
        ordered_json derived = ordered_json::array();
        for (DeviceKind kind : {DeviceKind::Cpu, DeviceKind::Gpu})
            if (op.derived(kind))
                derived.push_back(std::string(toString(kind)));
        if (!derived.empty())
            o["derived"] = std::move(derived);
        if (!op.measuredBy.empty())
            o["measured_by"] = op.measuredBy;
        element(static_cast<std::size_t>(&op - graph.ops().data()), graph.ops().size(), o);
    }
    text += ",\n  \"edges\": ";
    if (graph.edges().empty())
        text += "[]";
    for (std::size_t i = 0; i < graph.edges().size(); ++i) {
        const Edge& e = graph.edges()[i];
        ordered_json o;
        o["from"] = graph.op(e.from).name;
        o["to"] = graph.op(e.to).name;
        o["bytes"] = JsonOutput::number(e.bytes);
        element(i, graph.edges().size(), o);
    }
    return text + "\n}\n";
}

} // namespace

std::string nativeGraphJson(const Graph& graph) { return graphJson(graph, std::nullopt); }

std::string nativeGraphJson(const ImportedGraph& imported) { return graphJson(imported.graph, originJson(imported)); }

} // namespace post
