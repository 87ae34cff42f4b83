#include "core/io/chakra/ChakraTrace.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/chakra/et_def.pb.h"
#include "core/io/json/JsonInput.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"

#include <google/protobuf/io/coded_stream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace post {
namespace {

using nlohmann::json;

constexpr int kCommSendNode = 5;
constexpr int kCommRecvNode = 6;
constexpr int kCommCollNode = 7;

// One node as both forms give it.
struct ChakraNode {
    std::uint64_t id = 0;
    std::string name;
    int type = 0;
    std::optional<double> runtimeUs;
    bool cpu = false;
    std::vector<std::uint64_t> dataDeps, ctrlDeps;
    std::optional<std::int64_t> commType; // CollectiveCommType
    std::string location;                 // "workload_graph[12]" or "node 12 (byte 345)"
};

constexpr std::string_view kCommTypes[] = {
    "AllReduce", "Reduce",        "AllGather",          "Gather", "Scatter", "Broadcast",
    "AllToAll",  "ReduceScatter", "ReduceScatterBlock", "Barrier"};

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The op type shown for a node: a collective's kind, a CPU operator's name without the
// "(n)" the converter appends, or the kind of GPU work.
std::string opType(const ChakraNode& n)
{
    if (n.type == kCommCollNode) {
        if (n.commType && *n.commType >= 0 && *n.commType < std::int64_t(std::size(kCommTypes)))
            return std::string(kCommTypes[static_cast<std::size_t>(*n.commType)]);
        // By name, the longer kinds first ("allreduce" also contains "reduce").
        static const std::pair<std::string_view, std::string_view> byName[] = {{"reducescatter", "ReduceScatter"},
                                                                               {"reduce_scatter", "ReduceScatter"},
                                                                               {"allreduce", "AllReduce"},
                                                                               {"all_reduce", "AllReduce"},
                                                                               {"allgather", "AllGather"},
                                                                               {"all_gather", "AllGather"},
                                                                               {"alltoall", "AllToAll"},
                                                                               {"all_to_all", "AllToAll"},
                                                                               {"broadcast", "Broadcast"},
                                                                               {"barrier", "Barrier"},
                                                                               {"reduce", "Reduce"},
                                                                               {"gather", "Gather"},
                                                                               {"scatter", "Scatter"}};
        const std::string name = lower(n.name);
        for (const auto& [pattern, kind] : byName)
            if (name.find(pattern) != std::string::npos)
                return std::string(kind);
        return "Collective";
    }
    if (n.type == kCommSendNode)
        return "Send";
    if (n.type == kCommRecvNode)
        return "Recv";
    if (n.cpu) {
        std::string name = n.name;
        if (const auto open = name.rfind('('); open != std::string::npos && name.ends_with(")")
            && std::all_of(name.begin() + static_cast<std::ptrdiff_t>(open) + 1, name.end() - 1,
                           [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            name.erase(open);
        return name.empty() ? std::string("CPU op") : name;
    }
    for (std::string_view kind : {"Memcpy", "Memset"})
        if (n.name.starts_with(kind))
            return std::string(kind);
    return "GPU kernel";
}

std::string withThousands(long long value)
{
    const std::string digits = std::to_string(value < 0 ? -value : value);
    std::string out = value < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

ImportedGraph buildChakraGraph(const std::vector<ChakraNode>& nodes, const std::string& source,
                               const ImportOptions& options, ChakraReport& r)
{
    std::unordered_map<std::uint64_t, std::size_t> byId;
    std::unordered_map<std::string, int> nameCount;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (!byId.emplace(nodes[i].id, i).second)
            throw InputError(source, nodes[i].location,
                             "node id " + std::to_string(nodes[i].id) + " is used by an earlier node too");
        ++nameCount[nodes[i].name];
    }
    GraphBuilder builder(graphNameFromSource(source));
    builder.reserve(nodes.size(), 0);
    r.nodes = static_cast<int>(nodes.size());
    for (const ChakraNode& n : nodes) {
        Op op;
        op.name = n.name.empty()    ? "node " + std::to_string(n.id)
            : nameCount[n.name] > 1 ? n.name + " #" + std::to_string(n.id)
                                    : n.name;
        op.type = opType(n);
        const double us = n.runtimeUs.value_or(0.0);
        r.withoutRuntime += n.runtimeUs ? 0 : 1;
        constexpr int kCpu = static_cast<int>(DeviceKind::Cpu), kGpu = static_cast<int>(DeviceKind::Gpu);
        if (n.cpu) {
            op.timeUs[kCpu] = op.timeUs[kGpu] = us;
            op.cpuOnly = true;
            op.measuredKinds = 1U << kCpu;
            ++r.cpuOps;
            r.cpuUs += us;
        } else {
            op.timeUs[kGpu] = us;
            op.timeUs[kCpu] = derivedCpuTimeUs(us, options);
            op.measuredKinds = 1U << kGpu;
            ++r.gpuOps;
            r.gpuUs += us;
        }
        r.collectives += n.type == kCommCollNode ? 1 : 0;
        r.sendRecv += n.type == kCommSendNode || n.type == kCommRecvNode ? 1 : 0;
        try {
            builder.addOp(std::move(op));
        } catch (const GraphError& e) {
            throw InputError(source, n.location, e.what());
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        std::unordered_set<std::size_t> from;
        for (std::uint64_t d : nodes[i].dataDeps) {
            const auto it = byId.find(d);
            if (it == byId.end())
                throw InputError(source, nodes[i].location + ".data_deps",
                                 "depends on node " + std::to_string(d) + ", which the trace does not have");
            from.insert(it->second);
            ++r.dataDeps;
        }
        for (std::uint64_t d : nodes[i].ctrlDeps) {
            const auto it = byId.find(d);
            if (it == byId.end()) {
                ++r.droppedCtrlDeps;
                continue;
            }
            from.insert(it->second);
            ++r.ctrlDeps;
        }
        std::vector<std::size_t> sorted(from.begin(), from.end());
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t f : sorted) {
            if (f == i)
                throw InputError(source, nodes[i].location, "node " + std::to_string(nodes[i].id) + " depends on itself");
            builder.addEdge(static_cast<OpId>(f), static_cast<OpId>(i), 0.0);
        }
        if (options.progress && i % 4096 == 0)
            options.progress("Reading the Chakra trace: dependencies", 0.5 + 0.4 * double(i) / double(nodes.size()));
    }
    ImportedGraph imported;
    imported.source = source;
    try {
        imported.graph = std::move(builder).build();
    } catch (const GraphError& e) {
        throw InputError(source, "dependencies", e.what());
    }
    imported.notes.push_back("Chakra trace: " + withThousands(r.nodes) + " nodes as ops with their measured runtimes ("
                             + withThousands(r.cpuOps) + " CPU operators pinned to the CPU, " + withThousands(r.gpuOps)
                             + " GPU kernels and copies, " + std::to_string(r.collectives)
                             + " collectives); dependencies are edges without bytes (the trace gives no sizes)");
    if (r.collectives + r.sendRecv > 0)
        imported.notes.push_back(std::to_string(r.collectives + r.sendRecv)
                                 + " communication node(s) are ops of their measured runtime: the other ranks they "
                                   "talk to are not in this graph (docs/importers.md, \"Chakra traces\")");
    if (r.withoutRuntime > 0)
        imported.warnings.push_back(std::to_string(r.withoutRuntime) + " node(s) have no runtime and take 0 us (first: '" +
                                    [&] {
                                        for (const ChakraNode& n : nodes)
                                            if (!n.runtimeUs)
                                                return n.name;
                                        return std::string();
                                    }()
                                    + "')");
    if (r.droppedCtrlDeps > 0)
        imported.warnings.push_back(std::to_string(r.droppedCtrlDeps)
                                    + " control dependencies on nodes the trace does not have were dropped");
    return imported;
}

std::vector<std::uint64_t> idList(const JsonInput& in, const json& value, const std::string& path)
{
    std::vector<std::uint64_t> ids;
    for (std::size_t k = 0; k < in.array(value, path).size(); ++k) {
        const json& e = value[k];
        if (!e.is_number_integer() || (e.is_number_integer() && !e.is_number_unsigned() && e.get<std::int64_t>() < 0))
            in.fail(JsonInput::element(path, k), "must be a node id (an integer >= 0)");
        ids.push_back(e.get<std::uint64_t>());
    }
    return ids;
}

std::vector<ChakraNode> readJsonNodes(const JsonInput& in, const json& graph, const ImportOptions& options)
{
    std::vector<ChakraNode> nodes;
    nodes.reserve(graph.size());
    for (std::size_t i = 0; i < graph.size(); ++i) {
        const std::string path = JsonInput::element("workload_graph", i);
        const json& o = in.object(graph[i], path);
        ChakraNode n;
        n.location = path;
        const json& id = in.require(o, "Id", path);
        if (!id.is_number_integer() || (!id.is_number_unsigned() && id.get<std::int64_t>() < 0))
            in.fail(JsonInput::member(path, "Id"), "must be an integer >= 0");
        n.id = id.get<std::uint64_t>();
        n.name = in.string(in.require(o, "Name", path), JsonInput::member(path, "Name"));
        n.type = static_cast<int>(in.within(in.require(o, "NodeType", path), JsonInput::member(path, "NodeType"), 0, 10));
        if (const json* runtime = in.find(o, "runtime"))
            n.runtimeUs = in.within(*runtime, JsonInput::member(path, "runtime"), 0.0, GraphBuilder::kMaxTimeUs);
        if (const json* cpu = in.find(o, "is_cpu_op"))
            n.cpu = in.boolean(*cpu, JsonInput::member(path, "is_cpu_op"));
        n.dataDeps = idList(in, in.require(o, "data_deps", path), JsonInput::member(path, "data_deps"));
        for (std::string_view key : {"ctrl_deps", "ctrlDeps"})
            if (const json* deps = in.find(o, key))
                n.ctrlDeps = idList(in, *deps, JsonInput::member(path, key));
        if (const json* comm = in.find(o, "comm_type"))
            n.commType = static_cast<std::int64_t>(in.within(*comm, JsonInput::member(path, "comm_type"), 0, 9));
        nodes.push_back(std::move(n));
        if (options.progress && i % 4096 == 0)
            options.progress("Reading the Chakra trace: nodes", 0.2 + 0.3 * double(i) / double(graph.size()));
    }
    return nodes;
}

// A numeric attribute's value, whichever of the oneof's number fields holds it.
std::optional<double> attrNumber(const ChakraProtoMsg::AttributeProto& a)
{
    using A = ChakraProtoMsg::AttributeProto;
    switch (a.value_case()) {
    case A::kDoubleVal:
        return a.double_val();
    case A::kFloatVal:
        return a.float_val();
    case A::kInt32Val:
        return a.int32_val();
    case A::kInt64Val:
        return static_cast<double>(a.int64_val());
    case A::kUint32Val:
        return a.uint32_val();
    case A::kUint64Val:
        return static_cast<double>(a.uint64_val());
    case A::kSint32Val:
        return a.sint32_val();
    case A::kSint64Val:
        return static_cast<double>(a.sint64_val());
    case A::kFixed32Val:
        return a.fixed32_val();
    case A::kFixed64Val:
        return static_cast<double>(a.fixed64_val());
    case A::kSfixed32Val:
        return a.sfixed32_val();
    case A::kSfixed64Val:
        return static_cast<double>(a.sfixed64_val());
    case A::kBoolVal:
        return a.bool_val() ? 1.0 : 0.0;
    default:
        return std::nullopt;
    }
}

ChakraNode fromProto(const ChakraProtoMsg::Node& p, std::string location)
{
    ChakraNode n;
    n.location = std::move(location);
    n.id = p.id();
    n.name = p.name();
    n.type = static_cast<int>(p.type());
    n.runtimeUs = static_cast<double>(std::min<std::uint64_t>(p.duration_micros(), std::uint64_t(1) << 50));
    n.dataDeps.assign(p.data_deps().begin(), p.data_deps().end());
    n.ctrlDeps.assign(p.ctrl_deps().begin(), p.ctrl_deps().end());
    for (const auto& a : p.attr()) {
        const auto value = attrNumber(a);
        if (a.name() == "is_cpu_op" && value)
            n.cpu = *value != 0.0;
        else if (a.name() == "comm_type" && value && *value >= 0 && *value <= 9)
            n.commType = static_cast<std::int64_t>(*value);
    }
    return n;
}

} // namespace

bool looksLikeChakraJson(std::string_view text)
{
    return text.substr(0, 4096).find("\"workload_graph\"") != std::string_view::npos;
}

bool looksLikeChakraEt(std::string_view bytes)
{
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                  static_cast<int>(std::min<std::size_t>(bytes.size(), 1 << 20)));
    std::uint32_t size = 0;
    if (!stream.ReadVarint32(&size) || size == 0 || size > (1U << 20))
        return false;
    const auto limit = stream.PushLimit(static_cast<int>(size));
    ChakraProtoMsg::GlobalMetadata meta;
    const bool parsed = meta.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
    stream.PopLimit(limit);
    return parsed && !meta.version().empty() && std::isdigit(static_cast<unsigned char>(meta.version()[0]))
        && meta.version().size() < 64;
}

ImportedGraph parseChakraJson(std::string_view text, const std::string& source, const ImportOptions& options,
                              ChakraReport* report)
{
    const JsonInput in(source);
    if (options.progress)
        options.progress("Reading the Chakra trace: JSON", 0.0);
    const json root = in.parse(text);
    const json& top = in.object(root, "");
    const json& graph = in.array(in.require(top, "workload_graph", ""), "workload_graph");
    if (graph.empty())
        in.fail("workload_graph", "the trace has no nodes");
    ChakraReport local;
    ImportedGraph imported = buildChakraGraph(readJsonNodes(in, graph, options), source, options, local);
    if (report)
        *report = local;
    return imported;
}

ImportedGraph parseChakraEt(std::string_view bytes, const std::string& source, const ImportOptions& options,
                            ChakraReport* report)
{
    if (bytes.size() > std::size_t(1) << 31)
        throw InputError(source, {}, "a Chakra .et file over 2 GiB is not supported");
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                  static_cast<int>(bytes.size()));
    stream.SetTotalBytesLimit(static_cast<int>(bytes.size()));
    std::vector<ChakraNode> nodes;
    for (std::size_t message = 0; stream.CurrentPosition() < static_cast<int>(bytes.size()); ++message) {
        const int at = stream.CurrentPosition();
        const std::string where = message == 0
            ? "global metadata (byte 0)"
            : "node " + std::to_string(message) + " (byte " + std::to_string(at) + ")";
        std::uint32_t size = 0;
        if (!stream.ReadVarint32(&size))
            throw InputError(source, where, "truncated: the message length (a varint) is cut off");
        if (static_cast<std::size_t>(size) > bytes.size() - static_cast<std::size_t>(stream.CurrentPosition()))
            throw InputError(source, where,
                             "truncated: the message needs " + std::to_string(size) + " bytes, the file has "
                                 + std::to_string(bytes.size() - static_cast<std::size_t>(stream.CurrentPosition()))
                                 + " left");
        const auto limit = stream.PushLimit(static_cast<int>(size));
        bool parsed = false;
        if (message == 0) {
            ChakraProtoMsg::GlobalMetadata meta;
            parsed = meta.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
        } else {
            ChakraProtoMsg::Node node;
            parsed = node.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
            if (parsed)
                nodes.push_back(fromProto(node, where));
        }
        stream.PopLimit(limit);
        if (!parsed)
            throw InputError(source, where,
                             message == 0 ? "not a Chakra GlobalMetadata message (is this a Chakra .et file?)"
                                          : "not a Chakra Node message");
        if (options.progress && message % 4096 == 0)
            options.progress("Reading the Chakra trace: nodes", 0.5 * double(at) / double(bytes.size()));
    }
    if (nodes.empty())
        throw InputError(source, {}, "the trace has no nodes (only its global metadata)");
    ChakraReport local;
    ImportedGraph imported = buildChakraGraph(nodes, source, options, local);
    if (report)
        *report = local;
    return imported;
}

} // namespace post
