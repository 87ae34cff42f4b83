#pragma once

#include "core/graph/Ids.h"

#include <span>
#include <vector>

namespace post {

class Cluster;

// Classes of interchangeable devices: same kind, speed, memory and roofline figures, and
// links such that exchanging the two devices maps the cluster onto itself. Two placements
// that differ by such an exchange simulate to the same step, so a learner that counts
// devices by label would split its votes between equivalent placements; relabelling every
// sample canonically first avoids that (docs/learners.md).
class DeviceSymmetry {
public:
    DeviceSymmetry() = default;
    explicit DeviceSymmetry(const Cluster& cluster);

    int deviceCount() const { return static_cast<int>(classOf_.size()); }
    int classCount() const { return static_cast<int>(members_.size()); }
    int classOf(DeviceId device) const { return classOf_[static_cast<size_t>(device)]; }
    // The devices of a class, in increasing id order.
    std::span<const DeviceId> members(int cls) const { return members_[static_cast<size_t>(cls)]; }
    // True when no two devices are interchangeable (canonicalize() is then the identity).
    bool trivial() const { return static_cast<int>(members_.size()) == deviceCount(); }

    // Relabels `choice` (a device per group, groups in topological order) in place: within
    // each class, the devices are renamed in order of their first use along `choice`, so
    // the first-used device of a class becomes its lowest id, the second its next, and so on.
    // The result simulates exactly like the input.
    void canonicalize(std::span<DeviceId> choice) const;
    // The relabelling canonicalize() applies, as a whole permutation of the devices (the
    // devices `choice` does not use go, in order, to the labels of their class left over).
    std::vector<DeviceId> canonicalMap(std::span<const DeviceId> choice) const;

private:
    std::vector<int> classOf_;
    std::vector<std::vector<DeviceId>> members_;
};

} // namespace post
