#include "core/cluster/DeviceSymmetry.h"

#include "core/cluster/Cluster.h"

namespace post {
namespace {

bool sameLink(const Link& a, const Link& b) { return a.bytesPerUs == b.bytesPerUs && a.latencyUs == b.latencyUs; }

bool sameDevice(const Device& a, const Device& b)
{
    return a.kind == b.kind && a.type == b.type && a.speed == b.speed && a.memoryBytes == b.memoryBytes
        && a.peakFlops == b.peakFlops && a.memoryBandwidth == b.memoryBandwidth && a.peakTf32Flops == b.peakTf32Flops
        && a.peakFp16Flops == b.peakFp16Flops && a.peakInt8Ops == b.peakInt8Ops && a.precision == b.precision
        && a.clockScale() == b.clockScale() && a.computeEfficiency == b.computeEfficiency
        && a.tensorCoreEfficiency == b.tensorCoreEfficiency && a.memoryEfficiency == b.memoryEfficiency
        && a.streamingMemoryEfficiency == b.streamingMemoryEfficiency;
}

// Whether exchanging devices a and b is an automorphism of the cluster.
bool swappable(const Cluster& c, DeviceId a, DeviceId b)
{
    if (!sameDevice(c.device(a), c.device(b)) || !sameLink(c.link(a, b), c.link(b, a)))
        return false;
    for (DeviceId x = 0; x < c.deviceCount(); ++x) {
        if (x == a || x == b)
            continue;
        if (!sameLink(c.link(a, x), c.link(b, x)) || !sameLink(c.link(x, a), c.link(x, b)))
            return false;
    }
    return true;
}

} // namespace

DeviceSymmetry::DeviceSymmetry(const Cluster& cluster)
    : classOf_(static_cast<size_t>(cluster.deviceCount()), -1)
{
    // Exchanges with a class's first member generate every permutation of the class:
    // (d e) = (d r)(e r)(d r), so testing against the representative suffices.
    for (DeviceId d = 0; d < cluster.deviceCount(); ++d) {
        for (size_t k = 0; k < members_.size(); ++k)
            if (swappable(cluster, members_[k].front(), d)) {
                classOf_[static_cast<size_t>(d)] = static_cast<int>(k);
                members_[k].push_back(d);
                break;
            }
        if (classOf_[static_cast<size_t>(d)] < 0) {
            classOf_[static_cast<size_t>(d)] = static_cast<int>(members_.size());
            members_.push_back({d});
        }
    }
}

void DeviceSymmetry::canonicalize(std::span<DeviceId> choice) const
{
    if (trivial())
        return;
    constexpr int kMaxStack = 64;
    DeviceId stackMap[kMaxStack];
    int stackNext[kMaxStack];
    std::vector<DeviceId> heapMap;
    std::vector<int> heapNext;
    DeviceId* map = stackMap;
    int* next = stackNext;
    if (deviceCount() > kMaxStack || classCount() > kMaxStack) {
        heapMap.resize(static_cast<size_t>(deviceCount()));
        heapNext.resize(static_cast<size_t>(classCount()));
        map = heapMap.data();
        next = heapNext.data();
    }
    for (int d = 0; d < deviceCount(); ++d)
        map[d] = kNoDevice;
    for (int k = 0; k < classCount(); ++k)
        next[k] = 0;
    for (DeviceId& d : choice) {
        DeviceId& m = map[d];
        if (m == kNoDevice) {
            const int k = classOf_[static_cast<size_t>(d)];
            m = members_[static_cast<size_t>(k)][static_cast<size_t>(next[k]++)];
        }
        d = m;
    }
}

std::vector<DeviceId> DeviceSymmetry::canonicalMap(std::span<const DeviceId> choice) const
{
    std::vector<DeviceId> map(classOf_.size(), kNoDevice);
    std::vector<int> next(members_.size(), 0);
    for (DeviceId d : choice) {
        DeviceId& m = map[static_cast<size_t>(d)];
        if (m == kNoDevice) {
            const auto k = static_cast<size_t>(classOf_[static_cast<size_t>(d)]);
            m = members_[k][static_cast<size_t>(next[k]++)];
        }
    }
    for (size_t d = 0; d < map.size(); ++d)
        if (map[d] == kNoDevice) {
            const auto k = static_cast<size_t>(classOf_[d]);
            map[d] = members_[k][static_cast<size_t>(next[k]++)];
        }
    return map;
}

} // namespace post
