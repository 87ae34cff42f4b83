#include "core/cost/OpForOpGraph.h"

#include "core/cost/OpView.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/util/InputError.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace post {
namespace {

// The forward op a gradient op mirrors, with the tensors it would have had, so the cost
// model's formula for the forward op applies (each backward convolution costs about one
// forward convolution).
OpCost gradientAwareCost(const ShapedGraph& g, const ShapedOp& op)
{
    const auto mirror = [&](const char* type, std::vector<int> inputs, std::vector<int> outputs) {
        ShapedOp forward = op;
        forward.type = type;
        forward.inputs = std::move(inputs);
        forward.outputs = std::move(outputs);
        return estimateOpCost(g, forward);
    };
    const auto& in = op.inputs;
    const auto& out = op.outputs;
    if (!out.empty()) {
        // Conv2DBackpropInput(input_sizes, filter, out_backprop) -> input gradient.
        if ((op.type == "Conv2DBackpropInput" || op.type == "DepthwiseConv2dNativeBackpropInput") && in.size() >= 3)
            return mirror(op.type.starts_with("Conv") ? "Conv2D" : "DepthwiseConv2dNative", {out[0], in[1]}, {in[2]});
        // Conv2DBackpropFilter(input, filter_sizes, out_backprop) -> filter gradient.
        if ((op.type == "Conv2DBackpropFilter" || op.type == "DepthwiseConv2dNativeBackpropFilter") && in.size() >= 3)
            return mirror(op.type.starts_with("Conv") ? "Conv2D" : "DepthwiseConv2dNative", {in[0], out[0]}, {in[2]});
        // MaxPoolGrad(orig_input, orig_output, grad); AvgPoolGrad(orig_input_shape, grad).
        if (op.type == "MaxPoolGrad" && in.size() >= 3)
            return mirror("MaxPool", {in[0]}, {in[1]});
        if (op.type == "AvgPoolGrad" && in.size() >= 2)
            return mirror("AvgPool", {out[0]}, {in[1]});
    }
    return estimateOpCost(g, op);
}

} // namespace

