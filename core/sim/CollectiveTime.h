#pragma once

#include "core/cluster/Cluster.h"
#include "core/graph/Op.h"

#include <vector>

namespace post {

// Whether the simulator times a collective by the ring model: it has no measured time (of any
// kind) and no time for a device type. A measured collective keeps its measured time, as every
// op does (cost/OpTime.h).
inline bool collectiveIsModelled(const Op& op)
{
    return op.isCollective() && op.measuredKinds == 0 && op.typedTimes.empty();
}

// The links a device's collectives run over (docs/simulator.md, "Collectives"): the slowest
// bandwidth and the largest latency of its links to the other devices of its kind (a ring is as
// fast as its slowest hop), to every other device where it has no peer of its kind, the
// cluster's default link where it is alone; and the ranks a collective that states none has:
// the cluster's GPUs (NCCL's ranks), all its devices where it has no GPU. The same on every
// device, so that a collective moved to a CPU is not a collective of one rank, free.
class CollectiveLinks {
public:
    explicit CollectiveLinks(const Cluster& cluster);

    // The op's time on `device` as the simulator takes it: the ring model for a modelled
    // collective (ringCost(kind, ranks): steps x latency + factor x bytes / bandwidth), else
    // opTimeUs(op, device).
    double opTimeUs(const Op& op, DeviceId device) const;
    // The ring model alone.
    double ringTimeUs(const Op& op, DeviceId device) const;
    // The ranks a collective without a stated group is taken to have.
    int defaultRanks() const { return ranks_; }
    const Link& link(DeviceId device) const { return links_[static_cast<size_t>(device)]; }

private:
    const Cluster& cluster_;
    std::vector<Link> links_;
    int ranks_ = 0;
};

} // namespace post
