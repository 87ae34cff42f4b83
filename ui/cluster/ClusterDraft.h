#pragma once

#include "core/cluster/Cluster.h"

#include <optional>
#include <string>
#include <vector>

namespace post {

// A cluster being edited: devices, the default link and the links set apart from it.
// Turns into an immutable Cluster with build(). Plain data shared by the editor's models.
struct ClusterDraft {
    std::string name;
    std::vector<Device> devices;
    Link defaultLink;
    // overrides[from * n + to]: a link that is not the default one.
    std::vector<std::optional<Link>> overrides;
    std::optional<double> hostDispatchUsPerOp; // kept as the file gave it (no editor of its own)

    static ClusterDraft from(const Cluster& cluster);
    Cluster build() const;

    int deviceCount() const { return static_cast<int>(devices.size()); }
    Link link(int from, int to) const;
    bool isDefault(int from, int to) const { return !overrides[index(from, to)].has_value(); }
    void setLink(int from, int to, Link link);

    // Adds a device after the last one (links default); returns its index.
    int addDevice(Device device);
    void removeDevice(int device);
    // A device name not used yet, "/device:GPU:N" style for `kind`.
    std::string freshName(DeviceKind kind) const;

private:
    size_t index(int from, int to) const
    {
        return static_cast<size_t>(from) * devices.size() + static_cast<size_t>(to);
    }
};

} // namespace post
