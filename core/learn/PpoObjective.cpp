#include "core/learn/PpoObjective.h"

#include <algorithm>
#include <cmath>

namespace post {

double clippedSurrogate(const Policy& policy, const SampleBatch& batch, double clip, PolicyMatrix* gradient)
{
    const int n = batch.size();
    if (gradient)
        gradient->setZero(policy.groups(), policy.devices());
    if (n == 0)
        return 0.0;
    double objective = 0.0;
    double probabilityWeight = 0.0;
    for (int i = 0; i < n; ++i) {
        const auto choice = batch.choice(i);
        const double a = batch.advantages[static_cast<size_t>(i)];
        const double ratio = std::exp(policy.logProb(choice) - batch.oldLogProbs[static_cast<size_t>(i)]);
        const double unclipped = ratio * a;
        const double clipped = std::clamp(ratio, 1.0 - clip, 1.0 + clip) * a;
        objective += std::min(unclipped, clipped);
        // The gradient flows only through the unclipped term, and only when it is the minimum.
        if (gradient && unclipped <= clipped) {
            const double w = a * ratio / n;
            Policy::addChoiceTerm(choice, w, *gradient);
            probabilityWeight += w;
        }
    }
    if (gradient)
        policy.addProbabilityTerm(probabilityWeight, *gradient);
    return objective / n;
}

} // namespace post
