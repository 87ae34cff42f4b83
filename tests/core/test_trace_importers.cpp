// PyTorch execution traces and Chakra traces (docs/importers.md "PyTorch execution traces",
// "Chakra traces"): small traces written here for each rule, the real traces of
// ../shared/data read in place, the trace recorded by Debian's torch 1.13 in a set-up step, and
// the importer table against the docs.
#include "tests/support/TestData.h"

#include "core/cluster/Cluster.h"
#include "core/cost/OpTime.h"
#include "core/graph/CollectiveNames.h"
#include "core/graph/Placement.h"
#include "core/io/GraphFile.h"
#include "core/io/chakra/ChakraTrace.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/torch/ExecutionTrace.h"
#include "core/sim/CpuOrder.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/FileText.h"
#include "core/util/InputError.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace post;

namespace {

// A tensor argument of a small trace: [tensor id, storage id, offset, numel, itemsize, device].
struct T {
    int id;
    int storage;
    std::vector<int> shape;
    int itemsize = 4; // 2: bfloat16
};

struct N {
    int id;
    std::string name;
    int parent;
    bool op = true; // has an op_schema
    std::vector<T> in;
    std::vector<T> out;
};

// Strings are built with append(): GCC 12's -Wrestrict misfires on "literal" + std::string at -O3.
std::string tensorValue(const T& t)
{
    long long numel = 1;
    for (int d : t.shape)
        numel *= d;
    std::string v("[");
    v.append(std::to_string(t.id)).append(",").append(std::to_string(t.storage)).append(",0,");
    return v.append(std::to_string(numel)).append(",").append(std::to_string(t.itemsize)).append(",\"cpu\"]");
}

std::string shapeOf(const T& t)
{
    std::string s("[");
    for (std::size_t i = 0; i < t.shape.size(); ++i)
        s.append(i ? "," : "").append(std::to_string(t.shape[i]));
    return s.append("]");
}

std::string side(const std::vector<T>& ts)
{
    std::string v("["), s("["), y("[");
    for (std::size_t i = 0; i < ts.size(); ++i) {
        v.append(i ? "," : "").append(tensorValue(ts[i]));
        s.append(i ? "," : "").append(shapeOf(ts[i]));
        y.append(i ? "," : "").append(ts[i].itemsize == 2 ? "\"Tensor(c10::BFloat16)\"" : "\"Tensor(float)\"");
    }
    std::string out("{\"values\": ");
    return out.append(v).append("], \"shapes\": ").append(s).append("], \"types\": ").append(y).append("]}");
}

// A 1.1.x trace (ctrl_deps, inputs/outputs objects, attrs) of process 1 and thread 2 plus `nodes`.
std::string trace(const std::vector<N>& nodes, bool secondThread = false)
{
    std::vector<N> all = {{1, "[pytorch|profiler|execution_trace|process]", 1, false, {}, {}},
                          {2, "[pytorch|profiler|execution_trace|thread]", 1, false, {}, {}}};
    if (secondThread)
        all.push_back({900, "[pytorch|profiler|execution_trace|thread]", 1, false, {}, {}});
    all.insert(all.end(), nodes.begin(), nodes.end());
    std::string text("{\"schema\": \"1.1.0-chakra.0.0.4\", \"pid\": 1, \"nodes\": [");
    for (std::size_t i = 0; i < all.size(); ++i) {
        const N& n = all[i];
        text.append(i ? ",\n" : "\n").append("{\"id\": ").append(std::to_string(n.id));
        text.append(", \"name\": \"").append(n.name).append("\", \"ctrl_deps\": ").append(std::to_string(n.parent));
        text.append(", \"inputs\": ").append(side(n.in)).append(", \"outputs\": ").append(side(n.out));
        text.append(", \"attrs\": [{\"name\": \"rf_id\", \"type\": \"uint64\", \"value\": ");
        text.append(std::to_string(n.id * 10)).append("}, {\"name\": \"op_schema\", \"type\": \"string\", \"value\": \"");
        text.append(n.op ? n.name : std::string()).append(n.op ? "(...)" : "").append("\"}]}");
    }
    return text.append("]}");
}

ImportedGraph readEt(const std::string& text, ExecutionTraceReport* report = nullptr)
{
    return parseExecutionTrace(text, "small_et.json", {}, report);
}

// `text` with the first `from` replaced by `to` (a test's way to break a good trace).
std::string replaced(const std::string& text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    if (at == std::string::npos)
        qFatal("'%s' is not in the text", from.c_str());
    std::string out = text.substr(0, at);
    return out.append(to).append(text.substr(at + from.size()));
}

QString fmt(GraphFormat f) { return QString::fromUtf8(post::toString(f).data()); }
QString fmt(std::optional<GraphFormat> f) { return f ? fmt(*f) : QStringLiteral("none"); }

const Op* opOfType(const Graph& g, const std::string& type)
{
    for (const Op& op : g.ops())
        if (op.type == type)
            return &op;
    return nullptr;
}

// The op of that name; a test failure (not a crash) when there is none.
const Op* opNamed(const Graph& g, const std::string& name)
{
    const auto id = g.find(name);
    if (!id)
        qFatal("no op named '%s'", name.c_str());
    return &g.op(*id);
}

bool hasEdge(const Graph& g, const std::string& fromType, const std::string& toType, double* bytes = nullptr)
{
    for (const Edge& e : g.edges())
        if (g.op(e.from).type == fromType && g.op(e.to).type == toType) {
            if (bytes)
                *bytes = e.bytes;
            return true;
        }
    return false;
}

// Catches the InputError `f` throws; fails when it throws none.
InputError errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e;
    }
    return InputError("", "", "no error");
}

// `count` GPUs joined by links of `bytesPerUs` and `latencyUs`.
Cluster gpuCluster(int count, double bytesPerUs = 1000.0, double latencyUs = 2.0)
{
    std::vector<Device> devices;
    for (int i = 0; i < count; ++i) {
        Device d;
        d.name = "/device:GPU:" + std::to_string(i);
        devices.push_back(d);
    }
    return Cluster("gpus", devices, Link{bytesPerUs, latencyUs});
}

// The simulated step with every op on GPU 0, and the spans of its ops by name.
struct Step {
    double us = 0.0;
    std::map<std::string, std::pair<double, double>> spans;
};
Step stepOnGpu0(const Graph& g, const Cluster& c)
{
    Simulator sim(g, c);
    const SimResult& r = sim.run(Placement(static_cast<std::size_t>(g.opCount()), 0), true);
    Step step{r.stepTimeUs, {}};
    for (const OpSpan& s : r.timeline.ops)
        step.spans[g.op(s.op).name] = {s.startUs, s.endUs};
    return step;
}

// A GPU node of a Chakra JSON trace (NodeType 7: a collective; 4: compute), `more` members
// after its data_deps. A runtime < 0: none.
std::string chakraNode(int id, const std::string& name, int type, double runtime, const std::string& deps,
                       const std::string& more = "")
{
    std::string n("{\"Id\": ");
    n.append(std::to_string(id)).append(", \"Name\": \"").append(name).append("\", \"NodeType\": ");
    n.append(std::to_string(type)).append(", \"is_cpu_op\": false, \"data_deps\": [").append(deps).append("]");
    if (runtime >= 0)
        n.append(", \"runtime\": ").append(std::to_string(runtime));
    return n.append(more.empty() ? "" : ", ").append(more).append("}");
}

// A Chakra JSON trace of `nodes` (the elements of workload_graph), `top` more top-level members.
std::string chakraJson(const std::string& nodes, const std::string& top = "")
{
    std::string text("{");
    return text.append(top).append(top.empty() ? "" : ", ").append("\"workload_graph\": [").append(nodes).append("]}");
}

// Protobuf wire format, written by hand (not by the reader's generated code): varints,
// length-delimited fields. For .et files.
void varint(std::string& out, std::uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7F) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}
void key(std::string& out, int field, int wire) { varint(out, static_cast<std::uint64_t>(field << 3 | wire)); }
void bytesField(std::string& out, int field, const std::string& value)
{
    key(out, field, 2);
    varint(out, value.size());
    out += value;
}
void varintField(std::string& out, int field, std::uint64_t value)
{
    key(out, field, 0);
    varint(out, value);
}

struct EtNodeSpec {
    std::uint64_t id;
    std::string name;
    int type;
    std::uint64_t durationUs;
    bool cpu;
    std::vector<std::uint64_t> dataDeps;
    int commType = -1;
    std::string inputValues = {}, outputValues = {}; // IOInfo values, as the converter writes them (str(list))
};

