// Kernel fusion in the cost model (core/cost/Fusion.h, docs/cost-model.md "Kernel fusion").
#include "tests/support/ShapedGraphs.h"

#include "core/cluster/Cluster.h"
#include "core/cost/CostModel.h"
#include "core/cost/Fusion.h"
#include "core/graph/Graph.h"
#include "core/graph/Placement.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/sim/Simulator.h"
#include "core/zoo/ZooRegistry.h"

#include <QtTest>

#include <cmath>
#include <numeric>

using namespace post;

namespace {

using testgraphs::Shaped;

// x [1000] -> r Relu -> t1 -> m Mul(t1, scale) -> t2 -> s Sigmoid -> t3 -> fc MatMul(t3 [1, 1000], W) -> y
// (shapes kept 2-D for the product: every activation is [1, 1000]). x needs no gradient (a
// graph input), so the chain's backward is free unless `x` is made an op's output
// (chainAfterAProduct).
Shaped chain()
{
    Shaped s;
    const int x = s.tensor("x", {1, 1000});
    const int t1 = s.tensor("t1", {1, 1000});
    const int scale = s.constant("scale", {1});
    const int t2 = s.tensor("t2", {1, 1000});
    const int t3 = s.tensor("t3", {1, 1000});
    const int w = s.tensor("W", {1000, 10}, true);
    const int y = s.tensor("y", {1, 10});
    s.op("r", "Relu", {x}, {t1});
    s.op("m", "Mul", {t1, scale}, {t2});
    s.op("s", "Sigmoid", {t2}, {t3});
    s.op("fc", "MatMul", {t3, w}, {y});
    return s;
}

// The chain fed by a product: x = in [1, 10] x V [10, 1000], so a gradient w.r.t. x is needed.
Shaped chainAfterAProduct()
{
    Shaped s = chain();
    const int in = s.tensor("in", {1, 10});
    const int v = s.tensor("V", {10, 1000}, true);
    ShapedOp first;
    first.name = "p";
    first.type = "MatMul";
    first.inputs = {in, v};
    first.outputs = {0}; // x
    first.location = "node 4";
    s.g.ops.push_back(first);
    return s;
}

const Op& opNamed(const Graph& g, const std::string& name)
{
    const auto id = g.find(name);
    if (!id)
        qFatal("no op %s", name.c_str());
    return g.op(*id);
}

CostModelOptions unfused()
{
    CostModelOptions o;
    o.fuseElementwise = false;
    return o;
}

double sumOf(const Graph& g, double Op::*field)
{
    double total = 0.0;
    for (const Op& op : g.ops())
        total += op.*field;
    return total;
}

// The step with every op on the cluster's first GPU (device 1: presets list the CPU first).
SimResult stepOnOneGpu(const Graph& g, const Cluster& cluster)
{
    Simulator sim(g, cluster);
    return sim.run(Placement(static_cast<size_t>(g.opCount()), DeviceId{1}));
}

} // namespace

class TestFusion : public QObject {
    Q_OBJECT

private slots:
    void fusibleTypes()
    {
        for (const char* type : {"Relu", "AddV2", "BiasAdd", "Mul", "Erf", "Gelu", "Rsqrt", "Mean", "ReduceSum",
                                 "LayerNormalization", "FusedBatchNorm", "Softmax", "Dropout", "SquaredDifference"})
            QVERIFY2(isFusibleOpType(type), type);
        for (const char* type : {"MatMul", "Conv2D", "BatchMatMulV2", "Transpose", "Reshape", "GatherV2", "MaxPool",
                                 "ApplyAdam", "AssignSub", "Range", "Fill", "NoSuchOp", "If"})
            QVERIFY2(!isFusibleOpType(type), type);
    }

