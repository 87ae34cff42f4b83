#pragma once

#include "core/cost/OpCost.h"
#include "core/cost/ShapedGraph.h"

#include <span>
#include <string_view>
#include <vector>

namespace post {

// Kernel fusion of element-wise and normalisation work (docs/cost-model.md, "Kernel
// fusion"). A fusion group is a set of fusible ops with one root: every activation that a
// non-root member writes is read only by ops of the group, so it stays in registers and is
// never written to memory. The group runs as one kernel: it reads each tensor entering the
// group once, writes the root's outputs once and pays one launch. Groups never cross a
// colocation group of the file or the CPU-only mark, and in the training step every member
// is colocated with its root (fused chains are colocation groups, as XLA clusters are), so
// no placement splits one and the costs do not depend on the placement. A graph that gives
// devices for its ops (a TensorFlow GraphDef with device fields) is not fused.

// Whether ops of this type may join a fusion group: element-wise arithmetic and
// activations, reductions, normalisations, softmax and the activation gradients (the cost
// model's Elementwise, Reduce and Norm families without the generators Range / Fill /
// ConstantOfShape, the in-place AssignAdd / AssignSub and the optimizer updates Apply*).
bool isFusibleOpType(std::string_view type);

struct FusionPlan {
    // Per op: the root of its fusion group; root[i] == i for a root and for an op fused
    // with nothing.
    std::vector<int> root;
    int groupCount = 0;   // groups of two or more ops
    int fusedOpCount = 0; // ops in such groups, roots included

    bool fused(int op) const { return root[static_cast<size_t>(op)] != op; } // a non-root member
};

// The fusion groups of a forward graph, greedily from its sinks: ops are visited in reverse
// `order` (a topological order of all ops) and a fusible op joins the group of its consumers
// when every consumer of each of its activation outputs is in that one group (whose root is
// fusible and shares the op's colocation group and CPU-only mark), it has at least one such
// consumer, and no op names it as a control input. No op is fused when some op of the graph
// has a given device (ShapedOp::device). Deterministic; O(ops + tensor uses). Indices
// outside the graph are ignored (buildTrainingGraph validates first).
FusionPlan planFusion(const ShapedGraph& graph, std::span<const int> order);

// Per-op costs with the plan applied, from `costs` (per op, unfused). A root of a group of
// two or more ops carries the whole group as one kernel: the FLOPs of all its members, every
// distinct tensor a member reads that is not written inside the group (activations of other
// ops, graph inputs, parameters, constants) read once, the root's outputs written once
// (known false when some member's cost was a fallback). The other members cost nothing:
// no FLOPs, no bytes, so no time and no launch (cost/Roofline.cpp). Ops fused with nothing
// keep their cost.
std::vector<OpCost> fusedCosts(const ShapedGraph& graph, const FusionPlan& plan, std::span<const OpCost> costs);

} // namespace post
