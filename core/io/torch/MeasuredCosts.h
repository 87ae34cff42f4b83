#pragma once

#include "core/graph/Graph.h"

#include <string>
#include <vector>

namespace post {

// What --costs did to a graph: how many forward ops got a measured time, and which did not.
struct MeasuredCostsReport {
    std::string source;
    int forwardOps = 0;                 // ops that are not "X/grad" (nor optimizer ops)
    int matched = 0;                    // forward ops with a measured time
    std::vector<std::string> unmatched; // forward ops without one, in graph order
};

// Replaces estimated CPU times by measured ones (docs/pytorch.md "Measured costs"). `path` is
//  - a post-costs/1 file (python/post_torch's profile=True output): op name -> forward µs;
//  - or a Chrome trace of torch.profiler (export_chrome_trace): its top-level CPU operators,
//    in time order, are matched with the graph's forward ops in graph order by op kind (the
//    table python/post_torch/aten_of_onnx.json, compiled in); an operator of no listed kind
//    adds its time to the op matched last.
// A matched op's CPU time becomes the measured one and is marked measured (the simulator then
// uses it on every CPU rather than the roofline); its backward op "X/grad" keeps its estimated
// backward/forward ratio: grad time = measured forward x (estimated grad / estimated forward).
// Throws InputError naming the file and field.
Graph applyMeasuredCosts(const Graph& graph, const std::string& path, MeasuredCostsReport* report = nullptr);

} // namespace post
