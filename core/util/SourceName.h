#pragma once

#include <string>

namespace post {

// A graph name derived from the file it came from: the file's stem, or the parent
// folder's name for PipeDream's generic "graph.txt" / "graph.dot" (pipedream/alexnet/graph.txt -> "alexnet").
std::string graphNameFromSource(const std::string& source);

} // namespace post