// A Chakra .et file: GlobalMetadata{version}, then Node messages, each length-prefixed.
std::string etFile(const std::vector<EtNodeSpec>& nodes)
{
    std::string file, meta;
    bytesField(meta, 1, "0.0.4");
    varint(file, meta.size());
    file += meta;
    for (const EtNodeSpec& n : nodes) {
        std::string m;
        varintField(m, 1, n.id);
        bytesField(m, 2, n.name);
        varintField(m, 3, static_cast<std::uint64_t>(n.type));
        if (!n.dataDeps.empty()) { // packed repeated uint64
            std::string packed;
            for (std::uint64_t d : n.dataDeps)
                varint(packed, d);
            bytesField(m, 5, packed);
        }
        varintField(m, 7, n.durationUs);
        for (const auto& [field, values] : {std::pair{8, n.inputValues}, std::pair{9, n.outputValues}})
            if (!values.empty()) {
                std::string io;
                bytesField(io, 1, values); // IOInfo.values
                bytesField(m, field, io);
            }
        std::string attr;
        bytesField(attr, 1, "is_cpu_op");
        varintField(attr, 27, n.cpu ? 1 : 0); // bool_val
        bytesField(m, 10, attr);
        if (n.commType >= 0) {
            std::string comm;
            bytesField(comm, 1, "comm_type");
            varintField(comm, 9, static_cast<std::uint64_t>(n.commType)); // int64_val
            bytesField(m, 10, comm);
        }
        varint(file, m.size());
        file += m;
    }
    return file;
}

QString chakraDir()
{
    const QString dir = qEnvironmentVariable("POST_CHAKRA_DIR");
    return QFile::exists(dir + "/jsonData/chakra.0.json") ? dir : QString();
}

} // namespace

class TestTraceImporters : public QObject {
    Q_OBJECT

private slots:
    // --- PyTorch execution traces: one small trace per rule ---

    void viewsAreFoldedAndDataFlowsThroughThem()
    {
        ExecutionTraceReport r;
        const ImportedGraph g = readEt(trace({{3, "aten::relu", 2, true, {{1, 1, {2, 8}}}, {{2, 2, {2, 8}}}},
                                              {4, "aten::view", 2, true, {{2, 2, {2, 8}}}, {{3, 2, {16}}}},
                                              {5, "aten::empty", 2, true, {}, {{4, 4, {16}}}},
                                              {6, "aten::sigmoid", 2, true, {{3, 2, {16}}}, {{5, 5, {16}}}}}),
                                       &r);
        QCOMPARE(g.graph.opCount(), 2);
        QCOMPARE(r.foldedBookkeeping, 2);
        double bytes = 0.0;
        QVERIFY(hasEdge(g.graph, "aten::relu", "aten::sigmoid", &bytes));
        QCOMPARE(bytes, 16.0 * 4); // the view's shape, float32
        QCOMPARE(g.graph.edgeCount(), 1);
        QCOMPARE(fmt(g.format), fmt(GraphFormat::Auto)); // set by GraphFile, not by the reader
    }

    void nestedOperatorsAreCountedOnce()
    {
        ExecutionTraceReport r;
        const T x{1, 1, {1, 3, 8, 8}}, w{2, 2, {4, 3, 3, 3}}, y{3, 3, {1, 4, 8, 8}};
        const ImportedGraph g = readEt(trace({{3, "aten::conv2d", 2, true, {x, w}, {y}},
                                              {4, "aten::convolution", 3, true, {x, w}, {y}},
                                              {5, "aten::_convolution", 4, true, {x, w}, {y}},
                                              {6, "aten::cudnn_convolution", 5, true, {x, w}, {y}},
                                              {7, "aten::empty", 6, true, {}, {y}}}),
                                       &r);
        QCOMPARE(g.graph.opCount(), 1);
        QCOMPARE(r.nestedOps, 4);
        const Op& conv = g.graph.op(0);
        QCOMPARE(conv.type, std::string("aten::conv2d"));
        QCOMPARE(conv.name, std::string("forward/aten::conv2d#3"));
        QCOMPARE(conv.flops, 2.0 * (4 * 8 * 8) * (3 * 3 * 3)); // the ONNX Conv formula
        QVERIFY(conv.matrixOp);
        QVERIFY(conv.time(DeviceKind::Gpu) > 0.0);
        // The rf_ids of the op and of everything folded into it, for a Kineto trace.
        QCOMPARE(g.recordFunctionIds.size(), std::size_t(1));
        QCOMPARE(g.recordFunctionIds[0], (std::vector<std::uint64_t>{30, 40, 50, 60, 70}));
    }

    // Each op is costed as its kernels run (docs/importers.md, "Costs"), checked against an
    // H200's PyTorch 2.11 traces (docs/cost-model.md, "Fidelity against measured traces").
    void opsAreCostedAsTheirKernelsRun()
    {
        const T img{1, 1, {2, 3, 8, 8}}, w1{2, 2, {16, 3, 3, 3}}, a{3, 3, {2, 16, 8, 8}}, w2{4, 4, {16, 16, 3, 3}},
            b{5, 5, {2, 16, 8, 8}};
        // A linear layer under autocast: FP32 arguments, cast inside, the product in bfloat16.
        const T x{6, 6, {4, 64}}, w{7, 7, {64, 64}}, xh{8, 8, {4, 64}, 2}, wh{9, 9, {64, 64}, 2}, yh{10, 10, {4, 64}, 2};
        // Fused attention over [batch, heads, length, head size].
        const T q{11, 11, {2, 4, 16, 8}}, k{12, 12, {2, 4, 16, 8}}, v{13, 13, {2, 4, 16, 8}}, o{14, 14, {2, 4, 16, 8}};
        const ImportedGraph g = readEt(trace({{3, "aten::conv2d", 2, true, {img, w1}, {a}},
                                              {4, "aten::relu_", 2, true, {a}, {a}},
                                              {5, "aten::conv2d", 2, true, {a, w2}, {b}},
                                              {6, "aten::linear", 2, true, {x, w}, {yh}},
                                              {7, "aten::to", 6, true, {x}, {xh}},
                                              {8, "aten::to", 6, true, {w}, {wh}},
                                              {9, "aten::addmm", 6, true, {xh, wh}, {yh}},
                                              {10, "aten::scaled_dot_product_attention", 2, true, {q, k, v}, {o}}}));
        QCOMPARE(g.graph.opCount(), 5);
        const Op& first = *opNamed(g.graph, "forward/aten::conv2d#3");
        const Op& second = *opNamed(g.graph, "forward/aten::conv2d#5");
        // Convolutions are convolutions (TF32 under PyTorch's precision, where products stay
        // FP32); over 3 input channels cuDNN's FP32 kernel runs.
        QVERIFY(first.convolution && first.narrowConvolution);
        QVERIFY(second.convolution && !second.narrowConvolution);
        // An in-place element-wise op reads and writes its tensor once each, streaming.
        const Op& relu = *opNamed(g.graph, "forward/aten::relu_#4");
        QCOMPARE(relu.memoryBytes, 2.0 * (2 * 16 * 8 * 8) * 4);
        QVERIFY(relu.streaming && !first.streaming);
        // The product's element type is the nested kernel's, not the recorded arguments'.
        const Op& linear = *opNamed(g.graph, "forward/aten::linear#6");
        QVERIFY(linear.matrixOp);
        QCOMPARE(int(linear.precision), int(ElementPrecision::Half));
        QCOMPARE(int(first.precision), int(ElementPrecision::Fp32));
        // Attention: the two products and the softmax of ONNX's Attention, not an element-wise guess.
        const Op& attention = *opNamed(g.graph, "forward/aten::scaled_dot_product_attention#10");
        QVERIFY(attention.matrixOp);
        QCOMPARE(attention.flops, 2.0 * 2 * 16 * 16 * 32 + 8.0 * 2 * 4 * 16 * 16 + 2.0 * 2 * 16 * 16 * 32);
        QVERIFY(g.unknownOpTypes.empty());
    }

