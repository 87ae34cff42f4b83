#pragma once

#include <csignal>

namespace post {

// Installs `handler` for `sig`, and gives the handler it replaces in `before`, unless the
// signal is ignored: an ignored signal (nohup, a shell's background job) stays ignored.
// Returns whether it installed it.
bool replaceSignalHandler(int sig, void (*handler)(int), struct sigaction& before);

} // namespace post
