#pragma once

#include "core/graph/DeviceKind.h"
#include "core/graph/Ids.h"
#include "core/graph/Placement.h"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace post {

class Graph;

// The ops of a graph grouped by name scope, as TensorBoard groups them: an op named
// "bert/encoder/layer_3/attention/MatMul" lives in the scope "bert/encoder/layer_3/attention",
// whose parent is "bert/encoder/layer_3", and so on up to the root (the empty path). An op
// whose whole name is also a scope (TensorFlow's "x" next to its gradient "x/grad") lives in
// that scope. Empty components are skipped ("/encoder/MatMul", as PyTorch's ONNX export
// writes names, has the scope "/encoder"). A scope with no ops of its own and a single child
// scope is merged into that child ("rnn" holding only "rnn/multi_rnn_cell" becomes one scope
// labelled "rnn/multi_rnn_cell"). Counts and compute are summed over every op beneath.
class ScopeTree {
public:
    struct Scope {
        std::string path;  // the op-name prefix ("bert/encoder/layer_3"); empty for the root
        std::string label; // the part below the parent scope ("layer_3", "rnn/multi_rnn_cell")
        int parent = -1;
        int depth = 0;             // the root is 0
        std::vector<int> children; // child scopes, in topological order of their first op
        std::vector<OpId> ops;     // the ops directly in this scope, in topological order
        int begin = 0;             // every op beneath is opsBelow(): order()[begin, end)
        int end = 0;
        std::array<double, kDeviceKindCount> timeUs{}; // summed op times, by device kind
        // Boxes the scope shows when open (its children closed): one per op and child scope,
        // but a series (kSeriesMin or more of them named alike but for numbers) counts once.
        int boxes = 0;
        bool inSeries = false; // one of a series of its parent's
    };

    // Alike ops and child scopes of one scope (t0 … t199) from this many on are one series.
    static constexpr int kSeriesMin = 32;

    static ScopeTree build(const Graph& graph);
    // As build, with `names[op]` in place of each op's name (all of them, or none: empty).
    static ScopeTree build(const Graph& graph, std::vector<std::string> names);
    // For graphs whose names carry no scopes: the layers LayerGroups finds in the graph's
    // structure as scopes ("layer 1" … "layer 12", "layer 3 grad", "before layer 1", "after
    // layer 12"), each op in its layer under its whole name ('/' shown as U+2215); ops in no
    // group keep their names. nullopt when no layers are found.
    static std::optional<ScopeTree> buildByLayers(const Graph& graph);

    static constexpr int kRoot = 0;
    int scopeCount() const { return static_cast<int>(scopes_.size()); }
    const Scope& scope(int s) const { return scopes_[static_cast<size_t>(s)]; }
    // The scope an op lives in directly.
    int scopeOf(OpId op) const { return scopeOfOp_[static_cast<size_t>(op)]; }
    // Every op beneath the scope (its own and its descendants'), each scope's ops contiguous.
    std::span<const OpId> opsBelow(int s) const;
    int opCount(int s) const { return scope(s).end - scope(s).begin; }
    // True when `s` is `ancestor` or lies beneath it.
    bool isWithin(int s, int ancestor) const;
    // The scope with this path, or -1.
    int find(const std::string& path) const;
    // The name the tree groups the op by: its own, or the one build() was given.
    std::string_view nameOf(const Graph& graph, OpId op) const;
    // The op's name below the scope it lives in ("MatMul"; the last component for an op
    // that is its scope's own name).
    std::string opLabel(const Graph& graph, OpId op) const;

    // Ops of the scope (and beneath) on each device: deviceCount entries, then one for ops
    // without a device (kNoDevice, or a placement too short or out of range).
    std::vector<int> deviceCounts(int s, const Placement& placement, int deviceCount) const;

    // Which scopes to open so that a view shows at most about `budget` boxes: the root,
    // then the largest scopes first, each together with the scopes whose paths differ from
    // its own only in numbers (layer_0 … layer_11 open together or not at all, and so do
    // their "attention" scopes), while the boxes
    // shown (collapsed scopes plus the ops of open ones) stay within the budget. Scopes of
    // fewer than kMinOpenOps ops stay closed (an op and its gradient read fine as one box),
    // and so do members of a series (the series is one box). Sorted ids.
    static constexpr int kMinOpenOps = 3;
    std::vector<int> openWithin(int budget) const;
    // A name with every run of digits replaced by '#' ("layer_12" -> "layer_#"): names that
    // differ only in numbers have the same pattern.
    static std::string numberPattern(std::string_view name);
    // The title of a series of names that share one numberPattern: digit runs equal in every
    // name are kept ("p2o" stays "p2o"), the first run that varies becomes its range
    // ("p2o.Conv.[0–61]"), later varying runs '*' ("cell_[0–3]/t*"). Empty for no names.
    static std::string seriesTitle(std::span<const std::string_view> names);

    // Boxes a view shows when `open` (sorted scope ids, the root included) are open.
    int visibleCount(const std::vector<int>& open) const;

private:
    std::vector<std::string> names_; // empty: the graph's names
    std::vector<Scope> scopes_;
    std::vector<int> scopeOfOp_;
    std::vector<OpId> order_; // ops grouped by scope, depth first
};

} // namespace post
