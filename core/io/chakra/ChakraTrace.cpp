#include "core/io/chakra/ChakraTrace.h"

#include "core/graph/CollectiveNames.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/chakra/et_def.pb.h"
#include "core/io/json/JsonInput.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"
#include "core/util/TextNumber.h"
#include "core/util/Utf8.h"

#include <google/protobuf/io/coded_stream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <unordered_map>

namespace post {
namespace {

using nlohmann::json;

constexpr int kCommSendNode = 5;
constexpr int kCommRecvNode = 6;
constexpr int kCommCollNode = 7;

// A tensor a node reads or writes, from IOInfo `values`: its storage (views share their base's)
// and the bytes it spans (numel x itemsize).
struct ChakraTensor {
    std::uint64_t key = 0;
    double bytes = 0.0;
};

// One node as both forms give it.
struct ChakraNode {
    std::uint64_t id = 0;
    std::string name;
    int type = 0;
    std::optional<double> runtimeUs;
    bool cpu = false;
    std::vector<std::uint64_t> dataDeps, ctrlDeps;
    std::optional<std::int64_t> commType; // CollectiveCommType
    std::optional<double> commBytes;      // comm_size: the bytes a collective moves
    std::vector<ChakraTensor> inputs, outputs;
    std::string location; // "workload_graph[12]" or "node 12 (byte 345)"
};

// IOInfo's `values` is a Python literal (the converter writes str(list)): single-quoted
// strings, tuples, None/True/False. Rewritten as JSON; nullopt when it is not such a literal.
std::optional<json> pythonLiteralAsJson(std::string_view s)
{
    std::string out;
    out.reserve(s.size() + 16);
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '\'' || c == '"') { // a string, rewritten with double quotes
            out.push_back('"');
            for (++i; i < s.size() && s[i] != c; ++i) {
                if (s[i] == '\\' || static_cast<unsigned char>(s[i]) < 0x20)
                    return std::nullopt; // escapes: not in device names or type strings
                if (s[i] == '"')
                    out.push_back('\\');
                out.push_back(s[i]);
            }
            if (i >= s.size())
                return std::nullopt;
            out.push_back('"');
            ++i;
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            std::size_t end = i;
            while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_'))
                ++end;
            const std::string_view word = s.substr(i, end - i);
            if (word == "None")
                out += "null";
            else if (word == "True")
                out += "true";
            else if (word == "False")
                out += "false";
            else
                return std::nullopt;
            i = end;
        } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.') { // a number, exponent too
            while (i < s.size()
                   && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '-' || s[i] == '+'))
                out.push_back(s[i++]);
        } else {
            out.push_back(c == '(' ? '[' : c == ')' ? ']' : c);
            ++i;
        }
    }
    json parsed = json::parse(out, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded())
        return std::nullopt;
    return parsed;
}

// The tensors of an IOInfo `values` list: [tensor_id, storage_id, offset, numel, itemsize,
// device] entries, at the top or inside lists of tensors.
void collectTensors(const json& value, std::vector<ChakraTensor>& out, int depth = 0)
{
    if (!value.is_array() || depth > 3)
        return;
    const bool tensor = value.size() >= 5
        && std::all_of(value.begin(), value.begin() + 5, [](const json& e) { return e.is_number_integer(); });
    if (!tensor) {
        for (const json& e : value)
            collectTensors(e, out, depth + 1);
        return;
    }
    const auto tensorId = value[0].get<std::int64_t>(), storageId = value[1].get<std::int64_t>();
    const auto numel = value[3].get<std::int64_t>(), itemsize = value[4].get<std::int64_t>();
    if ((tensorId == 0 && storageId == 0) || numel < 0 || itemsize < 1 || itemsize > 16)
        return; // an undefined tensor, or sizes that are not sizes
    ChakraTensor t;
    t.key = storageId != 0 ? static_cast<std::uint64_t>(storageId)
                           : (std::uint64_t(1) << 63) | static_cast<std::uint64_t>(tensorId);
    t.bytes = std::min(double(numel) * double(itemsize), 1e15);
    out.push_back(t);
}

std::vector<ChakraTensor> tensorsOfValues(std::string_view values)
{
    std::vector<ChakraTensor> tensors;
    if (values.empty() || values.size() > (std::size_t(1) << 20))
        return tensors;
    if (const auto parsed = pythonLiteralAsJson(values))
        collectTensors(*parsed, tensors);
    return tensors;
}

// The bytes a data dependency passes: the consumer's input tensors that the producer writes,
// each storage once.
double bytesPassed(const ChakraNode& producer, const ChakraNode& consumer)
{
    std::vector<std::pair<std::uint64_t, double>> read;
    for (const ChakraTensor& in : consumer.inputs)
        for (const ChakraTensor& out : producer.outputs)
            if (in.key == out.key) {
                read.emplace_back(in.key, in.bytes);
                break;
            }
    std::sort(read.begin(), read.end());
    double bytes = 0.0;
    for (std::size_t k = 0; k < read.size(); ++k)
        if (k + 1 == read.size() || read[k + 1].first != read[k].first)
            bytes += read[k].second; // the largest view of each storage (sorted last)
    return bytes;
}

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

