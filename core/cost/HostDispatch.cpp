#include "core/cost/HostDispatch.h"

#include "core/graph/Graph.h"
#include "core/util/TextNumber.h"

#include <algorithm>
#include <cstdio>

namespace post {

namespace {

std::string ms(double us)
{
    char text[32];
    if (us < 1000.0)
        std::snprintf(text, sizeof text, "%.1f us", us);
    else
        std::snprintf(text, sizeof text, "%.1f ms", us / 1000.0);
    return text;
}

} // namespace

int dispatchedOps(const Graph& graph)
{
    int ops = 0;
    for (const Op& op : graph.ops()) {
        const bool timed = std::any_of(op.timeUs.begin(), op.timeUs.end(), [](double us) { return us > 0.0; });
        if (timed || op.flops > 0.0 || op.memoryBytes > 0.0 || op.isCollective())
            ++ops;
    }
    return ops;
}

double eagerDispatchUs(const Graph& graph) { return dispatchedOps(graph) * kEagerDispatchUsPerOp; }

std::string hostBoundNote(const Graph& graph, double stepUs)
{
    const int ops = dispatchedOps(graph);
    const double hostUs = ops * kEagerDispatchUsPerOp;
    if (!(hostUs > stepUs))
        return {};
    return "eager PyTorch issues this step's " + withThousands(ops) + " ops from one host thread: about " + ms(hostUs)
        + " at " + std::to_string(static_cast<int>(kEagerDispatchUsPerOp))
        + " us an op (measured with PyTorch 2.11 on an H200's host), longer than the simulated " + ms(stepUs)
        + ", which times the devices' work only; the step is likely bound by the host, about " + ms(hostUs)
        + " or more (docs/cost-model.md, \"Host dispatch\")";
}

} // namespace post
