#include "core/io/msr/MsrReader.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/json/JsonInput.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

namespace post {
namespace {

using nlohmann::json;

constexpr double kUsPerMs = 1000.0;
// Latencies are milliseconds: GraphBuilder's time bound in the file's unit.
constexpr double kMaxMs = GraphBuilder::kMaxTimeUs / kUsPerMs;
constexpr double kMaxBytes = GraphBuilder::kMaxBytes;

struct MsrNode {
    std::string id; // the integer as written, canonical: any of int64 or uint64 (2^64-1 included)
    std::string name;
    std::optional<double> cpuMs; // absent: GPU time x ImportOptions::cpuSlowdown
    double fpgaMs = 0.0;
    bool backward = false;
    bool acceleratorOk = true; // supportedOnFpga: false pins the node to a CPU
    std::optional<long long> colorClass;
    double sizeBytes = 0.0;
};

struct MsrEdge {
    int from = 0;
    int to = 0;
    double bytes = 0.0;
};

// Reads fields of one JSON object and names "<path>.<key>" in every error.
class FieldReader {
public:
    FieldReader(const std::string& source, const json& object, std::string path)
        : source_(source)
        , object_(object)
        , path_(std::move(path))
    {
        if (!object_.is_object())
            throw InputError(source_, path_.empty() ? "(top level)" : path_,
                             std::string("must be an object, got ") + object_.type_name());
    }

    const json* find(const char* key) const
    {
        auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }

    const json& require(const char* key) const
    {
        const json* value = find(key);
        if (!value)
            throw InputError(source_, field(key), "missing");
        return *value;
    }

    // A finite number >= 0 and <= `limit` (costs and sizes).
    double amount(const char* key, double limit, std::optional<double> fallback = std::nullopt) const
    {
        const json* value = find(key);
        if (!value) {
            if (fallback)
                return *fallback;
            throw InputError(source_, field(key), "missing");
        }
        if (!value->is_number())
            throw InputError(source_, field(key), std::string("must be a number, got ") + value->type_name());
        const double number = value->get<double>();
        if (!std::isfinite(number))
            throw InputError(source_, field(key), "must be a finite number");
        if (number < 0.0)
            throw InputError(source_, field(key), "must be >= 0, got " + value->dump());
        if (number > limit) {
            char bound[32];
            std::snprintf(bound, sizeof bound, "%g", limit);
            throw InputError(source_, field(key), std::string("must be at most ") + bound + ", got " + value->dump());
        }
        return number;
    }

    long long integer(const char* key) const
    {
        const json& value = require(key);
        if (!value.is_number_integer())
            throw InputError(source_, field(key), "must be an integer, got " + value.dump());
        // nlohmann keeps integers above INT64_MAX unsigned: 2^64-1 would read as -1.
        if (value.is_number_unsigned() && value.get<unsigned long long>() > std::numeric_limits<long long>::max())
            throw InputError(source_, field(key), "must be at most 9223372036854775807, got " + value.dump());
        return value.get<long long>();
    }

    // A node id: any JSON integer of int64 or uint64 (the format says integer, and ids up to
    // 2^64-1 occur), as its canonical text, so that no two ids collide and none wraps.
    std::string id(const char* key) const
    {
        const json& value = require(key);
        if (!value.is_number_integer())
            throw InputError(source_, field(key), "must be an integer, got " + value.dump());
        return value.dump();
    }

    // MSR writes flags as true/false or 1/0.
    bool flag(const char* key, bool fallback) const
    {
        const json* value = find(key);
        if (!value)
            return fallback;
        if (value->is_boolean())
            return value->get<bool>();
        if (value->is_number_integer() && (value->get<long long>() == 0 || value->get<long long>() == 1))
            return value->get<long long>() == 1;
        throw InputError(source_, field(key), "must be true/false or 1/0, got " + value->dump());
    }

    std::string field(const char* key) const { return path_.empty() ? std::string(key) : path_ + "." + key; }

private:
    const std::string& source_;
    const json& object_;
    std::string path_;
};

// Keys the MSR format does not have, by where they are ("nodes", "edges", the top level) and
// name: how many objects hold one and the first one's path. Ignored, but each is warned about:
// a misspelled "cpuLatency" would otherwise leave every CPU time derived without a word.
struct UnknownKeys {
    struct Seen {
        int count = 0;
        std::string firstPath;
    };
    std::map<std::pair<std::string, std::string>, Seen> seen;

