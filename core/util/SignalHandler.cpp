#include "core/util/SignalHandler.h"

namespace post {

bool replaceSignalHandler(int sig, void (*handler)(int), struct sigaction& before)
{
    if (::sigaction(sig, nullptr, &before) != 0)
        return false;
    if (!(before.sa_flags & SA_SIGINFO) && before.sa_handler == SIG_IGN)
        return false;
    struct sigaction action { };
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    return ::sigaction(sig, &action, nullptr) == 0;
}

} // namespace post
