#pragma once

#include "core/graph/Graph.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"
#include "core/io/ImporterTable.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace post {

// Guesses the format from the content (and the file name only as a tie-breaker).
GraphFormat sniffGraphFormat(std::string_view content, std::string_view path);

// The most bytes a graph file of each format may have, checked before it is read (docs/
// importers.md, "Size limits"): a text graph (post-graph and MSR JSON, DOT, PipeDream,
// .pbtxt) takes 5 to 7 times its size to read, so 160 MB (about 220k ops) keeps the import
// near 1 GB; an ONNX file may carry its weights, up to protobuf's own 2 GiB limit.
inline constexpr std::size_t kMaxTextGraphBytes = std::size_t(160) << 20;
inline constexpr std::size_t kMaxOnnxGraphBytes = std::size_t(2) << 30;

// The text of a graph file, refused before it is read whole when its first 64 KiB are no
// graph format (junk, a binary that is not ONNX) or it is over its format's limit above.
// Throws InputError naming the file.
std::string readGraphText(const std::string& path, GraphFormat format = GraphFormat::Auto);

// Reads a graph in any supported format; throws InputError naming the file and the
// line or field at fault.
Graph readGraphFile(const std::string& path, GraphFormat format = GraphFormat::Auto, const ImportOptions& options = {});
Graph parseGraph(std::string_view content, const std::string& source, GraphFormat format = GraphFormat::Auto,
                 const ImportOptions& options = {});

// The same, with the placement the file gives (TensorFlow `device` fields; none for the
// other formats).
ImportedGraph readGraphFileWithPlacement(const std::string& path, GraphFormat format = GraphFormat::Auto,
                                         const ImportOptions& options = {});
ImportedGraph parseGraphWithPlacement(std::string_view content, const std::string& source,
                                      GraphFormat format = GraphFormat::Auto, const ImportOptions& options = {});

} // namespace post
