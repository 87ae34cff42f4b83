#include "core/sim/CollectiveTime.h"

#include "core/cost/OpTime.h"

#include <algorithm>
#include <limits>

namespace post {

CollectiveLinks::CollectiveLinks(const Cluster& cluster)
    : cluster_(cluster)
{
    const int n = cluster.deviceCount();
    for (DeviceId d = 0; d < n; ++d) {
        const DeviceKind kind = cluster.device(d).kind;
        int peers = 0, others = 0;
        Link same{std::numeric_limits<double>::infinity(), 0.0}, any = same;
        for (DeviceId e = 0; e < n; ++e) {
            if (e == d)
                continue;
            const Link& l = cluster.link(d, e);
            Link& into = cluster.device(e).kind == kind ? same : any;
            (cluster.device(e).kind == kind ? peers : others) += 1;
            into.bytesPerUs = std::min(into.bytesPerUs, l.bytesPerUs);
            into.latencyUs = std::max(into.latencyUs, l.latencyUs);
        }
        links_.push_back(peers > 0 ? same : others > 0 ? any : cluster.defaultLink());
        ranks_ += cluster.device(d).kind == DeviceKind::Gpu ? 1 : 0;
    }
    if (ranks_ == 0)
        ranks_ = n;
}

double CollectiveLinks::ringTimeUs(const Op& op, DeviceId device) const
{
    const int ranks = op.collectiveRanks > 0 ? op.collectiveRanks : defaultRanks();
    const RingCost cost = ringCost(op.collective, ranks);
    const Link& l = link(device);
    return cost.steps * l.latencyUs + cost.factor * op.collectiveBytes / l.bytesPerUs;
}

double CollectiveLinks::opTimeUs(const Op& op, DeviceId device) const
{
    return collectiveIsModelled(op) ? ringTimeUs(op, device) : post::opTimeUs(op, cluster_.device(device));
}

} // namespace post
