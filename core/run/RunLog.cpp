#include "core/run/RunLog.h"

#include <cmath>
#include <cstdio>

namespace post {
namespace {

std::string number(double value)
{
    if (!std::isfinite(value))
        return {};
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", value);
    return buf;
}

} // namespace

std::string_view toString(UpdateKind kind)
{
    switch (kind) {
    case UpdateKind::Ppo:
        return "ppo";
    case UpdateKind::CrossEntropy:
        return "ce";
    case UpdateKind::Reinforce:
        return "reinforce";
    }
    return "?";
}

std::string RunLog::toCsv() const
{
    std::string out = "event,sample,step_time_ms,feasible,update_kind,elite_threshold_ms,best_ms,entropy\n";
    size_t u = 0;
    auto flushUpdatesUpTo = [&](int drawn) {
        for (; u < updates_.size() && updates_[u].afterSample <= drawn; ++u) {
            const UpdateEvent& e = updates_[u];
            out += "update," + std::to_string(e.afterSample) + ",,," + std::string(toString(e.kind)) + ","
                + number(e.eliteThresholdUs / 1000.0) + "," + number(e.bestStepTimeUs / 1000.0) + ","
                + number(e.entropy) + "\n";
        }
    };
    for (const SampleEvent& s : samples_) {
        flushUpdatesUpTo(s.index);
        out += "sample," + std::to_string(s.index) + "," + number(s.stepTimeUs / 1000.0) + ","
            + (s.feasible ? "1" : "0") + ",,,,\n";
    }
    flushUpdatesUpTo(1 << 30);
    return out;
}

} // namespace post