    void check(const json& object, std::span<const std::string_view> known, const std::string& where,
               const std::string& path)
    {
        for (auto it = object.begin(); it != object.end(); ++it)
            if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
                Seen& s = seen[{where, it.key()}];
                if (s.count++ == 0)
                    s.firstPath = path.empty() ? it.key() : path + "." + it.key();
            }
    }
};

constexpr std::array<std::string_view, 5> kTopKeys = {"maxSizePerFPGA", "maxFPGAs", "maxCPUs", "nodes", "edges"};
constexpr std::array<std::string_view, 8> kNodeKeys = {
    "name", "id", "supportedOnFpga", "cpuLatency", "fpgaLatency", "isBackwardNode", "size", "colorClass"};
constexpr std::array<std::string_view, 4> kEdgeKeys = {"sourceId", "destId", "cost", "size"};

std::string keyList(std::span<const std::string_view> keys)
{
    std::string text;
    for (std::string_view k : keys)
        text += (text.empty() ? "" : ", ") + std::string(k);
    return text;
}

// The document through JsonInput, which also refuses a key repeated within one object (nlohmann's
// DOM keeps the last one silently), naming its path; syntax errors keep this reader's form,
// "line N" and "invalid JSON: ...".
json parseJson(std::string_view text, const std::string& source)
{
    try {
        return JsonInput(source).parse(text);
    } catch (const InputError& e) {
        const std::string& where = e.location();
        if (!where.starts_with("line "))
            throw;
        throw InputError(source, where.substr(0, where.find(',')), "invalid JSON: " + e.message());
    }
}

std::vector<MsrNode> readNodes(const json& root, const std::string& source, UnknownKeys& unknown)
{
    const FieldReader top(source, root, "");
    const json& nodes = top.require("nodes");
    if (!nodes.is_array())
        throw InputError(source, "nodes", std::string("must be an array, got ") + nodes.type_name());
    if (nodes.empty())
        throw InputError(source, "nodes", "is empty: a graph needs at least one node");
    std::vector<MsrNode> result;
    result.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        const FieldReader r(source, nodes[i], "nodes[" + std::to_string(i) + "]");
        unknown.check(nodes[i], kNodeKeys, "nodes", "nodes[" + std::to_string(i) + "]");
        MsrNode node;
        node.id = r.id("id");
        if (const json* name = r.find("name")) {
            if (!name->is_string())
                throw InputError(source, r.field("name"), std::string("must be a string, got ") + name->type_name());
            node.name = name->get<std::string>();
        }
        if (node.name.empty())
            node.name = "node" + node.id;
        node.fpgaMs = r.amount("fpgaLatency", kMaxMs);
        if (r.find("cpuLatency"))
            node.cpuMs = r.amount("cpuLatency", kMaxMs);
        node.backward = r.flag("isBackwardNode", false);
        node.acceleratorOk = r.flag("supportedOnFpga", true);
        if (r.find("colorClass"))
            node.colorClass = r.integer("colorClass");
        node.sizeBytes = r.amount("size", kMaxBytes, 0.0);
        result.push_back(std::move(node));
    }
    return result;
}

std::vector<MsrEdge> readEdges(const json& root, const std::string& source,
                               const std::unordered_map<std::string, int>& byId, UnknownKeys& unknown)
{
    const FieldReader top(source, root, "");
    const json& edges = top.require("edges");
    if (!edges.is_array())
        throw InputError(source, "edges", std::string("must be an array, got ") + edges.type_name());
    std::vector<MsrEdge> result;
    result.reserve(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
        const FieldReader r(source, edges[i], "edges[" + std::to_string(i) + "]");
        unknown.check(edges[i], kEdgeKeys, "edges", "edges[" + std::to_string(i) + "]");
        auto endpoint = [&](const char* key) {
            const std::string id = r.id(key);
            auto it = byId.find(id);
            if (it == byId.end())
                throw InputError(source, r.field(key), "no node has id " + id);
            return it->second;
        };
        MsrEdge edge;
        edge.from = endpoint("sourceId");
        edge.to = endpoint("destId");
        // The bytes go into the producer's output_bytes: bounded here, so that an error
        // names this edge rather than the node it starts at.
        const double cost = r.amount("cost", kMaxBytes / kMsrReferenceBytesPerMs);
        edge.bytes = r.find("size") ? r.amount("size", kMaxBytes) : cost * kMsrReferenceBytesPerMs;
        result.push_back(edge);
    }
    return result;
}

