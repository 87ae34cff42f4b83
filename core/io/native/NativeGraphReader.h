#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"

#include <string>
#include <string_view>

namespace post {

// Post Studio's own graph format, "post-graph/1" (see docs/formats.md).
// Throws InputError naming `source` and the line/column or field at fault.
Graph parseNativeGraph(std::string_view text, const std::string& source, const ImportOptions& options = {});

// Writes `graph` as post-graph/1 with both device-kind times spelled out, so reading
// the text back gives an equal graph whatever ImportOptions the reader uses.
std::string nativeGraphJson(const Graph& graph);

} // namespace post
