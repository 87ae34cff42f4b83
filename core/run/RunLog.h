#pragma once

#include "core/place/ProgressObserver.h"

#include <string>
#include <vector>

namespace post {

// Records every sample and update of a run, in order, and writes them as CSV.
class RunLog : public ProgressObserver {
public:
    void onSample(const SampleEvent& event) override { samples_.push_back(event); }
    void onUpdate(const UpdateEvent& event) override { updates_.push_back(event); }

    const std::vector<SampleEvent>& samples() const { return samples_; }
    const std::vector<UpdateEvent>& updates() const { return updates_; }

    // One row per sample and per update, interleaved in the order they happened:
    // event,sample,step_time_ms,feasible,update_kind,elite_threshold_ms,best_ms,entropy
    std::string toCsv() const;

private:
    std::vector<SampleEvent> samples_;
    std::vector<UpdateEvent> updates_;
};

std::string_view toString(UpdateKind kind);

} // namespace post
