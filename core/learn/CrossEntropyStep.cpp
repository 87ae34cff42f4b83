#include "core/learn/CrossEntropyStep.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace post {

std::vector<int> selectElite(std::span<const double> stepTimesUs, double fraction)
{
    const int n = static_cast<int>(stepTimesUs.size());
    if (n == 0)
        return {};
    // The tiny slack stops 0.1 x 100 = 10.000000000000002 from rounding up to 11.
    const int count = std::clamp(static_cast<int>(std::ceil(fraction * n - 1e-9)), 1, n);
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return stepTimesUs[static_cast<size_t>(a)] < stepTimesUs[static_cast<size_t>(b)];
    });
    order.resize(static_cast<size_t>(count));
    return order;
}

PolicyMatrix eliteDistribution(std::span<const DeviceId> choices, int groups, int devices, std::span<const int> elite,
                               double smoothing)
{
    PolicyMatrix p = PolicyMatrix::Zero(groups, devices);
    if (elite.empty()) {
        p.setConstant(1.0 / devices);
        return p;
    }
    for (int i : elite)
        for (int g = 0; g < groups; ++g)
            p(g, choices[static_cast<size_t>(i) * static_cast<size_t>(groups) + static_cast<size_t>(g)]) += 1.0;
    p /= static_cast<double>(elite.size());
    return (1.0 - smoothing) * p.array() + smoothing / devices;
}

} // namespace post
