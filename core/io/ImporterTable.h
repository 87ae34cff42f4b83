#pragma once

#include "core/io/GraphFormat.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// One graph format: everything the program knows about it in one place. The sniffer
// (sniffGraphFormat), the readers' dispatch (GraphFile), `post-cli --help` and `--format`,
// the desktop app's Open dialog and docs/importers.md's format table (a test compares them)
// all read this table. Adding a format is one row here and one reader (docs/architecture.md).
struct ImporterRow {
    GraphFormat format;
    std::string_view title;                   // "ONNX model"
    std::vector<std::string_view> extensions; // ".onnx"; what the Open dialog offers (".json.gz" too)
    // What the content looks like, for the "supported: ..." message.
    std::string_view looksLike;
    // The content test. `text` is the content after a byte-order mark and blanks; `content` is all
    // of it (binary formats look at it); `path` only where the format needs it (ONNX: a broken
    // .onnx file still goes to its reader). Rows are tried in table order; the first that
    // matches wins.
    bool (*sniff)(std::string_view text, std::string_view content, std::string_view path);
    // True: a file whose content no row recognises still goes to this reader when its name ends
    // in one of `extensions` (its reader then names the problem with its line).
    bool byName;
    // Reads the content; throws InputError naming the source and the line or field.
    ImportedGraph (*read)(std::string_view content, const std::string& source, const ImportOptions& options);
    // The command-line options it takes beyond --format ("" when none).
    std::string_view options;
    // Its section: docs/importers.md#<anchor>.
    std::string_view docsAnchor;
    // Read by the file dialogs and `--format` (false: a format that is recognised only to be
    // refused with a useful message, such as a Kineto trace given as a graph).
    bool readable = true;
};

// Every format, in sniffing order.
std::span<const ImporterRow> importerTable();
// The row of `format`; throws std::invalid_argument for GraphFormat::Auto.
const ImporterRow& importerRow(GraphFormat format);

// "supported: post-graph JSON ({"format": "post-graph/1", ...}), MSR JSON (...), ...": the
// readable formats and what they look like, for error messages.
std::string supportedFormatsText();
// The text after a UTF-8 byte-order mark and leading blanks.
std::string_view skipBlanksAndBom(std::string_view text);
// Whether `path` ends in `suffix` (lower case), ignoring the path's case.
bool endsWith(std::string_view path, std::string_view suffix);
// Whether the first 512 bytes hold a control byte other than blanks (a binary file: ONNX, .et).
bool looksBinary(std::string_view content);
// "auto, post-graph, pipedream, ...": the names --format takes.
std::string formatNamesText();

} // namespace post
