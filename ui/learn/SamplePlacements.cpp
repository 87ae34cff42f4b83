#include "ui/learn/SamplePlacements.h"

#include <algorithm>
#include <cstdlib>

namespace post {

SamplePlacements::SamplePlacements(std::size_t budgetBytes)
    : budget_(budgetBytes)
{
}

void SamplePlacements::reset(int opCount, int deviceCount)
{
    std::lock_guard lock(mutex_);
    opCount_ = std::max(opCount, 0);
    width_ = deviceCount > 255 ? 2 : 1;
    stride_ = 1;
    indices_.clear();
    data_.clear();
}

void SamplePlacements::add(int index, const Placement& placement)
{
    std::lock_guard lock(mutex_);
    if (opCount_ == 0 || static_cast<int>(placement.size()) != opCount_ || index % stride_ != 0)
        return;
    if (!indices_.empty() && index <= indices_.back())
        return;
    const std::size_t rowBytes = static_cast<std::size_t>(opCount_) * static_cast<std::size_t>(width_);
    while (data_.size() + rowBytes > budget_ && !indices_.empty()) {
        thin();
        if (index % stride_ != 0)
            return;
    }
    if (rowBytes > budget_)
        return; // not even one placement fits the budget
    indices_.push_back(index);
    const std::size_t at = data_.size();
    data_.resize(at + rowBytes);
    std::uint8_t* out = data_.data() + at;
    for (DeviceId d : placement) {
        const auto v = static_cast<std::uint16_t>(d);
        *out++ = static_cast<std::uint8_t>(v & 0xff);
        if (width_ == 2)
            *out++ = static_cast<std::uint8_t>(v >> 8);
    }
}

void SamplePlacements::thin()
{
    stride_ *= 2;
    const std::size_t rowBytes = static_cast<std::size_t>(opCount_) * static_cast<std::size_t>(width_);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < indices_.size(); ++i) {
        if (indices_[i] % stride_ != 0)
            continue;
        if (kept != i) {
            indices_[kept] = indices_[i];
            std::copy_n(data_.begin() + static_cast<std::ptrdiff_t>(i * rowBytes), rowBytes,
                        data_.begin() + static_cast<std::ptrdiff_t>(kept * rowBytes));
        }
        ++kept;
    }
    indices_.resize(kept);
    data_.resize(kept * rowBytes);
}

int SamplePlacements::nearestKept(int index) const
{
    std::lock_guard lock(mutex_);
    if (indices_.empty())
        return -1;
    const auto it = std::lower_bound(indices_.begin(), indices_.end(), index);
    if (it == indices_.end())
        return indices_.back();
    if (*it == index || it == indices_.begin())
        return *it;
    const int before = *(it - 1);
    return std::abs(index - before) <= std::abs(*it - index) ? before : *it;
}

Placement SamplePlacements::placement(int index) const
{
    std::lock_guard lock(mutex_);
    const auto it = std::lower_bound(indices_.begin(), indices_.end(), index);
    if (it == indices_.end() || *it != index)
        return {};
    const std::size_t rowBytes = static_cast<std::size_t>(opCount_) * static_cast<std::size_t>(width_);
    const std::uint8_t* in = data_.data() + static_cast<std::size_t>(it - indices_.begin()) * rowBytes;
    Placement p(static_cast<std::size_t>(opCount_));
    for (DeviceId& d : p) {
        std::uint16_t v = *in++;
        if (width_ == 2)
            v = static_cast<std::uint16_t>(v | (*in++ << 8));
        d = static_cast<DeviceId>(v);
    }
    return p;
}

int SamplePlacements::stride() const
{
    std::lock_guard lock(mutex_);
    return stride_;
}

std::size_t SamplePlacements::keptCount() const
{
    std::lock_guard lock(mutex_);
    return indices_.size();
}

std::size_t SamplePlacements::bytes() const
{
    std::lock_guard lock(mutex_);
    return data_.size();
}

} // namespace post
