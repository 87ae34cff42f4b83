#pragma once

#include "core/graph/Ids.h"

#include <QString>

#include <vector>

namespace post {

// One bar of a lane: an op on a device lane, a transfer on a link lane.
struct TimelineBar {
    double startUs = 0.0;
    double endUs = 0.0;
    int item = -1; // OpId on a device lane, index into Timeline::transfers on a link lane
};

// One row of the timeline. Bars are in start order and never overlap (a device runs one op
// at a time, a link carries one transfer at a time), so their ends are sorted too and the
// visible ones are found by binary search.
struct TimelineLane {
    enum class Kind { Device, Link };
    Kind kind = Kind::Device;
    DeviceId device = kNoDevice; // the device, or the sending device of a link
    DeviceId to = kNoDevice;     // the receiving device of a link
    QString name;                // short, for the lane header
    QString fullName;            // as the cluster names it, for tooltips
    std::vector<TimelineBar> bars;
};

} // namespace post
