#include "core/cost/HostDispatch.h"

#include "core/cluster/Cluster.h"
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

double dispatchUsPerOp(const Cluster* cluster)
{
    if (cluster != nullptr)
        if (const auto us = cluster->hostDispatchUsPerOp())
            return *us;
    return kEagerDispatchUsPerOp;
}

std::string dispatchRateSource(const Cluster* cluster)
{
    if (cluster != nullptr && cluster->hostDispatchUsPerOp())
        return "this cluster's host_dispatch_us_per_op";
    return "measured with PyTorch 2.11 on an H200's host; a cluster file's host_dispatch_us_per_op gives yours";
}

double eagerDispatchUs(const Graph& graph, const Cluster* cluster)
{
    return dispatchedOps(graph) * dispatchUsPerOp(cluster);
}

std::string hostBoundNote(const Graph& graph, const Cluster& cluster, double stepUs)
{
    const int ops = dispatchedOps(graph);
    const double hostUs = ops * dispatchUsPerOp(&cluster);
    if (!(hostUs > stepUs))
        return {};
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", dispatchUsPerOp(&cluster));
    return "eager PyTorch issues this step's " + withThousands(ops) + " ops from one host thread: about " + ms(hostUs)
        + " at " + rate + " us an op (" + dispatchRateSource(&cluster) + "), longer than the simulated " + ms(stepUs)
        + ", which times the devices' work only; the step is likely bound by the host, about " + ms(hostUs)
        + " or more (docs/cost-model.md, \"Host dispatch\")";
}

} // namespace post
