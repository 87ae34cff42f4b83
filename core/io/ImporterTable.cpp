#include "core/io/ImporterTable.h"

#include "core/io/torch/KinetoTrace.h"

#include "core/io/chakra/ChakraTrace.h"
#include "core/io/dot/DotReader.h"
#include "core/io/msr/MsrReader.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/io/pipedream/PipeDreamReader.h"
#include "core/io/tf/PbtxtReader.h"
#include "core/io/torch/ExecutionTrace.h"
#include "core/io/torch/KinetoTrace.h"
#include "core/util/InputError.h"
#include "core/util/TextNumber.h"

#include <cctype>
#include <stdexcept>

namespace post {
namespace {

// Skips blanks and DOT comments: // and # to the end of the line, /* ... */.
std::string_view skipDotComments(std::string_view text)
{
    while (true) {
        text = skipBlanksAndBom(text);
        if (text.starts_with("//") || text.starts_with("#")) {
            const auto eol = text.find('\n');
            text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        } else if (text.starts_with("/*")) {
            const auto end = text.find("*/", 2);
            text = end == std::string_view::npos ? std::string_view() : text.substr(end + 2);
        } else {
            return text;
        }
    }
}

// Consumes a case-insensitive DOT keyword that is not the prefix of a longer identifier.
bool takeKeyword(std::string_view& text, std::string_view keyword)
{
    if (text.size() < keyword.size())
        return false;
    for (size_t i = 0; i < keyword.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[i])) != keyword[i])
            return false;
    if (text.size() > keyword.size()) {
        const auto next = static_cast<unsigned char>(text[keyword.size()]);
        if (std::isalnum(next) || next == '_')
            return false;
    }
    text.remove_prefix(keyword.size());
    return true;
}

bool looksLikeDot(std::string_view text)
{
    text = skipDotComments(text);
    if (takeKeyword(text, "strict"))
        text = skipDotComments(text);
    return takeKeyword(text, "digraph") || takeKeyword(text, "graph");
}

// A PipeDream node line among the first non-blank lines: "id -- description -- forward_compute_time=".
bool looksLikePipeDream(std::string_view text)
{
    int inspected = 0;
    while (!text.empty() && inspected < 20) {
        const auto eol = text.find('\n');
        const std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (trimBlanks(line).empty())
            continue;
        ++inspected;
        const auto first = line.find(" -- ");
        if (first != std::string_view::npos && first > 0 && line.find(" -- ", first + 4) != std::string_view::npos
            && line.find("forward_compute_time=") != std::string_view::npos)
            return true;
    }
    return false;
}

// Skips blanks and protobuf text-format comments (# to the end of the line).
std::string_view skipHashComments(std::string_view text)
{
    while (true) {
        text = skipBlanksAndBom(text);
        if (!text.starts_with("#"))
            return text;
        const auto eol = text.find('\n');
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    }
}

// A GraphDef in text format: the first field is `node {` (or a GraphDef's, MetaGraphDef's
// or SavedModel's other top-level field) and an `op:` field follows.
bool looksLikePbtxt(std::string_view text)
{
    text = skipHashComments(text);
    bool opened = false;
    for (std::string_view field :
         {"node", "versions", "library", "meta_info_def", "graph_def", "saved_model_schema_version", "meta_graphs"}) {
        if (!text.starts_with(field))
            continue;
        const std::string_view rest = skipBlanksAndBom(text.substr(field.size()));
        opened = rest.starts_with("{") || rest.starts_with(":") || rest.starts_with("<");
        if (opened)
            break;
    }
    return opened && text.find("op:") != std::string_view::npos;
}

bool json(std::string_view text) { return text.starts_with("{"); }

// A Chrome trace of torch.profiler (Kineto): {"traceEvents": [...]} with its device properties
// first in PyTorch 2.x, or a bare array of events ({"ph": ...}) as torch 1.x exported it.
bool looksLikeKineto(std::string_view text)
{
    const std::string_view head = text.substr(0, std::size_t(1) << 20);
    if (text.starts_with("{"))
        return head.find("\"traceEvents\"") != std::string_view::npos;
    if (!text.starts_with("["))
        return false;
    const auto first = text.find_first_not_of(" \t\r\n", 1);
    return first != std::string_view::npos && text[first] == '{' && head.find("\"ph\"") != std::string_view::npos
        && head.find("\"ts\"") != std::string_view::npos;
}

ImportedGraph graphOnly(Graph graph, const std::string& source)
{
    ImportedGraph imported;
    imported.graph = std::move(graph);
    imported.source = source;
    return imported;
}

ImportedGraph readOnnx(std::string_view content, const std::string& source, const ImportOptions& options)
{
    return importOnnxGraph(content, source, options);
}

ImportedGraph readDot(std::string_view content, const std::string& source, const ImportOptions& options)
{
    ImportedGraph imported = graphOnly(parseDotGraph(content, source, options), source);
    if (auto warning = dotMissingCostWarning(imported.graph))
        imported.warnings.push_back(std::move(*warning));
    return imported;
}

[[noreturn]] ImportedGraph refuseKineto(std::string_view content, const std::string& source, const ImportOptions&)
{
    refuseProfilerTraceAsGraph(content, source); // the message that names --costs SOURCE
    throw InputError(source, {},
                     "a Kineto trace (torch.profiler's Chrome trace) holds measured times, not a graph: give the "
                     "graph (an execution trace of the same run, or the model) and this trace with --costs "
                         + source + " (docs/pytorch.md)");
}

