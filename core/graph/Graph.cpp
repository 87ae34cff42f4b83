#include "core/graph/Graph.h"

namespace post {

std::optional<OpId> Graph::find(std::string_view opName) const
{
    auto it = index_.find(std::string(opName));
    if (it == index_.end())
        return std::nullopt;
    return it->second;
}

std::span<const EdgeId> Graph::inEdges(OpId id) const
{
    const auto b = static_cast<size_t>(inOffsets_[static_cast<size_t>(id)]);
    const auto e = static_cast<size_t>(inOffsets_[static_cast<size_t>(id) + 1]);
    return {inList_.data() + b, e - b};
}

std::span<const EdgeId> Graph::outEdges(OpId id) const
{
    const auto b = static_cast<size_t>(outOffsets_[static_cast<size_t>(id)]);
    const auto e = static_cast<size_t>(outOffsets_[static_cast<size_t>(id) + 1]);
    return {outList_.data() + b, e - b};
}

double Graph::totalTimeUs(DeviceKind kind) const
{
    double sum = 0.0;
    for (const Op& op : ops_)
        sum += op.time(kind);
    return sum;
}

double Graph::totalParamBytes() const
{
    double sum = 0.0;
    for (const Op& op : ops_)
        sum += op.paramBytes;
    return sum;
}

double Graph::totalResidentBytes() const
{
    double sum = 0.0;
    for (const Op& op : ops_)
        sum += op.residentBytes;
    return sum;
}

} // namespace post
