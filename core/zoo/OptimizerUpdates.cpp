#include "core/zoo/OptimizerUpdates.h"

#include "core/graph/GraphBuilder.h"

#include <vector>

namespace post {

Graph withAdamUpdates(const Graph& training, const CostModelOptions& options)
{
    constexpr double kBytesPerElement = 4.0; // fp32 parameters
    constexpr double kFlopsPerElement = 12.0;
    GraphBuilder builder(training.name());
    builder.reserve(static_cast<size_t>(training.opCount()) * 3 / 2, static_cast<size_t>(training.edgeCount()) * 5 / 4);
    for (const Op& op : training.ops())
        builder.addOp(op);
    for (const Edge& e : training.edges())
        builder.addEdge(e.from, e.to, e.bytes);
    for (const Op& op : training.ops()) {
        if (op.paramBytes <= 0.0)
            continue;
        const std::optional<OpId> grad = training.find(op.name + "/grad");
        if (!grad)
            continue; // not a forward op of a training graph
        const double elements = op.paramBytes / kBytesPerElement;
        OpCost cost;
        cost.flops = kFlopsPerElement * elements;
        cost.bytesRead = 4.0 * op.paramBytes;    // parameter, gradient, two moments
        cost.bytesWritten = 3.0 * op.paramBytes; // parameter, two moments
        Op update;
        update.name = op.name + "/ApplyAdam";
        update.type = "ApplyAdam";
        for (int k = 0; k < kDeviceKindCount; ++k)
            update.timeUs[static_cast<size_t>(k)] = rooflineTimeUs(cost, options.reference[static_cast<size_t>(k)]);
        update.flops = cost.flops;
        update.memoryBytes = cost.bytesRead + cost.bytesWritten;
        update.colocate = op.colocate.empty() ? op.name : op.colocate;
        const OpId id = builder.addOp(std::move(update));
        builder.addEdge(*grad, id, op.paramBytes);
    }
    return std::move(builder).build();
}

} // namespace post
