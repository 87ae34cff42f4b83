// The mapping rules of docs/importers.md on tiny inputs whose results are worked out by hand.
#include "core/io/GraphFile.h"
#include "core/io/msr/MsrReader.h"
#include "core/util/InputError.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <thread>

using namespace post;

namespace {

std::vector<std::string> opNames(const Graph& g)
{
    std::vector<std::string> names;
    for (const Op& op : g.ops())
        names.push_back(op.name);
    return names;
}

std::vector<std::string> edgeList(const Graph& g)
{
    std::vector<std::string> edges;
    for (const Edge& e : g.edges())
        edges.push_back(g.op(e.from).name + ">" + g.op(e.to).name + ":" + std::to_string(static_cast<long long>(e.bytes)));
    return edges;
}

const Op& opNamed(const Graph& g, const char* name)
{
    const auto id = g.find(name);
    if (!id)
        qFatal("no op %s", name);
    return g.op(*id);
}

// Input -> Linear -> LSTM, plus Input -> LSTM; one edge listed twice; a stage_id field.
const char* kTinyProfile =
    "node3 -- LSTM(2, 2) -- forward_compute_time=3.0, backward_compute_time=4.0, activation_size=[1.0; 2.0; 3.0], "
    "parameter_size=10.0 -- stage_id=1\n"
    "node1 -- Input0 -- forward_compute_time=5.0, backward_compute_time=0.0, activation_size=8.0, parameter_size=0.0\n"
    "node2 -- Linear(2, 2) -- forward_compute_time=1.0, backward_compute_time=2.0, activation_size=4.0, "
    "parameter_size=24.0\n"
    "\tnode1 -- node2\n"
    "\tnode2 -- node3\n"
    "\tnode1 -- node3\n"
    "\tnode2 -- node3\n";

} // namespace

class TestImportersMapping : public QObject {
    Q_OBJECT

private slots:
    void pipeDreamTrainingStep()
    {
        const Graph g = parseGraph(kTinyProfile, "models/tiny/graph.txt");
        QCOMPARE(g.name(), std::string("tiny"));
        // Forward ops in dependency order, then backward ops in reverse; no gradient for the input.
        QCOMPARE(opNames(g), (std::vector<std::string>{"node1", "node2", "node3", "node3/grad", "node2/grad"}));
        QCOMPARE(edgeList(g),
                 (std::vector<std::string>{"node1>node2:8", "node1>node3:8", "node2>node3:4", // activations
                                           "node3>node3/grad:0", "node3/grad>node2/grad:4", // saved activations, gradient
                                           "node2>node2/grad:0"}));
        const Op& input = opNamed(g, "node1");
        QCOMPARE(input.type, std::string("Input"));
        QCOMPARE(input.time(DeviceKind::Gpu), 0.0);
        QCOMPARE(input.colocate, std::string());
        const Op& linear = opNamed(g, "node2");
        QCOMPARE(linear.type, std::string("Linear"));
        QCOMPARE(linear.time(DeviceKind::Gpu), 1000.0);
        QCOMPARE(linear.time(DeviceKind::Cpu), 10000.0);
        QCOMPARE(linear.outputBytes, 4.0);
        QCOMPARE(linear.paramBytes, 24.0);
        const Op& lstm = opNamed(g, "node3");
        QCOMPARE(lstm.outputBytes, 6.0); // [1; 2; 3] summed
        const Op& lstmGrad = opNamed(g, "node3/grad");
        QCOMPARE(lstmGrad.type, std::string("LSTMBackward"));
        QCOMPARE(lstmGrad.time(DeviceKind::Gpu), 4000.0);
        QCOMPARE(lstmGrad.time(DeviceKind::Cpu), 40000.0);
        QCOMPARE(lstmGrad.outputBytes, 4.0); // gradient w.r.t. node2's output only
        QCOMPARE(lstmGrad.paramBytes, 0.0);
        QCOMPARE(lstmGrad.colocate, std::string("node3"));
        QCOMPARE(opNamed(g, "node2/grad").outputBytes, 0.0); // its only input is the data
        QCOMPARE(g.colocationGroupCount(), 2);
        QCOMPARE(g.colocationGroup(*g.find("node2")), g.colocationGroup(*g.find("node2/grad")));
    }