// A training graph as the file writes it for MSR's pipelined throughput objective (the forward
// pass of one minibatch overlapping the backward pass of another): no edge between its forward
// and backward nodes. Post times ONE step, where the backward pass starts from the loss, after
// the forward pass; so, unless `--msr-pipelined`, every forward sink feeds every backward source
// (docs/importers.md, "MSR"). A file with an edge between its halves orders them itself.
struct StepJoin {
    int forwardNodes = 0;
    int backwardNodes = 0;
    int sinks = 0;   // forward nodes without a successor
    int sources = 0; // backward nodes without a predecessor
    bool pipelined = false;
    std::vector<MsrEdge> edges; // sink -> source, in the nodes' order; empty when kept as is
};

StepJoin stepJoin(const std::vector<MsrNode>& nodes, const std::vector<MsrEdge>& edges, bool keepPipelined)
{
    StepJoin join;
    std::vector<char> hasIn(nodes.size(), 0), hasOut(nodes.size(), 0);
    bool crossing = false;
    for (const MsrEdge& e : edges) {
        hasOut[static_cast<size_t>(e.from)] = 1;
        hasIn[static_cast<size_t>(e.to)] = 1;
        crossing = crossing || nodes[static_cast<size_t>(e.from)].backward != nodes[static_cast<size_t>(e.to)].backward;
    }
    std::vector<int> sinks, sources;
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].backward) {
            ++join.backwardNodes;
            if (!hasIn[i])
                sources.push_back(static_cast<int>(i));
        } else {
            ++join.forwardNodes;
            if (!hasOut[i])
                sinks.push_back(static_cast<int>(i));
        }
    }
    join.sinks = static_cast<int>(sinks.size());
    join.sources = static_cast<int>(sources.size());
    join.pipelined = join.forwardNodes > 0 && join.backwardNodes > 0 && !crossing;
    if (!join.pipelined || keepPipelined)
        return join;
    // The file gives no output size for a sink (its `size` is memory, not a tensor): the edge
    // carries no bytes, a control dependency like the PipeDream builder's forward-to-backward
    // edges; between two devices it costs the link's latency.
    join.edges.reserve(sinks.size() * sources.size());
    for (int from : sinks)
        for (int to : sources)
            join.edges.push_back(MsrEdge{from, to, 0.0});
    return join;
}

std::string stepJoinNote(const StepJoin& join)
{
    const std::string halves = "no edge joins its " + std::to_string(join.forwardNodes) + " forward nodes to its "
        + std::to_string(join.backwardNodes) + " backward nodes";
    if (join.edges.empty())
        return "a training graph in the file's pipelined (throughput) form, kept as is (--msr-pipelined): " + halves
            + ", so a step may run backward nodes alongside the forward pass";
    return "a training graph in the file's pipelined (throughput) form (" + halves + "): joined its "
        + std::to_string(join.sinks) + " forward sink(s) to its " + std::to_string(join.sources)
        + " backward source(s) by " + std::to_string(join.edges.size())
        + " edge(s) of 0 bytes, so that the step runs the backward pass after the forward pass; --msr-pipelined "
          "keeps the file's form (docs/importers.md#msr)";
}

