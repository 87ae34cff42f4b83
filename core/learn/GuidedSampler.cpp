#include "core/learn/GuidedSampler.h"

#include "core/classic/ListScheduler.h"
#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/Graph.h"
#include "core/learn/Grouping.h"
#include "core/learn/SampleBatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace post {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

} // namespace

GuidedSampler::GuidedSampler(const Graph& graph, const Cluster& cluster, const SimOptions& options, double guide,
                             bool breakSymmetry)
    : graph_(graph)
    , cluster_(cluster)
    , guide_(guide)
    , breakSymmetry_(breakSymmetry)
    , symmetry_(cluster)
    , devices_(cluster.deviceCount())
    , pinDevice_(cpuPinDevice(cluster))
    , options_(options)
    , ledger_(std::in_place, graph, cluster, options)
{
    const PlacerDevices sets = placerDevices(cluster);
    primary_.assign(static_cast<size_t>(devices_), 0);
    for (DeviceId d : sets.primary)
        primary_[static_cast<size_t>(d)] = 1;
    const int n = graph.opCount();
    opUs_.resize(static_cast<size_t>(n) * static_cast<size_t>(devices_));
    double sum = 0.0;
    for (OpId op = 0; op < n; ++op) {
        double fastest = kInf;
        for (DeviceId d = 0; d < devices_; ++d) {
            const double t = opTimeUs(graph.op(op), cluster.device(d));
            opUs_[static_cast<size_t>(op) * static_cast<size_t>(devices_) + static_cast<size_t>(d)] = t;
            fastest = std::min(fastest, t);
        }
        if (std::isfinite(fastest))
            sum += fastest;
    }
    scaleUs_ = n > 0 && sum > 0.0 ? sum / n : 1.0;
    std::vector<DeviceId> all(static_cast<size_t>(devices_));
    for (DeviceId d = 0; d < devices_; ++d)
        all[static_cast<size_t>(d)] = d;
    level_ = bottomLevels(graph, cluster, all);
    latencyUs_.resize(static_cast<size_t>(devices_) * static_cast<size_t>(devices_));
    bytesPerUs_.resize(latencyUs_.size());
    for (DeviceId a = 0; a < devices_; ++a)
        for (DeviceId b = 0; b < devices_; ++b) {
            const Link& link = cluster.link(a, b);
            const size_t k = static_cast<size_t>(a) * static_cast<size_t>(devices_) + static_cast<size_t>(b);
            latencyUs_[k] = link.latencyUs;
            bytesPerUs_[k] = link.bytesPerUs;
        }
    finish_.assign(static_cast<size_t>(n), 0.0);
    dataReady_.assign(static_cast<size_t>(n) * static_cast<size_t>(devices_), 0.0);
    waiting_.assign(static_cast<size_t>(n), 0);
    startAt_.assign(static_cast<size_t>(n), 0.0);
    startDevice_.assign(static_cast<size_t>(n), kNoDevice);
    available_.assign(static_cast<size_t>(devices_), 0.0);
    score_.assign(static_cast<size_t>(devices_), 0.0);
    end_.assign(static_cast<size_t>(devices_), 0.0);
}

void GuidedSampler::noteBatch(int draws, int outOfMemory)
{
    constexpr double kShrink = 0.97;
    constexpr double kFloor = 0.5;
    if (draws <= 0 || 2 * outOfMemory <= draws || budgetFactor_ <= kFloor)
        return;
    budgetFactor_ = std::max(kFloor, budgetFactor_ * kShrink);
    std::vector<double> budgets(static_cast<size_t>(devices_));
    for (DeviceId d = 0; d < devices_; ++d)
        budgets[static_cast<size_t>(d)] = cluster_.device(d).memoryBytes
            * (primary_[static_cast<size_t>(d)] ? budgetFactor_ : 1.0);
    ledger_.emplace(graph_, cluster_, options_, budgets);
}

void GuidedSampler::setGrouping(const Grouping& grouping)
{
    grouping_ = &grouping;
    decided_.assign(static_cast<size_t>(grouping.groupCount()), 0);
}

