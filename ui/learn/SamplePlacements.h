#pragma once

#include "core/graph/Placement.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace post {

// The placements a run sampled, so clicking a point in the learning chart can show one.
// Written on the learner thread (in sample order), read on the GUI thread. Stored as one
// byte per op (two past 255 devices); when the kept bytes would pass the budget, every
// other kept sample is dropped and only every stride-th sample is kept from then on.
class SamplePlacements {
public:
    static constexpr std::size_t kDefaultBudgetBytes = std::size_t{64} << 20;

    explicit SamplePlacements(std::size_t budgetBytes = kDefaultBudgetBytes);

    // Empties the store for placements of `opCount` ops on `deviceCount` devices.
    void reset(int opCount, int deviceCount);
    // Keeps sample `index` (indices must grow) if the stride allows; wrong sizes are ignored.
    void add(int index, const Placement& placement);

    // The kept sample nearest to `index` (exact when kept), or -1 when none is kept.
    int nearestKept(int index) const;
    // The placement of kept sample `index`; empty when it was not kept.
    Placement placement(int index) const;

    int stride() const;
    std::size_t keptCount() const;
    std::size_t bytes() const;

private:
    void thin(); // called with the mutex held

    mutable std::mutex mutex_;
    std::size_t budget_;
    int opCount_ = 0;
    int width_ = 1; // bytes per op
    int stride_ = 1;
    std::vector<int> indices_;
    std::vector<std::uint8_t> data_;
};

} // namespace post