ImportedGraph buildMsrGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    const json root = parseJson(text, source);
    if (!root.is_object())
        throw InputError(source, "(top level)", std::string("must be an object, got ") + root.type_name());

    UnknownKeys unknown;
    unknown.check(root, kTopKeys, "top level", "");
    std::vector<MsrNode> nodes = readNodes(root, source, unknown);
    std::unordered_map<std::string, int> byId;
    std::unordered_map<std::string, int> nameCount;
    std::map<long long, int> classSize;
    for (size_t i = 0; i < nodes.size(); ++i) {
        auto [it, inserted] = byId.emplace(nodes[i].id, static_cast<int>(i));
        if (!inserted)
            throw InputError(source, "nodes[" + std::to_string(i) + "].id",
                             "duplicate id " + nodes[i].id + " (also nodes[" + std::to_string(it->second) + "])");
        ++nameCount[nodes[i].name];
        if (nodes[i].colorClass)
            ++classSize[*nodes[i].colorClass];
    }
    std::vector<MsrEdge> edges = readEdges(root, source, byId, unknown);
    const size_t fileEdges = edges.size();
    const StepJoin join = stepJoin(nodes, edges, options.msrPipelined);
    edges.insert(edges.end(), join.edges.begin(), join.edges.end());

    std::vector<double> outputBytes(nodes.size(), 0.0);
    for (const MsrEdge& e : edges)
        outputBytes[static_cast<size_t>(e.from)] = std::max(outputBytes[static_cast<size_t>(e.from)], e.bytes);

    GraphBuilder builder(graphNameFromSource(source));
    builder.reserve(nodes.size(), edges.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        const MsrNode& node = nodes[i];
        Op op;
        // Names are labels in these files, ids are the keys: disambiguate repeats by id.
        op.name = nameCount[node.name] > 1 ? node.name + "#" + node.id : node.name;
        op.type = node.backward ? "backward" : "forward";
        const double gpuUs = node.fpgaMs * kUsPerMs;
        op.timeUs[static_cast<size_t>(DeviceKind::Gpu)] = gpuUs;
        op.timeUs[static_cast<size_t>(DeviceKind::Cpu)] = node.cpuMs ? *node.cpuMs * kUsPerMs
                                                                     : derivedCpuTimeUs(gpuUs, options);
        if (!node.cpuMs)
            op.derivedKinds = 1U << static_cast<int>(DeviceKind::Cpu);
        op.outputBytes = outputBytes[i];
        op.residentBytes = node.sizeBytes; // already the whole need (weights + activations): no optimizer factor
        op.cpuOnly = !node.acceleratorOk;
        if (node.colorClass && classSize[*node.colorClass] > 1)
            op.colocate = "color" + std::to_string(*node.colorClass);
        try {
            builder.addOp(std::move(op));
        } catch (const GraphError& e) {
            throw InputError(source, "nodes[" + std::to_string(i) + "]", e.what());
        }
    }
    for (size_t i = 0; i < edges.size(); ++i) {
        try {
            builder.addEdge(edges[i].from, edges[i].to, edges[i].bytes);
        } catch (const GraphError& e) {
            // A join edge cannot be refused: its ends are distinct, its bytes 0.
            throw InputError(source, i < fileEdges ? "edges[" + std::to_string(i) + "]" : std::string("edges"), e.what());
        }
    }
    ImportedGraph imported;
    try {
        imported.graph = std::move(builder).build();
    } catch (const GraphError& e) {
        throw InputError(source, "edges", e.what());
    }
    imported.source = source;
    if (join.pipelined)
        imported.notes.push_back(stepJoinNote(join));
    // Where nodes lack cpuLatency, an unknown node key may be it misspelled: say what its absence does.
    const bool derived = std::any_of(nodes.begin(), nodes.end(), [](const MsrNode& n) { return !n.cpuMs; });
    for (const auto& [key, seen] : unknown.seen) {
        const auto& [where, name] = key;
        const std::string known = where == "nodes" ? keyList(kNodeKeys)
            : where == "edges"                     ? keyList(kEdgeKeys)
                                                   : keyList(kTopKeys);
        std::string text = seen.firstPath + ": \"" + name + "\" is not a key of MSR's " + where + " (" + known
            + "), so it was ignored";
        if (where != "top level")
            text += " in the " + std::to_string(seen.count) + " that have it";
        if (where == "nodes" && derived) {
            char factor[32];
            std::snprintf(factor, sizeof factor, "%g", options.cpuSlowdown);
            text += std::string("; a node without \"cpuLatency\" takes its fpgaLatency x ") + factor + " on a CPU";
        }
        imported.warnings.push_back(std::move(text));
    }
    return imported;
}

} // namespace

ImportedGraph importMsrGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    try {
        return buildMsrGraph(text, source, options);
    } catch (const json::exception& e) { // a type mismatch the field checks missed
        throw InputError(source, {}, e.what());
    }
}

Graph parseMsrGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    return importMsrGraph(text, source, options).graph;
}

} // namespace post
