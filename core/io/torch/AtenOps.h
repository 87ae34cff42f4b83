#pragma once

#include "core/graph/Collective.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace post {

// How an aten operator of a PyTorch execution trace is costed: by the cost model's formula of
// `type` (an ONNX or TensorFlow op type, core/cost), fed with the operator's tensor arguments
// `inputs` and `outputs` (indices into its recorded arguments; empty `outputs` = all of its
// tensor outputs, or its first argument for an in-place operator that records none), and
// `factor` times that cost (a convolution's backward computes two convolutions' worth).
// docs/importers.md "PyTorch execution traces" lists the rules.
struct AtenCostRule {
    std::string_view type;
    std::vector<int> inputs;  // argument indices; empty = every tensor argument in order
    std::vector<int> outputs; // output indices, or argument indices when `outputsFromArgs`
    bool outputsFromArgs = false;
    double factor = 1.0;
    // Attributes read from list or int arguments: (attribute name, argument index).
    std::vector<std::pair<std::string_view, int>> attrs;
};

// python/post_torch/aten_of_onnx.json, compiled in and parsed once: ONNX op type -> the aten
// operators it is exported from, types in alphabetical order (the file's). The Kineto matcher
// (MeasuredCosts) and the execution-trace cost rules read this one table.
using AtenOfOnnxTable = std::map<std::string, std::set<std::string, std::less<>>, std::less<>>;
const AtenOfOnnxTable& atenOfOnnx();

// The rule for an aten operator ("aten::conv2d"): the project's own rules for operators whose
// arguments differ from the ONNX op's (matrix products, convolutions, pools, backward
// operators, copies, collectives), else the ONNX op that python/post_torch/aten_of_onnx.json
// exports it from; nullptr when neither knows it (the cost model's element-wise fallback).
const AtenCostRule* atenCostRule(std::string_view aten);

// Operators that only describe or allocate memory: views (view, t, transpose, as_strided,
// slice, expand, ...), allocations (empty, empty_like, ...), detach, resize_, result_type.
// They are folded away: a view's tensor shares its base's storage, so data flows through it.
bool isBookkeepingAten(std::string_view aten);

// Operators that return their input unchanged when no copy is needed (to, contiguous,
// reshape, flatten, type_as): folded unless a copy shows (a nested operator that computes, or
// an output whose storage is none of the inputs').
bool isMaybeAliasAten(std::string_view aten);

// c10d collectives (allreduce_, broadcast_, ...), NCCL calls and record_param_comms.
bool isCollectiveName(std::string_view name);

// The kind of a collective by its name (c10d::allreduce_, c10d::_allgather_base_,
// nccl:broadcast, ...); None for point-to-point calls (send, recv), record_param_comms and
// any other name.
CollectiveKind collectiveKindOfName(std::string_view name);

} // namespace post
