// The C++ half of post_torch (docs/pytorch.md): module paths in placements, the torch map,
// measured costs from post-costs/1 and from a torch.profiler Chrome trace. Hand-made inputs;
// tests/python/test_post_torch.py runs the same on real torchvision exports.
#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/GraphBuilder.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/native/PlacementFile.h"
#include "core/io/torch/MeasuredCosts.h"
#include "core/io/torch/TorchModules.h"
#include "core/util/AtomicFile.h"
#include "core/util/InputError.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace post;

namespace {

// conv -> bn -> add, with a Constant the trace never shows, and the backward ops.
Graph toyExport()
{
    GraphBuilder b("toy");
    auto add = [&](const char* name, const char* type, double cpuUs) {
        Op op;
        op.name = name;
        op.type = type;
        op.timeUs = {cpuUs, cpuUs / 10};
        op.flops = 1e6; // shape-costed, so a CPU with peaks would use the roofline
        op.colocate = std::string(name).substr(0, std::string(name).find("/grad"));
        b.addOp(op);
    };
    add("/conv/Conv", "Conv", 100);
    add("/Constant", "Constant", 1);
    add("/bn/BatchNormalization", "BatchNormalization", 50);
    add("/Add", "Add", 10);
    add("/Add/grad", "Add", 20);
    add("/bn/BatchNormalization/grad", "BatchNormalization", 100);
    add("/conv/Conv/grad", "Conv", 200);
    b.addEdge("/conv/Conv", "/bn/BatchNormalization", 4);
    b.addEdge("/Constant", "/Add", 4);
    b.addEdge("/bn/BatchNormalization", "/Add", 4);
    b.addEdge("/Add", "/Add/grad", 4);
    b.addEdge("/Add/grad", "/bn/BatchNormalization/grad", 4);
    b.addEdge("/bn/BatchNormalization/grad", "/conv/Conv/grad", 4);
    return std::move(b).build();
}

std::string write(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    const std::string path = dir.filePath(name).toStdString();
    writeFileAtomically(path, text);
    return path;
}

double cpuUs(const Graph& g, const char* name) { return g.op(*g.find(name)).time(DeviceKind::Cpu); }

} // namespace

class TestTorchSidecars : public QObject {
    Q_OBJECT

private slots:
    void placementCarriesModulesOfForwardAndBackwardOps()
    {
        QTemporaryDir dir;
        const Graph g = toyExport();
        const std::string sidecar = write(dir, "m.onnx.modules.json", R"({"format": "post-torch-modules/1",
            "modules": {"/conv/Conv": "conv", "/bn/BatchNormalization": "bn", "/Add": ""}})");
        const OpModules modules = readOpModules(sidecar, g);
        QCOMPARE(*modules[static_cast<size_t>(*g.find("/conv/Conv/grad"))], std::string("conv"));
        QCOMPARE(*modules[static_cast<size_t>(*g.find("/Add"))], std::string(""));
        QVERIFY(!modules[static_cast<size_t>(*g.find("/Constant"))]);