std::vector<ImporterRow> buildTable()
{
    using V = std::string_view;
    return {
        {GraphFormat::Onnx,
         "ONNX model",
         {".onnx"},
         "a binary ModelProto",
         [](V, V content, V path) {
             return looksBinary(content) && (endsWith(path, ".onnx") || looksLikeOnnxModel(content));
         },
         true,
         readOnnx,
         "--batch, --dim, --input-shape, --fusion / --no-fusion, --costs",
         "onnx"},
        {GraphFormat::ChakraEt,
         "Chakra trace (protobuf)",
         {".et"},
         "a GlobalMetadata message, then Node messages",
         [](V, V content, V path) {
             return looksBinary(content) && (endsWith(path, ".et") || looksLikeChakraEt(content));
         },
         true,
         [](V content, const std::string& source, const ImportOptions& o) { return parseChakraEt(content, source, o); },
         "",
         "chakra"},
        {GraphFormat::PostGraph,
         "Post Studio graph",
         {".json"},
         "{\"format\": \"post-graph/1\", ...}",
         [](V text, V, V) { return json(text) && text.find("post-graph") != V::npos; },
         false,
         [](V content, const std::string& source, const ImportOptions& o) {
             return importNativeGraph(content, source, o);
         },
         "",
         "post-graph"},
        // Either key alone suffices, so a truncated MSR file still reaches the MSR reader and
        // gets its precise error.
        {GraphFormat::Msr,
         "MSR partitioning JSON",
         {".json"},
         "nodes with fpgaLatency",
         [](V text, V, V) {
             return json(text) && (text.find("\"fpgaLatency\"") != V::npos || text.find("\"maxSizePerFPGA\"") != V::npos);
         },
         false,
         [](V content, const std::string& source, const ImportOptions& o) { return importMsrGraph(content, source, o); },
         "--msr-pipelined",
         "msr"},
        {GraphFormat::TorchEt,
         "PyTorch execution trace",
         {".json", ".json.gz"},
         "{\"schema\": ..., \"nodes\": [...]}",
         [](V text, V, V) { return json(text) && looksLikeExecutionTrace(text); },
         false,
         [](V content, const std::string& source, const ImportOptions& o) {
             return parseExecutionTrace(content, source, o);
         },
         "--costs",
         "pytorch-et"},
        {GraphFormat::ChakraJson,
         "Chakra trace (JSON)",
         {".json", ".json.gz"},
         "{\"workload_graph\": [...]}",
         [](V text, V, V) { return json(text) && looksLikeChakraJson(text); },
         false,
         [](V content, const std::string& source, const ImportOptions& o) { return parseChakraJson(content, source, o); },
         "",
         "chakra"},
        {GraphFormat::Kineto,
         "Kineto trace (refused: give it with --costs)",
         {".pt.trace.json", ".pt.trace.json.gz"},
         "{\"traceEvents\": [...]}",
         [](V text, V, V) { return looksLikeKineto(text) || looksLikeProfilerTrace(text); },
         false,
         refuseKineto,
         "",
         "kineto",
         false},
        {GraphFormat::Dot,
         "Graphviz DOT",
         {".dot", ".gv"},
         "digraph { ... }",
         [](V text, V, V) { return looksLikeDot(text); },
         true,
         readDot,
         "",
         "dot"},
        {GraphFormat::PipeDream,
         "PipeDream graph.txt",
         {".txt"},
         "nodeN -- description -- forward_compute_time=...",
         [](V text, V, V) { return looksLikePipeDream(text); },
         false,
         [](V content, const std::string& source, const ImportOptions& o) {
             std::vector<std::string> warnings;
             ImportedGraph imported = graphOnly(parsePipeDreamGraph(content, source, o, &warnings), source);
             imported.warnings = std::move(warnings);
             return imported;
         },
         "",
         "pipedream"},
        {GraphFormat::TfPbtxt,
         "TensorFlow GraphDef text",
         {".pbtxt"},
         "node { name: ... op: ... }",
         [](V text, V, V) { return looksLikePbtxt(text); },
         true,
         [](V content, const std::string& source, const ImportOptions& o) { return parsePbtxtGraph(content, source, o); },
         "--batch, --dim, --input-shape, --fusion / --no-fusion, --costs",
         "pbtxt"},
    };
}

} // namespace

std::string_view skipBlanksAndBom(std::string_view text)
{
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    const auto start = text.find_first_not_of(" \t\r\n");
    return start == std::string_view::npos ? std::string_view() : text.substr(start);
}

bool endsWith(std::string_view path, std::string_view suffix)
{
    if (path.size() < suffix.size())
        return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(path[path.size() - suffix.size() + i])) != suffix[i])
            return false;
    return true;
}

// Text formats are UTF-8; a control byte other than blanks near the start means binary
// (a serialized ModelProto starts with 0x08, the ir_version field).
bool looksBinary(std::string_view content)
{
    const std::string_view head = content.substr(0, 512);
    for (char c : head) {
        const auto b = static_cast<unsigned char>(c);
        if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7F)
            return true;
    }
    return false;
}

std::span<const ImporterRow> importerTable()
{
    static const std::vector<ImporterRow> table = buildTable();
    return table;
}

const ImporterRow& importerRow(GraphFormat format)
{
    for (const ImporterRow& row : importerTable())
        if (row.format == format)
            return row;
    throw std::invalid_argument("importerRow: no row for format '" + std::string(toString(format)) + "'");
}

std::string supportedFormatsText()
{
    std::string text = "supported: ";
    bool first = true;
    for (const ImporterRow& row : importerTable())
        if (row.readable) {
            text.append(first ? "" : ", ").append(row.title).append(" (").append(row.looksLike).append(")");
            first = false;
        }
    return text;
}

std::string formatNamesText()
{
    std::string text(toString(GraphFormat::Auto));
    for (const ImporterRow& row : importerTable())
        if (row.readable)
            text.append(", ").append(toString(row.format));
    return text;
}

} // namespace post