    // A chain of element-wise ops whose intermediates have one consumer each becomes one kernel.
    void chainIsFusedIntoOneKernel()
    {
        Shaped s = chain();
        const FusionPlan plan = planFusion(s.g, s.order());
        QCOMPARE(plan.root, (std::vector<int>{2, 2, 2, 3}));
        QCOMPARE(plan.groupCount, 1);
        QCOMPARE(plan.fusedOpCount, 3);
        QVERIFY(plan.fused(0) && plan.fused(1) && !plan.fused(2) && !plan.fused(3));

        CostReport report;
        const Graph g = buildTrainingGraph(s.g, {}, &report);
        QCOMPARE(report.fusionGroups, 1);
        QCOMPARE(report.fusedOps, 3);
        // Forward FLOPs are what every op does, fused or not: 1000 + 1000 + 4000 + 2 x 1000 x 10.
        QCOMPARE(report.totalForwardFlops, 6000.0 + 20000.0);

        // The root carries the kernel: the members' FLOPs, x and the scale read once, t3 written once.
        const Op& root = opNamed(g, "s");
        QCOMPARE(root.flops, s.cost(0).flops + s.cost(1).flops + s.cost(2).flops);
        QCOMPARE(root.flops, 6000.0);
        QCOMPARE(root.memoryBytes, 4000.0 + 4.0 + 4000.0);
        OpCost kernel{6000.0, 4004.0, 4000.0, true};
        kernel.streaming = true; // an element-wise kernel (isStreamingOpType)
        const auto ref = CostModelOptions::defaultReferenceDevices();
        for (int k = 0; k < kDeviceKindCount; ++k)
            QCOMPARE(root.timeUs[static_cast<size_t>(k)], rooflineTimeUs(kernel, ref[static_cast<size_t>(k)]));
        // Unfused the three ops move 8000 + 8004 + 8000 bytes and pay three launches.
        const double unfusedUs = rooflineTimeUs(s.cost(0), ref[0]) + rooflineTimeUs(s.cost(1), ref[0])
            + rooflineTimeUs(s.cost(2), ref[0]);
        QVERIFY(root.time(DeviceKind::Gpu) < unfusedUs - 2.0 * ref[0].launchOverheadUs);
        // x is a graph input: no gradient to compute, the group's backward is free.
        QCOMPARE(opNamed(g, "s/grad").memoryBytes, 0.0);
        // Fed by a product, the group's gradient is one element-wise pass over the fused kernel:
        // the incoming gradient (t3) and what the group read (x, the scale) read, x's gradient
        // written; the FLOPs of the fused kernel.
        const Graph after = buildTrainingGraph(chainAfterAProduct().g);
        QCOMPARE(opNamed(after, "s/grad").flops, 6000.0);
        QCOMPARE(opNamed(after, "s/grad").memoryBytes, 4000.0 + 4004.0 + 4000.0);

        // The members are still ops of the graph, at no cost (no kernel: no launch either).
        for (const char* name : {"r", "m", "r/grad", "m/grad"}) {
            const Op& op = opNamed(g, name);
            QCOMPARE(op.flops, 0.0);
            QCOMPARE(op.memoryBytes, 0.0);
            QCOMPARE(op.time(DeviceKind::Gpu), 0.0);
            QCOMPARE(op.time(DeviceKind::Cpu), 0.0);
        }
        // Each member names the op whose kernel runs it (the inspector shows it); the root and
        // ops of their own kernel name nothing. It survives post-graph/1.
        QCOMPARE(opNamed(g, "r").fusedInto, std::string("s"));
        QCOMPARE(opNamed(g, "m").fusedInto, std::string("s"));
        QCOMPARE(opNamed(g, "r/grad").fusedInto, std::string("s/grad"));
        for (const char* name : {"s", "s/grad", "fc", "fc/grad"})
            QVERIFY2(opNamed(g, name).fusedInto.empty(), name);
        const Graph back = parseNativeGraph(nativeGraphJson(g), "fused.json");
        QCOMPARE(opNamed(back, "m/grad").fusedInto, std::string("s/grad"));
        QVERIFY(opNamed(back, "fc").fusedInto.empty());
        QVERIFY(buildTrainingGraph(s.g, unfused()).op(0).fusedInto.empty());
        // One colocation group per fused chain, backward ops included: a placer moves it whole.
        const int group = g.colocationGroup(*g.find("s"));
        QVERIFY(group >= 0);
        for (const char* name : {"r", "m", "s", "r/grad", "m/grad", "s/grad"})
            QCOMPARE(g.colocationGroup(*g.find(name)), group);
        QCOMPARE(g.colocationGroupName(group), std::string("s"));
        QVERIFY(g.colocationGroup(*g.find("fc")) != group);
        // Intermediates stay in the kernel: no bytes held or sent; t3 leaves it.
        QCOMPARE(opNamed(g, "r").outputBytes, 0.0);
        QCOMPARE(opNamed(g, "m").outputBytes, 0.0);
        QCOMPARE(opNamed(g, "s").outputBytes, 4000.0);
        QCOMPARE(opNamed(g, "m/grad").outputBytes, 0.0); // t1's gradient stays in the kernel too
        for (const Edge& e : g.edges()) {
            const std::string from = g.op(e.from).name, to = g.op(e.to).name;
            if ((from == "r" && to == "m") || (from == "m" && to == "s") || (from == "m/grad" && to == "r/grad")
                || (from == "s/grad" && to == "m/grad"))
                QCOMPARE(e.bytes, 0.0);
            if (from == "s" && to == "fc")
                QCOMPARE(e.bytes, 4000.0);
        }
    }