        const Cluster c(
            "box", {{"/device:CPU:0", DeviceKind::Cpu, 1.0, 1e9}, {"/device:GPU:0", DeviceKind::Gpu, 1.0, 1e9}}, Link{});
        const Placement p(static_cast<size_t>(g.opCount()), 1);
        const std::string text = placementJson(g, c, p, modules);
        const auto doc = nlohmann::json::parse(text);
        QCOMPARE(doc["modules"].size(), std::size_t{6});
        QCOMPARE(doc["modules"]["/bn/BatchNormalization/grad"].get<std::string>(), std::string("bn"));
        // The reader accepts its own output and refuses a module entry for an op the graph lacks.
        QCOMPARE(parsePlacement(text, "p.json", g, c), p);
        auto bad = doc;
        bad["modules"]["/nope"] = "x";
        try {
            parsePlacement(bad.dump(), "p.json", g, c);
            QFAIL("accepted a module of an unknown op");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("modules./nope") != std::string::npos, e.what());
        }
        // The sidecar of another export names none of these ops: refused, naming it.
        const std::string other = write(dir, "other.onnx.modules.json", R"({"format": "post-torch-modules/1",
            "modules": {"/emb/Gather": "emb", "/head/MatMul": "head"}})");
        try {
            readOpModules(other, g);
            QFAIL("accepted another export's sidecar");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), other);
            QVERIFY2(std::string(e.what()).find("names none of the ops of graph 'toy'") != std::string::npos, e.what());
        }
    }

    // The ops the ONNX importer made of a Loop it unrolled or an If it took (docs/importers.md,
    // step 7) run in that node's module, as post_torch.apply runs them; the sidecar names only
    // the Loop and the If.
    void unrolledOpsTakeTheirLoopsModule()
    {
        GraphBuilder b("unrolled");
        for (const char* name : {"/pool/Loop/unrolled0//pool/Slice", "/pool/Loop/unrolled1//pool/Slice",
                                 "/pool/Loop/unrolled1//pool/Slice/grad", "/squeeze/If/taken//squeeze/Squeeze",
                                 "/squeeze/If/taken/result0", "/other/unrolled0/Relu"}) {
            Op op;
            op.name = name;
            op.type = "Slice";
            op.timeUs = {1, 1};
            b.addOp(op);
        }
        const Graph g = std::move(b).build();
        const OpModules modules = parseOpModules(R"({"format": "post-torch-modules/1",
            "modules": {"/pool/Loop": "blocks.0.pool", "/squeeze/If": "blocks.1"}})",
                                                 "m.modules.json", g);
        auto moduleOf = [&](const char* op) { return modules[static_cast<size_t>(*g.find(op))]; };
        QCOMPARE(*moduleOf("/pool/Loop/unrolled0//pool/Slice"), std::string("blocks.0.pool"));
        QCOMPARE(*moduleOf("/pool/Loop/unrolled1//pool/Slice/grad"), std::string("blocks.0.pool"));
        QCOMPARE(*moduleOf("/squeeze/If/taken//squeeze/Squeeze"), std::string("blocks.1"));
        QCOMPARE(*moduleOf("/squeeze/If/taken/result0"), std::string("blocks.1"));
        QVERIFY(!moduleOf("/other/unrolled0/Relu")); // no such node in the sidecar
    }

    // Each module's ops become one colocation group with their gradients, as apply runs them;
    // ops without a module keep theirs, and a graph whose modules join nothing is unchanged.
    void modulesAreColocated()
    {
        const Graph g = toyExport();
        OpModules modules(static_cast<size_t>(g.opCount()));
        const auto set = [&](const char* op, const char* module) { modules[static_cast<size_t>(*g.find(op))] = module; };
        set("/conv/Conv", "block");
        set("/conv/Conv/grad", "block");
        set("/bn/BatchNormalization", "block"); // one module calling both: one device
        set("/bn/BatchNormalization/grad", "block");
        set("/Add", ""); // the root module's op, with its gradient (already one group)
        set("/Add/grad", "");
        int joined = -1;
        const Graph c = colocatedByModule(g, modules, &joined);
        QCOMPARE(joined, 1);
        QCOMPARE(c.colocationGroup(*c.find("/conv/Conv")), c.colocationGroup(*c.find("/bn/BatchNormalization/grad")));
        QCOMPARE(c.op(*c.find("/conv/Conv")).colocate, std::string("module:block"));
        QCOMPARE(c.op(*c.find("/Add/grad")).colocate, std::string("/Add"));      // joined nothing: as it was
        QCOMPARE(c.op(*c.find("/Constant")).colocate, std::string("/Constant")); // no module: as it was
        QCOMPARE(c.colocationGroupCount(), g.colocationGroupCount() - 1);
        QCOMPARE(c.edgeCount(), g.edgeCount());
        set("/Constant", ""); // the root's too: it joins the root's other group
        const Graph root = colocatedByModule(g, modules, &joined);
        QCOMPARE(joined, 2);
        QCOMPARE(root.op(*root.find("/Constant")).colocate, std::string("module:"));
        QCOMPARE(root.colocationGroup(*root.find("/Constant")), root.colocationGroup(*root.find("/Add/grad")));

        OpModules own(static_cast<size_t>(g.opCount())); // each op its own module: nothing joins
        for (const char* op : {"/conv/Conv", "/bn/BatchNormalization", "/Add"})
            own[static_cast<size_t>(*g.find(op))] = op;
        const Graph same = colocatedByModule(g, own, &joined);
        QCOMPARE(joined, 0);
        QCOMPARE(same.colocationGroupCount(), g.colocationGroupCount());
    }

    // place, compare and Post Studio take the sidecar beside the graph (or the one given) the
    // same way: the groups above and a note that says how many.
    void groupsComeFromTheSidecarBesideTheGraph()
    {
        QTemporaryDir dir;
        const std::string model = dir.filePath(QStringLiteral("m.onnx")).toStdString();
        Graph g = toyExport();
        QVERIFY(!groupByModules(g, model)); // no sidecar: the graph as it was
        QCOMPARE(g.colocationGroupCount(), toyExport().colocationGroupCount());

        const std::string sidecar = write(dir, "m.onnx.modules.json", R"({"format": "post-torch-modules/1",
            "modules": {"/conv/Conv": "block", "/bn/BatchNormalization": "block", "/Add": ""}})");
        const std::optional<ModuleGroups> groups = groupByModules(g, model);
        QVERIFY(groups);
        QCOMPARE(groups->sidecar, sidecar);
        QCOMPARE(groups->joined, 1);
        QCOMPARE(g.colocationGroup(*g.find("/conv/Conv")), g.colocationGroup(*g.find("/bn/BatchNormalization/grad")));
        QCOMPARE(groups->note(),
                 sidecar
                     + ": each PyTorch module's ops are placed together, as post_torch.apply runs "
                       "them (1 colocation group made or joined)");

        Graph other = toyExport(); // --modules: that file, wherever the graph is
        const std::string given = write(dir, "given.json", R"({"format": "post-torch-modules/1",
            "modules": {"/conv/Conv": "conv", "/bn/BatchNormalization": "bn", "/Add": ""}})");
        const std::optional<ModuleGroups> own = groupByModules(other, "/nowhere/x.onnx", given);
        QVERIFY(own);
        QCOMPARE(own->joined, 0);
        QVERIFY(own->note().empty()); // each op its own module: nothing to say
        QCOMPARE(other.colocationGroupCount(), toyExport().colocationGroupCount());

        write(dir, "m.onnx.modules.json", R"({"format": "post-torch-modules/1", "modules": {"/nope": "x"}})");
        Graph broken = toyExport();
        QVERIFY_THROWS_EXCEPTION(InputError, groupByModules(broken, model));
    }

    void torchMapTakesTheMajorityDeviceAndTheFirstOnTies()
    {
        const std::string text = torchMapJson(R"({"format": "post-placement/1", "graph": "g", "cluster": "c",
            "placement": {"a1": "/device:GPU:1", "a2": "/device:GPU:0", "a3": "/device:GPU:0",
                          "b1": "/device:GPU:1", "b2": "/device:GPU:0", "opt": "/device:CPU:0"},
            "modules": {"a1": "blk.a", "a2": "blk.a", "a3": "blk.a", "b1": "blk.b", "b2": "blk.b"}})",
                                              "p.json");
        const auto doc = nlohmann::json::parse(text);
        QCOMPARE(doc["format"].get<std::string>(), std::string("post-torch-map/1"));
        QCOMPARE(doc["modules"]["blk.a"].get<std::string>(), std::string("/device:GPU:0"));
        QCOMPARE(doc["modules"]["blk.b"].get<std::string>(), std::string("/device:GPU:1")); // tie: first seen
        QCOMPARE(doc["modules"].size(), std::size_t{2});
        try {
            torchMapJson(R"({"format": "post-placement/1", "placement": {"a": "/device:GPU:0"}})", "p.json");
            QFAIL("accepted a placement without module paths");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("p.json") != std::string::npos
                         && std::string(e.what()).find("modules") != std::string::npos,
                     e.what());
        }
    }

    // export-placement reads the file without its graph: the fields that need none are checked
    // as parsePlacement checks them, and what made the placement comes back.
    void torchMapChecksThePlacementFilesOtherFields()
    {
        const std::string head = R"({"format": "post-placement/1", "placement": {"a": "/device:GPU:0"},
            "modules": {"a": "m"}, )";
        const std::pair<const char*, const char*> bad[] = {
            {R"("dispatch": "bogus"})", "field dispatch"},
            {R"("step_time_us": "x"})", "field step_time_us"},
            {R"("seed": -1})", "field seed"},
            {R"("graph": 3})", "field graph"},
            {R"("stray": 1})", "stray"},
        };
        for (const auto& [tail, field] : bad) {
            try {
                torchMapJson(head + tail, "p.json");
                QFAIL(qPrintable(QString("accepted ") + tail));
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find("p.json") != std::string::npos
                             && std::string(e.what()).find(field) != std::string::npos,
                         e.what());
            }
        }
        PlacementProvenance made;
        torchMapJson(head + R"("algorithm": "post@best", "step_time_us": 12.5, "dispatch": "critical-path"})", "p.json",
                     &made);
        QCOMPARE(made.algorithm, std::string("post@best"));
        QCOMPARE(made.stepTimeUs.value_or(0.0), 12.5);
        QVERIFY(made.dispatch == Dispatch::CriticalPath);
    }

    void postCostsReplaceCpuTimesAndScaleTheBackward()
    {
        QTemporaryDir dir;
        const Graph g = toyExport();
        const std::string costs = write(dir, "m.onnx.costs.json", R"({"format": "post-costs/1", "device": "cpu",
            "forward_us": {"/conv/Conv": 400, "/bn/BatchNormalization": 25}, "unmatched": ["/Add"]})");
        MeasuredCostsReport report;
        const Graph measured = applyMeasuredCosts(g, costs, &report);
        QCOMPARE(report.matched, 2);
        QCOMPARE(report.forwardOps, 4); // conv, Constant, bn, Add
        QCOMPARE(report.unmatched, (std::vector<std::string>{"/Constant", "/Add"}));
        QCOMPARE(cpuUs(measured, "/conv/Conv"), 400.0);
        QCOMPARE(cpuUs(measured, "/conv/Conv/grad"), 800.0); // 400 x (200 / 100)
        QCOMPARE(cpuUs(measured, "/bn/BatchNormalization/grad"), 50.0);
        QCOMPARE(cpuUs(measured, "/Add"), 10.0); // kept
        // The two scaled backward times are named as such, not left to pass as measured.
        QCOMPARE(report.scaledBackward, 2);
        const std::string note = describeMeasuredCosts(report);
        QVERIFY2(note.find("; 2 backward ops take their forward op's measured time x the cost model's "
                           "backward/forward ratio (the measurement has no backward)")
                     != std::string::npos,
                 note.c_str());
        const Op& conv = measured.op(*measured.find("/conv/Conv"));
        QVERIFY(conv.measured(DeviceKind::Cpu) && !conv.measured(DeviceKind::Gpu));
        // A CPU with roofline figures takes the measured time, a GPU keeps its roofline.
        Device cpu{"/device:CPU:0", DeviceKind::Cpu, 2.0, 1e9};
        cpu.peakFlops = 1e12;
        cpu.memoryBandwidth = 1e11;
        QCOMPARE(opTimeUs(conv, cpu), 200.0);
        Device gpu{"/device:GPU:0", DeviceKind::Gpu, 1.0, 1e9};
        gpu.peakFlops = 1e13;
        gpu.memoryBandwidth = 1e12;
        QVERIFY(usesRoofline(conv, gpu));
        // The flag survives post-graph/1.
        const Graph again = parseNativeGraph(nativeGraphJson(measured), "again.json");
        QVERIFY(again.op(*again.find("/conv/Conv")).measured(DeviceKind::Cpu));
        QCOMPARE(again.op(*again.find("/conv/Conv")).measuredBy, costs); // and its source
        QVERIFY(again.op(*again.find("/Add")).measuredBy.empty());

        const std::string wrong = write(dir, "wrong.json", R"({"format": "post-costs/1", "forward_us": {"/nope": 1}})");
        QVERIFY_THROWS_EXCEPTION(InputError, applyMeasuredCosts(g, wrong));
    }

    void chromeTraceIsAlignedByOperatorKind()
    {
        QTemporaryDir dir;
        const Graph g = toyExport();
        // PyTorch 1.13's export_chrome_trace: a bare array, no categories. A training-mode
        // BatchNorm first bumps its counter (aten::add_), which must not take the later Add
        // (nor land on the conv: an Add the graph does not have is reported, not hidden);
        // nested operators (aten::convolution inside aten::conv2d) do not count twice.
        const std::string trace = write(dir, "trace.json", R"([
            {"name": "aten::conv2d", "ph": "X", "ts": 0, "dur": 300, "tid": 1, "pid": "CPU functions"},
            {"name": "aten::convolution", "ph": "X", "ts": 5, "dur": 290, "tid": 1, "pid": "CPU functions"},
            {"name": "aten::add_", "ph": "X", "ts": 310, "dur": 2, "tid": 1, "pid": "CPU functions"},
            {"name": "aten::batch_norm", "ph": "X", "ts": 320, "dur": 60, "tid": 1, "pid": "CPU functions"},
            {"name": "aten::empty", "ph": "X", "ts": 390, "dur": 1, "tid": 1, "pid": "CPU functions"},
            {"name": "aten::add", "ph": "X", "ts": 400, "dur": 7, "tid": 1, "pid": "CPU functions"}])");
        MeasuredCostsReport report;
        const Graph measured = applyMeasuredCosts(g, trace, &report);
        QCOMPARE(report.matched, 3);
        QCOMPARE(cpuUs(measured, "/conv/Conv"), 300.0); // not the stray add_
        QCOMPARE(report.unattributed.size(), std::size_t(1));
        QCOMPARE(report.unattributed[0], std::make_pair(std::string("aten::add_"), 2.0));
        QCOMPARE(cpuUs(measured, "/bn/BatchNormalization"), 61.0); // + aten::empty
        QCOMPARE(cpuUs(measured, "/Add"), 7.0);
        // PyTorch 2.x: {"traceEvents": [...]} with categories; other categories are ignored.
        const std::string trace2 = write(dir, "trace2.json", R"({"traceEvents": [
            {"name": "ProfilerStep_1", "cat": "user_annotation", "ph": "X", "ts": 0, "dur": 500, "tid": 1},
            {"name": "aten::conv2d", "cat": "cpu_op", "ph": "X", "ts": 1, "dur": 100, "tid": 1},
            {"name": "cudaLaunchKernel", "cat": "cuda_runtime", "ph": "X", "ts": 2, "dur": 5, "tid": 1}]})");
        // One of the three matchable ops: refused, unless --costs-partial.
        QVERIFY_THROWS_EXCEPTION(InputError, applyMeasuredCosts(g, trace2));
        QCOMPARE(cpuUs(applyMeasuredCosts(g, trace2, nullptr, {.partial = true}), "/conv/Conv"), 100.0);
    }
};

QTEST_APPLESS_MAIN(TestTorchSidecars)
#include "test_torch_sidecars.moc"
