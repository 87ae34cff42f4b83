#pragma once

#include <mutex>

namespace post {

// Graphviz's cgraph is not thread-safe: its flex/bison parser, its error handler
// (agseterrf) and its string pool are process-wide globals, so two threads parsing or
// building graphs at once corrupt each other. Every cgraph/gvc call in the process, in
// any file, must hold this one mutex.
std::mutex& cgraphMutex();

} // namespace post