    // An intermediate read outside the chain must be written: fusion stops there.
    void branchPointIsNotFused()
    {
        Shaped s;
        const int x = s.tensor("x", {1, 1000});
        const int t1 = s.tensor("t1", {1, 1000});
        const int t2 = s.tensor("t2", {1, 1000});
        const int w = s.tensor("W", {1000, 10}, true);
        const int y1 = s.tensor("y1", {1, 10});
        const int y2 = s.tensor("y2", {1, 10});
        s.op("a", "Relu", {x}, {t1});
        s.op("b", "Tanh", {t1}, {t2});
        s.op("fc1", "MatMul", {t2, w}, {y1});
        s.op("fc2", "MatMul", {t1, w}, {y2}); // t1 also feeds a matrix product
        const FusionPlan plan = planFusion(s.g, s.order());
        QCOMPARE(plan.root, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(plan.groupCount, 0);
        const Graph fused = buildTrainingGraph(s.g);
        const Graph plain = buildTrainingGraph(s.g, unfused());
        for (const Op& op : plain.ops()) {
            QCOMPARE(opNamed(fused, op.name).timeUs, op.timeUs);
            QCOMPARE(opNamed(fused, op.name).colocate, op.colocate);
        }
    }

    // A branch whose every consumer is in the group is fused (a layer norm's diamond): the
    // shared input is read once.
    void diamondInsideOneGroupIsFused()
    {
        Shaped s;
        const int x = s.tensor("x", {1, 1000});
        const int mean = s.tensor("mean", {1, 1});
        const int d = s.tensor("d", {1, 1000});
        const int y = s.tensor("y", {1, 1000});
        s.op("mean", "Mean", {x}, {mean});
        s.op("sub", "Sub", {x, mean}, {d});
        s.op("mul", "Mul", {d, x}, {y});
        const FusionPlan plan = planFusion(s.g, s.order());
        QCOMPARE(plan.root, (std::vector<int>{2, 2, 2}));
        const Graph g = buildTrainingGraph(s.g);
        QCOMPARE(opNamed(g, "mul").memoryBytes, 4000.0 + 4000.0); // x read once, y written once
        QCOMPARE(opNamed(g, "mul").flops, s.cost(0).flops + s.cost(1).flops + s.cost(2).flops);
    }

    // Fusion never crosses a CPU-only op, a given device or a colocation group of the file.
    void cutChainsAreNotFused()
    {
        {
            Shaped s = chain();
            s.g.ops[1].cpuOnly = true; // m has no GPU kernel
            const FusionPlan plan = planFusion(s.g, s.order());
            QCOMPARE(plan.root, (std::vector<int>{0, 1, 2, 3}));
        }
        {
            // A file that places its ops (TF device fields) is costed op for op: r on GPU:0 and
            // m on GPU:1 would cut the chain, and the plan must not depend on the placement.
            Shaped s = chain();
            s.g.ops[0].device = "/device:GPU:0";
            s.g.ops[1].device = "/device:GPU:1";
            const FusionPlan plan = planFusion(s.g, s.order());
            QCOMPARE(plan.root, (std::vector<int>{0, 1, 2, 3}));
            const Graph g = buildTrainingGraph(s.g);
            QVERIFY(g.colocationGroup(*g.find("r")) != g.colocationGroup(*g.find("s")));
            QCOMPARE(opNamed(g, "r").flops, s.cost(0).flops); // r stays its own kernel
            QCOMPARE(opNamed(g, "r").memoryBytes, 8000.0);
        }
        {
            // A placement that splits a fused chain cannot be simulated: the chain is one
            // colocation group, which no placer splits and the simulator refuses split.
            Shaped s = chain();
            const Graph g = buildTrainingGraph(s.g);
            const Cluster two(
                "two", {Device{"/device:GPU:0", DeviceKind::Gpu, 1.0}, Device{"/device:GPU:1", DeviceKind::Gpu, 1.0}},
                Link{});
            Placement split(static_cast<size_t>(g.opCount()), DeviceId{0});
            split[static_cast<size_t>(*g.find("r"))] = DeviceId{1};
            const auto problem = placementProblem(g, two, split);
            QVERIFY(problem.has_value());
            QVERIFY2(problem->find("group 's'") != std::string::npos, problem->c_str()); // names the group
            split[static_cast<size_t>(*g.find("m"))] = DeviceId{1};
            split[static_cast<size_t>(*g.find("s"))] = DeviceId{1};
            for (const char* grad : {"r/grad", "m/grad", "s/grad"})
                split[static_cast<size_t>(*g.find(grad))] = DeviceId{1};
            QVERIFY(!placementProblem(g, two, split).has_value()); // the chain moved whole
        }
        {
            Shaped s = chain();
            s.g.ops[2].colocate = "loc:@other"; // TF colocation of s with something else
            const FusionPlan plan = planFusion(s.g, s.order());
            QCOMPARE(plan.root, (std::vector<int>{1, 1, 2, 3}));
        }
        {
            Shaped s = chain();
            s.g.ops[3].controlInputs = {1}; // fc waits for m itself: m must run as its own kernel
            const FusionPlan plan = planFusion(s.g, s.order());
            QCOMPARE(plan.root, (std::vector<int>{1, 1, 2, 3}));
        }
    }

    // With the option off every op is costed alone, exactly as before fusion was modelled.
    void optionOffReproducesUnfusedTimes()
    {
        Shaped s = chainAfterAProduct();
        CostReport report;
        const Graph g = buildTrainingGraph(s.g, unfused(), &report);
        QCOMPARE(report.fusionGroups, 0);
        QCOMPARE(report.fusedOps, 0);
        const auto ref = CostModelOptions::defaultReferenceDevices();
        for (size_t i = 0; i < s.g.ops.size(); ++i) {
            const ShapedOp& o = s.g.ops[i];
            const OpCost c = s.cost(i);
            const Op& forward = opNamed(g, o.name);
            const Op& backward = opNamed(g, o.name + "/grad");
            QCOMPARE(forward.flops, c.flops);
            QCOMPARE(forward.memoryBytes, c.bytesRead + c.bytesWritten);
            // Products: data and weight gradients (p reads a graph input: the weight gradient
            // alone); element-wise ops one pass.
            QCOMPARE(backward.flops, (o.type == "MatMul" ? (o.name == "p" ? 1.0 : 2.0) : 1.0) * c.flops);
            QCOMPARE(forward.colocate, o.name);
            QCOMPARE(backward.colocate, o.name);
            OpCost timed = c;
            timed.streaming = isStreamingOpType(o.type);
            for (int k = 0; k < kDeviceKindCount; ++k)
                QCOMPARE(forward.timeUs[static_cast<size_t>(k)], rooflineTimeUs(timed, ref[static_cast<size_t>(k)]));
        }
        QCOMPARE(opNamed(g, "r").outputBytes, 4000.0);
    }

    // The zoo's BERT-base: fusion merges each layer norm with its residual add, bias + GELU,
    // and the attention's scale + mask + softmax, and the step is faster by the share
    // docs/cost-model.md states ("Kernel fusion": the fused step takes 67 % of the unfused
    // one at sequence 128, batch 32, on one A100 in TF32).
    void bertBaseStepIsFasterByTheDocumentedShare()
    {
        CostReport fusedReport, plainReport;
        const Graph fused = ZooRegistry::generate("bert-base", 32, {}, &fusedReport);
        const Graph plain = ZooRegistry::generate("bert-base", 32, unfused(), &plainReport);
        QCOMPARE(fused.opCount(), plain.opCount());
        QCOMPARE(fusedReport.totalForwardFlops, plainReport.totalForwardFlops);
        double fusedForward = 0.0, plainForward = 0.0;
        for (OpId id = 0; id < fusedReport.forwardOpCount; ++id) {
            fusedForward += fused.op(id).flops;
            plainForward += plain.op(id).flops;
        }
        QVERIFY(std::fabs(fusedForward / plainForward - 1.0) < 1e-12); // no work lost
        // Backward: an element-wise op fed only by inputs that need no gradient (the attention
        // mask's arithmetic) is free alone but is counted in the one pass of its group.
        QVERIFY(std::fabs(sumOf(fused, &Op::flops) / sumOf(plain, &Op::flops) - 1.0) < 0.01);
        // Under 60 % of the memory traffic (under half before the element-wise backward became
        // one pass, which made the unfused step's traffic smaller too).
        const double traffic = sumOf(fused, &Op::memoryBytes) / sumOf(plain, &Op::memoryBytes);
        QVERIFY2(traffic < 0.6, qPrintable(QString::number(traffic)));
        QCOMPARE(plainReport.fusionGroups, 0);
        QVERIFY(fusedReport.fusionGroups > 12 * 4);

        // Layer 0's groups, named after their roots.
        const std::string l = "bert/encoder/layer_0/";
        auto groupOf = [&](const std::string& name) { return opNamed(fused, name).colocate; };
        const std::string ln = l + "output/LayerNorm/batchnorm/add_1";
        for (const char* member : {"output/add", "output/dense/BiasAdd", "output/LayerNorm/moments/mean",
                                   "output/LayerNorm/moments/SquaredDifference", "output/LayerNorm/batchnorm/Rsqrt",
                                   "output/LayerNorm/batchnorm/mul_1", "output/LayerNorm/batchnorm/sub"})
            QCOMPARE(groupOf(l + member), ln);
        const std::string gelu = l + "intermediate/gelu/mul_1";
        for (const char* member : {"intermediate/dense/BiasAdd", "intermediate/gelu/truediv", "intermediate/gelu/Erf"})
            QCOMPARE(groupOf(l + member), gelu);
        const std::string softmax = l + "attention/self/Softmax";
        for (const char* member : {"attention/self/Mul", "attention/self/add"})
            QCOMPARE(groupOf(l + member), softmax);
        QCOMPARE(groupOf(l + "intermediate/dense/MatMul"), l + "intermediate/dense/MatMul"); // products stay alone

        const Cluster a100 = loadCluster("a100x8-nvlink"); // TF32 by default
        const SimResult fusedStep = stepOnOneGpu(fused, a100);
        const SimResult plainStep = stepOnOneGpu(plain, a100);
        const double ratio = fusedStep.stepTimeUs / plainStep.stepTimeUs;
        QVERIFY2(std::fabs(ratio - 0.67) < 0.01, qPrintable(QString::number(ratio)));
        // Intermediates fused kernels never write are not held either.
        QVERIFY(fusedStep.peakMemoryBytes[1] < plainStep.peakMemoryBytes[1]);
    }
};

QTEST_GUILESS_MAIN(TestFusion)
#include "test_fusion.moc"
