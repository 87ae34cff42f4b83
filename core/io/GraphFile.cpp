#include "core/io/GraphFile.h"

#include "core/io/ImporterTable.h"
#include "core/io/onnx/OnnxWeightSkip.h"
#include "core/util/FilePrefix.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <cctype>
#include <cmath>

namespace post {

GraphFormat sniffGraphFormat(std::string_view content, std::string_view path)
{
    const std::string file(path);
    const std::string_view text = skipBlanksAndBom(content);
    if (text.empty())
        throw InputError(file, {}, "file is empty");
    for (const ImporterRow& row : importerTable())
        if (row.sniff(text, content, path))
            return row.format;
    if (text.front() == '{')
        throw InputError(file, {},
                         "JSON, but neither a post-graph nor an MSR graph, a PyTorch execution trace nor a Chakra "
                         "trace; "
                             + supportedFormatsText());
    // The name only breaks the tie for a file too broken to recognise: its reader then
    // reports the problem with its line.
    for (const ImporterRow& row : importerTable())
        if (row.byName)
            for (std::string_view extension : row.extensions)
                if (endsWith(path, extension))
                    return row.format;
    throw InputError(file, {}, "unrecognized graph format; " + supportedFormatsText());
}

ImportedGraph parseGraphWithPlacement(std::string_view content, const std::string& source, GraphFormat format,
                                      const ImportOptions& options)
{
    if (!std::isfinite(options.cpuSlowdown) || options.cpuSlowdown <= 0.0)
        throw InputError(source, "option cpu-slowdown",
                         "must be a finite number > 0, got " + std::to_string(options.cpuSlowdown));
    if (skipBlanksAndBom(content).empty())
        throw InputError(source, {}, "file is empty");
    if (format == GraphFormat::Auto)
        format = sniffGraphFormat(content, source);
    ImportedGraph imported = importerRow(format).read(content, source, options);
    imported.source = source;
    imported.format = format;
    return imported;
}

ImportedGraph readGraphFileWithPlacement(const std::string& path, GraphFormat format, const ImportOptions& options)
{
    return parseGraphWithPlacement(readGraphText(path, format), path, format, options);
}

Graph parseGraph(std::string_view content, const std::string& source, GraphFormat format, const ImportOptions& options)
{
    return std::move(parseGraphWithPlacement(content, source, format, options).graph);
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
                                 + supportedFormatsText());
        format = GraphFormat::Onnx;
    } else if (format == GraphFormat::Auto && !gzip && !json && !text.empty()) {
        format = sniffGraphFormat(head.bytes, path);
    }
    const std::size_t limit = format == GraphFormat::Onnx ? kMaxOnnxGraphBytes : kMaxTextGraphBytes;
    if (!gzip && head.size > limit)
        throw InputError(path, {},
                         "file is too large for a graph file (" + std::to_string(head.size) + " bytes; at most "
                             + std::to_string(limit >> 20) + " MiB for this format, docs/importers.md)");
    // An ONNX model's large weights are never read: only their dims count (OnnxWeightSkip.h).
    if (format == GraphFormat::Onnx && !gzip)
        if (auto model = onnxWithoutWeightBytes(openRegularInput(path, limit)))
            return std::move(*model);
    return readFileText(path, limit);
}

} // namespace post
