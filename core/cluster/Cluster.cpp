#include "core/cluster/Cluster.h"

namespace post {

Cluster::Cluster(std::string name, std::vector<Device> devices, Link defaultLink)
    : name_(std::move(name))
    , devices_(std::move(devices))
    , links_(devices_.size() * devices_.size(), defaultLink)
    , defaultLink_(defaultLink)
{
}

std::optional<DeviceId> Cluster::find(std::string_view deviceName) const
{
    for (size_t i = 0; i < devices_.size(); ++i)
        if (devices_[i].name == deviceName)
            return static_cast<DeviceId>(i);
    return std::nullopt;
}

void Cluster::setPrecision(PrecisionMode mode)
{
    for (Device& d : devices_)
        d.precision = mode;
}

void Cluster::setLink(DeviceId from, DeviceId to, Link link)
{
    links_[static_cast<size_t>(from) * devices_.size() + static_cast<size_t>(to)] = link;
}

double Cluster::totalSpeed() const
{
    double sum = 0.0;
    for (const Device& d : devices_)
        sum += d.speed;
    return sum;
}

DeviceId Cluster::fastestOfKind(DeviceKind kind) const
{
    DeviceId best = kNoDevice;
    for (size_t i = 0; i < devices_.size(); ++i)
        if (devices_[i].kind == kind
            && (best == kNoDevice || devices_[i].speed > devices_[static_cast<size_t>(best)].speed))
            best = static_cast<DeviceId>(i);
    return best;
}

} // namespace post
