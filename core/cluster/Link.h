#pragma once

namespace post {

// A directed link between two devices. One transfer at a time, taking
// latencyUs + bytes / bytesPerUs.
struct Link {
    double bytesPerUs = 12e3; // 1 GB/s (10^9 B/s) is 1e3 bytes per microsecond
    double latencyUs = 20.0;

    static constexpr double kBytesPerUsPerGBps = 1e3;
    double transferUs(double bytes) const { return latencyUs + bytes / bytesPerUs; }
};

} // namespace post