    // The hook for --costs: kernel times by rf_id (what a Kineto trace of the same run gives).
    void measuredTimesByRecordFunctionId()
    {
        const T x{1, 1, {1, 3, 8, 8}}, w{2, 2, {4, 3, 3, 3}}, y{3, 3, {1, 4, 8, 8}};
        const ImportedGraph g = readEt(trace({{3, "aten::conv2d", 2, true, {x, w}, {y}},
                                              {4, "aten::cudnn_convolution", 3, true, {x, w}, {y}},
                                              {5, "aten::relu", 2, true, {y}, {{4, 4, {1, 4, 8, 8}}}},
                                              {6, "aten::neg", 2, true, {y}, {{5, 5, {1, 4, 8, 8}}}}}));
        RecordFunctionTimes times;
        times.cpuUs = {{30, 12.0}, {40, 9.0}, {50, 3.0}, {60, 4.0}};
        times.gpuUs = {{40, 70.0}, {50, 5.0}, {999, 1.0}}; // the conv's kernel is launched by its nested operator
        int matched = 0;
        const Graph measured = applyRecordFunctionTimes(g, times, &matched);
        QCOMPARE(matched, 3);
        const Op& conv = measured.op(*measured.find("forward/aten::conv2d#3"));
        QCOMPARE(conv.time(DeviceKind::Gpu), 70.0);
        QVERIFY(conv.measured(DeviceKind::Gpu));
        // An operator that launched GPU work: its duration is the host's dispatch, not its time on
        // a CPU, so the CPU time stays the estimate.
        QVERIFY(!conv.measured(DeviceKind::Cpu));
        QCOMPARE(conv.time(DeviceKind::Cpu), g.graph.op(*g.graph.find("forward/aten::conv2d#3")).time(DeviceKind::Cpu));
        // One that launched none ran on the CPU: its own operator's duration is its CPU time.
        const Op& neg = measured.op(*measured.find("forward/aten::neg#6"));
        QVERIFY(!neg.measured(DeviceKind::Gpu) && neg.measured(DeviceKind::Cpu));
        QCOMPARE(neg.time(DeviceKind::Cpu), 4.0);
        QCOMPARE(neg.time(DeviceKind::Gpu), g.graph.op(*g.graph.find("forward/aten::neg#6")).time(DeviceKind::Gpu));
        QCOMPARE(measured.edgeCount(), g.graph.edgeCount());
    }

    void storagesLinkWritersToReaders()
    {
        // b = relu(a); b.add_(c) in place; d = sigmoid(b): d reads what add_ wrote last.
        const ImportedGraph g = readEt(trace({{3, "aten::relu", 2, true, {{1, 1, {4}}}, {{2, 2, {4}}}},
                                              {4, "aten::add_", 2, true, {{2, 2, {4}}, {5, 5, {4}}}, {{2, 2, {4}}}},
                                              {6, "aten::sigmoid", 2, true, {{2, 2, {4}}}, {{7, 7, {4}}}},
                                              // storage id 0: the tensor id links (tensor 8 written, then read)
                                              {7, "aten::neg", 2, true, {{7, 7, {4}}}, {{8, 0, {4}}}},
                                              {8, "aten::exp", 2, true, {{8, 0, {4}}}, {{9, 9, {4}}}}}));
        QCOMPARE(g.graph.opCount(), 5);
        QVERIFY(hasEdge(g.graph, "aten::relu", "aten::add_"));
        QVERIFY(hasEdge(g.graph, "aten::add_", "aten::sigmoid"));
        QVERIFY(!hasEdge(g.graph, "aten::relu", "aten::sigmoid")); // add_ wrote it since
        QVERIFY(hasEdge(g.graph, "aten::neg", "aten::exp"));
        QCOMPARE(g.graph.edgeCount(), 4);
    }

    void phasesAreToldApart()
    {
        ExecutionTraceReport r;
        const T w{1, 1, {8, 8}}, x{2, 2, {4, 8}}, y{3, 3, {4, 8}}, gy{4, 4, {4, 8}}, gw{5, 5, {8, 8}};
        const ImportedGraph g = readEt(trace({{3, "aten::mm", 2, true, {x, w}, {y}},
                                              {4, "autograd::engine::evaluate_function: MmBackward0", 2, false, {}, {}},
                                              {5, "MmBackward0", 4, false, {}, {}},
                                              {6, "aten::mm", 5, true, {y, x}, {gw}},
                                              {7, "Optimizer.step#SGD.step", 2, false, {}, {}},
                                              {8, "aten::add_", 7, true, {w, gw}, {w}},
                                              // The second thread is an autograd thread: backward without the label.
                                              {901, "aten::copy_", 900, true, {gy, y}, {gy}}},
                                             true),
                                       &r);
        QCOMPARE(r.forwardOps, 1);
        QCOMPARE(r.backwardOps, 2);
        QCOMPARE(r.optimizerOps, 1);
        QVERIFY(g.graph.find("backward/aten::mm#6"));
        QVERIFY(g.graph.find("optimizer/aten::add_#8"));
        QVERIFY(g.graph.find("backward/aten::copy_#901"));
        // w: read by the forward pass, updated by the optimizer: a parameter of its first reader.
        QCOMPARE(g.graph.op(*g.graph.find("forward/aten::mm#3")).paramBytes, 8.0 * 8 * 4);
        QCOMPARE(g.graph.totalParamBytes(), 8.0 * 8 * 4);
        QVERIFY(hasEdge(g.graph, "aten::mm", "aten::add_")); // the weight gradient
    }

    void theLastProfilerStepIsRead()
    {
        ExecutionTraceReport r;
        const ImportedGraph g = readEt(trace({{3, "ProfilerStep#1", 2, false, {}, {}},
                                              {4, "aten::relu", 3, true, {{1, 1, {4}}}, {{2, 2, {4}}}},
                                              {5, "ProfilerStep#2", 2, false, {}, {}},
                                              {6, "aten::relu", 5, true, {{1, 1, {4}}}, {{3, 3, {4}}}},
                                              {7, "aten::tanh", 5, true, {{3, 3, {4}}}, {{4, 4, {4}}}},
                                              {910, "aten::neg", 900, true, {{4, 4, {4}}}, {{5, 5, {4}}}},
                                              {920, "aten::neg", 900, true, {{4, 4, {4}}}, {{5, 5, {4}}}}},
                                             true),
                                       &r);
        // Step 2 spans ids 5..7: the autograd thread's nodes 910 and 920 come after it.
        QCOMPARE(r.profilerSteps, 2);
        QCOMPARE(r.step, std::string("ProfilerStep#2"));
        QCOMPARE(g.graph.opCount(), 2);
        QVERIFY(g.graph.find("forward/aten::relu#6"));
        QVERIFY(!g.graph.find("forward/aten::relu#4"));
        QVERIFY(g.notes.front().find("ProfilerStep#2 (the last of 2 profiler steps)") != std::string::npos);
    }

    void maybeAliasOperatorsFoldUnlessTheyCopy()
    {
        ExecutionTraceReport r;
        const ImportedGraph g = readEt(trace({{3, "aten::relu", 2, true, {{1, 1, {4}}}, {{2, 2, {4}}}},
                                              {4, "aten::to", 2, true, {{2, 2, {4}}}, {{2, 2, {4}}}}, // returns self
                                              {5, "aten::contiguous", 2, true, {{2, 2, {4}}}, {{3, 3, {4}}}}, // a fresh copy
                                              {6, "aten::reshape", 2, true, {{3, 3, {4}}}, {{4, 3, {2, 2}}}},
                                              {7, "aten::view", 6, true, {{3, 3, {4}}}, {{4, 3, {2, 2}}}},
                                              {8, "aten::tanh", 2, true, {{4, 3, {2, 2}}}, {{5, 5, {2, 2}}}}}),
                                       &r);
        QCOMPARE(g.graph.opCount(), 3); // relu, contiguous (a copy), tanh
        QVERIFY(opOfType(g.graph, "aten::contiguous"));
        QVERIFY(!opOfType(g.graph, "aten::to"));
        QVERIFY(hasEdge(g.graph, "aten::relu", "aten::contiguous"));
        QVERIFY(hasEdge(g.graph, "aten::contiguous", "aten::tanh"));
        QCOMPARE(r.foldedBookkeeping, 3); // to, reshape and its view
    }

