#include "core/io/GraphFile.h"

#include "core/io/ImporterTable.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <cctype>
#include <cmath>

namespace post {
namespace {

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

} // namespace

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
    return parseGraphWithPlacement(readFileText(path), path, format, options);
}

Graph parseGraph(std::string_view content, const std::string& source, GraphFormat format, const ImportOptions& options)
{
    return std::move(parseGraphWithPlacement(content, source, format, options).graph);
}

Graph readGraphFile(const std::string& path, GraphFormat format, const ImportOptions& options)
{
    return parseGraph(readFileText(path), path, format, options);
}

} // namespace post
