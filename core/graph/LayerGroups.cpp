#include "core/graph/LayerGroups.h"

#include "core/graph/Graph.h"
#include "core/graph/ScopeTree.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

namespace post {
namespace {

bool containsGrad(std::string_view text)
{
    for (std::size_t i = 0; i + 4 <= text.size(); ++i)
        if ((text[i] == 'g' || text[i] == 'G') && (text[i + 1] == 'r' || text[i + 1] == 'R')
            && (text[i + 2] == 'a' || text[i + 2] == 'A') && (text[i + 3] == 'd' || text[i + 3] == 'D'))
            return true;
    return false;
}

bool isBackward(const Op& op)
{
    return op.type == "backward" || op.type.starts_with("Apply") || containsGrad(op.type) || containsGrad(op.name);
}

// The forward ops that have a forward producer, in topological order, with their kinds.
struct Sequence {
    std::vector<OpId> order;
    std::vector<int> kind;  // per position: an id of the kind
    std::vector<char> leaf; // per op: a forward op without a forward producer (weight, input)
};

Sequence forwardSequence(const Graph& graph, const std::vector<char>& backward)
{
    const int n = graph.opCount();
    Sequence s;
    s.leaf.assign(static_cast<std::size_t>(n), 0);
    for (OpId op = 0; op < n; ++op) {
        if (backward[static_cast<std::size_t>(op)])
            continue;
        bool fed = false;
        for (EdgeId e : graph.inEdges(op))
            fed = fed || !backward[static_cast<std::size_t>(graph.edge(e).from)];
        s.leaf[static_cast<std::size_t>(op)] = !fed;
    }
    std::unordered_map<std::string, int> kinds;
    std::vector<std::string> weights;
    for (OpId op : graph.topologicalOrder()) {
        if (backward[static_cast<std::size_t>(op)] || s.leaf[static_cast<std::size_t>(op)])
            continue;
        const Op& o = graph.op(op);
        std::string key = ScopeTree::numberPattern(o.name) + "|" + o.type;
        weights.clear();
        for (EdgeId e : graph.inEdges(op))
            if (const OpId from = graph.edge(e).from; s.leaf[static_cast<std::size_t>(from)])
                weights.push_back(ScopeTree::numberPattern(graph.op(from).name));
        std::sort(weights.begin(), weights.end());
        for (const std::string& w : weights)
            key.append("|").append(w);
        const auto [it, inserted] = kinds.emplace(std::move(key), static_cast<int>(kinds.size()));
        s.order.push_back(op);
        s.kind.push_back(it->second);
    }
    return s;
}

// L: the occurrence count shared by the most ops among kinds seen more than once, with at
// least kMinKinds kinds sharing it (the smaller count among equals); 0 when there is none.
int layerCount(const std::vector<std::vector<int>>& occurrences)
{
    std::map<int, int> kindsWithCount;
    for (const auto& occ : occurrences)
        if (occ.size() >= 2)
            ++kindsWithCount[static_cast<int>(occ.size())];
    int best = 0;
    long long bestOps = 0;
    for (const auto& [count, kinds] : kindsWithCount) {
        const long long ops = static_cast<long long>(count) * kinds;
        if (kinds >= LayerGroups::kMinKinds && ops > bestOps) {
            best = count;
            bestOps = ops;
        }
    }
    return best;
}

// Whether every occurrence k of `occ` lies in layer k of the layers starting at `starts`.
bool fits(const std::vector<int>& occ, const std::vector<int>& starts)
{
    for (std::size_t k = 0; k < starts.size(); ++k)
        if (occ[k] < starts[k] || (k + 1 < starts.size() && occ[k] >= starts[k + 1]))
            return false;
    return true;
}

// The kind whose occurrences start the layers: the most candidates fit (the earliest first
// occurrence among equals). Only the first kMaxAnchors candidates by first occurrence are
// tried: a layer's first op comes early.
int anchorKind(const std::vector<std::vector<int>>& occurrences, const std::vector<int>& candidates)
{
    constexpr std::size_t kMaxAnchors = 256;
    std::vector<int> byFirst = candidates;
    std::sort(byFirst.begin(), byFirst.end(), [&](int a, int b) {
        return occurrences[static_cast<std::size_t>(a)][0] < occurrences[static_cast<std::size_t>(b)][0];
    });
    if (byFirst.size() > kMaxAnchors)
        byFirst.resize(kMaxAnchors);
    int best = -1, bestScore = -1;
    for (int a : byFirst) {
        const std::vector<int>& starts = occurrences[static_cast<std::size_t>(a)];
        int score = 0;
        for (int c : candidates)
            score += fits(occurrences[static_cast<std::size_t>(c)], starts) ? 1 : 0;
        if (score > bestScore) { // byFirst is in first-occurrence order: the earliest wins ties
            best = a;
            bestScore = score;
        }
    }
    return bestScore >= LayerGroups::kMinKinds ? best : -1;
}

// The group most of `groups` are in, the later one among equals; kNone when empty.
int mostCommon(std::vector<int>& groups)
{
    if (groups.empty())
        return LayerGroups::kNone;
    std::sort(groups.begin(), groups.end());
    int best = LayerGroups::kNone, bestCount = 0;
    for (std::size_t i = 0; i < groups.size();) {
        std::size_t j = i;
        while (j < groups.size() && groups[j] == groups[i])
            ++j;
        if (static_cast<int>(j - i) >= bestCount) {
            best = groups[i];
            bestCount = static_cast<int>(j - i);
        }
        i = j;
    }
    return best;
}

// Weights and inputs join their consumers' group when all of them share one; backward ops
// follow their producers, in topological order.
void groupTheRest(const Graph& graph, LayerGroups& g, const std::vector<char>& leaf)
{
    std::vector<int> seen;
    for (OpId op = 0; op < graph.opCount(); ++op) {
        if (!leaf[static_cast<std::size_t>(op)])
            continue;
        seen.clear();
        for (EdgeId e : graph.outEdges(op))
            if (const OpId to = graph.edge(e).to; !g.backward[static_cast<std::size_t>(to)])
                seen.push_back(g.groupOf[static_cast<std::size_t>(to)]);
        const bool one = !seen.empty() && std::all_of(seen.begin(), seen.end(), [&](int x) { return x == seen[0]; });
        g.groupOf[static_cast<std::size_t>(op)] = one ? seen[0] : LayerGroups::kNone;
    }
    std::vector<int> forward, backward;
    for (OpId op : graph.topologicalOrder()) {
        if (!g.backward[static_cast<std::size_t>(op)])
            continue;
        forward.clear();
        backward.clear();
        for (EdgeId e : graph.inEdges(op)) {
            const OpId from = graph.edge(e).from;
            const int group = g.groupOf[static_cast<std::size_t>(from)];
            if (group != LayerGroups::kNone)
                (g.backward[static_cast<std::size_t>(from)] ? backward : forward).push_back(group);
        }
        g.groupOf[static_cast<std::size_t>(op)] = mostCommon(forward.empty() ? backward : forward);
    }
}

} // namespace

LayerGroups LayerGroups::find(const Graph& graph)
{
    const int n = graph.opCount();
    LayerGroups g;
    g.backward.resize(static_cast<std::size_t>(n));
    for (OpId op = 0; op < n; ++op)
        g.backward[static_cast<std::size_t>(op)] = isBackward(graph.op(op)) ? 1 : 0;
    g.groupOf.assign(static_cast<std::size_t>(n), kNone);
    if (n > kMaxOps)
        return g;
    const Sequence seq = forwardSequence(graph, g.backward);
    const int m = static_cast<int>(seq.order.size());
    std::vector<std::vector<int>> occurrences;
    for (int p = 0; p < m; ++p) {
        const auto k = static_cast<std::size_t>(seq.kind[static_cast<std::size_t>(p)]);
        if (k >= occurrences.size())
            occurrences.resize(k + 1);
        occurrences[k].push_back(p);
    }
    const int layers = layerCount(occurrences);
    if (layers < 2)
        return g;
    std::vector<int> candidates;
    for (std::size_t k = 0; k < occurrences.size(); ++k)
        if (static_cast<int>(occurrences[k].size()) == layers)
            candidates.push_back(static_cast<int>(k));
    const int anchor = anchorKind(occurrences, candidates);
    if (anchor < 0)
        return g;
    const std::vector<int>& starts = occurrences[static_cast<std::size_t>(anchor)];
    // The last layer ends after the last op of a fitting candidate, and is at least as long
    // as the one before it.
    int end = starts.back() + (starts.back() - starts[starts.size() - 2]);
    for (int c : candidates)
        if (const auto& occ = occurrences[static_cast<std::size_t>(c)]; fits(occ, starts))
            end = std::max(end, occ.back() + 1);
    end = std::min(end, m);
    // A stack of layers is most of the graph: two similar blocks in a long graph are not its
    // structure (PipeDream's Inception-V3 has two alike Mixed_7 blocks among 651 ops).
    if (2 * (end - starts.front()) < m)
        return g;
    g.layers = layers;
    for (int p = 0; p < m; ++p) {
        const auto layer = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), p) - starts.begin());
        g.groupOf[static_cast<std::size_t>(seq.order[static_cast<std::size_t>(p)])] = p >= end ? g.after() : layer;
    }
    groupTheRest(graph, g, seq.leaf);
    return g;
}

std::string LayerGroups::scopeOf(OpId op) const
{
    const int group = groupOf[static_cast<std::size_t>(op)];
    if (group == kNone)
        return {};
    std::string path = group == kBefore ? "before layer 1"
        : group == after()              ? "after layer " + std::to_string(layers)
                                        : "layer " + std::to_string(group);
    if (backward[static_cast<std::size_t>(op)])
        path += " grad";
    return path;
}

} // namespace post