DeviceId GuidedSampler::drawDevice(const Policy& policy, std::mt19937_64& rng, OpId op, int g,
                                   std::span<double> offsets, double pullScale)
{
    const auto D = static_cast<size_t>(devices_);
    const auto o = static_cast<size_t>(op);
    const auto gi = static_cast<size_t>(g);
    const PolicyMatrix& logits = policy.logits();
    const PolicyMatrix& probabilities = policy.probabilities();
    const PolicyMatrix& logProbabilities = policy.logProbabilities();
    DeviceId d = kNoDevice;
    // Candidates: the accelerators with room, else the other devices with room, else all.
    int tier = 0;
    for (DeviceId x = 0; x < devices_; ++x) {
        const int t = ledger_->fits(op, x) ? (primary_[static_cast<size_t>(x)] ? 2 : 1) : 0;
        score_[static_cast<size_t>(x)] = t;
        tier = std::max(tier, t);
    }
    double best = kInf;
    for (DeviceId x = 0; x < devices_; ++x) {
        double& s = score_[static_cast<size_t>(x)];
        if (s < tier) {
            s = -kInf;
            continue;
        }
        end_[static_cast<size_t>(x)] = startOn(op, x) + opUs_[o * D + static_cast<size_t>(x)];
        best = std::min(best, end_[static_cast<size_t>(x)]);
    }
    double entropy = 0.0;
    for (DeviceId x = 0; x < devices_; ++x) {
        const double p = probabilities(g, x);
        if (p > 0.0)
            entropy -= p * logProbabilities(g, x);
    }
    const double undecided = devices_ > 1 && floor_ < 1.0
        ? std::clamp((entropy / std::log(static_cast<double>(devices_)) - floor_) / (1.0 - floor_), 0.0, 1.0)
        : 1.0;
    const double pull = guide_ * pullScale * undecided / scaleUs_;
    double top = -kInf;
    for (DeviceId x = 0; x < devices_; ++x) {
        double& s = score_[static_cast<size_t>(x)];
        if (s == -kInf)
            continue;
        const double offset = -pull * (end_[static_cast<size_t>(x)] - best);
        offsets[gi * D + static_cast<size_t>(x)] = offset;
        s = logits(g, x) + offset;
        top = std::max(top, s);
    }
    double total = 0.0;
    for (DeviceId x = 0; x < devices_; ++x) {
        double& s = score_[static_cast<size_t>(x)];
        s = s == -kInf ? 0.0 : std::exp(s - top);
        total += s;
    }
    const double u = uniform01(rng) * total;
    double acc = 0.0;
    for (DeviceId x = 0; x < devices_; ++x) {
        if (score_[static_cast<size_t>(x)] == 0.0)
            continue;
        d = x;
        acc += score_[static_cast<size_t>(x)];
        if (u < acc)
            break;
    }
    return d;
}

double GuidedSampler::finishDraw(const Policy& policy, std::span<DeviceId> choice, Placement& placement,
                                 std::span<double> offsets)
{
    const int groups = grouping_->groupCount();
    const auto D = static_cast<size_t>(devices_);
    const PolicyMatrix& logits = policy.logits();
    // Canonical labels: permute choice, placement and each group's offsets alike.
    if (breakSymmetry_ && !symmetry_.trivial()) {
        const std::vector<DeviceId> map = symmetry_.canonicalMap(choice);
        for (DeviceId& x : choice)
            x = map[static_cast<size_t>(x)];
        for (DeviceId& x : placement)
            x = map[static_cast<size_t>(x)];
        for (int g = 0; g < groups; ++g) {
            const auto row = static_cast<size_t>(g) * D;
            for (size_t x = 0; x < D; ++x)
                score_[static_cast<size_t>(map[x])] = offsets[row + x];
            std::copy(score_.begin(), score_.end(), offsets.begin() + static_cast<std::ptrdiff_t>(row));
        }
    }
    // log q of the (relabelled) draw under the current logits.
    double logProb = 0.0;
    for (int g = 0; g < groups; ++g) {
        const auto row = static_cast<size_t>(g) * D;
        double top = -kInf;
        for (size_t x = 0; x < D; ++x)
            if (offsets[row + x] != -kInf)
                top = std::max(top, logits(g, static_cast<int>(x)) + offsets[row + x]);
        double total = 0.0;
        for (size_t x = 0; x < D; ++x)
            if (offsets[row + x] != -kInf)
                total += std::exp(logits(g, static_cast<int>(x)) + offsets[row + x] - top);
        const auto a = static_cast<size_t>(choice[static_cast<size_t>(g)]);
        logProb += logits(g, static_cast<int>(a)) + offsets[row + a] - top - std::log(total);
    }
    return logProb;
}