// A GPU collective's kind, from the op type opType() gave it.
CollectiveKind collectiveKind(std::string_view type)
{
    const CollectiveKind kind = collectiveKindOfLetters(type);
    return kind == CollectiveKind::None ? CollectiveKind::Other : kind;
}

// The bytes a collective moves: comm_size where the trace gives it, else the larger of its
// input and output tensors (each storage once).
double collectiveBytes(const ChakraNode& n)
{
    if (n.commBytes)
        return *n.commBytes;
    auto total = [](std::vector<ChakraTensor> tensors) {
        std::sort(tensors.begin(), tensors.end(), [](const ChakraTensor& a, const ChakraTensor& b) {
            return a.key != b.key ? a.key < b.key : a.bytes < b.bytes;
        });
        double bytes = 0.0;
        for (std::size_t k = 0; k < tensors.size(); ++k)
            if (k + 1 == tensors.size() || tensors[k + 1].key != tensors[k].key)
                bytes += tensors[k].bytes;
        return bytes;
    };
    return std::min(std::max(total(n.inputs), total(n.outputs)), GraphBuilder::kMaxBytes);
}

// The import's notes and warnings: what the trace holds and how each kind of node is treated.
void addChakraNotes(const std::vector<ChakraNode>& nodes, const ChakraReport& r, ImportedGraph& imported)
{
    imported.notes.push_back(
        "Chakra trace: " + withThousands(r.nodes) + " nodes as ops with their measured runtimes ("
        + withThousands(r.cpuOps) + " CPU operators pinned to the CPU, " + withThousands(r.gpuOps)
        + " GPU kernels and copies, " + std::to_string(r.collectives) + " collectives); "
        + (r.sizedDataDeps == 0 ? std::string("dependencies are edges without bytes (the trace gives no tensor sizes)")
                                : withThousands(r.sizedDataDeps) + " of " + withThousands(r.dataDeps)
                   + " data dependencies carry the sizes of the tensors they pass ("
                   + withThousands(static_cast<long long>(r.sizedBytes / 1e6))
                   + " MB), the others are edges without bytes"));
    if (r.gpuCollectives > 0) {
        const int measured = r.gpuCollectives - r.modelledCollectives;
        std::string timed;
        if (measured > 0)
            timed = std::to_string(measured) + " by their measured runtime";
        if (r.modelledCollectives > 0)
            timed += (timed.empty() ? "" : ", ") + std::to_string(r.modelledCollectives)
                + " without one by the ring model from the bytes they move over the cluster's links, for "
                + (r.ranks > 0 ? std::to_string(r.ranks) + " ranks (the trace's \"ngpus\")"
                               : std::string("the cluster's GPUs as ranks (the trace states no group "
                                             "size)"));
        imported.notes.push_back(std::to_string(r.gpuCollectives)
                                 + " GPU collective(s) run on their device's communication channel, beside its "
                                   "compute (independent compute overlaps them, their dependencies still order "
                                   "them), timed "
                                 + timed
                                 + "; the other ranks are not in this graph (docs/importers.md, \"Chakra traces\")");
    }
    if (r.collectives > r.gpuCollectives)
        imported.notes.push_back(
            std::to_string(r.collectives - r.gpuCollectives)
            + " CPU-side collective call(s) (is_cpu_op) are CPU operators of their measured runtime");
    if (r.sendRecv > 0)
        imported.notes.push_back(std::to_string(r.sendRecv)
                                 + " send/receive node(s) are ops of their measured runtime on their device: the "
                                   "peers they talk to are not in this graph");
    if (r.withoutRuntime > 0)
        imported.warnings.push_back(std::to_string(r.withoutRuntime) + " node(s) have no runtime and take 0 us (first: '" +
                                    [&] {
                                        for (const ChakraNode& n : nodes)
                                            if (!n.runtimeUs && !(n.type == kCommCollNode && !n.cpu))
                                                return n.name;
                                        return std::string();
                                    }()
                                    + "')");
    if (r.droppedCtrlDeps > 0)
        imported.warnings.push_back(std::to_string(r.droppedCtrlDeps)
                                    + " control dependencies on nodes the trace does not have were dropped");
}