    void theOldLayoutReadsToo()
    {
        // Schema 1.0.1 (torch 1.13 to 2.0): parent, inputs as an array, input_shapes, input_types.
        const std::string text = R"json({"schema": "1.0.1", "nodes": [
            {"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 0, "parent": 1, "op_schema": "",
             "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
            {"name": "aten::relu", "id": 3, "rf_id": 1, "parent": 2, "op_schema": "aten::relu(Tensor self) -> Tensor",
             "inputs": [[1,1,0,4,4,"cpu"]], "input_shapes": [[4]], "input_types": ["Tensor(float)"],
             "outputs": [[2,2,0,4,4,"cpu"]], "output_shapes": [[4]], "output_types": ["Tensor(float)"]},
            {"name": "aten::neg", "id": 4, "rf_id": 2, "parent": 2, "op_schema": "aten::neg(Tensor self) -> Tensor",
             "inputs": [[2,2,0,4,4,"cpu"]], "input_shapes": [[4]], "input_types": ["Tensor(float)"],
             "outputs": [[3,3,0,4,4,"cpu"]], "output_shapes": [[4]], "output_types": ["Tensor(float)"]}]})json";
        const ImportedGraph g = parseGraphWithPlacement(text, "old_et.json");
        QCOMPARE(fmt(g.format), fmt(GraphFormat::TorchEt));
        QCOMPARE(g.graph.opCount(), 2);
        QVERIFY(hasEdge(g.graph, "aten::relu", "aten::neg"));
        QCOMPARE(g.recordFunctionIds[1], (std::vector<std::uint64_t>{2}));
    }

    // An integer list of five or more looks like a tensor's [id, storage, offset, numel,
    // itemsize]; its recorded type says it is none (torchvision's Swin-T, PyTorch 2.11: a reshape
    // to [2048, 49, 3, 3, 32] was refused, "the shape of a tensor must be a list of integer
    // dimensions").
    void integerListsAreNoTensors()
    {
        const std::string text = R"json({"schema": "1.1.1-chakra.0.0.4", "nodes": [
            {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "rf_id": 0, "ctrl_deps": 1,
             "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}},
            {"name": "aten::relu", "id": 3, "rf_id": 1, "ctrl_deps": 2, "op_schema": "aten::relu(Tensor self) -> Tensor",
             "inputs": {"values": [[1,1,0,4,4,"cpu"]], "shapes": [[4]], "types": ["Tensor(float)"]},
             "outputs": {"values": [[2,2,0,4,4,"cpu"]], "shapes": [[4]], "types": ["Tensor(float)"]}},
            {"name": "aten::reshape", "id": 4, "rf_id": 2, "ctrl_deps": 2,
             "op_schema": "aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
             "inputs": {"values": [[2,2,0,4,4,"cpu"], [1, 1, 2, 2, 1]], "shapes": [[4], [[], [], [], [], []]],
                        "types": ["Tensor(float)", "GenericList[Int,Int,Int,Int,Int]"]},
             "outputs": {"values": [[3,2,0,4,4,"cpu"]], "shapes": [[1,1,2,2,1]], "types": ["Tensor(float)"]}},
            {"name": "aten::neg", "id": 5, "rf_id": 3, "ctrl_deps": 2, "op_schema": "aten::neg(Tensor self) -> Tensor",
             "inputs": {"values": [[3,2,0,4,4,"cpu"]], "shapes": [[1,1,2,2,1]], "types": ["Tensor(float)"]},
             "outputs": {"values": [[4,4,0,4,4,"cpu"]], "shapes": [[1,1,2,2,1]], "types": ["Tensor(float)"]}}]})json";
        const ImportedGraph g = parseGraphWithPlacement(text, "swin_et.json");
        QCOMPARE(g.graph.opCount(), 2); // relu and neg; the reshape is a view
        QVERIFY(hasEdge(g.graph, "aten::relu", "aten::neg"));
    }

    // Operators of torchvision's EfficientNet, MobileNets, Inception-V3 and Swin-T recorded on
    // the H200 (docs/cost-model.md) that had no rule and took the element-wise fallback with a
    // note: SiLU and the hard activations (one pass, as a sigmoid), dropout's backward, the
    // pads, rolls, index copies, the new_* fills, comparisons and masking.
    void recordedOperatorsHaveRules()
    {
        const ImportedGraph g = readEt(
            trace({{3, "aten::silu_", 2, true, {{1, 1, {4}}}, {{1, 1, {4}}}},
                   {4, "aten::hardswish", 2, true, {{1, 1, {4}}}, {{2, 2, {4}}}},
                   {5, "aten::native_dropout_backward", 2, true, {{2, 2, {4}}, {3, 3, {4}}}, {{4, 4, {4}}}},
                   {6, "aten::constant_pad_nd", 2, true, {{4, 4, {4}}}, {{5, 5, {6}}}},
                   {7, "aten::roll", 2, true, {{5, 5, {6}}}, {{6, 6, {6}}}},
                   {8, "aten::new_zeros", 2, true, {{6, 6, {6}}}, {{7, 7, {6}}}},
                   {9, "aten::eq", 2, true, {{7, 7, {6}}}, {{8, 8, {6}}}},
                   {10, "aten::masked_fill", 2, true, {{7, 7, {6}}, {8, 8, {6}}}, {{9, 9, {6}}}},
                   {11, "aten::hardswish_backward", 2, true, {{9, 9, {6}}, {7, 7, {6}}}, {{10, 10, {6}}}},
                   {12, "aten::hardsigmoid_backward", 2, true, {{10, 10, {6}}, {7, 7, {6}}}, {{11, 11, {6}}}}}));
        QCOMPARE(g.graph.opCount(), 10);
        QVERIFY2(g.unknownOpTypes.empty(),
                 g.unknownOpTypes.empty() ? "" : g.unknownOpTypes.front().first.c_str()); // the first without a rule
        for (const Op& op : g.graph.ops())
            QVERIFY2(op.memoryBytes > 0.0, op.name.c_str());
    }

    void wrongTracesNameTheField_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("message");
        const std::string good = trace({{3, "aten::relu", 2, true, {{1, 1, {4}}}, {{2, 2, {4}}}}});
        QTest::newRow("truncated") << QString::fromStdString(good.substr(0, good.size() / 2)) << "line"
                                   << "syntax error";
        const std::string noName = replaced(good, "\"name\": \"aten::relu\", ", "");
        QTest::newRow("missing name") << QString::fromStdString(noName) << "nodes[2].name"
                                      << "missing";
        const std::string shapes = replaced(good, "\"shapes\": [[4]]", "\"shapes\": []");
        QTest::newRow("shapes not parallel") << QString::fromStdString(shapes) << "nodes[2].inputs"
                                             << "1 values but 0 shapes";
        const std::string tensor = replaced(good, "[1,1,0,4,4,\"cpu\"]", "[1,1,0,\"4\",4,\"cpu\"]");
        QTest::newRow("bad tensor") << QString::fromStdString(tensor) << "nodes[2].inputs.values[0]"
                                    << "not an integer";
        const std::string ids = replaced(good, "\"id\": 3", "\"id\": 2");
        QTest::newRow("duplicate id") << QString::fromStdString(ids) << "nodes[2].id"
                                      << "earlier node";
        // The process node under the relu, under the thread, under the process: no root reaches
        // them (the fuzzer's case, tests/data/fuzz-regressions/pytorch-et/parent-cycle-through-step.json,
        // had a ProfilerStep in such a cycle, and reading its subtree never ended).
        const std::string cycle = replaced(good, "\"ctrl_deps\": 1,", "\"ctrl_deps\": 3,");
        QTest::newRow("parents in a cycle") << QString::fromStdString(cycle) << "nodes[0].ctrl_deps"
                                            << "parents form a cycle";
        QTest::newRow("no nodes") << R"({"schema": "1.0.1", "nodes": []})"
                                  << "nodes"
                                  << "no nodes";
        QTest::newRow("only views") << QString::fromStdString(
            trace({{3, "aten::view", 2, true, {{1, 1, {4}}}, {{2, 1, {2, 2}}}}}))
                                    << "nodes"
                                    << "computes anything";
        // A node that is no object is named by its index among all the nodes.
        const std::string scalar = replaced(good, ",\n{\"id\": 2", ",\n7,\n{\"id\": 2");
        QTest::newRow("node not an object") << QString::fromStdString(scalar) << "nodes[1]"
                                            << "must be an object";
        QTest::newRow("schema not a string") << R"({"schema": 1, "nodes": [{}]})"
                                             << "schema"
                                             << "string";
    }

    void wrongTracesNameTheField()
    {
        QFETCH(QString, text);
        QFETCH(QString, location);
        QFETCH(QString, message);
        const InputError e = errorOf([&] { parseGraph(text.toStdString(), "bad_et.json", GraphFormat::TorchEt); });
        QCOMPARE(e.file(), std::string("bad_et.json"));
        QVERIFY2(QString::fromStdString(e.location()).contains(location), e.what());
        QVERIFY2(QString::fromStdString(e.message()).contains(message), e.what());
    }

    // Every prefix of a small trace either reads or fails with InputError (never a crash).
    void everyPrefixReadsOrFailsCleanly()
    {
        const std::string good = trace({{3, "aten::relu", 2, true, {{1, 1, {4}}}, {{2, 2, {4}}}},
                                        {4, "aten::neg", 2, true, {{2, 2, {4}}}, {{3, 3, {4}}}}});
        for (std::size_t n = 0; n < good.size(); n += 7)
            try {
                parseExecutionTrace(good.substr(0, n), "prefix.json", {});
            } catch (const InputError&) {
            }
        const std::string et = etFile({{1, "a", 4, 10, false, {}}, {2, "b", 4, 10, false, {1}}});
        for (std::size_t n = 0; n < et.size(); ++n)
            try {
                parseChakraEt(et.substr(0, n), "prefix.et", {});
            } catch (const InputError&) {
            }
    }

    // --- the real traces in ../shared/data/traces/param, read in place (gzip) ---

    void realResnetTrace()
    {
        REQUIRE_SHARED_DATA(dir);
        const std::string path = (dir + "/traces/param/resnet_et.json.gz").toStdString();
        QCOMPARE(fmt(readGraphFileWithPlacement(path).format), fmt(GraphFormat::TorchEt)); // sniffed through gzip
        ExecutionTraceReport r;
        ImportOptions options;
        std::vector<double> progress;
        options.progress = [&](std::string_view, double fraction) { progress.push_back(fraction); };
        const ImportedGraph g = parseExecutionTrace(readFileText(path), path, options, &r);
        QCOMPARE(r.traceNodes, 14392);
        QCOMPARE(r.schema, std::string("1.1.0-chakra.0.0.4"));
        QCOMPARE(r.profilerSteps, 3);
        QCOMPARE(r.step, std::string("ProfilerStep#8"));
        // ResNet-50 under DDP, one step: 53 convolutions, 53 batch norms, 49 ReLUs, the head;
        // DDP's bucket copies; 53 + 53 + 49 backward kernels, AccumulateGrad's, allreduces;
        // SGD's foreach updates.
        QCOMPARE(r.forwardOps, 392);
        QCOMPARE(r.backwardOps, 507);
        QCOMPARE(r.optimizerOps, 3);
        QCOMPARE(r.collectiveOps, 7);
        QCOMPARE(g.graph.opCount(), 902);
        int convs = 0, convBackward = 0, batchNorms = 0;
        for (const Op& op : g.graph.ops()) {
            convs += op.type == "aten::conv2d";
            convBackward += op.type == "aten::convolution_backward";
            batchNorms += op.type == "aten::batch_norm";
        }
        QCOMPARE(convs, 53);
        QCOMPARE(convBackward, 53);
        QCOMPARE(batchNorms, 53);
        // Batch 32 at 224x224: ResNet-50 is 4.1 G multiply-adds an image, 262 GFLOP a batch; the
        // backward pass about twice that; 25.6 M float parameters.
        QVERIFY2(r.forwardFlops > 240e9 && r.forwardFlops < 290e9, qPrintable(QString::number(r.forwardFlops)));
        QVERIFY2(r.totalFlops > 2.7 * r.forwardFlops && r.totalFlops < 3.3 * r.forwardFlops,
                 qPrintable(QString::number(r.totalFlops / r.forwardFlops)));
        QVERIFY2(g.graph.totalParamBytes() > 100e6 && g.graph.totalParamBytes() < 104e6,
                 qPrintable(QString::number(g.graph.totalParamBytes())));
        QCOMPARE(g.forwardFlops, r.forwardFlops);
        QCOMPARE(g.recordFunctionIds.size(), std::size_t(902));
        QVERIFY(!progress.empty() && progress.back() == 1.0);
        QVERIFY(std::is_sorted(progress.begin(), progress.end()));
        // DDP's 7 all-reduces and broadcasts: collectives of the graph, not one pass over their tensors.
        QCOMPARE(r.collectiveOps, 7);
        QCOMPARE(r.graphCollectives, 7);
        QVERIFY(g.warnings.empty());
    }

    void realLinearTrace()
    {
        REQUIRE_SHARED_DATA(dir);
        const std::string path = (dir + "/traces/param/linear_et.json.gz").toStdString();
        ExecutionTraceReport r;
        const ImportedGraph g = parseExecutionTrace(readFileText(path), path, {}, &r);
        QCOMPARE(r.schema, std::string("1.0.1"));
        QCOMPARE(r.profilerSteps, 0);
        QCOMPARE(g.graph.opCount(), r.forwardOps + r.backwardOps + r.optimizerOps);
        QVERIFY(r.forwardOps > 0 && r.backwardOps > 0 && r.optimizerOps > 0);
        QVERIFY(opOfType(g.graph, "aten::linear"));
    }

    // --- the trace Debian's torch 1.13 records in the set-up step (fixtures/record-torch-trace) ---

    void recordedTorch113Trace()
    {
        const QString file = qEnvironmentVariable("POST_TORCH_TRACE_DIR") + "/tiny_et.json";
        if (!QFile::exists(file))
            QSKIP("no trace recorded (python3-torch missing? see fixtures/record-torch-trace's output)");
        ExecutionTraceReport r;
        const ImportedGraph g = parseExecutionTrace(readFileText(file.toStdString()), file.toStdString(), {}, &r);
        QCOMPARE(r.schema, std::string("1.0.1"));
        // Conv2d(3, 8, 3, padding 1) on [4, 3, 8, 8]: 4 x 8 x 8 x 8 outputs, 27 multiply-adds each,
        // plus the bias; its backward computes the input and the weight gradients (no bias).
        const Op* conv = opOfType(g.graph, "aten::conv2d");
        QVERIFY(conv);
        QCOMPARE(conv->flops, 2.0 * (4 * 8 * 8 * 8) * 27 + (4 * 8 * 8 * 8));
        const Op* convBackward = opOfType(g.graph, "aten::convolution_backward");
        QVERIFY(convBackward);
        QCOMPARE(convBackward->flops, 2.0 * 2.0 * (4 * 8 * 8 * 8) * 27);
        QVERIFY(hasEdge(g.graph, "aten::conv2d", "aten::batch_norm"));
        QVERIFY(hasEdge(g.graph, "aten::batch_norm", "aten::relu"));
        QVERIFY(r.backwardOps >= 5);
        QVERIFY(r.optimizerOps >= 4); // SGD with momentum: one update per parameter at least
        // Conv (8x3x3x3 + 8), BatchNorm (8 + 8), Linear (10x512 + 10) parameters.
        QCOMPARE(g.graph.totalParamBytes(), 4.0 * (8 * 27 + 8 + 8 + 8 + 10 * 512 + 10));
    }

    // --- Chakra traces ---

    void realChakraJson()
    {
        const QString dir = chakraDir();
        if (dir.isEmpty())
            QSKIP("no Chakra trace extracted (../shared/data absent? see fixtures/extract-chakra)");
        ChakraReport r;
        const std::string path = (dir + "/jsonData/chakra.0.json").toStdString();
        QCOMPARE(fmt(readGraphFileWithPlacement(path).format), fmt(GraphFormat::ChakraJson));
        const ImportedGraph g = parseChakraJson(readFileText(path), path, {}, &r);
        QCOMPARE(g.graph.opCount(), 3664);
        QCOMPARE(r.collectives, 21);
        QCOMPARE(r.cpuOps, 2448);
        QCOMPARE(r.gpuOps, 1216);
        QCOMPARE(r.dataDeps, 181878);
        QCOMPARE(g.graph.edgeCount(), 181878); // no data dependency is listed twice
        QCOMPARE(r.withoutRuntime, 157);
        // Node 216 "aten::flatten_dense_tensors(0)": a CPU operator of 318 us.
        const Op& first = g.graph.op(*g.graph.find("aten::flatten_dense_tensors(0) #216"));
        QCOMPARE(first.time(DeviceKind::Cpu), 318.0);
        QVERIFY(first.measured(DeviceKind::Cpu));
        QVERIFY(first.cpuOnly);
        QCOMPARE(first.type, std::string("aten::flatten_dense_tensors"));
        int allReduces = 0, broadcasts = 0;
        for (const Op& op : g.graph.ops()) {
            allReduces += op.type == "AllReduce";
            broadcasts += op.type == "Broadcast";
        }
        QCOMPARE(allReduces + broadcasts, 21);
        QCOMPARE(broadcasts, 6);
        // The NCCL kernels (5 all-reduces, 2 broadcasts) are collectives of the graph, of their
        // measured runtime; the 14 host-side c10d calls are CPU operators.
        QCOMPARE(r.gpuCollectives, 7);
        QCOMPARE(r.modelledCollectives, 0);
        int marked = 0;
        for (const Op& op : g.graph.ops())
            marked += op.isCollective() && op.measured(DeviceKind::Gpu) && !op.cpuOnly;
        QCOMPARE(marked, 7);
        QCOMPARE(r.cpuUs, 52252.0);
        QCOMPARE(r.gpuUs, 329543.0);
    }

    // The ready-order part of the bound (core/sim/CpuOrder.h) on the real step, 2,448 CPU
    // operators on one CPU: in every run tried (random placements, and each placement a climb
    // of single-op moves keeps, from the GPUs in turn), each op starts after the CPU work said
    // to come before it and the step ends no sooner than the work said to come after it, and
    // no step is below the bound. On this step that part gives the bound (docs/results.md).
    void realChakraReadyOrderHolds()
    {
        const QString dir = chakraDir();
        if (dir.isEmpty())
            QSKIP("no Chakra trace extracted (../shared/data absent? see fixtures/extract-chakra)");
        const std::string path = (dir + "/jsonData/chakra.0.json").toStdString();
        const Graph graph = parseChakraJson(readFileText(path), path, {}, nullptr).graph;
        const Cluster cluster = loadCluster("v100x4-nvlink");
        const LowerBound bound = lowerBound(graph, cluster);
        QCOMPARE(std::string(bound.source()), std::string("ready-order"));
        QVERIFY(bound.readyOrderUs > bound.windowsUs * 1.05); // 78.4 ms against 73.4
        std::vector<double> fastest(static_cast<size_t>(graph.opCount()), 0.0);
        for (OpId op = 0; op < graph.opCount(); ++op) {
            double least = std::numeric_limits<double>::infinity();
            for (DeviceId d = 0; d < cluster.deviceCount(); ++d)
                if (!graph.isCpuPinned(op) || cluster.device(d).kind == DeviceKind::Cpu)
                    least = std::min(least,
                                     graph.op(op).isCollective() ? 0.0 : opTimeUs(graph.op(op), cluster.device(d)));
            fastest[static_cast<size_t>(op)] = least;
        }
        const CpuOrderWork work = cpuOrderWork(graph, cluster, {}, fastest);
        QCOMPARE(work.beforeUs.size(), static_cast<size_t>(graph.opCount()));
        Simulator simulator(graph, cluster);
        double best = std::numeric_limits<double>::infinity();
        // The step, or -1 where an op breaks what the CPU order says, -2 below the bound.
        auto check = [&](const Placement& placement) -> double {
            const SimResult& run = simulator.run(placement, true);
            for (const OpSpan& span : run.timeline.ops) {
                const auto op = static_cast<size_t>(span.op);
                if (span.startUs < work.beforeUs[op] - 1e-6 || run.stepTimeUs < span.endUs + work.afterUs[op] - 1e-6)
                    return -1.0;
            }
            if (run.stepTimeUs < bound.valueUs() * (1 - 1e-9))
                return -2.0;
            best = std::min(best, run.stepTimeUs);
            return run.stepTimeUs;
        };
        std::mt19937 rng(7);
        Placement placement(static_cast<size_t>(graph.opCount()));
        for (int round = 0; round < 20; ++round) {
            for (OpId op = 0; op < graph.opCount(); ++op)
                placement[static_cast<size_t>(op)] = static_cast<DeviceId>(
                    std::uniform_int_distribution<int>(0, cluster.deviceCount() - 1)(rng));
            applyCpuPinning(graph, cluster, placement);
            QVERIFY2(check(placement) > 0.0, qPrintable(QString("random placement %1").arg(round)));
        }
        for (OpId op = 0; op < graph.opCount(); ++op)
            placement[static_cast<size_t>(op)] = static_cast<DeviceId>(1 + op % (cluster.deviceCount() - 1));
        applyCpuPinning(graph, cluster, placement);
        double current = check(placement);
        QVERIFY(current > 0.0);
        for (int move = 0; move < 400; ++move) {
            const auto op = static_cast<size_t>(std::uniform_int_distribution<int>(0, graph.opCount() - 1)(rng));
            if (graph.isCpuPinned(static_cast<OpId>(op)))
                continue;
            const DeviceId was = placement[op];
            placement[op] = static_cast<DeviceId>(std::uniform_int_distribution<int>(0, cluster.deviceCount() - 1)(rng));
            const double step = check(placement);
            QVERIFY2(step > 0.0, qPrintable(QString("climb move %1").arg(move)));
            if (step < current)
                current = step;
            else
                placement[op] = was;
        }
        std::printf("ready order on the Chakra step: bound %.3f ms (device windows %.3f), best run tried %.3f ms\n",
                    bound.valueUs() / 1000.0, bound.windowsUs / 1000.0, best / 1000.0);
    }

    void realChakraJsonAsEt()
    {
        const QString dir = chakraDir();
        if (dir.isEmpty())
            QSKIP("no Chakra trace extracted (../shared/data absent? see fixtures/extract-chakra)");
        // The same trace in the protobuf form, written with this test's own encoder.
        QFile file(dir + "/jsonData/chakra.0.json");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray nodes = QJsonDocument::fromJson(file.readAll()).object()["workload_graph"].toArray();
        std::vector<EtNodeSpec> specs;
        for (const QJsonValue& v : nodes) {
            const QJsonObject o = v.toObject();
            EtNodeSpec s{static_cast<std::uint64_t>(o["Id"].toInteger()),
                         o["Name"].toString().toStdString(),
                         o["NodeType"].toInt(),
                         static_cast<std::uint64_t>(o["runtime"].toInteger()),
                         o["is_cpu_op"].toBool(),
                         {}};
            for (const QJsonValue& d : o["data_deps"].toArray())
                s.dataDeps.push_back(static_cast<std::uint64_t>(d.toInteger()));
            specs.push_back(std::move(s));
        }
        const std::string et = etFile(specs);
        QCOMPARE(fmt(sniffGraphFormat(et, "chakra.0.et")), fmt(GraphFormat::ChakraEt));
        QCOMPARE(fmt(sniffGraphFormat(et, "no-extension")), fmt(GraphFormat::ChakraEt));
        ChakraReport r;
        const ImportedGraph g = parseChakraEt(et, "chakra.0.et", {}, &r);
        QCOMPARE(g.graph.opCount(), 3664);
        QCOMPARE(g.graph.edgeCount(), 181878);
        QCOMPARE(r.collectives, 21);
        QCOMPARE(r.cpuOps, 2448);
        QCOMPARE(r.gpuUs, 329543.0);
    }

    void smallEtWithCommTypes()
    {
        const std::string et = etFile({{10, "load", 4, 5, true, {}},
                                       {11, "gemm", 4, 40, false, {10}},
                                       {12, "allreduce grads", 7, 100, false, {11}, 0},
                                       {13, "step", 4, 7, false, {12}}});
        ChakraReport r;
        const ImportedGraph g = parseGraphWithPlacement(et, "step.et");
        QCOMPARE(fmt(g.format), fmt(GraphFormat::ChakraEt));
        QCOMPARE(g.graph.opCount(), 4);
        QCOMPARE(g.graph.edgeCount(), 3);
        const Op& coll = g.graph.op(*g.graph.find("allreduce grads"));
        QCOMPARE(coll.type, std::string("AllReduce")); // from comm_type 0
        QCOMPARE(coll.time(DeviceKind::Gpu), 100.0);
        QVERIFY(coll.measured(DeviceKind::Gpu));
        QCOMPARE(coll.time(DeviceKind::Cpu), 100.0 * ImportOptions{}.cpuSlowdown); // an estimate
        QVERIFY(!coll.measured(DeviceKind::Cpu));
        QVERIFY(g.graph.op(*g.graph.find("load")).cpuOnly);
    }

    void etTensorSizesBecomeEdgeBytes()
    {
        // PyTorch's [tensor_id, storage_id, offset, numel, itemsize, device] per tensor, as
        // str(list): the conv reads the input (storage 7) and its weight; the relu reads the
        // conv's output (storage 9) through a view; the step reads a list of tensors.
        const std::string et = etFile(
            {{1, "load", 4, 5, false, {}, -1, "", "[[3, 7, 0, 602112, 4, 'cuda:0']]"},
             {2, "weights", 4, 1, false, {}, -1, "", "[[4, 8, 0, 9408, 4, 'cuda:0']]"},
             {3,
              "conv",
              4,
              40,
              false,
              {1, 2},
              -1,
              "[[3, 7, 0, 602112, 4, 'cuda:0'], [4, 8, 0, 9408, 4, 'cuda:0'], None, [2, 2], [3, 3], False, 1]",
              "[[5, 9, 0, 802816, 4, 'cuda:0']]"},
             {4, "relu", 4, 10, false, {3}, -1, "[[6, 9, 0, 802816, 4, 'cuda:0']]", "[[6, 9, 0, 802816, 4, 'cuda:0']]"},
             {5, "step", 4, 3, false, {4, 2}, -1, "[[[6, 9, 0, 802816, 4, 'cuda:0'], [4, 8, 0, 9408, 2, 'cuda:0']], 0.1]", ""},
             {6, "unsized", 4, 3, false, {5}, -1, "[[1, 2, 3", ""}});
        ChakraReport r;
        const ImportedGraph g = parseChakraEt(et, "sized.et", {}, &r);
        const auto bytes = [&](const char* from, const char* to) {
            for (EdgeId e : g.graph.outEdges(*g.graph.find(from)))
                if (g.graph.op(g.graph.edge(e).to).name == to)
                    return g.graph.edge(e).bytes;
            return -1.0;
        };
        QCOMPARE(bytes("load", "conv"), 602112.0 * 4);
        QCOMPARE(bytes("weights", "conv"), 9408.0 * 4);
        QCOMPARE(bytes("conv", "relu"), 802816.0 * 4); // a view of the conv's output storage
        QCOMPARE(bytes("relu", "step"), 802816.0 * 4); // inside a list of tensors
        QCOMPARE(bytes("weights", "step"), 9408.0 * 2);
        QCOMPARE(bytes("step", "unsized"), 0.0); // values that are no literal: no bytes
        QCOMPARE(r.sizedDataDeps, 5);
        QCOMPARE(r.dataDeps, 6);
        QVERIFY2(g.notes.front().find("5 of 6 data dependencies carry the sizes") != std::string::npos,
                 g.notes.front().c_str());
        // The JSON form takes the same values, as text or as a list.
        const std::string json = R"({"workload_graph": [
            {"Id": 1, "Name": "a", "NodeType": 4, "data_deps": [], "outputs": {"values": "[[1, 5, 0, 100, 2, 'cuda:0']]"}},
            {"Id": 2, "Name": "b", "NodeType": 4, "data_deps": [1], "inputs": {"values": [[1, 5, 0, 100, 2, "cuda:0"]]}}]})";
        const ImportedGraph j = parseChakraJson(json, "sized.json", {});
        QCOMPARE(j.graph.edge(j.graph.outEdges(*j.graph.find("a")).front()).bytes, 200.0);
    }

    // Chakra's, c10d's and NCCL's collective names give one kind by one table (longest prefix
    // of the lower-cased letters first).
    void collectiveNamesGiveTheirKind()
    {
        const std::pair<const char*, CollectiveKind> cases[] = {{"AllReduce", CollectiveKind::AllReduce},
                                                                {"allreduce_", CollectiveKind::AllReduce},
                                                                {"ReduceScatterBlock", CollectiveKind::ReduceScatter},
                                                                {"_reduce_scatter_base_", CollectiveKind::ReduceScatter},
                                                                {"Reduce", CollectiveKind::Reduce},
                                                                {"_allgather_base_", CollectiveKind::AllGather},
                                                                {"Gather", CollectiveKind::Gather},
                                                                {"AllToAll", CollectiveKind::AllToAll},
                                                                {"broadcast_", CollectiveKind::Broadcast},
                                                                {"Barrier", CollectiveKind::Barrier},
                                                                {"Scatter", CollectiveKind::Scatter},
                                                                {"send", CollectiveKind::None},
                                                                {"", CollectiveKind::None}};
        for (const auto& [name, kind] : cases)
            QVERIFY2(collectiveKindOfLetters(name) == kind, name);
    }

    // A GPU collective runs on its device's communication channel: independent compute
    // overlaps it (the step is the longer of the two, not their sum), a dependency still orders
    // it, and its measured runtime is its time whatever the links.
    void chakraCollectivesOverlapCompute()
    {
        const std::string nccl = "ncclKernel_AllReduce_RING_LL_Sum_float";
        const std::string gemm = chakraNode(1, "gemm", 4, 100, "");
        ChakraReport r;
        const ImportedGraph overlap = parseChakraJson(chakraJson(gemm + ", " + chakraNode(2, nccl, 7, 80, "")),
                                                      "overlap.json", {}, &r);
        const Op& coll = overlap.graph.op(*overlap.graph.find(nccl));
        QCOMPARE(coll.collective, CollectiveKind::AllReduce);
        QVERIFY(coll.measured(DeviceKind::Gpu));
        QCOMPARE(r.gpuCollectives, 1);
        QCOMPARE(r.modelledCollectives, 0);
        const bool noted = std::any_of(overlap.notes.begin(), overlap.notes.end(), [](const std::string& n) {
            return n.find("1 GPU collective(s) run on their device's communication channel") != std::string::npos
                && n.find("1 by their measured runtime") != std::string::npos;
        });
        QVERIFY2(noted, overlap.notes.back().c_str());
        for (const Cluster& c : {gpuCluster(1), gpuCluster(4, 1.0, 500.0)}) { // the links do not matter
            const Step step = stepOnGpu0(overlap.graph, c);
            QCOMPARE(step.us, 100.0); // max(100, 80), not 180
            QCOMPARE(step.spans.at(nccl), std::make_pair(0.0, 80.0));
            // The bounds share out the compute queue only: still below the step.
            QVERIFY2(lowerBound(overlap.graph, c).valueUs() <= step.us,
                     std::to_string(lowerBound(overlap.graph, c).valueUs()).c_str());
        }
        // The collective reduces what the gemm computed: one after the other.
        const ImportedGraph chain = parseChakraJson(chakraJson(gemm + ", " + chakraNode(2, nccl, 7, 80, "1")),
                                                    "chain.json", {});
        QCOMPARE(stepOnGpu0(chain.graph, gpuCluster(2)).us, 180.0);
        // Compute that reads the collective's result waits for it, and the device's compute;
        // two collectives share the channel one at a time.
        const ImportedGraph mixed = parseChakraJson(
            chakraJson(gemm + ", " + chakraNode(2, nccl, 7, 80, "") + ", " + chakraNode(3, "update", 4, 10, "2") + ", "
                       + chakraNode(4, "ncclKernel_Broadcast_RING_LL", 7, 30, "")),
            "mixed.json", {});
        const Step step = stepOnGpu0(mixed.graph, gpuCluster(2));
        QCOMPARE(step.spans.at("update"), std::make_pair(100.0, 110.0));
        QCOMPARE(step.spans.at("ncclKernel_Broadcast_RING_LL"), std::make_pair(80.0, 110.0));
        QCOMPARE(step.us, 110.0);
    }

    // Without a runtime, a collective takes the ring model's time over the cluster's links:
    // steps x latency + factor x bytes / bandwidth, for the trace's ranks or the cluster's GPUs.
    void chakraCollectivesWithoutRuntimeFollowTheRingModel()
    {
        const auto node = [](const std::string& name, const std::string& more) {
            return chakraNode(1, name, 7, -1, "", more);
        };
        const Cluster four = gpuCluster(4, 1000.0, 2.0); // n = 4, B = 1000 B/us, L = 2 us
        ChakraReport r;
        const ImportedGraph allReduce = parseChakraJson(
            chakraJson(node("ncclKernel_AllReduce", "\"comm_size\": 1000000")), "ar.json", {}, &r);
        QCOMPARE(r.modelledCollectives, 1);
        QCOMPARE(r.withoutRuntime, 0); // not "takes 0 us"
        QVERIFY(allReduce.warnings.empty());
        QVERIFY2(allReduce.notes.back().find("the cluster's GPUs as ranks") != std::string::npos,
                 allReduce.notes.back().c_str());
        QCOMPARE(allReduce.graph.op(0).collectiveBytes, 1e6);
        QCOMPARE(stepOnGpu0(allReduce.graph, four).us, 2 * 3 * 2.0 + 2.0 * 3 / 4 * 1e6 / 1000); // 1512
        // The trace's "ngpus": 8 ranks.
        const ImportedGraph eight = parseChakraJson(
            chakraJson(node("ncclKernel_AllReduce", "\"comm_size\": 1000000"), "\"ngpus\": 8"), "ar8.json", {});
        QVERIFY(eight.notes.back().find("for 8 ranks") != std::string::npos);
        QCOMPARE(stepOnGpu0(eight.graph, four).us, 2 * 7 * 2.0 + 2.0 * 7 / 8 * 1e6 / 1000); // 1778
        // All-gather by comm_type 2, broadcast by name; bytes from the tensors where comm_size is absent.
        const ImportedGraph gather = parseChakraJson(
            chakraJson(node("coll", "\"comm_type\": 2, \"comm_size\": 1000000")), "ag.json", {});
        QCOMPARE(stepOnGpu0(gather.graph, four).us, 3 * 2.0 + 3.0 / 4 * 1e6 / 1000); // 756
        const ImportedGraph broadcast = parseChakraJson(
            chakraJson(node("ncclKernel_Broadcast", "\"inputs\": {\"values\": \"[[1, 5, 0, 250000, 4, 'cuda:0']]\"}")),
            "bc.json", {});
        QCOMPARE(broadcast.graph.op(0).collectiveBytes, 1e6);
        QCOMPARE(stepOnGpu0(broadcast.graph, four).us, 3 * 2.0 + 1e6 / 1000); // 1006
        // One GPU: no peer, nothing to move.
        QCOMPARE(stepOnGpu0(allReduce.graph, gpuCluster(1)).us, 0.0);
        // On a CPU beside two GPUs: still a collective of the cluster's 2 GPUs, over the CPU's
        // links (not one of a single rank, free): 2 x 2 + 1 x 1e6 / 1000.
        std::vector<Device> devices = {gpuCluster(2).device(0), gpuCluster(2).device(1), Device{}};
        devices[2].name = "/device:CPU:0";
        devices[2].kind = DeviceKind::Cpu;
        const Cluster withCpu("gpus and a cpu", devices, Link{1000.0, 2.0});
        Simulator onCpu(allReduce.graph, withCpu);
        QCOMPARE(onCpu.run({2}).stepTimeUs, 1004.0);
        QCOMPARE(onCpu.run({0}).stepTimeUs, 1004.0);
        // The lower bound's critical path counts the model's time.
        QCOMPARE(lowerBound(allReduce.graph, four).criticalPathUs, 1512.0);
    }

    // c10d collectives of an execution trace: collectives of the graph, timed by the ring
    // model for the bytes they write, overlapping independent compute.
    void etCollectivesOverlapCompute()
    {
        const T a{1, 1, {64, 64}}, b{2, 2, {64, 64}}, c{3, 3, {64, 64}}, x{4, 4, {256, 256}}, y{5, 5, {256, 256}};
        ExecutionTraceReport r;
        const ImportedGraph g = readEt(trace({{3, "aten::mm", 2, true, {a, b}, {c}},
                                              {4, "c10d::allreduce_", 2, true, {c}, {}},
                                              {5, "aten::relu", 2, true, {x}, {y}}}),
                                       &r);
        QCOMPARE(r.graphCollectives, 1);
        const Op& coll = *opOfType(g.graph, "c10d::allreduce_");
        QCOMPARE(coll.collective, CollectiveKind::AllReduce);
        QCOMPARE(coll.collectiveBytes, 64.0 * 64 * 4);
        QCOMPARE(coll.time(DeviceKind::Gpu), 0.0); // no roofline: the ring model
        QVERIFY(hasEdge(g.graph, "aten::mm", "c10d::allreduce_"));
        QVERIFY(std::any_of(g.notes.begin(), g.notes.end(), [](const std::string& n) {
            return n.find("1 collective(s) (c10d all-reduce, broadcast, ...) run on their device's communication")
                != std::string::npos;
        }));
        const Cluster four = gpuCluster(4, 100.0, 2.0);
        const Step step = stepOnGpu0(g.graph, four);
        const auto span = [&](const std::string& type) { return step.spans.at(opOfType(g.graph, type)->name); };
        const double ring = 2 * 3 * 2.0 + 1.5 * 64 * 64 * 4 / 100.0;
        QCOMPARE(span("c10d::allreduce_").second - span("c10d::allreduce_").first, ring);
        const double mm = span("aten::mm").second, relu = span("aten::relu").second - span("aten::relu").first;
        QCOMPARE(span("c10d::allreduce_").first, mm); // after its producer
        QCOMPARE(step.us, mm + std::max(relu, ring)); // beside the relu, not after it
    }

    void wrongChakraTracesNameTheNode()
    {
        const std::string et = etFile({{1, "a", 4, 10, false, {}}, {2, "b", 4, 10, false, {1}}});
        InputError e = errorOf([&] { parseChakraEt(et.substr(0, et.size() - 3), "cut.et", {}); });
        QCOMPARE(e.file(), std::string("cut.et"));
        QVERIFY2(e.location().starts_with("node 2 (byte "), e.what());
        QVERIFY2(e.message().find("truncated") != std::string::npos, e.what());
        e = errorOf([&] { parseGraph("\x01\x02\x03 not a trace", "x.et"); });
        QVERIFY2(e.message().find("GlobalMetadata") != std::string::npos, e.what());
        // A name that is not UTF-8: the reader names the node (protobuf logs nothing).
        e = errorOf([&] { parseChakraEt(etFile({{1, "a\xff", 4, 1, false, {}}}), "latin1.et", {}); });
        QVERIFY2(e.location().starts_with("node 1 (byte "), e.what());
        QVERIFY2(e.message().find("not valid UTF-8") != std::string::npos, e.what());
        e = errorOf([&] { parseChakraEt(etFile({{1, "a", 4, 1, false, {7}}}), "dangling.et", {}); });
        QVERIFY2(e.location() == "node 1 (byte 8).data_deps", e.what());
        QVERIFY2(e.message().find("node 7, which the trace does not have") != std::string::npos, e.what());
        const std::string json = R"({"workload_graph": [{"Id": 1, "Name": "a", "NodeType": 4, "data_deps": [2]},
                                                          {"Id": 2, "NodeType": 4, "data_deps": []}]})";
        e = errorOf([&] { parseGraph(json, "c.json"); });
        QVERIFY2(e.location().find("workload_graph[1].Name") != std::string::npos, e.what());
        const std::string cyclic = R"({"workload_graph": [{"Id": 1, "Name": "a", "NodeType": 4, "data_deps": [2]},
                                                            {"Id": 2, "Name": "b", "NodeType": 4, "data_deps": [1]}]})";
        e = errorOf([&] { parseGraph(cyclic, "c.json"); });
        QVERIFY2(e.message().find("cycle") != std::string::npos, e.what());
    }

    void smallChakraDropsDanglingControlDependencies()
    {
        const QString dir = chakraDir();
        if (dir.isEmpty())
            QSKIP("no Chakra trace extracted");
        ChakraReport r;
        const std::string path = (dir + "/jsonData/small_chakra.0.json").toStdString();
        const ImportedGraph g = parseChakraJson(readFileText(path), path, {}, &r);
        QCOMPARE(g.graph.opCount(), 7);
        QCOMPARE(r.droppedCtrlDeps, 7); // "ctrlDeps": [3] and [429]: nodes the excerpt does not have
        QCOMPARE(g.warnings.size(), std::size_t(1));
    }

    // --- the importer table ---

    void everyRowHasItsDocsSection()
    {
        QFile file(testdata::sourceDir() + "/docs/importers.md");
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString docs = QString::fromUtf8(file.readAll());
        std::set<std::string> names;
        for (const ImporterRow& row : importerTable()) {
            const QString name = QString::fromUtf8(toString(row.format).data());
            QVERIFY2(names.insert(std::string(toString(row.format))).second, qPrintable(name + " twice"));
            QVERIFY2(docs.contains("<a id=\"" + QString::fromUtf8(row.docsAnchor.data(), row.docsAnchor.size()) + "\">"),
                     qPrintable(name + ": no anchor " + QString::fromUtf8(row.docsAnchor.data())));
            QVERIFY2(docs.contains("| `" + name + "` |"), qPrintable(name + " is not in the docs' format table"));
            QCOMPARE(fmt(parseGraphFormat(toString(row.format))), fmt(row.format));
            QVERIFY(!row.extensions.empty());
        }
    }

    void newFormatsAreSniffed_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("format");
        QTest::newRow("et") << QByteArray(R"({"schema": "1.0.1", "pid": 1, "nodes": [)") << "x.json"
                            << "pytorch-et";
        QTest::newRow("chakra json") << QByteArray(R"({"workload_graph": [)") << "x.json"
                                     << "chakra-json";
        QTest::newRow("kineto 2.x") << QByteArray(R"({"schemaVersion": 1, "traceEvents": [)") << "x.json"
                                    << "kineto";
        QTest::newRow("kineto 1.x array") << QByteArray(R"([{"ph": "X", "ts": 1, "name": "a"}])") << "x.json"
                                          << "kineto";
        QTest::newRow("text .et by name") << QByteArray("hello") << "x.et"
                                          << "chakra-et";
    }

    void newFormatsAreSniffed()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, path);
        QFETCH(QString, format);
        QCOMPARE(QString::fromUtf8(toString(sniffGraphFormat(content.toStdString(), path.toStdString())).data()), format);
    }

    void aKinetoTraceIsRefusedWithAHint()
    {
        const InputError e = errorOf([] { parseGraph(R"({"traceEvents": []})", "run.pt.trace.json"); });
        QCOMPARE(e.file(), std::string("run.pt.trace.json"));
        QVERIFY2(e.message().find("--costs") != std::string::npos, e.what());
        const InputError other = errorOf([] { parseGraph(R"({"a": 1})", "x.json"); });
        QVERIFY2(other.message().find("PyTorch execution trace (") != std::string::npos, other.what());
    }
};

QTEST_APPLESS_MAIN(TestTraceImporters)
#include "test_trace_importers.moc"
