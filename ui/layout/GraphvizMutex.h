#pragma once

#include <mutex>

namespace post {

// Serialises every use of the Graphviz libraries made by the UI. The layout thread
// holds it for a whole layout. The DOT importer in core parses with cgraph too; when
// core exposes its own lock this should return that one, so a DOT file opened while
// a layout runs cannot race with it (until then, files are read on a pool thread and
// the importer's cgraph use is not covered by this lock).
std::mutex& graphvizMutex();

} // namespace post
