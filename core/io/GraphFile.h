#pragma once

#include "core/graph/Graph.h"
#include "core/io/GraphFormat.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"
#include "core/io/ImporterTable.h"

#include <string>
#include <string_view>

namespace post {

// Guesses the format from the content (and the file name only as a tie-breaker).
GraphFormat sniffGraphFormat(std::string_view content, std::string_view path);

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
