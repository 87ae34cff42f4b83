// The critical path of a simulated step (core/sim/CriticalPath): the chain of ops and
// transfers that made the step as long as it is. Moved here from the timeline's test when
// the walk left ui/timeline (issue 28 item 10).
#include "tests/support/TestOps.h"

#include "core/cluster/Cluster.h"
#include "core/graph/GraphBuilder.h"
#include "core/sim/CriticalPath.h"
#include "core/sim/Simulator.h"

#include <QtTest>

#include <cmath>

using namespace post;
using post::testgraphs::testOp;

namespace {

// A CPU and two GPUs (ids 0, 1, 2); GPU 1 is twice as fast (as the UI tests' cluster).
Cluster threeDevices()
{
    std::vector<Device> devices = {Device{"/device:CPU:0", DeviceKind::Cpu, 1.0},
                                   Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 12e9},
                                   Device{"/device:GPU:1", DeviceKind::Gpu, 2.0, 16e9}};
    return Cluster("test3", std::move(devices), Link{});
}

// input -> conv -> relu -> fc, conv -> fc (a skip edge).
Graph smallGraph()
{
    GraphBuilder b("small");
    b.addOp(testOp("input", 0, 1000));
    b.addOp(testOp("conv", 100, 4000, 800));
    b.addOp(testOp("relu", 10, 4000));
    b.addOp(testOp("fc", 40, 100, 20000));
    b.addEdge("input", "conv");
    b.addEdge("conv", "relu");
    b.addEdge("relu", "fc");
    b.addEdge("conv", "fc", 123);
    return std::move(b).build();
}

} // namespace

class TestCriticalPath : public QObject {
    Q_OBJECT

private slots:
    // A chain from time 0 to the end of the step: each op or transfer starts when the one
    // before it ends (an input arriving, or its device freed).
    void runsFromStartToEnd()
    {
        const Graph graph = smallGraph();
        const Cluster cluster = threeDevices();
        Simulator simulator(graph, cluster);
        const SimResult result = simulator.run({0, 1, 2, 1}, true); // input CPU, conv GPU:0, relu GPU:1, fc GPU:0
        const CriticalPath critical = criticalPath(graph, result);
        const Timeline& t = result.timeline;
        std::vector<const OpSpan*> span(4, nullptr);
        for (const OpSpan& s : t.ops)
            span[static_cast<size_t>(s.op)] = &s;
        const std::vector<OpId>& path = critical.ops;
        QVERIFY(!path.empty());
        QCOMPARE(span[static_cast<size_t>(path.front())]->startUs, 0.0);
        QCOMPARE(span[static_cast<size_t>(path.back())]->endUs, result.stepTimeUs);
        // Here every op waits for the one before: input -> conv -> relu (GPU:1) -> fc (GPU:0),
        // with the two transfers between the GPUs on it too.
        QCOMPARE(path, (std::vector<OpId>{0, 1, 2, 3}));
        QCOMPARE(critical.transfers.size(), size_t(3)); // CPU -> GPU:0, GPU:0 -> GPU:1, GPU:1 -> GPU:0
        size_t transfer = 0;
        for (size_t i = 1; i < path.size(); ++i) {
            const OpSpan& before = *span[static_cast<size_t>(path[i - 1])];
            const OpSpan& now = *span[static_cast<size_t>(path[i])];
            double ready = before.endUs;
            if (before.device != now.device) {
                const TransferSpan& x = t.transfers[static_cast<size_t>(critical.transfers[transfer++])];
                QCOMPARE(x.producer, before.op);
                QCOMPARE(x.to, now.device);
                QVERIFY(x.startUs >= before.endUs);
                ready = x.endUs;
            }
            QVERIFY2(std::abs(ready - now.startUs) < 1e-9, qPrintable(QStringLiteral("op %1").arg(now.op)));
        }
        QCOMPARE(critical.opOnPath.size(), size_t(4));
        QVERIFY(critical.opOnPath[2] && critical.transferOnPath[static_cast<size_t>(critical.transfers[1])]);
    }

    // One device: the device's order is the chain (each op waits for the one before it).
    // The input takes no time, so conv starts at 0 and the path starts there.
    void oneDeviceFollowsTheDevice()
    {
        const Graph graph = smallGraph();
        const Cluster cluster = threeDevices();
        Simulator simulator(graph, cluster);
        const SimResult result = simulator.run({1, 1, 1, 1}, true);
        const CriticalPath critical = criticalPath(graph, result);
        QCOMPARE(critical.ops, (std::vector<OpId>{1, 2, 3}));
        QCOMPARE(critical.opOnPath, (std::vector<bool>{false, true, true, true}));
        QVERIFY(critical.transfers.empty());
    }

    // No timeline recorded: no path, and no flags set.
    void withoutATimelineIsEmpty()
    {
        const Graph graph = smallGraph();
        const Cluster cluster = threeDevices();
        Simulator simulator(graph, cluster);
        const SimResult result = simulator.run({1, 1, 1, 1}, false);
        const CriticalPath critical = criticalPath(graph, result);
        QVERIFY(critical.ops.empty());
        QCOMPARE(critical.opOnPath, std::vector<bool>(4, false));
    }
};

QTEST_APPLESS_MAIN(TestCriticalPath)
#include "test_critical_path.moc"
