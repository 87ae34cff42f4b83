#pragma once

#include "core/graph/Graph.h"
#include "core/io/ImportOptions.h"
#include "core/io/ImportedGraph.h"

#include <string>
#include <string_view>

namespace post {

// msr-fiddle/dnn-partitioning JSON inputs (top level "nodes" and "edges"; "maxSizePerFPGA",
// "maxFPGAs", "maxCPUs" describe a cluster and are ignored here). Mapping: docs/importers.md.
// Throws InputError naming the field, e.g. "nodes[12].fpgaLatency".
// A training graph in the file's pipelined form (no edge between its forward and backward
// nodes) becomes one training step: every forward sink feeds every backward source by an edge
// of 0 bytes, and a note says so; ImportOptions::msrPipelined keeps the file's edges alone.
ImportedGraph importMsrGraph(std::string_view text, const std::string& source, const ImportOptions& options);
// The graph of importMsrGraph.
Graph parseMsrGraph(std::string_view text, const std::string& source, const ImportOptions& options);

// Bytes an edge carries when it gives only its transfer time `cost` (ms): PCIe 3.0 x16's
// ~12 GB/s, i.e. 12e6 bytes per millisecond.
inline constexpr double kMsrReferenceBytesPerMs = 12.0e6;

} // namespace post
