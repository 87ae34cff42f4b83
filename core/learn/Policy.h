#pragma once

#include "core/graph/Ids.h"

#include <Eigen/Core>

#include <random>
#include <span>

namespace post {

// Row-major so one group's distribution is contiguous.
using PolicyMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// One independent categorical distribution over devices per group, parameterised by
// logits (groups x devices). Probabilities and log-probabilities are cached after every
// change so sampling and scoring are cheap.
class Policy {
public:
    Policy() = default;
    Policy(int groups, int devices); // uniform

    int groups() const { return static_cast<int>(logits_.rows()); }
    int devices() const { return static_cast<int>(logits_.cols()); }

    const PolicyMatrix& logits() const { return logits_; }
    const PolicyMatrix& probabilities() const { return probabilities_; }
    const PolicyMatrix& logProbabilities() const { return logProbabilities_; }

    void setLogits(const PolicyMatrix& logits);
    // Rows must be distributions; logits = log(p) (zeros are floored so logits stay finite).
    void setProbabilities(const PolicyMatrix& probabilities);

    // Draws a device per group into `choice` (size groups()) and returns its log-probability.
    // Portable: the same rng state gives the same draw on every platform.
    double sample(std::mt19937_64& rng, std::span<DeviceId> choice) const;
    double logProb(std::span<const DeviceId> choice) const;
    // gradient += weight x d logProb(choice) / d logits; the caller applies the
    // "- weight x probabilities" half once per batch via addProbabilityTerm.
    static void addChoiceTerm(std::span<const DeviceId> choice, double weight, PolicyMatrix& gradient);
    void addProbabilityTerm(double weight, PolicyMatrix& gradient) const;
    // gradient of logProb(choice) on its own (tests, small uses).
    PolicyMatrix logProbGradient(std::span<const DeviceId> choice) const;

    // Entropy of one group's distribution (nats).
    double entropy(int group) const;
    // Mean over groups of entropy / log(devices): 1 for uniform, 0 for deterministic.
    double normalizedEntropy() const;
    // d normalizedEntropy / d logits, added with `weight`.
    void addNormalizedEntropyGradient(double weight, PolicyMatrix& gradient) const;

    // The most likely device of every group.
    void mode(std::span<DeviceId> choice) const;

private:
    void refresh();

    PolicyMatrix logits_;
    PolicyMatrix probabilities_;
    PolicyMatrix logProbabilities_;
};

} // namespace post
