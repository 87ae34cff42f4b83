#pragma once

#include "core/graph/GraphBuilder.h"
#include "ui/document/GraphDocument.h"

#include <QString>

#include <string>

// Small documents built in code for the UI tests.
namespace uitest {

inline post::Op op(std::string name, std::string type, double gpuUs, double outBytes, double paramBytes,
                   std::string group = {})
{
    post::Op o;
    o.name = std::move(name);
    o.type = std::move(type);
    o.timeUs = {gpuUs * 10, gpuUs};
    o.outputBytes = outBytes;
    o.paramBytes = paramBytes;
    o.colocate = std::move(group);
    return o;
}

// A cluster with a CPU and two GPUs (ids 0, 1, 2); GPU 1 is twice as fast.
inline std::shared_ptr<const post::Cluster> cluster()
{
    using namespace post;
    std::vector<Device> devices = {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0},
                                   Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 12e9},
                                   Device{"/device:GPU:1", DeviceKind::Gpu, 2.0, 16e9}};
    return std::make_shared<const Cluster>("test3", std::move(devices), Link{});
}

// input -> conv -> relu -> fc, conv -> fc (a skip edge); 4 ops, 4 edges.
inline post::DocumentPtr smallDocument(post::Placement placement = {})
{
    using namespace post;
    GraphBuilder b("small");
    b.addOp(op("input", "Input", 0, 1000, 0));
    b.addOp(op("conv", "Conv2d", 100, 4000, 800));
    b.addOp(op("relu", "ReLU", 10, 4000, 0));
    b.addOp(op("fc", "Linear", 40, 100, 20000));
    b.addEdge("input", "conv");
    b.addEdge("conv", "relu");
    b.addEdge("relu", "fc");
    b.addEdge("conv", "fc", 123);
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("small");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = cluster();
    doc->placement = std::move(placement);
    return doc;
}

// A chain of `n` ops named op0..op(n-1), alternating types A and B.
inline post::DocumentPtr chainDocument(int n)
{
    using namespace post;
    GraphBuilder b("chain");
    for (int i = 0; i < n; ++i) {
        b.addOp(op(std::string("op").append(std::to_string(i)), i % 2 ? "B" : "A", 1 + i, 10, 0));
        if (i > 0)
            b.addEdge(i - 1, i, 10);
    }
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("chain");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = cluster();
    return doc;
}

} // namespace uitest
