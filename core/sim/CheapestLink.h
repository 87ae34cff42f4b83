#pragma once

#include "core/cluster/Cluster.h"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

namespace post {

// The least time any transfer of `bytes` between two different devices can take: the lower
// envelope of latency + bytes / bandwidth over the links that no other link beats on both.
// Shared by the lower bound's components (LowerBound.cpp, MemorySplitBound.cpp).
class CheapestLink {
public:
    CheapestLink() = default; // no link: every transfer infinite
    explicit CheapestLink(const Cluster& cluster)
    {
        const int n = cluster.deviceCount();
        for (DeviceId a = 0; a < n; ++a)
            for (DeviceId b = 0; b < n; ++b)
                if (a != b)
                    add(cluster.link(a, b));
    }
    // Over the links from a device of `from` to a different one of `to` only (infinity where
    // there is none: `from` and `to` the same single device).
    CheapestLink(const Cluster& cluster, std::span<const DeviceId> from, std::span<const DeviceId> to)
    {
        for (DeviceId a : from)
            for (DeviceId b : to)
                if (a != b)
                    add(cluster.link(a, b));
    }
    double transferUs(double bytes) const
    {
        double best = std::numeric_limits<double>::infinity(); // one device: no transfer is possible
        for (const Link& l : links_)
            best = std::min(best, l.transferUs(bytes));
        return best;
    }

private:
    void add(const Link& l)
    {
        for (const Link& k : links_)
            if (k.latencyUs <= l.latencyUs && k.bytesPerUs >= l.bytesPerUs)
                return;
        std::erase_if(links_, [&](const Link& k) { return l.latencyUs <= k.latencyUs && l.bytesPerUs >= k.bytesPerUs; });
        links_.push_back(l);
    }
    std::vector<Link> links_;
};

} // namespace post
