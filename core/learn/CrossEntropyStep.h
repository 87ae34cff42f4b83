#pragma once

#include "core/graph/Ids.h"
#include "core/learn/Policy.h"

#include <span>
#include <vector>

namespace post {

// Indices of the ceil(fraction x n) lowest step times (at least one; ties keep the earlier sample),
// in order of step time.
std::vector<int> selectElite(std::span<const double> stepTimesUs, double fraction);

// The cross-entropy step's closed-form maximum-likelihood distribution: per group, the
// frequency of each device among the elite samples, mixed with uniform:
//   p = (1 - smoothing) x frequency + smoothing / devices.
// `choices` is row-major (samples x groups).
PolicyMatrix eliteDistribution(std::span<const DeviceId> choices, int groups, int devices, std::span<const int> elite,
                               double smoothing);

} // namespace post
