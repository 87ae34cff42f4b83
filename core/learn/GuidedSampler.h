#pragma once

#include "core/classic/MemoryLedger.h"
#include "core/cluster/DeviceSymmetry.h"
#include "core/graph/Placement.h"
#include "core/learn/Policy.h"
#include "core/learn/SampleBatch.h"
#include "core/sim/SimOptions.h"

#include <algorithm>
#include <optional>
#include <random>
#include <span>
#include <vector>

namespace post {

class Graph;
class Cluster;
class Grouping;

// Post's list-scheduling sampler (docs/learners.md, "Guided sampling"). A placement is drawn
// by list scheduling, as m-ETF does (ListScheduler): repeatedly the ready op that can start
// earliest (ties: longer path to the end, lower id) is scheduled; but where m-ETF takes the
// device with the earliest start, the first op of each policy group draws the group's device
//     q(d) ∝ exp(logit(g, d) - pull(g) x (finish(d) - min finish) / meanOpUs),
// pull(g) = guide x (how undecided the policy is about g: setEntropyFloor),
// finish(d) being when the op would end on d given where its inputs went (transfers at
// latency + bytes / bandwidth) and when d is free. So the learned per-group logits are
// combined with the schedule the earlier draws made: guide = 0 is the per-group policy alone;
// large values approach deterministic earliest-finish-time scheduling. As in the classical
// placers (PlacerDevices), the candidates are the accelerators with room for the op
// (MemoryLedger); the other devices only when no accelerator has room, and all of them when
// none has. The other ops of a group follow its first; CPU-pinned ops run on the CPU.
//
// Each draw is relabelled canonically (DeviceSymmetry, groups in their order) before it is
// returned, with its offsets and log-probability, so interchangeable devices never split the
// learner's votes.
class GuidedSampler {
public:
    // `breakSymmetry` false offers every device (the ablation of symmetry breaking).
    GuidedSampler(const Graph& graph, const Cluster& cluster, const SimOptions& options, double guide,
                  bool breakSymmetry = true);

    // Must be called before sampling and whenever the grouping changes.
    void setGrouping(const Grouping& grouping);

    double guide() const { return guide_; }
    void setGuide(double guide) { guide_ = guide; }
    // The guide fades as the policy learns: a group's pull is guide x (H - floor) / (1 - floor),
    // H its normalised entropy, so an undecided group follows the schedule and a group the
    // elite agrees on follows the policy (with its smoothing left to explore). `floor` is the
    // entropy the CE smoothing leaves a unanimous group (0: the guide fades only at H = 0).
    void setEntropyFloor(double floor) { floor_ = floor; }

    // The memory estimate (MemoryLedger) assumes ops run in the order they are drawn; the
    // simulator runs devices concurrently, so its peaks can be higher. The caller reports how
    // many of a batch of draws the simulator found out of memory: when it is more than half,
    // every accelerator's budget shrinks by 3% (down to half its capacity), as the classical
    // placers' memory feedback does.
    void noteBatch(int draws, int outOfMemory);
    double budgetFactor() const { return budgetFactor_; }

    // Draws a device per group into `choice` (groups of the grouping) and the op-level
    // placement into `placement` (CPU pinning applied); writes each group's additive logit
    // offsets into `offsets` (groups x devices, row-major; -inf for a device that was not a
    // candidate) and returns the draw's log-probability, sum over groups of log q(choice).
    // `pullScale` multiplies the guide for this draw (a batch mixes strong and weak pulls).
    double sample(const Policy& policy, std::mt19937_64& rng, std::span<DeviceId> choice, Placement& placement,
                  std::span<double> offsets, double pullScale = 1.0);

    // Relabels interchangeable devices of `choice` as sample() does, so placements from
    // elsewhere vote in the same labels.
    void canonicalize(std::span<DeviceId> choice) const;

private:
    // sample()'s parts: where `op` starts on `d` in the draw so far; the device drawn for the
    // undecided group `g` of `op` (its offsets written); the canonical relabelling of the draw
    // and its log-probability.
    double startOn(OpId op, DeviceId d) const
    {
        return std::max(available_[static_cast<size_t>(d)],
                        dataReady_[static_cast<size_t>(op) * static_cast<size_t>(devices_) + static_cast<size_t>(d)]);
    }
    DeviceId drawDevice(const Policy& policy, std::mt19937_64& rng, OpId op, int g, std::span<double> offsets,
                        double pullScale);
    double finishDraw(const Policy& policy, std::span<DeviceId> choice, Placement& placement, std::span<double> offsets);

    const Graph& graph_;
    const Cluster& cluster_;
    double guide_;
    double floor_ = 0.0;
    bool breakSymmetry_;
    DeviceSymmetry symmetry_;
    int devices_;
    std::vector<char> primary_; // per device: an accelerator (PlacerDevices::primary)
    DeviceId pinDevice_;
    double scaleUs_ = 1.0;
    std::vector<double> level_;      // longest path to the end, each op at its fastest device
    std::vector<double> opUs_;       // op x device
    std::vector<double> latencyUs_;  // from x to: the link's latency...
    std::vector<double> bytesPerUs_; // ... and bandwidth
    const Grouping* grouping_ = nullptr;
    const SimOptions options_;
    double budgetFactor_ = 1.0;
    std::optional<MemoryLedger> ledger_;
    // Per-draw state.
    std::vector<double> finish_;
    std::vector<double> dataReady_; // op x device
    std::vector<int> waiting_;
    std::vector<double> startAt_;       // per ready op: its earliest start...
    std::vector<DeviceId> startDevice_; // ... and where
    std::vector<OpId> ready_;
    std::vector<double> available_;
    std::vector<char> decided_;
    std::vector<double> score_;
    std::vector<double> end_;
};

// PPO's clipped surrogate for draws of a GuidedSampler: like clippedSurrogate, with each
// sample's log-probability sum_g log softmax(logits(g) + offsets(i, g))(choice(i, g)).
// `offsets` holds batch.size() x groups x devices values. Built once per batch (the offsets'
// exponentials), evaluated once per PPO epoch; `gradient` is overwritten. The batch's spans
// must outlive it.
class GuidedSurrogate {
public:
    GuidedSurrogate(const SampleBatch& batch, std::span<const double> offsets, int devices);
    double evaluate(const Policy& policy, double clip, PolicyMatrix* gradient) const;

private:
    SampleBatch batch_;
    int devices_;
    std::vector<double> weights_; // exp(offset - row max), 0 for non-candidates
    mutable std::vector<double> p_, q_;
};

// One-off form of GuidedSurrogate (tests, small uses).
double guidedClippedSurrogate(const Policy& policy, const SampleBatch& batch, std::span<const double> offsets,
                              double clip, PolicyMatrix* gradient);

} // namespace post
