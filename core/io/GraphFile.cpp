#include "core/io/GraphFile.h"

#include "core/io/dot/DotReader.h"
#include "core/io/msr/MsrReader.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/onnx/OnnxReader.h"
#include "core/io/pipedream/PipeDreamReader.h"
#include "core/io/tf/PbtxtReader.h"
#include "core/util/FilePrefix.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"
#include "core/util/TextNumber.h"

#include <cctype>
#include <cmath>

namespace post {
namespace {

constexpr std::string_view kSupported =
    "supported: post-graph JSON ({\"format\": \"post-graph/1\", ...}), MSR JSON (nodes with fpgaLatency), "
    "Graphviz DOT (digraph { ... }), PipeDream graph.txt (nodeN -- description -- forward_compute_time=...), "
    "TensorFlow GraphDef text (node { name: ... op: ... }), ONNX model (.onnx, a binary ModelProto)";

std::string_view skipBlanksAndBom(std::string_view text)
{
    if (text.starts_with("\xEF\xBB\xBF"))
        text.remove_prefix(3);
    const auto start = text.find_first_not_of(" \t\r\n");
    return start == std::string_view::npos ? std::string_view() : text.substr(start);
}

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

bool endsWith(std::string_view path, std::string_view suffix)
{
    if (path.size() < suffix.size())
        return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(path[path.size() - suffix.size() + i])) != suffix[i])
            return false;
    return true;
}

} // namespace

GraphFormat sniffGraphFormat(std::string_view content, std::string_view path)
{
    const std::string file(path);
    const std::string_view text = skipBlanksAndBom(content);
    if (text.empty())
        throw InputError(file, {}, "file is empty");
    // A binary .onnx file goes to the ONNX reader even when broken: it names the problem.
    if (looksBinary(content) && (endsWith(path, ".onnx") || looksLikeOnnxModel(content)))
        return GraphFormat::Onnx;
    if (text.front() == '{') {
        if (text.find("post-graph") != std::string_view::npos)
            return GraphFormat::PostGraph;
        // Either key alone suffices, so a truncated MSR file still reaches the MSR reader
        // and gets its precise error.
        if (text.find("\"fpgaLatency\"") != std::string_view::npos
            || text.find("\"maxSizePerFPGA\"") != std::string_view::npos)
            return GraphFormat::Msr;
        throw InputError(file, {}, "JSON, but neither a post-graph nor an MSR graph; " + std::string(kSupported));
    }
    if (looksLikeDot(text))
        return GraphFormat::Dot;
    if (looksLikePipeDream(text))
        return GraphFormat::PipeDream;
    if (looksLikePbtxt(text))
        return GraphFormat::TfPbtxt;
    // The name only breaks the tie for a DOT file too broken to recognise: the DOT
    // reader then reports the syntax error with its line.
    if (endsWith(path, ".dot") || endsWith(path, ".gv"))
        return GraphFormat::Dot;
    if (endsWith(path, ".pbtxt"))
        return GraphFormat::TfPbtxt;
    if (endsWith(path, ".onnx"))
        return GraphFormat::Onnx;
    throw InputError(file, {}, "unrecognized graph format; " + std::string(kSupported));
}

ImportedGraph parseGraphWithPlacement(std::string_view content, const std::string& source, GraphFormat format,
                                      const ImportOptions& options)
{
    if (format == GraphFormat::Auto && !skipBlanksAndBom(content).empty())
        format = sniffGraphFormat(content, source);
    ImportedGraph imported;
    if (format == GraphFormat::TfPbtxt) {
        imported = parsePbtxtGraph(content, source, options);
    } else if (format == GraphFormat::Onnx) {
        CostReport report;
        imported.graph = parseOnnxGraph(content, source, options, &report);
        if (report.weightInputs > 0)
            imported.notes.push_back(std::to_string(report.weightInputs)
                                     + " graph input(s) taken as the model's weights: the file has no initializers "
                                       "(exported without its weights, e.g. export_params=False)");
        imported.source = source;
        imported.unknownOpTypes = std::move(report.unknownTypes);
        imported.forwardFlops = report.totalForwardFlops;
        imported.unresolvedDims = std::move(report.unresolved);
        imported.unshapedTensors = std::move(report.unshapedTensors);
    } else {
        imported.graph = parseGraph(content, source, format, options);
        imported.source = source;
        if (format == GraphFormat::Dot)
            if (auto warning = dotMissingCostWarning(imported.graph))
                imported.warnings.push_back(std::move(*warning));
    }
    imported.format = format;
    return imported;
}

