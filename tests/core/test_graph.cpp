#include "core/cluster/Cluster.h"
#include "core/graph/CriticalPath.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/GraphError.h"
#include "core/graph/Placement.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace post;

class TestGraph : public QObject {
    Q_OBJECT

private:
    static Op op(const char* name, double gpuUs = 1.0, const char* group = "")
    {
        Op o;
        o.name = name;
        o.type = "Test";
        o.timeUs = {gpuUs * 10, gpuUs};
        o.outputBytes = 100;
        o.colocate = group;
        return o;
    }

private slots:
    void adjacencyAndTopologicalOrder()
    {
        GraphBuilder b("diamond");
        b.addOp(op("d"));
        b.addOp(op("a"));
        b.addOp(op("b"));
        b.addOp(op("c"));
        b.addEdge("a", "b");
        b.addEdge("a", "c", 7);
        b.addEdge("b", "d");
        b.addEdge("c", "d");
        Graph g = std::move(b).build();
        QCOMPARE(g.opCount(), 4);
        QCOMPARE(g.edgeCount(), 4);
        QCOMPARE(g.outEdges(*g.find("a")).size(), size_t(2));
        QCOMPARE(g.inEdges(*g.find("d")).size(), size_t(2));
        QCOMPARE(g.edge(0).bytes, 100.0); // defaults to the producer's output bytes
        QCOMPARE(g.edge(1).bytes, 7.0);
        std::vector<std::string> order;
        for (OpId id : g.topologicalOrder())
            order.push_back(g.op(id).name);
        QCOMPARE(order, (std::vector<std::string>{"a", "b", "c", "d"}));
    }

    void cycleNamesItsOps()
    {
        GraphBuilder b("loop");
        b.addOp(op("x"));
        b.addOp(op("p"));
        b.addOp(op("q"));
        b.addOp(op("r"));
        b.addEdge("x", "p");
        b.addEdge("p", "q");
        b.addEdge("q", "r");
        b.addEdge("r", "p");
        try {
            (void)std::move(b).build();
            QFAIL("a cycle must be rejected");
        } catch (const GraphError& e) {
            const QString text = e.what();
            QVERIFY2(text.contains("cycle"), qPrintable(text));
            QVERIFY2(text.contains("'p'") && text.contains("'q'") && text.contains("'r'"), qPrintable(text));
            QVERIFY2(!text.contains("'x'"), qPrintable(text));
        }
    }

    void badOpsAreRejected()
    {
        GraphBuilder b;
        b.addOp(op("a"));
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addOp(op("a")));
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addOp(op("neg", -1.0)));
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addOp(op("nan", std::nan(""))));
        Op negativeResident = op("negativeResident");
        negativeResident.residentBytes = -1.0;
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addOp(negativeResident));
        Op infiniteResident = op("infiniteResident");
        infiniteResident.residentBytes = std::numeric_limits<double>::infinity();
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addOp(infiniteResident));
        Op resident = op("resident");
        resident.residentBytes = 5.0;
        b.addOp(resident);
        QCOMPARE(std::move(b).build().totalResidentBytes(), 5.0);
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addEdge("a", "missing"));
        QVERIFY_THROWS_EXCEPTION(GraphError, b.addEdge("a", "a"));
    }

    void criticalPathFollowsTheLongestBranch()
    {
        // s(1) -> {fast(2), slow(10)} -> t(3): longest is s, slow, t = 14.
        GraphBuilder b;
        b.addOp(op("s"));
        b.addOp(op("fast"));
        b.addOp(op("slow"));
        b.addOp(op("t"));
        b.addEdge("s", "fast");
        b.addEdge("s", "slow");
        b.addEdge("fast", "t");
        b.addEdge("slow", "t");
        Graph g = std::move(b).build();
        const std::vector<double> times{1, 2, 10, 3};
        const CriticalPath path = criticalPath(g, times);
        QCOMPARE(path.lengthUs, 14.0);
        QCOMPARE(path.ops, (std::vector<OpId>{0, 2, 3}));
    }

    void colocationSplitIsReported()
    {
        GraphBuilder b;
        b.addOp(op("a", 1, "g"));
        b.addOp(op("b", 1, "g"));
        b.addOp(op("c"));
        b.addEdge("a", "b");
        Graph g = std::move(b).build();
        QCOMPARE(g.colocationGroupCount(), 1);
        Cluster c("two", {Device{"/device:GPU:0"}, Device{"/device:GPU:1"}}, Link{});
        QVERIFY(!placementProblem(g, c, {0, 0, 1}));
        auto problem = placementProblem(g, c, {0, 1, 1});
        QVERIFY(problem);
        QVERIFY2(QString::fromStdString(*problem).contains("'g'"), problem->c_str());
        QVERIFY(placementProblem(g, c, {0, 0}));
        QVERIFY(placementProblem(g, c, {0, 0, 5}));
    }

    // A cpuOnly op pins its whole colocation group to a CPU; applyCpuPinning moves the
    // group there together and placementProblem refuses any of them elsewhere.
    void cpuPinningSpreadsOverColocationGroups()
    {
        GraphBuilder b;
        Op decode = op("decode", 1, "input");
        decode.cpuOnly = true;
        b.addOp(std::move(decode));
        b.addOp(op("decode/grad", 1, "input"));
        b.addOp(op("conv"));
        Op summary = op("summary");
        summary.cpuOnly = true;
        b.addOp(std::move(summary));
        b.addEdge("decode", "conv");
        b.addEdge("conv", "decode/grad");
        b.addEdge("conv", "summary");
        const Graph g = std::move(b).build();
        QCOMPARE(g.cpuPinnedOps().size(), std::size_t(3));
        QVERIFY(g.isCpuPinned(*g.find("decode/grad")));
        QVERIFY(!g.isCpuPinned(*g.find("conv")));

        Device cpu0{"/device:CPU:0", DeviceKind::Cpu, 0.5};
        Device cpu1{"/device:CPU:1", DeviceKind::Cpu, 1.0};
        const Cluster c("mixed", {Device{"/device:GPU:0"}, cpu0, cpu1}, Link{});
        QCOMPARE(cpuPinDevice(c), DeviceId(2)); // the fastest CPU
        Placement p{0, 0, 0, 1};
        const auto problem = placementProblem(g, c, p);
        QVERIFY(problem);
        QVERIFY2(problem->find("'decode'") != std::string::npos && problem->find("/device:GPU:0") != std::string::npos,
                 problem->c_str());
        QCOMPARE(applyCpuPinning(g, c, p), 2); // summary already is on a CPU
        QCOMPARE(p, (Placement{2, 2, 0, 1}));
        QVERIFY(!placementProblem(g, c, p));
        // A group already on a CPU stays on that one, whole.
        Placement q{1, 0, 0, 0};
        QCOMPARE(applyCpuPinning(g, c, q), 2);
        QCOMPARE(q, (Placement{1, 1, 0, 2}));
        // Without a CPU nothing can be pinned: the constraint does not apply.
        const Cluster gpus("gpus", {Device{"/device:GPU:0"}, Device{"/device:GPU:1"}}, Link{});
        Placement r{1, 1, 0, 0};
        QCOMPARE(applyCpuPinning(g, gpus, r), 0);
        QVERIFY(!placementProblem(g, gpus, r));
    }
};

QTEST_APPLESS_MAIN(TestGraph)
#include "test_graph.moc"