double GuidedSampler::sample(const Policy& policy, std::mt19937_64& rng, std::span<DeviceId> choice,
                             Placement& placement, std::span<double> offsets, double pullScale)
{
    const Grouping& grouping = *grouping_;
    const int groups = grouping.groupCount();
    const int n = graph_.opCount();
    const auto D = static_cast<size_t>(devices_);
    placement.assign(static_cast<size_t>(n), kNoDevice);
    std::fill(decided_.begin(), decided_.end(), char{0});
    std::fill(available_.begin(), available_.end(), 0.0);
    std::fill(offsets.begin(), offsets.end(), -kInf);
    ledger_->reset();

    auto makeReady = [&](OpId op) {
        double* ready = dataReady_.data() + static_cast<size_t>(op) * D;
        std::fill(ready, ready + D, 0.0);
        for (EdgeId e : graph_.inEdges(op)) {
            const Edge& edge = graph_.edge(e);
            const auto from = static_cast<size_t>(placement[static_cast<size_t>(edge.from)]);
            const double done = finish_[static_cast<size_t>(edge.from)];
            const double* latency = latencyUs_.data() + from * D;
            const double* bandwidth = bytesPerUs_.data() + from * D;
            for (size_t d = 0; d < D; ++d) {
                const double arrive = d == from ? done
                                                : done + (latency[d] + edge.bytes / bandwidth[d]); // Link::transferUs
                ready[d] = std::max(ready[d], arrive);
            }
        }
        ready_.push_back(op);
    };
    ready_.clear();
    for (OpId op = 0; op < n; ++op) {
        waiting_[static_cast<size_t>(op)] = static_cast<int>(graph_.inEdges(op).size());
        if (waiting_[static_cast<size_t>(op)] == 0)
            makeReady(op);
    }
    auto pinned = [&](OpId op) { return pinDevice_ != kNoDevice && graph_.isCpuPinned(op); };
    // The earliest an op can start (where it must go, else over the accelerators) and on
    // which device, cached per ready op: placing an op on d only delays d, so only the ready
    // ops whose earliest start was on d, and those of a group just decided, change.
    auto earliest = [&](OpId op) {
        const auto o = static_cast<size_t>(op);
        DeviceId at = kNoDevice;
        const int g = grouping.groupOf(op);
        if (pinned(op))
            at = pinDevice_;
        else if (decided_[static_cast<size_t>(g)])
            at = choice[static_cast<size_t>(g)];
        if (at != kNoDevice) {
            startAt_[o] = startOn(op, at);
            startDevice_[o] = at;
            return;
        }
        double t = kInf;
        for (DeviceId d = 0; d < devices_; ++d)
            if (primary_[static_cast<size_t>(d)] && startOn(op, d) < t) {
                t = startOn(op, d);
                at = d;
            }
        startAt_[o] = t;
        startDevice_[o] = at;
    };
    for (OpId op : ready_)
        earliest(op);

    for (int scheduled = 0; scheduled < n; ++scheduled) {
        size_t pick = 0;
        for (size_t k = 1; k < ready_.size(); ++k) {
            const auto a = static_cast<size_t>(ready_[k]);
            const auto b = static_cast<size_t>(ready_[pick]);
            if (startAt_[a] < startAt_[b]
                || (startAt_[a] == startAt_[b] && (level_[a] > level_[b] || (level_[a] == level_[b] && a < b))))
                pick = k;
        }
        const OpId op = ready_[pick];
        ready_[pick] = ready_.back();
        ready_.pop_back();
        const auto o = static_cast<size_t>(op);
        const int g = grouping.groupOf(op);
        const auto gi = static_cast<size_t>(g);
        DeviceId d = kNoDevice;
        if (pinned(op)) {
            d = pinDevice_;
        } else if (decided_[gi]) {
            d = choice[gi];
        } else {
            d = drawDevice(policy, rng, op, g, offsets, pullScale);
            choice[gi] = d;
            decided_[gi] = 1;
        }
        placement[o] = d;
        finish_[o] = startOn(op, d) + opUs_[o * D + static_cast<size_t>(d)];
        available_[static_cast<size_t>(d)] = finish_[o];
        ledger_->place(op, d);
        for (OpId other : ready_)
            if (startDevice_[static_cast<size_t>(other)] == d || grouping.groupOf(other) == g)
                earliest(other);
        for (EdgeId e : graph_.outEdges(op)) {
            const OpId next = graph_.edge(e).to;
            if (--waiting_[static_cast<size_t>(next)] == 0) {
                makeReady(next);
                earliest(next);
            }
        }
    }
    // Groups with only CPU-pinned ops: on the CPU, with no choice.
    for (int g = 0; g < groups; ++g)
        if (!decided_[static_cast<size_t>(g)]) {
            choice[static_cast<size_t>(g)] = pinDevice_ != kNoDevice ? pinDevice_ : 0;
            offsets[static_cast<size_t>(g) * D + static_cast<size_t>(choice[static_cast<size_t>(g)])] = 0.0;
        }
    return finishDraw(policy, choice, placement, offsets);
}

