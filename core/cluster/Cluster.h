#pragma once

#include "core/cluster/Device.h"
#include "core/cluster/Link.h"
#include "core/graph/Ids.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// Devices and the directed links between every ordered pair of them.
class Cluster {
public:
    Cluster() = default;
    // Every link starts as `defaultLink`; override single links with setLink().
    Cluster(std::string name, std::vector<Device> devices, Link defaultLink);

    const std::string& name() const { return name_; }
    int deviceCount() const { return static_cast<int>(devices_.size()); }
    std::span<const Device> devices() const { return devices_; }
    const Device& device(DeviceId id) const { return devices_[static_cast<size_t>(id)]; }
    std::optional<DeviceId> find(std::string_view deviceName) const;

    const Link& link(DeviceId from, DeviceId to) const
    {
        return links_[static_cast<size_t>(from) * devices_.size() + static_cast<size_t>(to)];
    }
    void setLink(DeviceId from, DeviceId to, Link link);
    const Link& defaultLink() const { return defaultLink_; }
    // The precision mode of every device (Device::precision; the cluster file's "precision",
    // the CLI's --precision).
    PrecisionMode precision() const { return devices_.empty() ? PrecisionMode::Tf32 : devices_.front().precision; }
    void setPrecision(PrecisionMode mode);
    // How long eager PyTorch's host thread takes to issue one op on this machine (the cluster
    // file's "host_dispatch_us_per_op", measured by bench/host_dispatch.py); empty where not
    // given (core/cost/HostDispatch.h then takes its default).
    std::optional<double> hostDispatchUsPerOp() const { return hostDispatchUsPerOp_; }
    void setHostDispatchUsPerOp(std::optional<double> us) { hostDispatchUsPerOp_ = us; }

    double totalSpeed() const;
    // Index of the fastest device for `kind` (highest speed, first on ties), or kNoDevice.
    DeviceId fastestOfKind(DeviceKind kind) const;
    bool hasKind(DeviceKind kind) const { return fastestOfKind(kind) != kNoDevice; }

private:
    std::string name_;
    std::vector<Device> devices_;
    std::vector<Link> links_;
    Link defaultLink_;
    std::optional<double> hostDispatchUsPerOp_;
};

} // namespace post
