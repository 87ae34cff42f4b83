#include "core/io/dot/DotReader.h"

#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/io/TrainingStepBuilder.h"
#include "core/io/dot/CgraphLock.h"
#include "core/io/dot/DotEdgeBound.h"
#include "core/io/pipedream/PipeDreamStats.h"
#include "core/util/InputError.h"
#include "core/util/SourceName.h"
#include "core/util/TextNumber.h"

#include <graphviz/cgraph.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

// Flex's reset for cgraph's scanner: exported by libcgraph (its scanner prefix is "aag")
// but not declared in its headers.
extern "C" int aaglex_destroy(void);

namespace post {
namespace {

// Node attributes the reader understands, in the order DotNode::attrs stores them.
enum NodeAttr { kLabel, kTimeGpu, kTimeCpu, kTime, kOutputBytes, kParamBytes, kColocate, kType, kNodeAttrCount };
constexpr std::array<const char*, kNodeAttrCount> kNodeAttrNames = {
    "label", "time_us_gpu", "time_us_cpu", "time_us", "output_bytes", "param_bytes", "colocate", "type"};

struct DotNode {
    std::string name;
    std::array<std::optional<std::string>, kNodeAttrCount> attrs;
};

struct DotEdge {
    std::string tail, head;
    std::optional<std::string> bytes;
};

// What the reader needs from cgraph, copied out so cgraph's lock is held only while parsing.
struct DotContent {
    std::string name;
    bool directed = true;
    std::vector<DotNode> nodes;
    std::vector<DotEdge> edges;
};

// agerr's messages for the current parse; only touched while cgraphMutex() is held.
std::string g_cgraphMessages;

int captureCgraphMessage(char* message)
{
    g_cgraphMessages += message;
    return 0;
}

// Routes cgraph's error output (normally printed to stderr) into g_cgraphMessages.
class CgraphErrorCapture {
public:
    CgraphErrorCapture()
    {
        g_cgraphMessages.clear();
        previous_ = agseterrf(captureCgraphMessage);
    }
    ~CgraphErrorCapture() { agseterrf(previous_); }
    CgraphErrorCapture(const CgraphErrorCapture&) = delete;
    CgraphErrorCapture& operator=(const CgraphErrorCapture&) = delete;

private:
    agusererrf previous_ = nullptr;
};

std::optional<std::string> attribute(void* object, const char* key)
{
    const char* value = agget(object, const_cast<char*>(key));
    if (!value || !*value)
        return std::nullopt; // undeclared, or declared for other objects only
    return std::string(value);
}

// "Error: syntax error in line 5 near '}'" -> InputError at "line 5".
[[noreturn]] void throwCgraphError(const std::string& source, std::string messages, const std::string& fallback)
{
    std::string location;
    const auto at = messages.find("line ");
    if (at != std::string::npos) {
        size_t end = at + 5;
        while (end < messages.size() && messages[end] >= '0' && messages[end] <= '9')
            ++end;
        if (end > at + 5)
            location = messages.substr(at, end - at);
    }
    for (char& c : messages)
        if (c == '\n' || c == '\r')
            c = ' ';
    std::string text(trimBlanks(messages));
    if (text.starts_with("Error: "))
        text.erase(0, 7);
    if (text.size() > 300)
        text = text.substr(0, 300) + "...";
    throw InputError(source, location, text.empty() ? fallback : text);
}

// True if cgraph's scanner is back in its normal state after a read; false if the input
// ended inside a quoted string, an HTML string or a /* comment after the graph, which cgraph
// accepts silently (it then swallows this probe as more of that string).
bool scannerAtRest()
{
    Agraph_t* probe = agmemread("digraph{}");
    if (!probe)
        return false;
    agclose(probe);
    return true;
}

// The input as one cgraph channel. agmemread hands cgraph a line at a time from a channel
// of its own, so whatever followed the graph's last line (junk, a second graph) was never
// read; with one channel for the graph and the reads after it, all of the text is seen.
struct TextChannel {
    std::string_view text;
    size_t next = 0;
};

int readTextChannel(void* chan, char* buf, int bufsize)
{
    auto* channel = static_cast<TextChannel*>(chan);
    const size_t n = std::min(static_cast<size_t>(std::max(bufsize, 0)), channel->text.size() - channel->next);
    if (n == 0)
        return 0; // also an empty text, whose data() may be null: no memcpy from null
    std::memcpy(buf, channel->text.data() + channel->next, n);
    channel->next += n;
    return static_cast<int>(n);
}

DotContent readWithCgraph(std::string_view text, const std::string& source)
{
    const std::string_view trimmed = trimBlanks(text);
    std::lock_guard lock(cgraphMutex());
    // cgraph's scanner keeps its state in globals across reads: an input that ends inside
    // a quoted string, an HTML string or a /* comment left it in that state, and the next
    // file, however valid, was read as the rest of that string ("no graph found"). Found
    // by fuzz_dot, whose coverage depended on the inputs run before. Destroying the
    // scanner makes this read start from its first-use state; its line count is separate.
    aaglex_destroy();
    agreadline(1);
    CgraphErrorCapture capture;
    TextChannel channel{trimmed};
    Agiodisc_t io = AgIoDisc;
    io.afread = readTextChannel;
    Agdisc_t discipline{&AgMemDisc, &AgIdDisc, &io};
    Agraph_t* graph = agread(&channel, &discipline);
    const std::string parseMessages = g_cgraphMessages;
    int extraGraphs = 0;
    while (Agraph_t* extra = agread(&channel, &discipline)) {
        agclose(extra);
        ++extraGraphs;
    }
    const std::string trailingMessages = g_cgraphMessages.substr(parseMessages.size());
    if (!graph)
        throwCgraphError(source, parseMessages, "no graph found (expected 'digraph { ... }')");

    DotContent content;
    try {
        if (extraGraphs > 0)
            throw InputError(source, {}, "holds more than one graph");
        if (!trailingMessages.empty())
            throwCgraphError(source, trailingMessages, "unexpected text after the graph");
        if (!scannerAtRest())
            throw InputError(source, {}, "unclosed quoted string, HTML string or /* comment after the graph");
        const char* name = agnameof(graph);
        if (name && *name && *name != '%') // cgraph names anonymous graphs "%<n>"
            content.name = name;
        content.directed = agisdirected(graph);
        content.nodes.reserve(static_cast<size_t>(agnnodes(graph)));
        content.edges.reserve(static_cast<size_t>(agnedges(graph)));
        for (Agnode_t* n = agfstnode(graph); n; n = agnxtnode(graph, n)) {
            DotNode node;
            node.name = agnameof(n);
            for (int a = 0; a < kNodeAttrCount; ++a)
                node.attrs[static_cast<size_t>(a)] = attribute(n, kNodeAttrNames[static_cast<size_t>(a)]);
            content.nodes.push_back(std::move(node));
            for (Agedge_t* e = agfstout(graph, n); e; e = agnxtout(graph, e))
                content.edges.push_back(DotEdge{agnameof(agtail(e)), agnameof(aghead(e)), attribute(e, "bytes")});
        }
    } catch (...) {
        agclose(graph);
        throw;
    }
    agclose(graph);
    return content;
}

std::string nodeLocation(const std::string& name) { return "node '" + name + "'"; }

std::string edgeLocation(const DotEdge& e) { return "edge '" + e.tail + "' -> '" + e.head + "'"; }

double amount(const std::optional<std::string>& text, const std::string& source, const std::string& location,
              const char* key)
{
    const auto number = parseDecimal(*text);
    const std::string where = location + " attribute " + key;
    if (!number)
        throw InputError(source, where, "'" + *text + "' is not a number");
    if (!std::isfinite(*number))
        throw InputError(source, where, "must be a finite number, got '" + *text + "'");
    if (*number < 0.0)
        throw InputError(source, where, "must be >= 0, got " + *text);
    // GraphBuilder's bounds, checked here to name the attribute as written.
    const bool time = std::string_view(key).starts_with("time_us");
    const double limit = time ? GraphBuilder::kMaxTimeUs : GraphBuilder::kMaxBytes;
    if (*number > limit) {
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", limit);
        throw InputError(source, where, std::string("must be at most ") + bound + ", got " + *text);
    }
    return *number;
}

bool hasPipeDreamLabels(const DotContent& content)
{
    for (const DotNode& node : content.nodes)
        if (node.attrs[kLabel] && node.attrs[kLabel]->find("forward_compute_time=") != std::string::npos)
            return true;
    return false;
}

// PipeDream's graph.dot: label = "<description>\n[forward_compute_time=...,...,parameter_size=...]".
Graph buildPipeDreamStep(const DotContent& content, const std::string& source, const std::string& graphName,
                         const ImportOptions& options)
{
    TrainingStepBuilder builder(source, graphName, options);
    for (const DotNode& node : content.nodes) {
        const std::string location = nodeLocation(node.name);
        const std::string label = node.attrs[kLabel].value_or("");
        const auto statsAt = label.find("forward_compute_time=");
        if (statsAt == std::string::npos)
            throw InputError(source, location,
                             "label lacks PipeDream's [forward_compute_time=...] statistics (other nodes have them)");
        const auto open = label.rfind('[', statsAt);
        const auto close = label.rfind(']');
        const size_t statsEnd = close != std::string::npos && close > statsAt ? close : label.size();
        std::string_view description = trimBlanks(
            std::string_view(label).substr(0, open == std::string::npos ? statsAt : open));
        // The line break may be written as DOT's escape "\n" rather than a real newline.
        while (description.ends_with("\\n") || description.ends_with("\\l"))
            description = trimBlanks(description.substr(0, description.size() - 2));
        const PipeDreamStats stats = parsePipeDreamStats(std::string_view(label).substr(statsAt, statsEnd - statsAt),
                                                         source, location);
        builder.addLayer(node.name, std::string(description), stats, location);
    }
    for (const DotEdge& edge : content.edges)
        builder.addEdge(edge.tail, edge.head, edgeLocation(edge));
    return std::move(builder).build();
}

Graph buildAttributed(const DotContent& content, const std::string& source, const std::string& graphName,
                      const ImportOptions& options)
{
    GraphBuilder builder(graphName);
    builder.reserve(content.nodes.size(), content.edges.size());
    for (const DotNode& node : content.nodes) {
        const std::string location = nodeLocation(node.name);
        auto number = [&](NodeAttr a) -> std::optional<double> {
            const auto& text = node.attrs[static_cast<size_t>(a)];
            if (!text)
                return std::nullopt;
            return amount(text, source, location, kNodeAttrNames[static_cast<size_t>(a)]);
        };
        const std::optional<double> gpu = number(kTimeGpu);
        std::optional<double> cpu = number(kTimeCpu);
        const std::optional<double> plain = number(kTime);
        if (!cpu)
            cpu = plain;
        Op op;
        op.name = node.name;
        op.type = node.attrs[kType].value_or("");
        op.colocate = node.attrs[kColocate].value_or("");
        // A missing kind is derived from the other one through the CPU slowdown.
        op.timeUs[static_cast<size_t>(DeviceKind::Gpu)] = gpu ? *gpu : cpu ? *cpu / options.cpuSlowdown : 0.0;
        op.timeUs[static_cast<size_t>(DeviceKind::Cpu)] = cpu ? *cpu : gpu ? derivedCpuTimeUs(*gpu, options) : 0.0;
        if (gpu.has_value() != cpu.has_value())
            op.derivedKinds = 1U << static_cast<int>(gpu ? DeviceKind::Cpu : DeviceKind::Gpu);
        op.outputBytes = number(kOutputBytes).value_or(0.0);
        op.paramBytes = number(kParamBytes).value_or(0.0);
        try {
            builder.addOp(std::move(op));
        } catch (const GraphError& e) {
            throw InputError(source, location, e.what());
        }
    }
    for (const DotEdge& edge : content.edges) {
        const std::string location = edgeLocation(edge);
        // No bytes attribute: the edge carries the producer's output_bytes.
        const double bytes = edge.bytes ? amount(edge.bytes, source, location, "bytes") : -1.0;
        try {
            builder.addEdge(edge.tail, edge.head, bytes);
        } catch (const GraphError& e) {
            throw InputError(source, location, e.what());
        }
    }
    try {
        return std::move(builder).build();
    } catch (const GraphError& e) {
        throw InputError(source, {}, e.what());
    }
}

} // namespace

Graph parseDotGraph(std::string_view text, const std::string& source, const ImportOptions& options)
{
    if (text.find('\0') != std::string_view::npos) // cgraph would silently stop at it
        throw InputError(source, {}, "contains NUL bytes: not a text file");
    checkDotEdgeBound(text, source, dotEdgeLimit(text.size()));
    const DotContent content = readWithCgraph(text, source);
    if (!content.directed)
        throw InputError(source, {}, "an undirected 'graph' has no data-flow direction: write 'digraph'");
    if (content.nodes.empty())
        throw InputError(source, {}, "the graph has no nodes");
    const std::string graphName = content.name.empty() ? graphNameFromSource(source) : content.name;
    return hasPipeDreamLabels(content) ? buildPipeDreamStep(content, source, graphName, options)
                                       : buildAttributed(content, source, graphName, options);
}

std::optional<std::string> dotMissingCostWarning(const Graph& graph)
{
    for (const Op& op : graph.ops())
        if (op.time(DeviceKind::Gpu) > 0.0 || op.time(DeviceKind::Cpu) > 0.0 || op.flops > 0.0 || op.memoryBytes > 0.0)
            return std::nullopt;
    return "no node has a cost, so every op takes 0 us and every placement the same time; costs come from the node "
           "attributes time_us_gpu, time_us_cpu or time_us (microseconds), or from PipeDream labels "
           "\"[forward_compute_time=...,backward_compute_time=...,activation_size=...,parameter_size=...]\" "
           "(docs/importers.md)";
}

} // namespace post