void GuidedSampler::canonicalize(std::span<DeviceId> choice) const
{
    if (breakSymmetry_)
        symmetry_.canonicalize(choice);
}

GuidedSurrogate::GuidedSurrogate(const SampleBatch& batch, std::span<const double> offsets, int devices)
    : batch_(batch)
    , devices_(devices)
{
    const auto D = static_cast<size_t>(devices);
    const auto G = static_cast<size_t>(batch.groups);
    const auto n = static_cast<size_t>(batch.size());
    weights_.resize(n * G * D);
    for (size_t i = 0; i < n; ++i)
        for (size_t g = 0; g < G; ++g) {
            const size_t row = (i * G + g) * D;
            double m = -kInf;
            for (size_t d = 0; d < D; ++d)
                m = std::max(m, offsets[row + d]);
            for (size_t d = 0; d < D; ++d)
                weights_[row + d] = offsets[row + d] == -kInf ? 0.0 : std::exp(offsets[row + d] - m);
        }
}

double GuidedSurrogate::evaluate(const Policy& policy, double clip, PolicyMatrix* gradient) const
{
    const int n = batch_.size();
    const int groups = policy.groups();
    const auto D = static_cast<size_t>(devices_);
    const auto G = static_cast<size_t>(groups);
    if (gradient)
        gradient->setZero(groups, devices_);
    if (n == 0)
        return 0.0;
    // q(d) = P(d) E(d) / sum, with P = exp(logits - row max) once per call and E the
    // offsets' weights from the constructor: no exponential per (sample, entry).
    const PolicyMatrix& logits = policy.logits();
    p_.resize(G * D);
    q_.resize(G * D);
    for (size_t g = 0; g < G; ++g) {
        double m = -kInf;
        for (size_t d = 0; d < D; ++d)
            m = std::max(m, logits(static_cast<int>(g), static_cast<int>(d)));
        for (size_t d = 0; d < D; ++d)
            p_[g * D + d] = std::exp(logits(static_cast<int>(g), static_cast<int>(d)) - m);
    }
    double objective = 0.0;
    for (int i = 0; i < n; ++i) {
        const auto choice = batch_.choice(i);
        const auto ii = static_cast<size_t>(i);
        double logProb = 0.0;
        double product = 1.0; // of the chosen q's, folded into logProb before it can underflow
        for (size_t g = 0; g < G; ++g) {
            const size_t row = g * D;
            const double* w = weights_.data() + (ii * G + g) * D;
            double total = 0.0;
            for (size_t d = 0; d < D; ++d) {
                const double x = p_[row + d] * w[d];
                q_[row + d] = x;
                total += x;
            }
            const auto a = static_cast<size_t>(choice[g]);
            for (size_t d = 0; d < D; ++d)
                q_[row + d] /= total;
            product *= q_[row + a];
            if (product < 1e-200) {
                logProb += std::log(product);
                product = 1.0;
            }
        }
        logProb += std::log(product);
        const double adv = batch_.advantages[ii];
        const double ratio = std::exp(logProb - batch_.oldLogProbs[ii]);
        const double unclipped = ratio * adv;
        const double clipped = std::clamp(ratio, 1.0 - clip, 1.0 + clip) * adv;
        objective += std::min(unclipped, clipped);
        if (gradient && unclipped <= clipped) {
            const double wgt = adv * ratio / n;
            double* out = gradient->data(); // row-major, groups x devices
            for (size_t k = 0; k < G * D; ++k)
                out[k] -= wgt * q_[k];
            for (size_t g = 0; g < G; ++g)
                out[g * D + static_cast<size_t>(choice[g])] += wgt;
        }
    }
    return objective / n;
}

double guidedClippedSurrogate(const Policy& policy, const SampleBatch& batch, std::span<const double> offsets,
                              double clip, PolicyMatrix* gradient)
{
    return GuidedSurrogate(batch, offsets, policy.devices()).evaluate(policy, clip, gradient);
}

} // namespace post
