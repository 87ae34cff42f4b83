#include "app/cli/SearchInterrupt.h"

#include "core/util/SignalHandler.h"

#include <array>
#include <csignal>

namespace post::cli {
namespace {

constexpr std::array<int, 2> kSignals{SIGINT, SIGTERM};
std::array<struct sigaction, 2> g_before{};
std::array<bool, 2> g_installed{};
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

void onSignal(int sig)
{
    if (g_signal == 0) {
        g_signal = sig;
        g_stop.store(true);
        return;
    }
    // A second signal: the handlers from before (removing temporary files) and the default end.
    for (std::size_t k = 0; k < kSignals.size(); ++k)
        if (g_installed[k])
            ::sigaction(kSignals[k], &g_before[k], nullptr);
    std::raise(sig);
}

} // namespace

SearchInterrupt::SearchInterrupt()
{
    g_stop.store(false);
    g_signal = 0;
    for (std::size_t k = 0; k < kSignals.size(); ++k)
        g_installed[k] = replaceSignalHandler(kSignals[k], onSignal, g_before[k]);
}

SearchInterrupt::~SearchInterrupt()
{
    for (std::size_t k = 0; k < kSignals.size(); ++k)
        if (g_installed[k])
            ::sigaction(kSignals[k], &g_before[k], nullptr);
}

const std::atomic<bool>* SearchInterrupt::flag() const { return &g_stop; }

int SearchInterrupt::signal() const { return g_signal; }

} // namespace post::cli
