// Measured costs from torch.profiler (Kineto) traces (docs/pytorch.md, "Measured costs"):
// small traces written here for each rule (attribution by correlation and by flow arrows,
// both layouts, steady steps, gzip, optimizer ops, refusals), then the real traces of
// ../shared/data/traces read in place against torchvision exports made by the
// fixtures/export-torchvision-training set-up step.
#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/GraphBuilder.h"
#include "core/io/GraphFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/torch/KinetoTrace.h"
#include "core/io/torch/MeasuredCosts.h"
#include "core/io/torch/TraceSteps.h"
#include "core/util/AtomicFile.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include "tests/support/KinetoTraces.h"
#include "tests/support/TestData.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace post;
using testdata::KinetoLayout;
using testdata::KinetoTraceWriter;

namespace {

// conv -> bn -> relu -> flatten -> fc with their backward ops (estimates: 1000 µs forward,
// 2000 µs backward on a GPU, 10x that on a CPU) and, when asked, two optimizer updates.
Graph toyTrainingStep(bool optimizerOps = false)
{
    GraphBuilder b("toy");
    auto add = [&](const std::string& name, const char* type, double gpuUs, double paramBytes = 0) {
        Op op;
        op.name = name;
        op.type = type;
        op.timeUs = {gpuUs * 10, gpuUs};
        op.flops = 1e6;
        op.paramBytes = paramBytes;
        b.addOp(op);
    };
    const char* forward[][2] = {{"/conv/Conv", "Conv"},
                                {"/bn/BatchNormalization", "BatchNormalization"},
                                {"/relu/Relu", "Relu"},
                                {"/Flatten", "Flatten"},
                                {"/fc/Gemm", "Gemm"}};
    for (const auto& [name, type] : forward)
        add(name, type, 1000);
    for (int i = 4; i >= 0; --i)
        add(std::string(forward[i][0]) + "/grad", forward[i][1], 2000);
    for (int i = 0; i < 4; ++i)
        b.addEdge(forward[i][0], forward[i + 1][0], 4);
    b.addEdge("/fc/Gemm", "/fc/Gemm/grad", 4);
    for (int i = 4; i > 0; --i)
        b.addEdge(std::string(forward[i][0]) + "/grad", std::string(forward[i - 1][0]) + "/grad", 4);
    if (optimizerOps) {
        add("/conv/Conv/ApplyMomentum", "ApplyMomentum", 10, 3000);
        add("/fc/Gemm/ApplyMomentum", "ApplyMomentum", 10, 1000);
        b.addEdge("/conv/Conv/grad", "/conv/Conv/ApplyMomentum", 4);
        b.addEdge("/fc/Gemm/grad", "/fc/Gemm/ApplyMomentum", 4);
    }
    return std::move(b).build();
}

// One training step of the toy network, with what a real step has around it: the input
// copy, BatchNorm's counter increment, the loss, the engine's gradient accumulation,
// AccumulateGrad and the optimizer. GPU µs: 1498 in all, 1387 of them on graph ops.
void toyStep(KinetoTraceWriter& w, double convUs = 300)
{
    w.op("aten::to", 50)
        .op("aten::conv2d", convUs, 1)
        .op("aten::add", 2, 2) // num_batches_tracked += 1: an Add the graph does not have
        .op("aten::batch_norm", 100, 2)
        .op("aten::relu_", 50, 3)
        .op("aten::flatten", 0, 4)
        .op("aten::linear", 40, 5)
        .op("aten::cross_entropy_loss", 20, 6)
        .op("aten::ones_like", 1)
        .backward("NllLossBackward", 5, 6)
        .backward("AddmmBackward", 80, 5)
        .backward("ViewBackward", 0, 4)
        .backward("ReluBackward", 60, 3)
        .op("aten::add", 7, -1, KinetoTraceWriter::kAutogradThread) // the engine sums two gradients
        .backward("CudnnBatchNormBackward", 150, 2)
        .backward("CudnnConvolutionBackward", 600, 1)
        .op("torch::autograd::AccumulateGrad", 3, -1, KinetoTraceWriter::kAutogradThread)
        .range("Optimizer.step#SGD.step", [](KinetoTraceWriter& o) { o.op("aten::_foreach_add_", 30); });
}

std::string writeTrace(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    const std::string path = dir.filePath(name).toStdString();
    writeFileAtomically(path, text);
    return path;
}

double gpuUs(const Graph& g, const char* name) { return g.op(*g.find(name)).time(DeviceKind::Gpu); }
bool gpuMeasured(const Graph& g, const char* name) { return g.op(*g.find(name)).measured(DeviceKind::Gpu); }

std::string refusal(const Graph& g, const std::string& path, const MeasuredCostsOptions& options = {})
{
    try {
        applyMeasuredCosts(g, path, nullptr, options);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

// The toy step's GPU times, whichever way the trace was written.
void checkToyAttribution(const Graph& m, const MeasuredCostsReport& r, const std::string& path)
{
    QCOMPARE(r.kind, std::string("GPU"));
    QCOMPARE(r.matched, 5);
    QCOMPARE(r.forwardOps, 5);
    QCOMPARE(gpuUs(m, "/conv/Conv"), 300.0);
    QCOMPARE(gpuUs(m, "/bn/BatchNormalization"), 100.0); // not the counter's 2 µs
    QCOMPARE(gpuUs(m, "/relu/Relu"), 50.0);
    QCOMPARE(gpuUs(m, "/Flatten"), 0.0);  // a view: measured, no kernel
    QCOMPARE(gpuUs(m, "/fc/Gemm"), 40.0); // not the loss after it
    QCOMPARE(gpuUs(m, "/fc/Gemm/grad"), 80.0);
    QCOMPARE(gpuUs(m, "/relu/Relu/grad"), 67.0); // + the accumulation add after it
    QCOMPARE(gpuUs(m, "/bn/BatchNormalization/grad"), 150.0);
    QCOMPARE(gpuUs(m, "/conv/Conv/grad"), 600.0);
    QVERIFY(gpuMeasured(m, "/conv/Conv/grad") && gpuMeasured(m, "/Flatten/grad"));
    const Op& conv = m.op(*m.find("/conv/Conv"));
    QVERIFY(!conv.measured(DeviceKind::Cpu));
    QCOMPARE(conv.time(DeviceKind::Cpu), 10000.0); // a GPU trace says nothing of CPU times
    QCOMPARE(conv.measuredBy, path);
    QCOMPARE(r.measuredOps, 10);
    QCOMPARE(r.stepUs, 1498.0);
    QCOMPARE(r.mappedUs, 1387.0);
    QCOMPARE(r.gpuName, std::string("Tesla V100-SXM2-16GB"));
    // What did not land is named, biggest first: the input copy, then the optimizer.
    QVERIFY(r.unattributed.size() >= 4);
    QCOMPARE(r.unattributed[0].first, std::string("aten::to"));
    QCOMPARE(r.unattributed[0].second, 50.0);
    QVERIFY2(r.unattributed[1].first.find("optimizer") != std::string::npos, r.unattributed[1].first.c_str());
    QCOMPARE(r.unattributed[1].second, 33.0);
    const std::string text = describeMeasuredCosts(r);
    QVERIFY2(text.find("93% of the step's GPU time") != std::string::npos, text.c_str());
    QVERIFY2(text.find("mapped onto 10 of 10 ops") != std::string::npos, text.c_str());
}

// A shared-data file, or a skip.
#define REQUIRE_TRACE(var, relative)                                                                                   \
    REQUIRE_SHARED_DATA(shared_##var);                                                                                 \
    const std::string var = (shared_##var + "/traces/" + relative).toStdString();                                      \
    if (!QFile::exists(QString::fromStdString(var)))                                                                   \
    QSKIP(qPrintable(QString("%1 is absent: real-trace test skipped").arg(QString::fromStdString(var))))

// A model exported by fixtures/export-torchvision-training, or a skip with the reason.
#define REQUIRE_EXPORT(var, name)                                                                                      \
    const QString dir_##var = qEnvironmentVariable("POST_TORCHVISION_TRAINING_DIR");                                   \
    if (dir_##var.isEmpty())                                                                                           \
        QSKIP("POST_TORCHVISION_TRAINING_DIR is not set (run through ctest)");                                         \
    if (QFile::exists(dir_##var + "/SKIPPED"))                                                                         \
        QSKIP("the torchvision training exports were skipped (see fixtures/export-torchvision-training)");             \
    const std::string var = (dir_##var + "/" + name).toStdString();                                                    \
    if (!QFile::exists(QString::fromStdString(var)))                                                                   \
    QSKIP(qPrintable(QString("%1 was not made (see the fixture's output)").arg(QString::fromStdString(var))))

const char* kV100Traces[] = {
    "kineto/resnet50_num_workers_0_worker0.1623143089861.pt.trace.json.gz",
    "kineto/resnet50_num_workers_0_worker0.1623143566756.pt.trace.json.gz",
    "kineto/resnet50_num_workers_4_worker0.1623212756351.pt.trace.json.gz",
    "kineto/resnet50_num_workers_4_worker0.1623213129365.pt.trace.json.gz",
};

} // namespace

class TestKinetoCosts : public QObject {
    Q_OBJECT

private slots:
    // PyTorch 1.8: kernels -> correlation -> Runtime call -> enclosing top-level operator.
    void pytorch18AttributesKernelsByCorrelation()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch18);
        w.range("ProfilerStep#1", [](KinetoTraceWriter& s) { toyStep(s); });
        const std::string path = writeTrace(dir, "v18.pt.trace.json", w.text());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r);
        QCOMPARE(r.layout, std::string("PyTorch 1.8"));
        checkToyAttribution(m, r, path);
    }

    // A Linear on a sequence exports as Transpose, MatMul and Add where the trace has one
    // aten::linear: its time goes to the MatMul, the other two take 0, and the residual
    // aten::add after it goes to the residual Add, not to the bias's. Before, 3 of the 5
    // forward ops matched and the trace was refused as another model's.
    void linearOnASequenceIsOneOperator()
    {
        GraphBuilder b("seq");
        for (const auto& [name, type] : {std::pair{"/pre/Relu", "Relu"},
                                         {"/fc/Transpose", "Transpose"},
                                         {"/fc/MatMul", "MatMul"},
                                         {"/fc/Add", "Add"},
                                         {"/Add", "Add"}}) {
            Op op;
            op.name = name;
            op.type = type;
            op.timeUs = {1000, 100};
            op.flops = 1e6;
            b.addOp(op);
        }
        b.addEdge("/pre/Relu", "/fc/MatMul", 4);
        b.addEdge("/fc/Transpose", "/fc/MatMul", 4);
        b.addEdge("/fc/MatMul", "/fc/Add", 4);
        b.addEdge("/fc/Add", "/Add", 4);
        b.addEdge("/pre/Relu", "/Add", 4);
        const Graph g = std::move(b).build();
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.range("ProfilerStep#1", [](KinetoTraceWriter& s) {
            s.op("aten::relu", 30, 1).op("aten::linear", 70, 2).op("aten::add", 20, 3);
        });
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(g, writeTrace(dir, "seq.pt.trace.json", w.text()), &r);
        QCOMPARE(r.matched, 5);
        QCOMPARE(gpuUs(m, "/fc/MatMul"), 70.0);
        QCOMPARE(gpuUs(m, "/fc/Transpose"), 0.0);
        QCOMPARE(gpuUs(m, "/fc/Add"), 0.0);
        QVERIFY(gpuMeasured(m, "/fc/Add") && gpuMeasured(m, "/fc/Transpose"));
        QCOMPARE(gpuUs(m, "/Add"), 20.0);
    }

    void pytorch2AttributesKernelsByCorrelation()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.range("ProfilerStep#1", [](KinetoTraceWriter& s) { toyStep(s); });
        const std::string path = writeTrace(dir, "v2.pt.trace.json", w.text());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r);
        QCOMPARE(r.layout, std::string("PyTorch 2.x"));
        checkToyAttribution(m, r, path);
    }

    // Kernels without a correlation arg: the ac2g flow arrows link them to their launch.
    void flowArrowsAloneAttributeKernels()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.linkByFlowsOnly().range("ProfilerStep#1", [](KinetoTraceWriter& s) { toyStep(s); });
        const std::string path = writeTrace(dir, "flows.json", w.text());
        const nlohmann::json written = w.document(); // kept: a range-for does not keep a temporary's parent alive
        for (const nlohmann::json& e : written["traceEvents"])
            QVERIFY(e["cat"] != "kernel" || !e["args"].contains("correlation")); // really by flows alone
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r);
        checkToyAttribution(m, r, path);
        // Without the flows as well, nothing links a kernel to its operator: refused.
        nlohmann::json doc = w.document();
        auto& events = doc["traceEvents"];
        events.erase(std::remove_if(events.begin(), events.end(), [](const nlohmann::json& e) { return e["ph"] != "X"; }),
                     events.end());
        const std::string bare = writeTrace(dir, "bare.json", doc.dump());
        for (bool partial : {false, true}) {
            const std::string why = refusal(toyTrainingStep(), bare, {.partial = partial});
            QVERIFY2(why.find("none of the step's GPU time (1.50 ms)") != std::string::npos, why.c_str());
            QVERIFY2(why.find("GPU work without a known launch") != std::string::npos, why.c_str());
        }
    }

    // Several profiled steps: the median of each op over the steps after the first.
    void steadyStepsGiveTheMedian()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch18);
        int n = 0;
        for (double conv : {5000.0, 300.0, 310.0, 900.0})
            w.range("ProfilerStep#" + std::to_string(++n), [&](KinetoTraceWriter& s) { toyStep(s, conv); });
        const std::string path = writeTrace(dir, "steps.json", w.text());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r);
        QCOMPARE(gpuUs(m, "/conv/Conv"), 310.0); // not 5000 (warm-up), not the mean 503
        QCOMPARE(r.steps, 4);
        QCOMPARE(r.stepsUsed, (std::vector<std::string>{"ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4"}));
        QCOMPARE(r.stepUs, 1498.0 - 300.0 + 310.0);
        const std::string text = describeMeasuredCosts(r);
        QVERIFY2(text.find("median of 3 steady steps ProfilerStep#2..ProfilerStep#4") != std::string::npos, text.c_str());
    }

    // No ProfilerStep ranges (the param traces): a step ends with each Optimizer.step.
    void stepsAreCutAtOptimizerStepWithoutProfilerSteps()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        for (double conv : {900.0, 300.0, 320.0})
            toyStep(w, conv);
        const std::string path = writeTrace(dir, "nosteps.json", w.text());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r);
        QCOMPARE(r.steps, 3);
        QCOMPARE(r.stepsFrom, std::string("Optimizer.step"));
        QCOMPARE(gpuUs(m, "/conv/Conv"), 310.0);
    }

    // Optimizer work lands on the graph's optimizer ops, split by their parameter bytes.
    void optimizerWorkGoesToOptimizerOps()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        toyStep(w);
        const std::string path = writeTrace(dir, "opt.json", w.text());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(true), path, &r);
        QCOMPARE(gpuUs(m, "/conv/Conv/ApplyMomentum"), 33.0 * 0.75);
        QCOMPARE(gpuUs(m, "/fc/Gemm/ApplyMomentum"), 33.0 * 0.25);
        QCOMPARE(r.mappedUs, 1387.0 + 33.0);
        QCOMPARE(r.forwardOps, 5); // optimizer ops are not forward ops
        for (const auto& [what, us] : r.unattributed)
            QVERIFY2(what.find("optimizer") == std::string::npos, what.c_str());
    }

    void gzipTraceIsRead()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch18);
        w.range("ProfilerStep#1", [](KinetoTraceWriter& s) { toyStep(s); });
        const std::string plain = writeTrace(dir, "t.pt.trace.json", w.text());
        QCOMPARE(QProcess::execute("gzip", {"-k", QString::fromStdString(plain)}), 0);
        const std::string gz = plain + ".gz";
        QFile raw(QString::fromStdString(gz));
        QVERIFY(raw.open(QIODevice::ReadOnly) && isGzip(raw.read(2).toStdString()));
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), gz, &r);
        checkToyAttribution(m, r, gz);
    }

    // A trace whose operators are not this model's: refused with the figure, unless partial.
    void wrongModelIsRefusedUnlessPartial()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.op("aten::embedding_bag", 400, 1)
            .op("aten::linear", 100, 2)
            .op("aten::relu", 20, 3)
            .op("aten::linear", 100, 4)
            .op("aten::cat", 30, 5)
            .op("aten::linear", 100, 6);
        const std::string path = writeTrace(dir, "dlrm.json", w.text());
        const std::string why = refusal(toyTrainingStep(), path);
        QVERIFY2(why.find("match only 2 of the 5 forward ops") != std::string::npos, why.c_str());
        QVERIFY2(why.find("--costs-partial") != std::string::npos, why.c_str());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r, {.partial = true});
        QVERIFY(r.partial);
        QCOMPARE(r.matched, 2);
        QVERIFY(!gpuMeasured(m, "/conv/Conv"));
        QVERIFY(describeMeasuredCosts(r).find("--costs-partial") != std::string::npos);
    }

    void zeroMatchesAreRefusedEvenWhenPartial()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch18);
        w.op("aten::embedding_bag", 400, 1).op("aten::mul", 100, 2);
        const std::string path = writeTrace(dir, "none.json", w.text());
        for (bool partial : {false, true}) {
            const std::string why = refusal(toyTrainingStep(), path, {.partial = partial});
            QVERIFY2(why.find("no op of graph \"toy\" matches") != std::string::npos, why.c_str());
        }
    }

    // The right operators, but most of the step's GPU time is elsewhere.
    void tooLittleTimeOnTheGraphIsRefused()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.op("aten::lstm", 9000);
        toyStep(w);
        const std::string path = writeTrace(dir, "mostly-lstm.json", w.text());
        const std::string why = refusal(toyTrainingStep(), path);
        QVERIFY2(why.find("only 13% of the step's GPU time") != std::string::npos, why.c_str());
        QVERIFY2(why.find("aten::lstm") != std::string::npos, why.c_str());
        QCOMPARE(refusal(toyTrainingStep(), path, {.partial = true}), std::string("(accepted)"));
    }

    // A CPU training trace: CPU times, the backward ops measured too (not all on the last op).
    void cpuTraceMeasuresCpuTimes()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.op("aten::conv2d", 0, 1, KinetoTraceWriter::kMainThread, 3000)
            .op("aten::batch_norm", 0, 2, KinetoTraceWriter::kMainThread, 500)
            .op("aten::relu_", 0, 3, KinetoTraceWriter::kMainThread, 100)
            .op("aten::flatten", 0, 4, KinetoTraceWriter::kMainThread, 10)
            .op("aten::linear", 0, 5, KinetoTraceWriter::kMainThread, 200)
            .op("autograd::engine::evaluate_function: AddmmBackward0", 0, 5, KinetoTraceWriter::kMainThread, 400)
            .op("autograd::engine::evaluate_function: ConvolutionBackward0", 0, 1, KinetoTraceWriter::kMainThread, 6000);
        const std::string path = writeTrace(dir, "cpu.json", w.text());
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path, &r);
        QCOMPARE(r.kind, std::string("CPU"));
        const Op& conv = m.op(*m.find("/conv/Conv"));
        QVERIFY(conv.measured(DeviceKind::Cpu) && !conv.measured(DeviceKind::Gpu));
        QCOMPARE(conv.time(DeviceKind::Cpu), 3000.0);
        QCOMPARE(m.op(*m.find("/fc/Gemm")).time(DeviceKind::Cpu), 200.0);
        QCOMPARE(m.op(*m.find("/conv/Conv/grad")).time(DeviceKind::Cpu), 6000.0);
        QCOMPARE(m.op(*m.find("/fc/Gemm/grad")).time(DeviceKind::Cpu), 400.0);
        QVERIFY(!m.op(*m.find("/relu/Relu/grad")).measured(DeviceKind::Cpu)); // the trace has none
    }

    // A forward-only GPU trace: "X/grad" = measured X x the estimated backward/forward ratio.
    void forwardOnlyTraceScalesTheBackward()
    {
        QTemporaryDir dir;
        KinetoTraceWriter w(KinetoLayout::PyTorch2);
        w.op("aten::conv2d", 300, 1)
            .op("aten::batch_norm", 100, 2)
            .op("aten::relu_", 50, 3)
            .op("aten::flatten", 0, 4)
            .op("aten::linear", 40, 5);
        const std::string path = writeTrace(dir, "fwd.json", w.text());
        const Graph m = applyMeasuredCosts(toyTrainingStep(), path);
        QCOMPARE(gpuUs(m, "/conv/Conv"), 300.0);
        QCOMPARE(gpuUs(m, "/conv/Conv/grad"), 600.0); // 300 x 2000 / 1000
        QVERIFY(gpuMeasured(m, "/conv/Conv/grad"));
    }

    void traceIsRecognisedAndRefusedAsAGraph()
    {
        KinetoTraceWriter w(KinetoLayout::PyTorch18);
        toyStep(w);
        QVERIFY(looksLikeProfilerTrace(w.text()));
        QVERIFY(looksLikeProfilerTrace(R"([{"name": "aten::conv2d", "ph": "X", "ts": 1, "dur": 2}])"));
        QVERIFY(!looksLikeProfilerTrace(R"({"format": "post-graph/1", "name": "traceEvents", "ops": []})"));
        QVERIFY(!looksLikeProfilerTrace(R"({"maxSizePerFPGA": 1, "nodes": []})"));
        QVERIFY(!looksLikeProfilerTrace("digraph g { a -> b }"));
        QTemporaryDir dir;
        const std::string path = writeTrace(dir, "resnet.pt.trace.json", w.text());
        QCOMPARE(QProcess::execute("gzip", {QString::fromStdString(path)}), 0);
        try {
            readGraphFile(path + ".gz");
            QFAIL("a trace was read as a graph");
        } catch (const InputError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("--costs " + path + ".gz") != std::string::npos, what.c_str());
        }
    }

    // The real V100 traces (PyTorch 1.8, ResNet-50 training, batch 32; README of shared/data).
    void v100TracesHaveSixSteadyStepsOfAboutAHundredMs()
    {
        for (const char* relative : kV100Traces) {
            REQUIRE_TRACE(path, relative);
            const KinetoTrace trace = parseKinetoTrace(readFileText(path), path);
            QCOMPARE(trace.layout, std::string("PyTorch 1.8"));
            QCOMPARE(trace.gpuName(), std::string("Tesla V100-DGXS-32GB"));
            const TraceSteps split = splitTraceSteps(trace);
            QCOMPARE(split.stepsFrom, std::string("ProfilerStep#N"));
            QCOMPARE(int(split.steps.size()), 6);
            QCOMPARE(split.unlaunchedGpuUs, 0.0); // every kernel found its operator
            for (const TraceStep& s : split.steps) {
                // The profiled step (CPU) takes 116-207 ms (data loading stalls it, README: about
                // 164-181 ms); the GPU runs 100-104 ms of kernels in a 117-158 ms busy span.
                const TraceOperator* range = nullptr;
                for (const TraceOperator& op : trace.operators)
                    if (op.name == s.name)
                        range = &op;
                QVERIFY(range && range->dur > 110'000 && range->dur < 210'000);
                QVERIFY2(s.gpuUs > 99'000 && s.gpuUs < 105'000, qPrintable(QString::number(s.gpuUs)));
                QVERIFY(s.gpuSpanUs >= s.gpuUs && s.gpuSpanUs < 160'000);
                double backward = 0.0;
                for (const StepOperator& op : s.ops)
                    backward += op.role == OperatorRole::Backward ? op.gpuUs : 0.0;
                QVERIFY(backward > 0.55 * s.gpuUs && backward < 0.7 * s.gpuUs); // backward ~ 2x forward
            }
        }
    }

    // Against the ResNet-50 training export: nearly all of the step's kernel time lands.
    void v100TracesMapOntoResNet50()
    {
        REQUIRE_EXPORT(model, "resnet50_train_b32.onnx");
        const Graph g = readGraphFile(model);
        for (const char* relative : kV100Traces) {
            REQUIRE_TRACE(path, relative);
            MeasuredCostsReport r;
            const Graph m = applyMeasuredCosts(g, path, &r);
            qInfo("%s: %s", relative, describeMeasuredCosts(r).c_str());
            QCOMPARE(r.kind, std::string("GPU"));
            QCOMPARE(r.forwardOps, 175);
            QCOMPARE(r.matched, 175);
            QCOMPARE(r.gpuName, std::string("Tesla V100-DGXS-32GB"));
            QCOMPARE(int(r.stepsUsed.size()), 5);
            QVERIFY(r.stepUs > 99'000 && r.stepUs < 105'000);
            // 95-96% lands; the rest is the input copy (1.8-2.9 ms) and the optimizer (2.0 ms),
            // which a training step built from the forward graph has no ops for.
            QVERIFY2(r.mappedUs > 0.94 * r.stepUs, describeMeasuredCosts(r).c_str());
            // Conv forward ~ a quarter of the step, every conv measured with a kernel.
            double convForward = 0.0, measuredTotal = 0.0;
            for (const Op& op : m.ops()) {
                if (op.measured(DeviceKind::Gpu))
                    measuredTotal += op.time(DeviceKind::Gpu);
                if (op.type == "Conv" && !std::string_view(op.name).ends_with("/grad")) {
                    QVERIFY2(op.measured(DeviceKind::Gpu) && op.time(DeviceKind::Gpu) > 20.0, op.name.c_str());
                    convForward += op.time(DeviceKind::Gpu);
                }
            }
            QVERIFY2(convForward > 15'000 && convForward < 30'000, qPrintable(QString::number(convForward)));
            // The per-op medians add up to the median step's mapped time (within 2%).
            QVERIFY2(std::abs(measuredTotal - r.mappedUs) < 0.02 * r.mappedUs,
                     qPrintable(QString::number(measuredTotal)));
        }
    }

    // The cost model alone against the traces' convolutions: the Winograd rule and the 2080 Ti's
    // sustained clock (docs/cost-model.md, "Winograd convolutions") put the forward ones within
    // 0.8-1.25x of the measured kernels on both GPUs (before them: 1.13x and 1.90x).
    void modelConvolutionsMatchTheTraces()
    {
        REQUIRE_EXPORT(r50, "resnet50_train_b32.onnx");
        REQUIRE_EXPORT(r18, "resnet18_train_b128.onnx");
        const QString source = qEnvironmentVariable("POST_SOURCE_DIR");
        if (source.isEmpty())
            QSKIP("POST_SOURCE_DIR is not set (run through ctest)");
        const struct {
            std::string model, trace, cluster;
        } runs[] = {{r50, kV100Traces[0], "v100x4-nvlink"},
                    {r50, kV100Traces[2], "v100x4-nvlink"},
                    {r18, "param/resnet_kineto.json.gz", source.toStdString() + "/bench/rtx2080ti.json"}};
        for (const auto& run : runs) {
            REQUIRE_TRACE(path, run.trace.c_str());
            const Graph g = readGraphFile(run.model);
            const Graph m = applyMeasuredCosts(g, path);
            const Cluster cluster = loadCluster(run.cluster);
            const Device& gpu = cluster.device(1);
            QVERIFY(gpu.kind == DeviceKind::Gpu);
            double model[2] = {0, 0}, measured[2] = {0, 0};
            for (OpId i = 0; i < g.opCount(); ++i) {
                const Op& op = g.op(i);
                if (op.type != "Conv" && op.type != "ConvGrad")
                    continue;
                const int backward = op.type == "ConvGrad" ? 1 : 0;
                QVERIFY(m.op(i).measured(DeviceKind::Gpu));
                model[backward] += opTimeUs(op, gpu);
                measured[backward] += m.op(i).time(DeviceKind::Gpu);
            }
            for (int b = 0; b < 2; ++b) {
                const double ratio = model[b] / measured[b];
                qInfo("%s, conv %s: model %.2f ms, measured %.2f ms, %.2fx", run.trace.c_str(), b ? "bwd" : "fwd",
                      model[b] / 1e3, measured[b] / 1e3, ratio);
                // Backward: 0.79-0.80x. cuDNN's backward kernels for the direct (1x1, strided) convolutions
                // run 2.2-5x their forward where the model has 2x (docs/cost-model.md, "Winograd
                // convolutions"): not modelled yet, so the bound is looser there.
                const double low = b ? 0.75 : 0.8;
                QVERIFY2(ratio > low && ratio < 1.25, qPrintable(QString::number(ratio)));
            }
        }
    }

    // The 2.x layout (param's ResNet-18 on an RTX 2080 Ti, batch 128, no ProfilerStep): its own
    // export matches; a ResNet-50 trace for ResNet-18 and the reverse are refused.
    void param2xTraceMatchesResNet18AndNotResNet50()
    {
        REQUIRE_TRACE(path, "param/resnet_kineto.json.gz");
        REQUIRE_EXPORT(r18, "resnet18_train_b128.onnx");
        const Graph g18 = readGraphFile(r18);
        MeasuredCostsReport r;
        const Graph m = applyMeasuredCosts(g18, path, &r);
        qInfo("resnet_kineto on ResNet-18: %s", describeMeasuredCosts(r).c_str());
        QCOMPARE(r.layout, std::string("PyTorch 2.x"));
        QCOMPARE(r.gpuName, std::string("NVIDIA GeForce RTX 2080 Ti"));
        QCOMPARE(r.stepsFrom, std::string("Optimizer.step"));
        QCOMPARE(r.steps, 30);
        QCOMPARE(r.matched, r.forwardOps);
        QVERIFY(r.stepUs > 140'000 && r.stepUs < 175'000);
        // The input copy (77 MB from pageable memory, ~22 ms a step) lands on the step's
        // MemcpyHtoD op: a copy to the GPU before the first layer.
        QVERIFY2(r.mappedUs > 0.95 * r.stepUs, describeMeasuredCosts(r).c_str());
        const Op* copy = nullptr;
        for (const Op& op : m.ops())
            copy = op.type == "MemcpyHtoD" ? &op : copy;
        QVERIFY(copy && copy->measured(DeviceKind::Gpu));
        QVERIFY2(copy->time(DeviceKind::Gpu) > 15'000 && copy->time(DeviceKind::Gpu) < 30'000,
                 qPrintable(QString::number(copy->time(DeviceKind::Gpu))));
        QVERIFY(m.op(*m.find("/conv1/Conv/grad")).measured(DeviceKind::Gpu));

        const std::string r50 = dir_r18.toStdString() + "/resnet50_train_b32.onnx";
        if (QFile::exists(QString::fromStdString(r50))) {
            const std::string why = refusal(readGraphFile(r50), path);
            QVERIFY2(why.find("not this model's") != std::string::npos, why.c_str());
        }
        const std::string v100 = shared_path.toStdString() + "/traces/" + kV100Traces[0];
        if (QFile::exists(QString::fromStdString(v100))) {
            const std::string why = refusal(g18, v100);
            QVERIFY2(why.find("of the step's GPU time") != std::string::npos, why.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestKinetoCosts)
#include "test_kineto_costs.moc"
