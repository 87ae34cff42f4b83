#pragma once

#include <atomic>

namespace post::cli {

// Ctrl-C (SIGINT) or SIGTERM while a search runs: the first one ends the search as its time
// limit would, so that its best placement is still reported and written; a second one ends
// the command at once, through the handlers that were there before (removeTemporaryFilesOnSignals).
// One at a time; the previous handlers come back when it goes out of scope.
class SearchInterrupt {
public:
    SearchInterrupt();
    ~SearchInterrupt();
    SearchInterrupt(const SearchInterrupt&) = delete;
    SearchInterrupt& operator=(const SearchInterrupt&) = delete;

    // The search's stop flag (PlaceContext::stop).
    const std::atomic<bool>* flag() const;
    // The signal that ended the search, or 0.
    int signal() const;
};

} // namespace post::cli
