#include "core/learn/GroupLocalSearch.h"

#include "core/graph/Placement.h"

#include "core/cluster/Cluster.h"
#include "core/graph/Graph.h"
#include "core/learn/BatchEvaluator.h"
#include "core/learn/EvaluationBudget.h"
#include "core/learn/Grouping.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace post {
namespace {

bool improves(const Evaluation& candidate, const Evaluation& current)
{
    return candidate.stepTimeUs < current.stepTimeUs;
}

} // namespace

GroupLocalSearch::GroupLocalSearch(const Graph& graph, const Cluster& cluster, SimOptions sim, BatchEvaluator& evaluator)
    : graph_(graph)
    , cluster_(cluster)
    , evaluator_(evaluator)
    , symmetry_(cluster)
    , timelineSim_(graph, cluster, sim)
    , placements_(kWindow)
    , evaluations_(kWindow)
    , improved_(kWindow)
{
}

std::vector<GroupLocalSearch::PathStep> GroupLocalSearch::criticalPath(const Placement& placement,
                                                                       const Evaluation& known, EvaluationBudget& budget,
                                                                       std::vector<std::vector<OpId>>& onDevice)
{
    const SimResult& r = timelineSim_.run(placement, true);
    budget.record(placement, known); // the same placement: the same step
    const int n = graph_.opCount();
    std::vector<double>& end = opEnd_;
    end.assign(static_cast<size_t>(n), -1.0);
    std::vector<int> position(static_cast<size_t>(n), -1);
    onDevice.assign(static_cast<size_t>(cluster_.deviceCount()), {});
    OpId last = kNoOp;
    for (const OpSpan& s : r.timeline.ops) {
        end[static_cast<size_t>(s.op)] = s.endUs;
        auto& list = onDevice[static_cast<size_t>(s.device)];
        position[static_cast<size_t>(s.op)] = static_cast<int>(list.size());
        list.push_back(s.op);
        if (last == kNoOp || s.endUs > end[static_cast<size_t>(last)])
            last = s.op;
    }
    std::unordered_map<std::uint64_t, double> arrival; // producer x devices + destination
    const auto devices = static_cast<std::uint64_t>(cluster_.deviceCount());
    for (const TransferSpan& t : r.timeline.transfers)
        arrival[static_cast<std::uint64_t>(t.producer) * devices + static_cast<std::uint64_t>(t.to)] = t.endUs;

    std::vector<PathStep> path;
    std::vector<char> seenOp(static_cast<size_t>(n), 0);
    for (OpId op = last; op != kNoOp && !seenOp[static_cast<size_t>(op)];) {
        seenOp[static_cast<size_t>(op)] = 1;
        // What op waited for last: an input's arrival or the op before it on its device.
        OpId next = kNoOp;
        double ready = -1.0;
        const DeviceId d = placement[static_cast<size_t>(op)];
        for (EdgeId edge : graph_.inEdges(op)) {
            const OpId p = graph_.edge(edge).from;
            double at = end[static_cast<size_t>(p)];
            if (placement[static_cast<size_t>(p)] != d) {
                const auto it = arrival.find(static_cast<std::uint64_t>(p) * devices + static_cast<std::uint64_t>(d));
                if (it != arrival.end())
                    at = it->second;
            }
            if (at > ready) {
                ready = at;
                next = p;
            }
        }
        PathStep step{op, false, std::max(0.0, ready)};
        const int pos = position[static_cast<size_t>(op)];
        if (pos > 0) {
            const OpId before = onDevice[static_cast<size_t>(d)][static_cast<size_t>(pos - 1)];
            if (end[static_cast<size_t>(before)] >= ready) {
                step.queued = end[static_cast<size_t>(before)] > ready;
                ready = end[static_cast<size_t>(before)];
                next = before;
            }
        }
        path.push_back(step);
        op = next;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

std::vector<int> GroupLocalSearch::criticalGroups(const Grouping& grouping, const Placement& placement,
                                                  const Evaluation& known, EvaluationBudget& budget)
{
    std::vector<std::vector<OpId>> onDevice;
    const std::vector<PathStep> path = criticalPath(placement, known, budget, onDevice);
    std::vector<int> groups;
    std::vector<char> seenGroup(static_cast<size_t>(grouping.groupCount()), 0);
    for (const PathStep& step : path) {
        const int g = grouping.groupOf(step.op);
        if (!seenGroup[static_cast<size_t>(g)]) {
            seenGroup[static_cast<size_t>(g)] = 1;
            groups.push_back(g);
        }
    }
    return groups;
}

void GroupLocalSearch::appendSegment(OpId op, std::vector<OpId>& out) const
{
    const DeviceId d = base_[static_cast<size_t>(op)];
    // The only neighbour of `at` on d in one direction, when it has exactly one, and `at` is
    // its only neighbour on d the other way.
    auto only = [&](OpId at, bool up) {
        OpId found = kNoOp;
        for (EdgeId e : up ? graph_.inEdges(at) : graph_.outEdges(at)) {
            const OpId other = up ? graph_.edge(e).from : graph_.edge(e).to;
            if (base_[static_cast<size_t>(other)] != d || other == found)
                continue;
            if (found != kNoOp)
                return kNoOp;
            found = other;
        }
        if (found == kNoOp)
            return kNoOp;
        for (EdgeId e : up ? graph_.outEdges(found) : graph_.inEdges(found)) {
            const OpId back = up ? graph_.edge(e).to : graph_.edge(e).from;
            if (back != at && base_[static_cast<size_t>(back)] == d)
                return kNoOp;
        }
        return found;
    };
    out.push_back(op);
    for (const bool up : {true, false}) {
        OpId at = op;
        for (int k = 0; k < kSegment; ++k) {
            at = only(at, up);
            if (at == kNoOp)
                break;
            out.push_back(at);
        }
    }
}

std::vector<std::vector<int>> GroupLocalSearch::blockMoves(const Grouping& grouping, const std::vector<PathStep>& path,
                                                           const std::vector<std::vector<OpId>>& onDevice) const
{
    std::vector<int> position(static_cast<size_t>(graph_.opCount()), -1);
    for (const auto& list : onDevice)
        for (size_t i = 0; i < list.size(); ++i)
            position[static_cast<size_t>(list[i])] = static_cast<int>(i);
    const std::vector<double>& end = opEnd_;

    std::vector<std::vector<int>> blocks;
    std::unordered_map<std::uint64_t, int> seen;
    std::vector<OpId> ops;
    auto add = [&]() {
        std::vector<int> groups;
        for (OpId op : ops)
            groups.push_back(grouping.groupOf(op));
        std::sort(groups.begin(), groups.end());
        groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
        ops.clear();
        if (groups.size() < 2)
            return; // a plain move
        std::uint64_t key = 1469598103934665603ULL;
        for (int g : groups)
            key = (key ^ static_cast<std::uint64_t>(g)) * 1099511628211ULL;
        if (blocks.size() < kMaxBlocks && seen.emplace(key, 0).second)
            blocks.push_back(std::move(groups));
    };
    // From the end of the path back: what delays the step's last ops first.
    for (auto step = path.rbegin(); step != path.rend() && blocks.size() < kMaxBlocks; ++step) {
        if (!step->queued) {
            // An input that crossed devices: the chain on either side of the cut, moved whole.
            const auto before = std::next(step);
            if (before != path.rend() && base_[static_cast<size_t>(before->op)] != base_[static_cast<size_t>(step->op)]) {
                appendSegment(before->op, ops);
                add();
                appendSegment(step->op, ops);
                add();
            }
            continue;
        }
        const DeviceId d = base_[static_cast<size_t>(step->op)];
        const auto& list = onDevice[static_cast<size_t>(d)];
        // The ops that held the device while the op waited (the last kHolders of them).
        std::vector<OpId> holders;
        for (int i = position[static_cast<size_t>(step->op)] - 1; i >= 0 && holders.size() < kHolders
             && end[static_cast<size_t>(list[static_cast<size_t>(i)])] > step->readyUs;
             --i)
            holders.push_back(list[static_cast<size_t>(i)]);
        ops = holders;
        add();
        appendSegment(step->op, ops);
        add();
        for (OpId h : holders) {
            appendSegment(h, ops);
            add();
        }
    }
    return blocks;
}

void GroupLocalSearch::prepareBase(const Grouping& grouping, const std::vector<DeviceId>& choice)
{
    grouping.expand(choice, base_);
    applyCpuPinning(graph_, cluster_, base_); // ops without a GPU kernel stay on the CPU
    evaluator_.setReference(base_);           // every candidate is a neighbour of base_
}

std::vector<int> GroupLocalSearch::searchOrder(const Grouping& grouping, const Evaluation& current,
                                               EvaluationBudget& budget, int& spent,
                                               std::vector<std::vector<int>>& blocks)
{
    std::vector<std::vector<OpId>> onDevice;
    const std::vector<PathStep> path = criticalPath(base_, current, budget, onDevice);
    ++spent;
    blocks.clear();
    if (blockMoves_)
        blocks = blockMoves(grouping, path, onDevice);
    std::vector<int> order;
    std::vector<char> onPath(static_cast<size_t>(grouping.groupCount()), 0);
    for (const PathStep& step : path) {
        const int g = grouping.groupOf(step.op);
        if (!onPath[static_cast<size_t>(g)]) {
            onPath[static_cast<size_t>(g)] = 1;
            order.push_back(g);
        }
    }
    std::vector<char> listed(static_cast<size_t>(grouping.groupCount()), 0);
    for (int g : order)
        listed[static_cast<size_t>(g)] = 1;
    std::vector<double> weight(static_cast<size_t>(grouping.groupCount()), 0.0);
    for (int g = 0; g < grouping.groupCount(); ++g)
        for (OpId op : grouping.members(g))
            weight[static_cast<size_t>(g)] += groupingWeight(graph_, op);
    std::vector<int> rest;
    for (int g = 0; g < grouping.groupCount(); ++g)
        if (!listed[static_cast<size_t>(g)])
            rest.push_back(g);
    std::stable_sort(rest.begin(), rest.end(),
                     [&](int a, int b) { return weight[static_cast<size_t>(a)] > weight[static_cast<size_t>(b)]; });
    order.insert(order.end(), rest.begin(), rest.end());
    return order;
}

bool GroupLocalSearch::tryWindow(const Grouping& grouping, std::vector<DeviceId>& choice, Evaluation& current,
                                 const std::vector<Candidate>& candidates, EvaluationBudget& budget, int& spent)
{
    const size_t count = candidates.size();
    for (size_t i = 0; i < count; ++i) {
        Placement& p = placements_[i];
        p = base_;
        const Candidate& c = candidates[i];
        if (c.group == kBlock) {
            for (int g : blocks_[static_cast<size_t>(c.other)])
                for (OpId op : grouping.members(g))
                    p[static_cast<size_t>(op)] = c.device;
        } else if (c.group < 0) {
            for (int g = 0; g < grouping.groupCount(); ++g)
                if (choice[static_cast<size_t>(g)] == static_cast<DeviceId>(c.other))
                    for (OpId op : grouping.members(g))
                        p[static_cast<size_t>(op)] = c.device;
        } else if (c.other < 0) {
            for (OpId op : grouping.members(c.group))
                p[static_cast<size_t>(op)] = c.device;
        } else {
            const DeviceId a = choice[static_cast<size_t>(c.group)];
            const DeviceId b = choice[static_cast<size_t>(c.other)];
            for (OpId op : grouping.members(c.group))
                p[static_cast<size_t>(op)] = b;
            for (OpId op : grouping.members(c.other))
                p[static_cast<size_t>(op)] = a;
        }
        applyCpuPinning(graph_, cluster_, p);
    }
    evaluator_.evaluate(std::span(placements_).first(count), std::span(evaluations_).first(count));
    int best = -1;
    for (size_t i = 0; i < count; ++i) {
        budget.record(placements_[i], evaluations_[i]);
        ++spent;
        improved_[i] = improves(evaluations_[i], current) ? 1 : 0;
        if (improves(evaluations_[i], best < 0 ? current : evaluations_[static_cast<size_t>(best)]))
            best = static_cast<int>(i);
    }
    if (best < 0)
        return false;
    const Candidate& c = candidates[static_cast<size_t>(best)];
    if (c.group == kBlock) {
        for (int g : blocks_[static_cast<size_t>(c.other)])
            choice[static_cast<size_t>(g)] = c.device;
    } else if (c.group < 0) {
        std::replace(choice.begin(), choice.end(), static_cast<DeviceId>(c.other), c.device);
    } else if (c.other < 0) {
        choice[static_cast<size_t>(c.group)] = c.device;
    } else {
        std::swap(choice[static_cast<size_t>(c.group)], choice[static_cast<size_t>(c.other)]);
    }
    current = evaluations_[static_cast<size_t>(best)];
    return true;
}

GroupLocalSearch::ClimbState& GroupLocalSearch::stateFor(const Grouping& grouping)
{
    std::uint64_t key = 1469598103934665603ULL;
    auto mix = [&](std::uint64_t v) {
        key ^= v + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
        key *= 1099511628211ULL;
    };
    mix(static_cast<std::uint64_t>(grouping.groupCount()));
    for (OpId op = 0; op < grouping.opCount(); ++op)
        mix(static_cast<std::uint64_t>(grouping.groupOf(op)));
    ++uses_;
    auto found = states_.find(key);
    if (found != states_.end()) {
        found->second.lastUse = uses_;
        return found->second;
    }
    if (states_.size() >= kStates) { // forget the least recently used grouping
        auto oldest = states_.begin();
        for (auto it = states_.begin(); it != states_.end(); ++it)
            if (it->second.lastUse < oldest->second.lastUse)
                oldest = it;
        states_.erase(oldest);
    }
    ClimbState& st = states_[key];
    st.lastUse = uses_;
    const int groups = grouping.groupCount();
    const int devices = cluster_.deviceCount();
    // Groups joined by an edge, both ways, and each pair once (its higher group under the lower).
    st.adjacent = adjacentGroups(grouping, graph_);
    st.neighbours.assign(static_cast<size_t>(groups), {});
    for (int g = 0; g < groups; ++g)
        for (int h : st.adjacent[static_cast<size_t>(g)])
            if (h > g)
                st.neighbours[static_cast<size_t>(g)].push_back(h);
    st.pinned = pinnedGroups(grouping, graph_, cluster_);
    if (st.pinned.empty())
        st.pinned.assign(static_cast<size_t>(groups), 0);
    st.touched.assign(static_cast<size_t>(groups), 0);
    st.moveFailed.assign(static_cast<size_t>(groups) * static_cast<size_t>(devices), -1);
    st.mergeFailed.assign(static_cast<size_t>(devices) * static_cast<size_t>(devices), -1);
    return st;
}

struct GroupLocalSearch::Scan {
    static constexpr size_t kBlockMemory = size_t{1} << 16;
    GroupLocalSearch& self;
    const Grouping& grouping;
    std::vector<DeviceId>& choice;
    Evaluation& current;
    EvaluationBudget& budget;
    ClimbState& st;
    int maxEvaluations;
    int groups;
    int devices;
    int spent = 0;
    std::vector<Candidate> window;
    std::vector<char> used; // per device: some group is on it
    bool lazy = true;
    bool skippedAny = false; // a lazy scan passed over a candidate not known to fail now
    bool accepted = false;
    bool stop = false; // stop scanning (accepted or out of budget)

    Scan(GroupLocalSearch& search, const Grouping& g, std::vector<DeviceId>& c, Evaluation& e, EvaluationBudget& b,
         ClimbState& state, int most)
        : self(search)
        , grouping(g)
        , choice(c)
        , current(e)
        , budget(b)
        , st(state)
        , maxEvaluations(most)
        , groups(g.groupCount())
        , devices(search.cluster_.deviceCount())
        , used(static_cast<size_t>(devices), 0)
    {
    }

    int room() const { return std::min(budget.left(), maxEvaluations - spent); }
    bool onCpu(DeviceId d) const { return self.cluster_.device(d).kind == DeviceKind::Cpu; }
    // Whether group g may be sent to device d: a pinned group sent off the CPUs would be sent
    // back by applyCpuPinning, a candidate equal to the current state or to a move to the CPU
    // (a Chakra step's critical path is mostly such groups: every move of them a lost sample).
    bool mayGo(int g, DeviceId d) const { return !st.pinned[static_cast<size_t>(g)] || onCpu(d); }
    void touch(int g)
    {
        st.touched[static_cast<size_t>(g)] = st.version;
        for (int h : st.adjacent[static_cast<size_t>(g)])
            st.touched[static_cast<size_t>(h)] = st.version;
    }
    void moveTo(const std::vector<DeviceId>& next) // a new state: touch what moved
    {
        ++st.version;
        for (int g = 0; g < groups; ++g)
            if (st.choice.size() != next.size() || st.choice[static_cast<size_t>(g)] != next[static_cast<size_t>(g)])
                touch(g);
        st.choice = next;
        st.converged = false;
    }
    int& failedSlot(const Candidate& c)
    {
        if (c.group == kBlock) {
            std::uint64_t key = static_cast<std::uint64_t>(c.device) + 1;
            for (int g : st.blocks[static_cast<size_t>(c.other)])
                key = (key * 1099511628211ULL) ^ static_cast<std::uint64_t>(g);
            if (st.blockFailed.size() >= kBlockMemory)
                st.blockFailed.clear(); // forgets only which blocks failed: they are tried again
            return st.blockFailed.try_emplace(key, -1).first->second;
        }
        if (c.group < 0)
            return st
                .mergeFailed[static_cast<size_t>(c.other) * static_cast<size_t>(devices) + static_cast<size_t>(c.device)];
        if (c.other < 0)
            return st.moveFailed[static_cast<size_t>(c.group) * static_cast<size_t>(devices) + static_cast<size_t>(c.device)];
        return st.swapFailed[static_cast<std::uint64_t>(c.group) * static_cast<std::uint64_t>(groups)
                             + static_cast<std::uint64_t>(c.other)];
    }
    int lastTouched(const Candidate& c) const
    {
        if (c.group == kBlock) {
            int t = 0;
            for (int g : st.blocks[static_cast<size_t>(c.other)])
                t = std::max(t, st.touched[static_cast<size_t>(g)]);
            return t;
        }
        if (c.group < 0)
            return st.version; // a merge depends on every group
        const int t = st.touched[static_cast<size_t>(c.group)];
        return c.other < 0 ? t : std::max(t, st.touched[static_cast<size_t>(c.other)]);
    }
    // Evaluates the window; true: stop scanning (accepted or out of budget).
    bool flush()
    {
        if (window.empty())
            return false;
        const int r = room();
        if (r <= 0 || budget.exhausted()) {
            window.clear();
            return true;
        }
        if (static_cast<int>(window.size()) > r)
            window.resize(static_cast<size_t>(r));
        accepted = self.tryWindow(grouping, choice, current, window, budget, spent);
        for (size_t i = 0; i < window.size(); ++i)
            if (!self.improved_[i])
                failedSlot(window[i]) = st.version;
        if (accepted) {
            pinChoice(st.pinned, self.cluster_, choice); // a merge moves pinned groups off the CPU too
            moveTo(choice);
        }
        window.clear();
        return accepted || room() <= 0;
    }
    // Adds candidate `c` to the window unless it is skipped; true: stop scanning.
    bool offer(const Candidate& c)
    {
        const int failed = failedSlot(c);
        if (failed == st.version)
            return false; // failed in this very state
        if (lazy && failed >= lastTouched(c)) {
            skippedAny = true;
            return false;
        }
        window.push_back(c);
        return static_cast<int>(window.size()) == kWindow && flush();
    }
    // Merges: every group on device a moved to device b. b is in use, or the first unused
    // device of a class other than a's (moving all of a to an interchangeable unused device
    // would only relabel it).
    void scanMerges()
    {
        std::vector<char> holdsFree(static_cast<size_t>(devices), 0); // a group that is not pinned
        for (int g = 0; g < groups; ++g)
            if (!st.pinned[static_cast<size_t>(g)])
                holdsFree[static_cast<size_t>(choice[static_cast<size_t>(g)])] = 1;
        for (DeviceId a = 0; a < devices && !stop; ++a) {
            if (!used[static_cast<size_t>(a)])
                continue;
            for (DeviceId b = 0; b < devices; ++b) {
                if (b == a || !(holdsFree[static_cast<size_t>(a)] || onCpu(b)))
                    continue; // only pinned groups, which would stay
                if (!used[static_cast<size_t>(b)]) {
                    const int cls = self.symmetry_.classOf(b);
                    if (cls == self.symmetry_.classOf(a))
                        continue;
                    bool first = true;
                    for (DeviceId m : self.symmetry_.members(cls))
                        if (m < b && !used[static_cast<size_t>(m)])
                            first = false;
                    if (!first)
                        continue;
                }
                if ((stop = offer(Candidate{-1, static_cast<int>(a), b})))
                    break;
            }
        }
        if (!stop)
            stop = flush();
    }
    // Moves: one group to another device; of interchangeable devices no group uses, only the
    // first (the others would give the same step).
    void scanMoves(const std::vector<int>& order)
    {
        for (int g : order) {
            const DeviceId now = choice[static_cast<size_t>(g)];
            for (DeviceId d = 0; d < devices && !stop; ++d) {
                if (d == now || !mayGo(g, d))
                    continue;
                if (!used[static_cast<size_t>(d)]) {
                    const int cls = self.symmetry_.classOf(d);
                    bool firstUnused = true;
                    for (DeviceId m : self.symmetry_.members(cls)) {
                        if (m == d)
                            break;
                        if (!used[static_cast<size_t>(m)] && m != now) {
                            firstUnused = false;
                            break;
                        }
                    }
                    if (!firstUnused)
                        continue;
                }
                stop = offer(Candidate{g, -1, d});
            }
            if (stop)
                break;
        }
        if (!stop)
            stop = flush();
    }
    // Whether a group may go to device d: a device in use, or the first unused one of its
    // class (the others would give the same step).
    bool worthTrying(DeviceId d, DeviceId now) const
    {
        if (used[static_cast<size_t>(d)])
            return true;
        for (DeviceId m : self.symmetry_.members(self.symmetry_.classOf(d))) {
            if (m == d)
                return true;
            if (!used[static_cast<size_t>(m)] && m != now)
                return false;
        }
        return true;
    }
    // Block moves: the critical path's blocks (ClimbState::blocks), each to every other device.
    void scanBlocks()
    {
        self.blocks_ = st.blocks;
        for (size_t b = 0; b < st.blocks.size() && !stop; ++b) {
            const std::vector<int>& block = st.blocks[b];
            const DeviceId now = choice[static_cast<size_t>(block.front())];
            for (DeviceId d = 0; d < devices && !stop; ++d)
                if (d != now && worthTrying(d, now) && std::any_of(block.begin(), block.end(), [&](int g) {
                        return mayGo(g, d) && choice[static_cast<size_t>(g)] != d;
                    }))
                    stop = offer(Candidate{kBlock, static_cast<int>(b), d});
        }
        if (!stop)
            stop = flush();
    }
    // Swaps of two neighbouring groups on different devices.
    void scanSwaps(const std::vector<int>& order)
    {
        for (int g : order) {
            for (int h : st.neighbours[static_cast<size_t>(g)]) {
                const DeviceId a = choice[static_cast<size_t>(g)];
                const DeviceId b = choice[static_cast<size_t>(h)];
                if (a == b || !mayGo(g, b) || !mayGo(h, a))
                    continue;
                if ((stop = offer(Candidate{g, h, kNoDevice})))
                    break;
            }
            if (stop)
                break;
        }
        if (!stop)
            stop = flush();
    }
};

bool GroupLocalSearch::climb(const Grouping& grouping, std::vector<DeviceId>& choice, Evaluation& current,
                             EvaluationBudget& budget, int maxEvaluations)
{
    const int groups = grouping.groupCount();
    const int devices = cluster_.deviceCount();
    if (groups == 0 || devices < 2)
        return true;
    // Don't-look bookkeeping, kept per grouping across calls (docs/learners.md, "Local
    // search"). `version` counts the states seen: a candidate that failed at the current
    // version fails now (same state) and is never evaluated again; one that failed earlier,
    // with neither its group(s) nor their neighbours moved since (`touched`), is skipped by a
    // lazy scan. A lazy scan that skips something and finds nothing is followed by a full
    // one, so convergence still means that no candidate improves.
    ClimbState& st = stateFor(grouping);
    pinChoice(st.pinned, cluster_, choice);
    Scan scan(*this, grouping, choice, current, budget, st, maxEvaluations);
    // A choice the state has not seen (a new start) tries the merges first, once: they are
    // few, and a start with a device too many is common (the learner's samples).
    bool mergesFirst = st.choice != choice;
    if (mergesFirst)
        scan.moveTo(choice);
    if (st.converged)
        return true;
    while (true) {
        if (budget.exhausted() || scan.room() < 2)
            return false;
        prepareBase(grouping, choice);
        if (st.orderVersion != st.version) {
            st.order = searchOrder(grouping, current, budget, scan.spent, st.blocks);
            st.orderVersion = st.version;
        }
        const std::vector<int>& order = st.order;
        scan.skippedAny = false;
        std::fill(scan.used.begin(), scan.used.end(), 0);
        for (DeviceId d : choice)
            scan.used[static_cast<size_t>(d)] = 1;
        scan.accepted = false;
        scan.stop = false;
        if (mergesFirst)
            scan.scanMerges();
        if (!scan.stop)
            scan.scanMoves(order);
        if (!scan.stop)
            scan.scanSwaps(order);
        if (!scan.stop && !mergesFirst)
            scan.scanMerges();
        if (!scan.stop && blockMoves_)
            scan.scanBlocks();
        mergesFirst = false;
        if (scan.accepted) {
            scan.lazy = true;
            continue;
        }
        if (scan.stop)
            return false; // the budget ended mid-scan; what failed stays known for the next call
        if (scan.lazy && scan.skippedAny) {
            if (!fullFinalScan_)
                return false;
            scan.lazy = false; // a full scan decides whether the climb has converged
            continue;
        }
        st.converged = true;
        return true;
    }
}

} // namespace post
