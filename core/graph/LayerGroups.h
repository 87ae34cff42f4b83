#pragma once

#include "core/graph/Ids.h"

#include <string>
#include <vector>

namespace post {

class Graph;

// The layers of a graph found from its structure, for graphs whose op names carry no scopes
// (MSR's operator graphs name ops "MatMul12", "Add4"; their weights "bert.encoder.layer.3.…").
//
// A stack of repeated blocks (a transformer's encoder layers, an RNN's cells) runs, in
// topological order, the same kinds of op once per block. The forward ops that have a
// forward producer (the weights and inputs, ops without one, join their consumer's group)
// get a kind: the name with its numbers replaced by '#', the type, and the kinds of the
// weights they read ("MatMul#|forward|bert.encoder.layer.#.attention.self.key.weight").
// The number of layers L is the count shared by the most ops among kinds that occur more
// than once (at least kMinKinds kinds must share it). Each kind occurring exactly L times
// is a candidate anchor; a layer starts at each occurrence of the anchor for which the most
// candidates have their k-th occurrence in the k-th layer, the earliest of those. Forward
// ops before the first layer are "before", after the last one "after"; layers that hold
// less than half of the sequence are no stack (none are returned). A backward op
// (type "backward", "grad" in its name or type, an Apply* update) joins the group most of
// its forward producers are in (the later one among equals), else the group most of its
// backward producers are in.
struct LayerGroups {
    static constexpr int kMinKinds = 3;
    // Graphs with more forward ops than this are not searched (the anchor search is
    // quadratic in the candidates): their names have to do.
    static constexpr int kMaxOps = 200000;

    int layers = 0; // L; 0 when no repeated block is found
    // Per op: kBefore, 1..layers, kAfter, or kNone (no group: a weight shared by groups).
    std::vector<int> groupOf;
    std::vector<char> backward; // per op: counted as a backward op
    static constexpr int kNone = -1;
    static constexpr int kBefore = 0;
    int after() const { return layers + 1; }

    static LayerGroups find(const Graph& graph);

    // The op's group as a scope path: "layer 3", "layer 3 grad", "before layer 1",
    // "after layer 12 grad"; empty for kNone.
    std::string scopeOf(OpId op) const;
};

} // namespace post