ImportedGraph readGraphFileWithPlacement(const std::string& path, GraphFormat format, const ImportOptions& options)
{
    return parseGraphWithPlacement(readGraphText(path, format), path, format, options);
}

Graph parseGraph(std::string_view content, const std::string& source, GraphFormat format, const ImportOptions& options)
{
    if (!std::isfinite(options.cpuSlowdown) || options.cpuSlowdown <= 0.0)
        throw InputError(source, "option cpu-slowdown",
                         "must be a finite number > 0, got " + std::to_string(options.cpuSlowdown));
    if (skipBlanksAndBom(content).empty())
        throw InputError(source, {}, "file is empty");
    if (format == GraphFormat::Auto)
        format = sniffGraphFormat(content, source);
    switch (format) {
    case GraphFormat::PostGraph:
        return parseNativeGraph(content, source, options);
    case GraphFormat::PipeDream:
        return parsePipeDreamGraph(content, source, options);
    case GraphFormat::Msr:
        return parseMsrGraph(content, source, options);
    case GraphFormat::Dot:
        return parseDotGraph(content, source, options);
    case GraphFormat::TfPbtxt:
        return parsePbtxtGraph(content, source, options).graph;
    case GraphFormat::Onnx:
        return parseOnnxGraph(content, source, options);
    case GraphFormat::Auto:
        break;
    }
    throw InputError(source, {}, "unrecognized graph format; " + std::string(kSupported));
}

Graph readGraphFile(const std::string& path, GraphFormat format, const ImportOptions& options)
{
    return parseGraph(readGraphText(path, format), path, format, options);
}

std::string readGraphText(const std::string& path, GraphFormat format)
{
    const FilePrefix head = readFilePrefix(path);
    const bool gzip = head.bytes.size() >= 2 && head.bytes[0] == '\x1f' && head.bytes[1] == '\x8b';
    // JSON's "format" tag may come after 64 KiB of ops (keys sorted), so JSON is told by its
    // first character; the other formats by their first lines, as a whole file would be.
    const std::string_view text = skipBlanksAndBom(head.bytes);
    const bool partial = head.bytes.size() < head.size;
    const bool json = !text.empty() && text.front() == '{';
    if (format == GraphFormat::Auto && !gzip && !json && partial && looksBinary(head.bytes)) {
        // An ONNX model's start does not parse on its own: judged by its first byte, which
        // is the tag of a ModelProto field (ir_version 0x08, producer_name 0x12, producer_version
        // 0x1a, domain 0x22, model_version 0x28, doc_string 0x32, graph 0x3a, opset_import
        // 0x42, metadata_props 0x72, training_info 0xa2, functions 0xca).
        constexpr std::string_view kModelTags = "\x08\x12\x1a\x22\x28\x32\x3a\x42\x72\xa2\xca";
        if (kModelTags.find(head.bytes.front()) == std::string_view::npos && !endsWith(path, ".onnx"))
            throw InputError(path, {},
                             "unrecognized graph format (binary, and not the start of an ONNX model); "
                                 + std::string(kSupported));
        format = GraphFormat::Onnx;
    } else if (format == GraphFormat::Auto && !gzip && !json && !text.empty()) {
        format = sniffGraphFormat(head.bytes, path);
    }
    const std::size_t limit = format == GraphFormat::Onnx ? kMaxOnnxGraphBytes : kMaxTextGraphBytes;
    if (!gzip && head.size > limit)
        throw InputError(path, {},
                         "file is too large for a graph file (" + std::to_string(head.size) + " bytes; at most "
                             + std::to_string(limit >> 20) + " MiB for this format, docs/importers.md)");
    return readFileText(path, limit);
}

} // namespace post