ImportedGraph buildChakraGraph(const std::vector<ChakraNode>& nodes, const std::string& source,
                               const ImportOptions& options, ChakraReport& r, int ranks)
{
    r.ranks = ranks;
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
        const bool collective = n.type == kCommCollNode && !n.cpu;
        constexpr int kCpu = static_cast<int>(DeviceKind::Cpu), kGpu = static_cast<int>(DeviceKind::Gpu);
        if (collective) {
            op.collective = collectiveKind(op.type);
            op.collectiveBytes = collectiveBytes(n);
            op.collectiveRanks = ranks;
            ++r.gpuCollectives;
        }
        if (collective && us <= 0.0) { // timed by the ring model on the cluster it runs on
            ++r.modelledCollectives;
            ++r.gpuOps;
        } else if (n.cpu) {
            op.timeUs[kCpu] = op.timeUs[kGpu] = us;
            op.cpuOnly = true;
            op.measuredKinds = 1U << kCpu;
            ++r.cpuOps;
            r.cpuUs += us;
        } else {
            op.timeUs[kGpu] = us;
            op.timeUs[kCpu] = derivedCpuTimeUs(us, options);
            op.measuredKinds = 1U << kGpu;
            op.derivedKinds = 1U << kCpu;
            ++r.gpuOps;
            r.gpuUs += us;
        }
        r.withoutRuntime += n.runtimeUs || collective ? 0 : 1;
        r.collectives += n.type == kCommCollNode ? 1 : 0;
        r.sendRecv += n.type == kCommSendNode || n.type == kCommRecvNode ? 1 : 0;
        try {
            builder.addOp(std::move(op));
        } catch (const GraphError& e) {
            throw InputError(source, n.location, e.what());
        }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        std::unordered_map<std::size_t, double> from; // producer -> bytes passed (control: 0)
        for (std::uint64_t d : nodes[i].dataDeps) {
            const auto it = byId.find(d);
            if (it == byId.end())
                throw InputError(source, nodes[i].location + ".data_deps",
                                 "depends on node " + std::to_string(d) + ", which the trace does not have");
            const double bytes = bytesPassed(nodes[it->second], nodes[i]);
            if (from.emplace(it->second, bytes).second && bytes > 0.0) {
                ++r.sizedDataDeps;
                r.sizedBytes += bytes;
            }
            ++r.dataDeps;
        }
        for (std::uint64_t d : nodes[i].ctrlDeps) {
            const auto it = byId.find(d);
            if (it == byId.end()) {
                ++r.droppedCtrlDeps;
                continue;
            }
            from.emplace(it->second, 0.0);
            ++r.ctrlDeps;
        }
        std::vector<std::pair<std::size_t, double>> sorted(from.begin(), from.end());
        std::sort(sorted.begin(), sorted.end());
        for (const auto& [f, bytes] : sorted) {
            if (f == i)
                throw InputError(source, nodes[i].location, "node " + std::to_string(nodes[i].id) + " depends on itself");
            builder.addEdge(static_cast<OpId>(f), static_cast<OpId>(i), bytes);
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
    addChakraNotes(nodes, r, imported);
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

// A JSON node's "inputs" / "outputs": {"values": ...}, the values a list or its Python text.
void readJsonTensors(const json& node, std::string_view side, std::vector<ChakraTensor>& tensors)
{
    const auto io = node.find(side);
    if (io == node.end() || !io->is_object())
        return;
    const auto values = io->find("values");
    if (values == io->end())
        return;
    if (values->is_string())
        tensors = tensorsOfValues(values->get_ref<const std::string&>());
    else
        collectTensors(*values, tensors);
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
        if (const json* size = in.find(o, "comm_size"))
            n.commBytes = in.within(*size, JsonInput::member(path, "comm_size"), 0.0, GraphBuilder::kMaxBytes);
        readJsonTensors(o, "inputs", n.inputs);
        readJsonTensors(o, "outputs", n.outputs);
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
    if (p.has_inputs())
        n.inputs = tensorsOfValues(p.inputs().values());
    if (p.has_outputs())
        n.outputs = tensorsOfValues(p.outputs().values());
    for (const auto& a : p.attr()) {
        const auto value = attrNumber(a);
        if (a.name() == "is_cpu_op" && value)
            n.cpu = *value != 0.0;
        else if (a.name() == "comm_type" && value && *value >= 0 && *value <= 9)
            n.commType = static_cast<std::int64_t>(*value);
        else if (a.name() == "comm_size" && value && *value >= 0 && *value <= GraphBuilder::kMaxBytes)
            n.commBytes = *value;
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
    int ranks = 0; // the group size, where the trace states it
    if (const json* ngpus = in.find(top, "ngpus"))
        ranks = static_cast<int>(in.within(*ngpus, "ngpus", 1, GraphBuilder::kMaxCollectiveRanks));
    ChakraReport local;
    ImportedGraph imported = buildChakraGraph(readJsonNodes(in, graph, options), source, options, local, ranks);
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
            if (parsed) {
                if (const std::string problem = utf8Problem(node.name(), "the node name"); !problem.empty())
                    throw InputError(source, where, problem);
                nodes.push_back(fromProto(node, where));
            }
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
    ImportedGraph imported = buildChakraGraph(nodes, source, options, local, 0);
    if (report)
        *report = local;
    return imported;
}

} // namespace post