Graph buildOpForOpGraph(const ShapedGraph& graph, const CostModelOptions& options, CostReport* report)
{
    std::vector<int> producer(graph.tensors.size(), -1);
    for (std::size_t i = 0; i < graph.ops.size(); ++i)
        for (int t : graph.ops[i].outputs) {
            if (t < 0 || static_cast<std::size_t>(t) >= graph.tensors.size())
                throw InputError(graph.source, graph.ops[i].location,
                                 "op '" + graph.ops[i].name + "' writes an unknown tensor");
            producer[static_cast<std::size_t>(t)] = static_cast<int>(i);
        }
    std::vector<char> paramCounted(graph.tensors.size(), 0);
    std::map<std::string, int> unknown;
    CostReport local;
    // A variable's bytes belong to the op colocated with it (TensorFlow keeps an Apply*
    // update with its variable, `_class: "loc:@w"`), else to its first reader.
    std::vector<double> colocatedParamBytes(graph.ops.size(), 0.0);
    for (std::size_t i = 0; i < graph.ops.size(); ++i)
        for (int t : graph.ops[i].inputs)
            if (t >= 0 && static_cast<std::size_t>(t) < graph.tensors.size() && !graph.ops[i].colocate.empty()) {
                const ShapedTensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
                if (tensor.isParameter && tensor.name == graph.ops[i].colocate
                    && !paramCounted[static_cast<std::size_t>(t)]) {
                    paramCounted[static_cast<std::size_t>(t)] = 1;
                    colocatedParamBytes[i] += OpView::bytes(&tensor);
                }
            }
    GraphBuilder builder(graph.name);
    try {
        for (std::size_t index = 0; index < graph.ops.size(); ++index) {
            const ShapedOp& s = graph.ops[index];
            Op op;
            op.name = s.name;
            op.type = s.type;
            op.colocate = s.colocate;
            op.cpuOnly = s.cpuOnly;
            op.paramBytes = colocatedParamBytes[index];
            op.body = s.bodySummary;
            OpCost cost = gradientAwareCost(graph, s);
            cost.streaming = isStreamingOpType(s.type); // as opTimeUs sees the op
            if (!cost.known)
                ++unknown[s.type];
            local.totalForwardFlops += cost.flops;
            for (int k = 0; k < kDeviceKindCount; ++k)
                op.timeUs[static_cast<std::size_t>(k)] = rooflineTimeUs(cost,
                                                                        options.reference[static_cast<std::size_t>(k)]);
            op.flops = cost.flops;
            op.memoryBytes = cost.bytesRead + cost.bytesWritten;
            op.winogradFlops = cost.winogradFlops;
            op.winogradGemmBytes = cost.winogradGemmBytes;
            op.winogradTransformBytes = cost.winogradTransformBytes;
            for (int t : s.outputs)
                op.outputBytes += OpView::bytes(&graph.tensors[static_cast<std::size_t>(t)]);
            for (int t : s.inputs) {
                if (t == -1)
                    continue; // an absent optional input
                if (t < 0 || static_cast<std::size_t>(t) >= graph.tensors.size())
                    throw InputError(graph.source, s.location, "op '" + s.name + "' reads an unknown tensor");
                const ShapedTensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
                if (tensor.isParameter && !paramCounted[static_cast<std::size_t>(t)]) {
                    paramCounted[static_cast<std::size_t>(t)] = 1;
                    op.paramBytes += OpView::bytes(&tensor);
                }
            }
            local.parameterBytes += op.paramBytes;
            builder.addOp(std::move(op));
        }
        for (std::size_t i = 0; i < graph.ops.size(); ++i) {
            const ShapedOp& s = graph.ops[i];
            // One edge per producer, carrying every tensor read from it.
            std::map<int, double> bytesFrom;
            for (int t : s.inputs) {
                if (t == -1)
                    continue;
                const ShapedTensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
                const int p = producer[static_cast<std::size_t>(t)];
                if (p >= 0 && !tensor.isParameter) // a constant is a dependency, free to send
                    bytesFrom[p] += tensor.isConstant ? 0.0 : OpView::bytes(&tensor);
            }
            for (int c : s.controlInputs)
                bytesFrom.try_emplace(c, 0.0);
            for (const auto& [p, bytes] : bytesFrom)
                builder.addEdge(static_cast<OpId>(p), static_cast<OpId>(i), bytes);
        }
        local.opCount = builder.opCount();
        local.forwardOpCount = builder.opCount();
        // Unknown sizes left on the step's tensors make every cost that reads them a guess:
        // the commands that time a step refuse them, like a forward graph's (CliSupport).
        // Sizes an input pipeline makes at run time (a decoded JPEG's height and width, before
        // a resize fixes them) are no dimension anyone can give: tensors of CPU-only ops
        // (decoding, queues) and of ops reading only such tensors are not listed.
        local.unresolved = graph.unresolved;
        std::vector<char> pipeline(graph.tensors.size(), 0);
        for (const ShapedOp& s : graph.ops) {
            bool fed = false, onlyPipeline = true;
            for (int t : s.inputs) {
                if (t < 0)
                    continue;
                const ShapedTensor& in = graph.tensors[static_cast<std::size_t>(t)];
                if (in.isParameter || in.isConstant)
                    continue;
                fed = true;
                onlyPipeline = onlyPipeline && pipeline[static_cast<std::size_t>(t)];
            }
            const bool fromPipeline = s.cpuOnly || (fed && onlyPipeline);
            for (int t : s.outputs) {
                const ShapedTensor& tensor = graph.tensors[static_cast<std::size_t>(t)];
                const bool open = std::any_of(tensor.shape.begin(), tensor.shape.end(),
                                              [](std::int64_t d) { return d < 0; });
                if (fromPipeline && open)
                    pipeline[static_cast<std::size_t>(t)] = 1;
                else if (open)
                    local.unshapedTensors.push_back(tensor.name);
            }
        }
        for (const auto& [type, count] : unknown)
            local.unknownTypes.emplace_back(type, count);
        Graph result = std::move(builder).build();
        if (report)
            *report = std::move(local);
        return result;
    } catch (const GraphError& e) {
        throw InputError(graph.source, {}, e.what());
    }
}

} // namespace post
