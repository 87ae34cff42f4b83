#pragma once

#include "ui/document/GraphDocument.h"

#include <string>

namespace post {

// The graph as Graphviz DOT, every op a box filled with its device's colour (the graph
// view's palette; grey when unplaced) and carrying the attributes core's DOT reader
// understands (type, time_us_gpu, time_us_cpu, output_bytes, param_bytes, colocate; edge
// bytes), so the file opens again as the same graph: numbers are quoted, in their shortest
// exact form, so tiny or huge values (6.44e-05) read back bit for bit. `device` names the op's device.
// Plain text: no Graphviz call. Op names ending in a backslash do not survive (DOT has
// no escape for it); residentBytes is not written (the reader has no attribute for it).
std::string dotWithDeviceColours(const GraphDocument& document);

} // namespace post