    void pipeDreamToleratesCrlfAndSeparatorsInDescriptions()
    {
        QString crlf = QString::fromUtf8(kTinyProfile);
        crlf.replace("\n", "\r\n");
        const Graph a = parseGraph(crlf.toStdString(), "x.txt", GraphFormat::PipeDream);
        const Graph b = parseGraph(kTinyProfile, "x.txt", GraphFormat::PipeDream);
        QCOMPARE(edgeList(a), edgeList(b));
        const Graph odd = parseGraph("n1 -- Block -- inner(1) -- forward_compute_time=1, backward_compute_time=1, "
                                     "activation_size=1, parameter_size=1\n",
                                     "x.txt", GraphFormat::PipeDream);
        QCOMPARE(odd.op(0).type, std::string("Block -- inner"));
    }

    void dotAttributes()
    {
        const char* dot = R"(digraph net {
            a [time_us_gpu=10, time_us_cpu=70, output_bytes=100, param_bytes=5, type=MatMul, colocate=g1]
            b [time_us=40]
            c [time_us_gpu=3, colocate=g1]
            d [time_us=40, time_us_cpu=50]
            e
            a -> b; a -> c [bytes=7]; b -> d; c -> e
        })";
        const Graph g = parseGraph(dot, "n.dot");
        QCOMPARE(g.name(), std::string("net"));
        QCOMPARE(opNames(g), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
        const Op& a = opNamed(g, "a");
        QCOMPARE(a.time(DeviceKind::Gpu), 10.0);
        QCOMPARE(a.time(DeviceKind::Cpu), 70.0);
        QCOMPARE(a.outputBytes, 100.0);
        QCOMPARE(a.paramBytes, 5.0);
        QCOMPARE(a.type, std::string("MatMul"));
        QCOMPARE(opNamed(g, "b").time(DeviceKind::Cpu), 40.0); // time_us is the CPU time
        QCOMPARE(opNamed(g, "b").time(DeviceKind::Gpu), 4.0);  // ... and GPU = CPU / slowdown
        QCOMPARE(opNamed(g, "c").time(DeviceKind::Cpu), 30.0); // CPU = GPU x slowdown
        QCOMPARE(opNamed(g, "d").time(DeviceKind::Cpu), 50.0); // time_us_cpu wins over time_us
        QCOMPARE(opNamed(g, "e").time(DeviceKind::Gpu), 0.0);
        QCOMPARE(g.colocationGroupCount(), 1);
        QCOMPARE(g.colocationGroup(*g.find("c")), g.colocationGroup(*g.find("a")));
        // No bytes attribute: the producer's output_bytes.
        QCOMPARE(edgeList(g), (std::vector<std::string>{"a>b:100", "a>c:7", "b>d:0", "c>e:0"}));

        ImportOptions slow;
        slow.cpuSlowdown = 4.0;
        const Graph h = parseGraph(dot, "n.dot", GraphFormat::Dot, slow);
        QCOMPARE(opNamed(h, "b").time(DeviceKind::Gpu), 10.0);
        QCOMPARE(opNamed(h, "c").time(DeviceKind::Cpu), 12.0);
    }

    void dotPipeDreamLabelWithEscapedNewline()
    {
        const char* dot = R"(digraph {
            n1 [label="Input\n[forward_compute_time=9.0,backward_compute_time=0.0,activation_size=8.0,parameter_size=0.0]"]
            n2 [label="Conv2d(1, 1)\n[forward_compute_time=1.5,backward_compute_time=2.5,activation_size=[2.0; 2.0],parameter_size=4.0]"]
            n1 -> n2
        })";
        const Graph g = parseGraph(dot, "models/conv/graph.dot");
        QCOMPARE(g.name(), std::string("conv"));
        QCOMPARE(opNames(g), (std::vector<std::string>{"n1", "n2", "n2/grad"}));
        QCOMPARE(opNamed(g, "n2").type, std::string("Conv2d"));
        QCOMPARE(opNamed(g, "n2").outputBytes, 4.0);
        QCOMPARE(opNamed(g, "n2/grad").time(DeviceKind::Gpu), 2500.0);
        QCOMPARE(edgeList(g), (std::vector<std::string>{"n1>n2:8", "n2>n2/grad:0"}));
    }

    // PipeDream's own graph.dot writes a multi-output layer's sizes as a Python list,
    // "[1.0, 2.0, 3.0]": commas inside the brackets separate items, not statistics, and
    // the graph is the one its graph.txt gives.
    void dotPipeDreamCommaListsReadLikeGraphTxt()
    {
        const char* dot = R"(digraph {
            node3 [label="LSTM(2, 2)
[forward_compute_time=3.0,backward_compute_time=4.0,activation_size=[1.0, 2.0, 3.0],parameter_size=10.0]"]
            node1 [label="Input0
[forward_compute_time=5.0,backward_compute_time=0.0,activation_size=8.0,parameter_size=0.0]"]
            node2 [label="Linear(2, 2)
[forward_compute_time=1.0,backward_compute_time=2.0,activation_size=4.0,parameter_size=24.0]"]
            node1 -> node2
            node2 -> node3
            node1 -> node3
        })";
        const Graph fromDot = parseGraph(dot, "models/tiny/graph.dot");
        const Graph fromTxt = parseGraph(kTinyProfile, "models/tiny/graph.txt");
        QCOMPARE(fromDot.name(), fromTxt.name());
        QCOMPARE(opNames(fromDot), opNames(fromTxt));
        for (const Op& op : fromTxt.ops()) {
            const Op& other = opNamed(fromDot, op.name.c_str());
            QCOMPARE(other.time(DeviceKind::Gpu), op.time(DeviceKind::Gpu));
            QCOMPARE(other.time(DeviceKind::Cpu), op.time(DeviceKind::Cpu));
            QCOMPARE(other.outputBytes, op.outputBytes);
            QCOMPARE(other.paramBytes, op.paramBytes);
        }
        QCOMPARE(opNamed(fromDot, "node3").outputBytes, 6.0);
        std::vector<std::string> a = edgeList(fromDot), b = edgeList(fromTxt);
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        QCOMPARE(a, b);
        // An unclosed list names itself.
        try {
            parseGraph("digraph { n [label=\"X\n[forward_compute_time=1,backward_compute_time=1,activation_size=[1, "
                       "2,parameter_size=0]\"] }",
                       "bad.dot");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("activation_size") != std::string::npos, e.what());
        }
    }

    // A DOT graph without any cost imports, with a warning naming the attributes that give costs.
    void dotWithoutCostsWarns()
    {
        const ImportedGraph none = parseGraphWithPlacement("digraph { a -> b [bytes=4] }", "plain.dot");
        QCOMPARE(none.graph.opCount(), 2);
        QCOMPARE(none.warnings.size(), std::size_t(1));
        for (const char* attr : {"time_us_gpu", "time_us_cpu", "time_us", "forward_compute_time"})
            QVERIFY2(none.warnings[0].find(attr) != std::string::npos, none.warnings[0].c_str());
        const ImportedGraph some = parseGraphWithPlacement("digraph { a [time_us=3] a -> b }", "costed.dot");
        QVERIFY(some.warnings.empty());
    }

    void msrMapping()
    {
        const char* json = R"({"maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 1,
          "nodes": [
            {"id": 10, "name": "x", "supportedOnFpga": true, "cpuLatency": 2.0, "fpgaLatency": 0.5, "isBackwardNode": false, "colorClass": 7, "size": 100},
            {"id": 11, "name": "x", "supportedOnFpga": 0, "fpgaLatency": 0.25, "isBackwardNode": 1, "colorClass": 7, "size": 50.5},
            {"id": 12, "name": "y", "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 0, "isBackwardNode": 0, "colorClass": 3, "size": 0},
            {"id": 13, "name": "z", "cpuLatency": 0, "fpgaLatency": 0}
          ],
          "edges": [
            {"sourceId": 10, "destId": 11, "cost": 0.1, "size": 64},
            {"sourceId": 10, "destId": 12, "cost": 0.5},
            {"sourceId": 12, "destId": 13, "cost": 0}
          ]})";
        const Graph g = parseGraph(json, "data/pair.json");
        QCOMPARE(g.name(), std::string("pair"));
        // Repeated names are told apart by id.
        QCOMPARE(opNames(g), (std::vector<std::string>{"x#10", "x#11", "y", "z"}));
        const Op& forward = opNamed(g, "x#10");
        QCOMPARE(forward.type, std::string("forward"));
        QCOMPARE(forward.time(DeviceKind::Gpu), 500.0);
        QCOMPARE(forward.time(DeviceKind::Cpu), 2000.0);
        QCOMPARE(forward.residentBytes, 100.0);
        QCOMPARE(forward.paramBytes, 0.0);
        QCOMPARE(forward.colocate, std::string("color7"));
        const double costBytes = 0.5 * kMsrReferenceBytesPerMs; // no size: cost (ms) x 12 GB/s
        QCOMPARE(costBytes, 6.0e6);
        QCOMPARE(forward.outputBytes, costBytes); // the largest outgoing edge
        const Op& backward = opNamed(g, "x#11");
        QCOMPARE(backward.type, std::string("backward"));
        QCOMPARE(backward.time(DeviceKind::Cpu), 2500.0); // no cpuLatency: GPU x slowdown
        QCOMPARE(backward.residentBytes, 50.5);
        QCOMPARE(g.totalResidentBytes(), 150.5);
        QCOMPARE(g.totalParamBytes(), 0.0);
        QCOMPARE(opNamed(g, "y").colocate, std::string()); // class 3 has one member
        QCOMPARE(opNamed(g, "z").colocate, std::string()); // no class
        QCOMPARE(g.colocationGroupCount(), 1);
        // supportedOnFpga 0 pins x#11 to the CPU, and with it its colour class (x#10).
        QVERIFY(backward.cpuOnly && !forward.cpuOnly);
        QCOMPARE(g.cpuPinnedOps().size(), std::size_t(2));
        QVERIFY(g.isCpuPinned(*g.find("x#10")) && !g.isCpuPinned(*g.find("y")));
        QCOMPARE(edgeList(g), (std::vector<std::string>{"x#10>x#11:64", "x#10>y:6000000", "y>z:0"}));
    }

    // cgraph's globals are guarded by one mutex: parallel imports must all come out right.
    void dotImportsAreThreadSafe()
    {
        std::atomic<int> good{0}, rejected{0}, wrong{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int i = 0; i < 300; ++i) {
                    std::string name = "n"; // built stepwise: GCC 12 warns falsely on "lit" + string&&
                    name += std::to_string(t);
                    name += '_';
                    name += std::to_string(i);
                    try {
                        if (i % 3 == 0) {
                            parseGraph("digraph {\n " + name + " -> \n}", name + ".dot", GraphFormat::Dot);
                            ++wrong;
                        } else {
                            const Graph g = parseGraph("digraph { " + name + " -> b [bytes=" + std::to_string(i) + "] }",
                                                       name + ".dot", GraphFormat::Dot);
                            const bool ok = g.opCount() == 2 && g.op(0).name == name && g.edge(0).bytes == i;
                            ++(ok ? good : wrong);
                        }
                    } catch (const InputError& e) {
                        const bool ok = i % 3 == 0 && e.file() == name + ".dot" && e.location() == "line 3";
                        ++(ok ? rejected : wrong);
                    }
                }
            });
        for (std::thread& t : threads)
            t.join();
        QCOMPARE(wrong.load(), 0);
        QCOMPARE(good.load(), 4 * 200);
        QCOMPARE(rejected.load(), 4 * 100);
    }
};

QTEST_APPLESS_MAIN(TestImportersMapping)
#include "test_importers_mapping.moc"
