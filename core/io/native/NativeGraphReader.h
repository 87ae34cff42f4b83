#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <string>
#include <string_view>

namespace post {

// Post Studio's own graph format, "post-graph/1" (see docs/formats.md).
// Throws InputError naming `source` and the line/column or field at fault.
Graph parseNativeGraph(std::string_view text, const std::string& source, const ImportOptions& options = {});

// The same, with what the file's "origin" records of the format the graph was first read from
// (ImportedGraph::origin, forwardFlops, fused, fusionWhy, eagerHost: what decides the default
// precision mode and the host-dispatch figures); a file without one reads as parseNativeGraph's.
ImportedGraph importNativeGraph(std::string_view text, const std::string& source, const ImportOptions& options = {});

// Writes `graph` as post-graph/1 with both device-kind times spelled out, so reading
// the text back gives an equal graph whatever ImportOptions the reader uses.
std::string nativeGraphJson(const Graph& graph);
// The same with an "origin" naming the format `imported` was read from (its own origin when it
// is a post-graph/1 file that records one; none for a post-graph/1 file that does not), so that
// importNativeGraph gives back what decides its defaults (post-cli convert).
std::string nativeGraphJson(const ImportedGraph& imported);

} // namespace post
