#include "ui/cluster/ClusterDraft.h"

namespace post {
namespace {

bool same(const Link& a, const Link& b) { return a.bytesPerUs == b.bytesPerUs && a.latencyUs == b.latencyUs; }

} // namespace

ClusterDraft ClusterDraft::from(const Cluster& cluster)
{
    ClusterDraft d;
    d.name = cluster.name();
    d.devices.assign(cluster.devices().begin(), cluster.devices().end());
    d.defaultLink = cluster.defaultLink();
    d.hostDispatchUsPerOp = cluster.hostDispatchUsPerOp();
    const int n = cluster.deviceCount();
    d.overrides.assign(static_cast<size_t>(n) * static_cast<size_t>(n), std::nullopt);
    for (DeviceId a = 0; a < n; ++a)
        for (DeviceId b = 0; b < n; ++b)
            if (a != b && !same(cluster.link(a, b), d.defaultLink))
                d.overrides[d.index(a, b)] = cluster.link(a, b);
    return d;
}

Cluster ClusterDraft::build() const
{
    Cluster c(name, devices, defaultLink);
    c.setHostDispatchUsPerOp(hostDispatchUsPerOp);
    const int n = deviceCount();
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
            if (const auto& l = overrides[index(a, b)])
                c.setLink(a, b, *l);
    return c;
}

Link ClusterDraft::link(int from, int to) const
{
    const auto& l = overrides[index(from, to)];
    return l ? *l : defaultLink;
}

void ClusterDraft::setLink(int from, int to, Link link)
{
    if (same(link, defaultLink))
        overrides[index(from, to)].reset();
    else
        overrides[index(from, to)] = link;
}

int ClusterDraft::addDevice(Device device)
{
    const size_t n = devices.size();
    std::vector<std::optional<Link>> next((n + 1) * (n + 1));
    for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
            next[a * (n + 1) + b] = overrides[a * n + b];
    overrides = std::move(next);
    devices.push_back(std::move(device));
    return static_cast<int>(n);
}

void ClusterDraft::removeDevice(int device)
{
    const size_t n = devices.size();
    const auto gone = static_cast<size_t>(device);
    std::vector<std::optional<Link>> next;
    next.reserve((n - 1) * (n - 1));
    for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
            if (a != gone && b != gone)
                next.push_back(overrides[a * n + b]);
    overrides = std::move(next);
    devices.erase(devices.begin() + device);
}

std::string ClusterDraft::freshName(DeviceKind kind) const
{
    const std::string prefix = kind == DeviceKind::Cpu ? "/device:CPU:" : "/device:GPU:";
    for (int i = 0;; ++i) {
        const std::string candidate = prefix + std::to_string(i);
        bool used = false;
        for (const Device& d : devices)
            used = used || d.name == candidate;
        if (!used)
            return candidate;
    }
}

} // namespace post
