#pragma once
// An op for hand-built test graphs: type "Test", `gpuUs` on a GPU and `cpuFactor` times that
// on a CPU, the given output and parameter bytes, optionally in a colocation group.
// Header-only and without Qt, like SmallRandomGraphs.h.
#include "core/graph/Op.h"

#include <utility>

#include <string>

namespace post::testgraphs {

inline Op testOp(std::string name, double gpuUs, double outputBytes, double paramBytes = 0.0, double cpuFactor = 10.0,
                 std::string group = {})
{
    Op o;
    o.name = std::move(name);
    o.type = "Test";
    o.timeUs = {cpuFactor * gpuUs, gpuUs};
    o.outputBytes = outputBytes;
    o.paramBytes = paramBytes;
    o.colocate = std::move(group);
    return o;
}

} // namespace post::testgraphs
