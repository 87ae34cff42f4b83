#include "core/learn/Policy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace post {
namespace {

// Floor for log(0): exp(-60) ~ 1e-26 is zero for sampling but keeps arithmetic finite.
constexpr double kMinLogit = -60.0;

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

} // namespace

Policy::Policy(int groups, int devices)
{
    if (groups < 0 || devices < 1)
        throw std::invalid_argument("Policy needs at least one device");
    logits_ = PolicyMatrix::Zero(groups, devices);
    refresh();
}

void Policy::setLogits(const PolicyMatrix& logits)
{
    if (logits.rows() != logits_.rows() || logits.cols() != logits_.cols())
        throw std::invalid_argument("Policy::setLogits: shape mismatch");
    logits_ = logits;
    refresh();
}

void Policy::setProbabilities(const PolicyMatrix& probabilities)
{
    if (probabilities.rows() != logits_.rows() || probabilities.cols() != logits_.cols())
        throw std::invalid_argument("Policy::setProbabilities: shape mismatch");
    for (Eigen::Index g = 0; g < logits_.rows(); ++g)
        for (Eigen::Index d = 0; d < logits_.cols(); ++d) {
            const double p = probabilities(g, d);
            logits_(g, d) = p > 0.0 ? std::max(kMinLogit, std::log(p)) : kMinLogit;
        }
    refresh();
}

void Policy::refresh()
{
    probabilities_.resize(logits_.rows(), logits_.cols());
    logProbabilities_.resize(logits_.rows(), logits_.cols());
    for (Eigen::Index g = 0; g < logits_.rows(); ++g) {
        const double top = logits_.row(g).maxCoeff();
        const double logSum = top + std::log((logits_.row(g).array() - top).exp().sum());
        logProbabilities_.row(g) = logits_.row(g).array() - logSum;
        probabilities_.row(g) = logProbabilities_.row(g).array().exp();
    }
}

double Policy::sample(std::mt19937_64& rng, std::span<DeviceId> choice) const
{
    const Eigen::Index devices = logits_.cols();
    double logp = 0.0;
    for (Eigen::Index g = 0; g < logits_.rows(); ++g) {
        const double* p = probabilities_.data() + g * devices;
        double u = uniform01(rng);
        Eigen::Index d = 0;
        // Inverse CDF; rounding can leave u above the last partial sum, which then picks the last device.
        while (d + 1 < devices && u >= p[d]) {
            u -= p[d];
            ++d;
        }
        choice[static_cast<size_t>(g)] = static_cast<DeviceId>(d);
        logp += logProbabilities_(g, d);
    }
    return logp;
}

double Policy::logProb(std::span<const DeviceId> choice) const
{
    double logp = 0.0;
    for (Eigen::Index g = 0; g < logits_.rows(); ++g)
        logp += logProbabilities_(g, choice[static_cast<size_t>(g)]);
    return logp;
}

void Policy::addChoiceTerm(std::span<const DeviceId> choice, double weight, PolicyMatrix& gradient)
{
    for (Eigen::Index g = 0; g < gradient.rows(); ++g)
        gradient(g, choice[static_cast<size_t>(g)]) += weight;
}

void Policy::addProbabilityTerm(double weight, PolicyMatrix& gradient) const { gradient -= weight * probabilities_; }

PolicyMatrix Policy::logProbGradient(std::span<const DeviceId> choice) const
{
    PolicyMatrix gradient = PolicyMatrix::Zero(logits_.rows(), logits_.cols());
    addChoiceTerm(choice, 1.0, gradient);
    addProbabilityTerm(1.0, gradient);
    return gradient;
}

double Policy::entropy(int group) const
{
    return -(probabilities_.row(group).array() * logProbabilities_.row(group).array()).sum();
}

double Policy::normalizedEntropy() const
{
    if (logits_.rows() == 0 || logits_.cols() < 2)
        return 0.0;
    double total = 0.0;
    for (int g = 0; g < groups(); ++g)
        total += entropy(g);
    return total / (static_cast<double>(groups()) * std::log(static_cast<double>(devices())));
}

void Policy::addNormalizedEntropyGradient(double weight, PolicyMatrix& gradient) const
{
    if (logits_.rows() == 0 || logits_.cols() < 2)
        return;
    const double scale = weight / (static_cast<double>(groups()) * std::log(static_cast<double>(devices())));
    // dH/dz_j = -p_j (log p_j + H) for a softmax row.
    for (int g = 0; g < groups(); ++g) {
        const double h = entropy(g);
        gradient.row(g).array() -= scale * probabilities_.row(g).array() * (logProbabilities_.row(g).array() + h);
    }
}

void Policy::mode(std::span<DeviceId> choice) const
{
    for (Eigen::Index g = 0; g < logits_.rows(); ++g) {
        Eigen::Index best = 0;
        logits_.row(g).maxCoeff(&best);
        choice[static_cast<size_t>(g)] = static_cast<DeviceId>(best);
    }
}

} // namespace post
