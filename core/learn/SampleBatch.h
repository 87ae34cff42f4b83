#pragma once

#include "core/graph/Ids.h"

#include <span>

namespace post {

// A read-only view of samples drawn by a policy: the device of every group per sample
// (row-major, samples x groups) and what the update needs of each sample.
struct SampleBatch {
    std::span<const DeviceId> choices;
    int groups = 0;
    std::span<const double> oldLogProbs; // under the policy that drew them
    std::span<const double> advantages;

    int size() const { return static_cast<int>(advantages.size()); }
    std::span<const DeviceId> choice(int i) const
    {
        return choices.subspan(static_cast<size_t>(i) * static_cast<size_t>(groups), static_cast<size_t>(groups));
    }
};

} // namespace post
