#include "tests/support/ShapedGraphs.h"

#include "core/classic/PlacerDevices.h"
#include "core/cluster/Cluster.h"
#include "core/cost/CostModel.h"
#include "core/cost/HostDispatch.h"
#include "core/cost/OpTime.h"
#include "core/graph/GraphBuilder.h"
#include "core/io/native/ClusterFile.h"
#include "core/io/native/ClusterPresets.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/io/torch/AtenOps.h"
#include "core/sim/LowerBound.h"
#include "core/sim/Simulator.h"
#include "core/util/InputError.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <map>

using namespace post;

namespace {

using testgraphs::Shaped;

// A one-op graph: inputs and outputs given as shapes (parameters marked by `params`).
OpCost costOf(const std::string& type, std::vector<std::vector<std::int64_t>> inputs,
              std::vector<std::vector<std::int64_t>> outputs, std::map<std::string, std::vector<std::int64_t>> attrs = {})
{
    Shaped s;
    std::vector<int> in, out;
    for (size_t i = 0; i < inputs.size(); ++i)
        in.push_back(s.tensor("in" + std::to_string(i), inputs[i]));
    for (size_t i = 0; i < outputs.size(); ++i)
        out.push_back(s.tensor("out" + std::to_string(i), outputs[i]));
    s.op("op", type, in, out).intAttrs = std::move(attrs);
    return s.cost();
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

template <typename F> InputError inputErrorOf(F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e;
    }
    return InputError("", "", "no InputError thrown");
}

Device specDevice(const std::string& name, double tflops, double gbps)
{
    Device d{name, DeviceKind::Gpu, 1.0};
    d.peakFlops = tflops * 1e12;
    d.memoryBandwidth = gbps * 1e9;
    return d;
}

} // namespace

class TestCostModel : public QObject {
    Q_OBJECT

private slots:
    // TensorFlow's gradient and optimizer ops (a training step as TF wrote it) have formulas.
    void tfGradientAndOptimizerOps()
    {
        // Conv2DBackpropFilter: input [8, 16, 16, 3], filter_sizes, out_backprop [8, 16, 16, 32]
        // -> filter gradient [3, 3, 3, 32]: 2 x dy elements x (3 x 3 x 3).
        OpCost c = costOf("Conv2DBackpropFilter", {{8, 16, 16, 3}, {4}, {8, 16, 16, 32}}, {{3, 3, 3, 32}});
        QVERIFY(c.known);
        QCOMPARE(c.flops, 2.0 * 8 * 16 * 16 * 32 * 27);
        // MaxPoolGrad 2x2 windows over a [8, 8, 8, 16] gradient.
        c = costOf("MaxPoolGrad", {{8, 16, 16, 16}, {8, 8, 8, 16}, {8, 8, 8, 16}}, {{8, 16, 16, 16}},
                   {{"ksize", {1, 2, 2, 1}}});
        QCOMPARE(c.flops, 4.0 * 8 * 8 * 8 * 16);
        // Optimizers and activation gradients count per element of input 0, even where TF
        // gives their outputs no shape.
        QCOMPARE(costOf("ApplyMomentum", {{1000}, {}, {}, {1000}, {}}, {{-1}}).flops, 4.0 * 1000);
        QCOMPARE(costOf("ApplyAdam", {{1000}, {1000}, {1000}}, {{-1}}).flops, 12.0 * 1000);
        QCOMPARE(costOf("ReluGrad", {{64, 10}, {64, 10}}, {{-1}}).flops, 640.0);
        QCOMPARE(costOf("BiasAddGrad", {{64, 10}}, {{10}}).flops, 630.0);
        QCOMPARE(costOf("FusedBatchNormGradV3", {{8, 4, 4, 16}, {8, 4, 4, 16}, {16}}, {{8, 4, 4, 16}}).flops,
                 8.0 * 8 * 4 * 4 * 16);
        QVERIFY(costOf("DepthwiseConv2dNativeBackpropInput", {{4}, {3, 3, 8, 1}, {2, 8, 8, 8}}, {{2, 8, 8, 8}}).known);
        QCOMPARE(costOf("DepthwiseConv2dNativeBackpropInput", {{4}, {3, 3, 8, 1}, {2, 8, 8, 8}}, {{2, 8, 8, 8}}).flops,
                 2.0 * 2 * 8 * 8 * 8 * 9);
    }

    // ---- FLOPs and bytes per op type, by hand ----

    void convolution3x3()
    {
        // X [1,3,8,8] * W [4,3,3,3] + B [4], pads 1 -> Y [1,4,8,8]: 256 outputs x 27 MACs x 2,
        // plus one bias add per output.
        const std::map<std::string, std::vector<std::int64_t>> pads{{"pads", {1, 1, 1, 1}}};
        OpCost c = costOf("Conv", {{1, 3, 8, 8}, {4, 3, 3, 3}, {4}}, {{1, 4, 8, 8}}, pads);
        QCOMPARE(c.flops, 2.0 * 256 * 27 + 256);
        QCOMPARE(c.bytesRead, (192.0 + 108 + 4) * 4);
        QCOMPARE(c.bytesWritten, 256.0 * 4);
        QVERIFY(c.known);
        // Without an output shape the output size comes from the attributes.
        QCOMPARE(costOf("Conv", {{1, 3, 8, 8}, {4, 3, 3, 3}, {4}}, {{}}, pads).flops, 2.0 * 256 * 27 + 256);
        // Stride 2: floor((8 + 2 - 2 - 1) / 2) + 1 = 4, so 4 x 4 x 4 = 64 outputs.
        QCOMPARE(
            costOf("Conv", {{1, 3, 8, 8}, {4, 3, 3, 3}, {4}}, {{}}, {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}).flops,
            2.0 * 64 * 27 + 64);
        // kernel_shape attribute wins over a weight of unknown shape.
        QCOMPARE(costOf("Conv", {{1, 3, 8, 8}, {4, 3, -1, -1}}, {{1, 4, 8, 8}}, {{"kernel_shape", {3, 3}}}).flops,
                 2.0 * 256 * 27);
        // Grouped: 2 groups of 2 input channels -> 18 MACs per output.
        QCOMPARE(costOf("Conv", {{1, 4, 8, 8}, {4, 2, 3, 3}}, {{1, 4, 8, 8}}, {{"group", {2}}}).flops, 2.0 * 256 * 18);
        // An unknown batch dimension counts as 1.
        QCOMPARE(costOf("Conv", {{-1, 3, 8, 8}, {4, 3, 3, 3}}, {{-1, 4, 8, 8}}).flops, 2.0 * 256 * 27);
    }

    void tensorflowConvolutions()
    {
        // NHWC input, filter [3,3,3,4]: the same 256 outputs x 27 MACs.
        QCOMPARE(costOf("Conv2D", {{1, 8, 8, 3}, {3, 3, 3, 4}}, {{1, 8, 8, 4}}).flops, 2.0 * 256 * 27);
        // No output shape: SAME padding, stride 2 -> 4 x 4 x 4 outputs.
        QCOMPARE(costOf("Conv2D", {{1, 8, 8, 3}, {3, 3, 3, 4}}, {{}}, {{"strides", {1, 2, 2, 1}}}).flops, 2.0 * 64 * 27);
        // Depthwise, multiplier 2: 6 output channels, 9 MACs each.
        QCOMPARE(costOf("DepthwiseConv2dNative", {{1, 8, 8, 3}, {3, 3, 3, 2}}, {{1, 8, 8, 6}}).flops, 2.0 * 384 * 9);
        // Transposed (ONNX): each of the 1x2x4x4 inputs scatters into 3 channels x 9 taps.
        QCOMPARE(costOf("ConvTranspose", {{1, 2, 4, 4}, {2, 3, 3, 3}}, {{1, 3, 9, 9}}).flops, 2.0 * 32 * 27);
        // Transposed (TF): out_backprop [1,4,4,2], filter [3,3,3,2] -> each scatters into 27.
        QCOMPARE(costOf("Conv2DBackpropInput", {{4}, {3, 3, 3, 2}, {1, 4, 4, 2}}, {{1, 9, 9, 3}}).flops, 2.0 * 32 * 27);
    }

    void matrixProducts()
    {
        // Gemm A [2,3] x B^T (B [4,3]) + C [4]: 8 outputs x 3 MACs x 2 + 8 adds.
        OpCost c = costOf("Gemm", {{2, 3}, {4, 3}, {4}}, {{2, 4}}, {{"transB", {1}}});
        QCOMPARE(c.flops, 2.0 * 8 * 3 + 8);
        QCOMPARE(c.bytesRead, (6.0 + 12 + 4) * 4);
        QCOMPARE(c.bytesWritten, 8.0 * 4);
        // Without the output shape: transA makes A [3,2] mean M = 2, K = 3.
        QCOMPARE(costOf("Gemm", {{3, 2}, {3, 4}}, {{}}, {{"transA", {1}}}).flops, 2.0 * 8 * 3);
        // Batched MatMul with a broadcast B: 5 x 2 x 4 outputs, K = 3.
        QCOMPARE(costOf("MatMul", {{5, 2, 3}, {3, 4}}, {{5, 2, 4}}).flops, 2.0 * 40 * 3);
        QCOMPARE(costOf("MatMul", {{5, 2, 3}, {3, 4}}, {{}}).flops, 2.0 * 40 * 3);
        // TF MatMul with transpose_a: A [3,2] -> K = 3.
        QCOMPARE(costOf("MatMul", {{3, 2}, {3, 4}}, {{2, 4}}, {{"transpose_a", {1}}}).flops, 2.0 * 8 * 3);
        // BatchMatMulV2 with adj_y: B [7,4,3] -> K = 3.
        QCOMPARE(costOf("BatchMatMulV2", {{7, 2, 3}, {7, 4, 3}}, {{7, 2, 4}}, {{"adj_y", {1}}}).flops, 2.0 * 56 * 3);
    }

    void normalisationAndSoftmax()
    {
        // BatchNormalization over 2x3x4x4 = 96 elements: 8 FLOPs each (batch statistics).
        OpCost bn = costOf("BatchNormalization", {{2, 3, 4, 4}, {3}, {3}, {3}, {3}}, {{2, 3, 4, 4}});
        QCOMPARE(bn.flops, 8.0 * 96);
        QCOMPARE(bn.bytesRead, (96.0 + 4 * 3) * 4);
        QCOMPARE(bn.bytesWritten, 96.0 * 4);
        QCOMPARE(costOf("FusedBatchNormV3", {{2, 4, 4, 3}, {3}, {3}, {3}, {3}}, {{2, 4, 4, 3}, {3}, {3}}).flops,
                 8.0 * 96);
        QCOMPARE(costOf("LayerNormalization", {{2, 5, 8}, {8}, {8}}, {{2, 5, 8}}).flops, 8.0 * 80);
        // Softmax over [2,5]: max, subtract, exp (4), sum, divide = 8 per element.
        QCOMPARE(costOf("Softmax", {{2, 5}}, {{2, 5}}).flops, 80.0);
        QCOMPARE(costOf("LogSoftmax", {{2, 5}}, {{2, 5}}).flops, 80.0);
    }

    void recurrentLayers()
    {
        // ONNX LSTM: S=5, B=2, I=3, H=4, one direction, bias given. Per step and batch element:
        // gates 2 x 4H x (I + H) = 224, cell 28H = 112, two biases 2 x 4H = 32 -> 368.
        OpCost lstm = costOf("LSTM", {{5, 2, 3}, {1, 16, 3}, {1, 16, 4}, {1, 32}}, {{5, 1, 2, 4}},
                             {{"hidden_size", {4}}});
        QCOMPARE(lstm.flops, 5.0 * 2 * 368);
        // Bidirectional without bias, H from R: 2 directions x (224 + 112).
        QCOMPARE(costOf("LSTM", {{5, 2, 3}, {2, 16, 3}, {2, 16, 4}}, {{}}).flops, 5.0 * 2 * 2 * 336);
        // layout = 1: X is [B, S, I] -> the same work.
        QCOMPARE(costOf("LSTM", {{2, 5, 3}, {1, 16, 3}, {1, 16, 4}, {1, 32}}, {{}}, {{"layout", {1}}}).flops,
                 5.0 * 2 * 368);
        // GRU: 2 x 3H x (I + H) = 168, cell 20H = 80.
        QCOMPARE(costOf("GRU", {{5, 2, 3}, {1, 12, 3}, {1, 12, 4}}, {{}}).flops, 5.0 * 2 * (168 + 80));
        // TF LSTMBlockCell: x [2,3], w [7,16] -> H = 4, I = 3: 224 + 112 per batch element.
        QCOMPARE(costOf("LSTMBlockCell", {{2, 3}, {2, 4}, {2, 4}, {7, 16}, {4}, {4}, {4}, {16}}, {{2, 4}}).flops,
                 2.0 * 336);
    }

    void attention()
    {
        // MultiHeadAttention: Q [1,4,8], K [1,6,8], V [1,6,8], 2 heads:
        // scores 2*4*6*8 = 384, softmax 8*2*4*6 = 384, context 2*4*6*8 = 384.
        QCOMPARE(costOf("MultiHeadAttention", {{1, 4, 8}, {1, 6, 8}, {1, 6, 8}}, {{1, 4, 8}}, {{"num_heads", {2}}}).flops,
                 1152.0);
        // com.microsoft Attention: input [1,4,8] x weights [8,24] (+ bias) then attention over S = 4:
        // projection 2*4*8*24 = 1536, bias 96, scores 2*4*4*8 = 256, softmax 8*2*4*4 = 256, context 256.
        QCOMPARE(costOf("Attention", {{1, 4, 8}, {8, 24}, {24}}, {{1, 4, 8}}, {{"num_heads", {2}}}).flops,
                 1536.0 + 96 + 256 + 256 + 256);
    }

    void elementwisePoolingAndMovement()
    {
        QCOMPARE(costOf("Add", {{2, 3}, {3}}, {{2, 3}}).flops, 6.0); // broadcast: per output element
        QCOMPARE(costOf("Sigmoid", {{10}}, {{10}}).flops, 40.0);     // transcendental: 4
        QCOMPARE(costOf("Gelu", {{10}}, {{10}}).flops, 80.0);
        // 2x2 max pooling of a 4x4 map: 4 outputs x 4 compares.
        QCOMPARE(costOf("MaxPool", {{1, 1, 4, 4}}, {{1, 1, 2, 2}}, {{"kernel_shape", {2, 2}}}).flops, 16.0);
        QCOMPARE(costOf("AvgPool", {{1, 4, 4, 1}}, {{1, 2, 2, 1}}, {{"ksize", {1, 2, 2, 1}}}).flops, 16.0);
        // Global pooling / reduction: inputs folded into outputs, 18 - 2.
        QCOMPARE(costOf("GlobalAveragePool", {{1, 2, 3, 3}}, {{1, 2, 1, 1}}).flops, 16.0);
        QCOMPARE(costOf("Mean", {{1, 3, 3, 2}, {2}}, {{1, 2}}).flops, 18.0);
        // Embedding lookup: bytes only, the indices and the gathered rows, not the whole table.
        Shaped s;
        const int table = s.tensor("table", {1000, 64}, true);
        const int ids = s.tensor("ids", {8}, false, 8);
        s.op("embed", "GatherV2", {table, ids}, {s.tensor("rows", {8, 64})});
        OpCost gather = s.cost();
        QCOMPARE(gather.flops, 0.0);
        QCOMPARE(gather.bytesRead, 8.0 * 8 + 8 * 64 * 4);
        QCOMPARE(gather.bytesWritten, 8.0 * 64 * 4);
        // Data movement: a copy; reshape-like ops are free.
        OpCost t = costOf("Transpose", {{2, 3}}, {{3, 2}});
        QCOMPARE(t.flops, 0.0);
        QCOMPARE(t.bytesRead, 24.0);
        QCOMPARE(t.bytesWritten, 24.0);
        QCOMPARE(costOf("Slice", {{10, 10}, {2}, {2}}, {{2, 10}}).bytesRead, 80.0); // reads what it copies
        for (const char* type : {"Reshape", "Identity", "Squeeze", "Flatten"}) {
            OpCost free = costOf(type, {{10, 10}}, {{100}});
            QVERIFY2(free.flops == 0.0 && free.bytesRead == 0.0 && free.bytesWritten == 0.0 && free.known, type);
        }
    }

    // What detection models add (torchvision's Faster R-CNN, RetinaNet as exported to ONNX).
    void detectionOps()
    {
        // 512 regions pooled to 7x7 from a 256-channel map, 2x2 samples an output element: 10
        // FLOPs a sample; it reads the taps it needs (16 floats an output element), not the map.
        const OpCost roi = costOf("RoiAlign", {{2, 256, 50, 50}, {512, 4}, {512}}, {{512, 256, 7, 7}},
                                  {{"sampling_ratio", {2}}});
        QCOMPARE(roi.flops, 10.0 * 4 * 512 * 256 * 49);
        QCOMPARE(roi.bytesRead, 2.0 * 256 * 50 * 50 * 4 + 512 * 4 * 4 + 512 * 4); // the map is smaller here
        const OpCost few = costOf("RoiAlign", {{2, 256, 50, 50}, {4, 4}, {4}}, {{4, 256, 7, 7}});
        QCOMPARE(few.flops, 10.0 * 4 * 4 * 256 * 49); // adaptive sampling taken as 2x2
        QCOMPARE(few.bytesRead, 16.0 * 4 * 256 * 49 * 4 + 4 * 4 * 4 + 4 * 4);
        // NonMaxSuppression of 1,000 boxes in 2 batches of 3 classes: every pair, and the mask.
        const OpCost nms = costOf("NonMaxSuppression", {{2, 1000, 4}, {2, 3, 1000}, {1}}, {{300, 3}});
        QCOMPARE(nms.flops, 6.0 * (6.0 * 1000 * 1000 + 2.0 * 1000 * std::log2(1000.0)));
        QCOMPARE(nms.bytesWritten, 300.0 * 3 * 4 + 6.0 * 1000 * 1000 / 8); // costOf's tensors are 4-byte
        QVERIFY(nms.known);
        // torchvision::nms's form, boxes [n, 4]: one run.
        QCOMPARE(costOf("NonMaxSuppression", {{1000, 4}, {1000}}, {{300}}).flops,
                 6.0 * 1000 * 1000 + 2.0 * 1000 * std::log2(1000.0));
        // The best 100 of 4,000 per row: a comparison per element and heap level.
        QCOMPARE(costOf("TopK", {{2, 4000}, {1}}, {{2, 100}, {2, 100}}).flops, 8000.0 * std::log2(100.0));
        QCOMPARE(costOf("NonZero", {{4000}}, {{1, 300}}).flops, 8000.0);
        QVERIFY(costOf("GreaterOrEqual", {{10}, {1}}, {{10}}).known);
        QVERIFY(costOf("ScatterElements", {{10}, {4}, {4}}, {{10}}).known);
        // Execution traces of a detection model's training step reach the same formulas.
        const std::map<std::string, std::string> atens = {{"torchvision::roi_align", "RoiAlign"},
                                                          {"torchvision::nms", "NonMaxSuppression"},
                                                          {"aten::topk", "TopK"},
                                                          {"aten::sort", "TopK"},
                                                          {"aten::nonzero", "NonZero"},
                                                          {"aten::upsample_bilinear2d", "ResizeBilinear"},
                                                          {"torchvision::_roi_align_backward", "RoiAlignGrad"}};
        for (const auto& [aten, type] : atens) {
            const AtenCostRule* rule = atenCostRule(aten);
            QVERIFY2(rule != nullptr && rule->type == type, aten.c_str());
            QVERIFY2(costOf(std::string(rule->type), {{8, 4}, {8}}, {{8, 4}}).known, aten.c_str());
        }
        QCOMPARE(atenCostRule("torchvision::roi_align")->attrs.front().second, 5); // sampling_ratio
    }

    void unknownTypeFallsBackElementwise()
    {
        OpCost c = costOf("FancyOp", {{4, 5}}, {{2, 5}, {3}});
        QVERIFY(!c.known);
        QCOMPARE(c.flops, 13.0); // one FLOP per output element
        QCOMPARE(c.bytesRead, 80.0);
        QCOMPARE(c.bytesWritten, 52.0);
    }

    // ---- Roofline ----

    void rooflineComputeAndMemoryBound()
    {
        DeviceSpec d;
        d.peakFlops = 1e12;
        d.computeEfficiency = 0.5; // 5e11 FLOP/s
        d.memoryBandwidth = 1e11;
        d.memoryEfficiency = 0.5; // 5e10 B/s
        d.launchOverheadUs = 2.0;
        // Compute-bound: 1e9 FLOPs = 2000 us; 1e6 bytes = 20 us.
        QCOMPARE(rooflineTimeUs(OpCost{1e9, 6e5, 4e5, true}, d), 2002.0);
        // Memory-bound: 1e6 FLOPs = 2 us; 5e7 bytes = 1000 us.
        QCOMPARE(rooflineTimeUs(OpCost{1e6, 3e7, 2e7, true}, d), 1002.0);
        // Nothing to do: no launch either.
        QCOMPARE(rooflineTimeUs(OpCost{}, d), 0.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rooflineTimeUs(OpCost{1.0, 0.0, 0.0, true}, DeviceSpec{}));
    }

    void referenceDevices()
    {
        const auto ref = CostModelOptions::defaultReferenceDevices();
        const DeviceSpec& gpu = ref[static_cast<size_t>(DeviceKind::Gpu)];
        const DeviceSpec& cpu = ref[static_cast<size_t>(DeviceKind::Cpu)];
        QCOMPARE(gpu.peakFlops, 15.7e12); // V100 SXM2
        QCOMPARE(gpu.memoryBandwidth, 900e9);
        QCOMPARE(cpu.peakFlops, 1.57e12); // the notional CPU of docs/clusters.md
        QCOMPARE(cpu.memoryBandwidth, 90e9);
        // Calibrated against published training throughputs (docs/cost-model.md).
        QCOMPARE(gpu.computeEfficiency, 0.7);
        QCOMPARE(gpu.tensorCoreEfficiency, 0.5);
        QCOMPARE(gpu.memoryEfficiency, 0.6);
        QCOMPARE(gpu.launchOverheadUs, 2.0);
        QCOMPARE(cpu.launchOverheadUs, 2.0);
        // A 10.99 GFLOP op on the V100: 10.99e9 / (15.7e12 x 0.7) = 1 ms; on the CPU 10 ms.
        const OpCost big{10.99e9, 1e6, 0.0, true};
        QVERIFY(near(rooflineTimeUs(big, gpu), 1002.0));
        QVERIFY(near(rooflineTimeUs(big, cpu), 10002.0));
        // 54 MB of traffic: 54e6 / (900e9 x 0.6) = 100 us.
        QVERIFY(near(rooflineTimeUs(OpCost{1.0, 54e6, 0.0, true}, gpu), 102.0));
    }

    // ---- Training graph ----

    void trainingGraphStructure()
    {
        // x -> fc1 (W1) -> relu -> fc2 (W2) -> reshape (shape constant from "shape")
        //                       \-> head2 (W2, shared)
        Shaped s;
        const int x = s.tensor("x", {4, 16});
        const int w1 = s.tensor("W1", {16, 32}, true);
        const int w2 = s.tensor("W2", {32, 8}, true);
        const int h1 = s.tensor("h1", {4, 32});
        const int h2 = s.tensor("h2", {4, 32});
        const int y = s.tensor("y", {4, 8});
        const int y2 = s.tensor("y2", {4, 8});
        const int shape = s.constant("shape", {1});
        const int flat = s.tensor("flat", {32});
        s.op("fc1", "MatMul", {x, w1}, {h1});
        s.op("relu", "Relu", {h1}, {h2}).colocate = "grp";
        s.op("fc2", "MatMul", {h2, w2}, {y});
        s.op("head2", "MatMul", {h2, w2}, {y2});
        s.op("shape", "Const", {}, {shape});
        s.op("reshape", "Reshape", {y, shape}, {flat});

        CostReport report;
        CostModelOptions structure;                // the step's own ops only: optimizerOpsAreCostedByParameterBytes and
        structure.optimizer = OptimizerKind::None; // inputCopyIsAnOp test the others
        structure.inputCopy = false;
        const Graph g = buildTrainingGraph(s.g, structure, &report);
        QCOMPARE(g.opCount(), 12);
        QCOMPARE(report.opCount, 12);
        QCOMPARE(report.forwardOpCount, 6);
        // fc1 2*4*32*16 = 4096, relu 128, fc2 and head2 2*4*8*32 = 2048 each.
        QCOMPARE(report.totalForwardFlops, 4096.0 + 128 + 2048 + 2048);
        QCOMPARE(report.parameterBytes, (16.0 * 32 + 32 * 8) * 4); // W2 counted once
        QVERIFY(report.unknownTypes.empty());

        auto op = [&](const char* name) -> const Op& {
            const auto id = g.find(name);
            if (!id)
                qFatal("no op %s", name);
            return g.op(*id);
        };
        QCOMPARE(op("fc1").paramBytes, 2048.0);
        QCOMPARE(op("fc2").paramBytes, 1024.0); // first consumer in topological order
        QCOMPARE(op("head2").paramBytes, 0.0);
        QCOMPARE(op("fc1/grad").paramBytes, 0.0);

        // Colocation: each backward op with its forward op, in the forward op's group if any.
        for (const char* name : {"fc1", "relu", "fc2", "head2", "shape", "reshape"}) {
            const std::string grad = std::string(name) + "/grad";
            const OpId f = *g.find(name), b = *g.find(grad);
            QVERIFY2(g.colocationGroup(f) >= 0 && g.colocationGroup(f) == g.colocationGroup(b), name);
        }
        QCOMPARE(op("relu").colocate, std::string("grp"));
        QCOMPARE(op("relu/grad").colocate, std::string("grp"));
        QCOMPARE(op("fc1/grad").colocate, std::string("fc1"));

        // Costs: a matrix product's backward op is backwardFactor (2) x the forward cost (data
        // and weight gradients), timed by roofline; fc1 reads the graph input x, which needs no
        // gradient: its weight gradient alone, 1 x.
        const auto ref = CostModelOptions::defaultReferenceDevices();
        const OpCost fc1Cost{4096.0, (64.0 + 512) * 4, 128.0 * 4, true};
        QCOMPARE(op("fc1").flops, 4096.0);
        QCOMPARE(op("fc1").memoryBytes, (64.0 + 512 + 128) * 4);
        QCOMPARE(op("fc1/grad").flops, 4096.0);
        QCOMPARE(op("fc1/grad").memoryBytes, (64.0 + 512 + 128) * 4);
        QCOMPARE(op("fc2/grad").flops, 2.0 * op("fc2").flops);
        QCOMPARE(op("fc2/grad").memoryBytes, 2.0 * op("fc2").memoryBytes);
        for (int k = 0; k < kDeviceKindCount; ++k) {
            QCOMPARE(op("fc1").timeUs[static_cast<size_t>(k)], rooflineTimeUs(fc1Cost, ref[static_cast<size_t>(k)]));
            QCOMPARE(op("fc1/grad").timeUs[static_cast<size_t>(k)], rooflineTimeUs(fc1Cost, ref[static_cast<size_t>(k)]));
        }
        // 2304 + 512 bytes on the V100: 2816 / 540e9 s = 0.0052 us + 2 us launch.
        QVERIFY(near(op("fc1").time(DeviceKind::Gpu), 2816.0 / 540e9 * 1e6 + 2.0));
        // Ops with no compute still appear, at no cost.
        QCOMPARE(op("reshape").time(DeviceKind::Gpu), 0.0);
        QCOMPARE(op("reshape/grad").time(DeviceKind::Cpu), 0.0);
        QCOMPARE(op("shape").outputBytes, 0.0); // constants are free

        // Output bytes: forward = its activations; backward = the gradients it sends back.
        QCOMPARE(op("fc1").outputBytes, 512.0);
        QCOMPARE(op("relu/grad").outputBytes, 512.0);
        QCOMPARE(op("fc1/grad").outputBytes, 0.0); // x is a graph input: no gradient to send

        // Edges: 5 forward (one a 0-byte constant), 4 gradient (reversed, same bytes), 6 forward -> own grad.
        std::map<std::pair<std::string, std::string>, double> edges;
        for (const Edge& e : g.edges())
            edges[{g.op(e.from).name, g.op(e.to).name}] = e.bytes;
        QCOMPARE(g.edgeCount(), 15);
        QCOMPARE(static_cast<int>(edges.size()), 15);
        const std::map<std::pair<std::string, std::string>, double> expected{{{"fc1", "relu"}, 512.0},
                                                                             {{"relu", "fc2"}, 512.0},
                                                                             {{"relu", "head2"}, 512.0},
                                                                             {{"fc2", "reshape"}, 128.0},
                                                                             {{"shape", "reshape"}, 0.0},
                                                                             {{"relu/grad", "fc1/grad"}, 512.0},
                                                                             {{"fc2/grad", "relu/grad"}, 512.0},
                                                                             {{"head2/grad", "relu/grad"}, 512.0},
                                                                             {{"reshape/grad", "fc2/grad"}, 128.0},
                                                                             {{"fc1", "fc1/grad"}, 512.0},
                                                                             {{"relu", "relu/grad"}, 512.0},
                                                                             {{"fc2", "fc2/grad"}, 128.0},
                                                                             {{"head2", "head2/grad"}, 128.0},
                                                                             {{"shape", "shape/grad"}, 0.0},
                                                                             {{"reshape", "reshape/grad"}, 128.0}};
        QCOMPARE(edges, expected);
        // Forward ops first, in input order; the backward pass runs after the forward one.
        QCOMPARE(g.op(0).name, std::string("fc1"));
        QCOMPARE(g.op(6).name, std::string("reshape/grad")); // reverse topological order
    }

    void elementwiseBackwardIsOnePass()
    {
        // x -> fc (W) -> h -> relu -> r -> fc2 (W2): ReLU's backward (PyTorch's threshold_backward)
        // reads the incoming gradient and the saved tensor and writes one gradient: 3 tensors,
        // where the old rule charged 2 x (read + write) = 4.
        Shaped s;
        const int h = s.tensor("h", {32, 1024});
        const int r = s.tensor("r", {32, 1024});
        s.op("fc", "MatMul", {s.tensor("x", {32, 64}), s.tensor("W", {64, 1024}, true)}, {h});
        s.op("relu", "Relu", {h}, {r});
        s.op("fc2", "MatMul", {r, s.tensor("W2", {1024, 10}, true)}, {s.tensor("y", {32, 10})});
        const Graph g = buildTrainingGraph(s.g);
        const double tensorBytes = 32.0 * 1024 * 4;
        const Op& relu = g.op(*g.find("relu"));
        const Op& grad = g.op(*g.find("relu/grad"));
        QCOMPARE(relu.memoryBytes, 2.0 * tensorBytes);
        QCOMPARE(grad.memoryBytes, 3.0 * tensorBytes);
        QCOMPARE(grad.flops, relu.flops);
        QCOMPARE(grad.outputBytes, tensorBytes);
        // Normalisation keeps backwardFactor x the forward (measured 0.92-1.03x on a V100).
        Shaped n;
        const int a = n.tensor("a", {8, 16, 4, 4});
        n.op("conv", "Conv", {n.tensor("x", {8, 3, 4, 4}), n.tensor("w", {16, 3, 1, 1}, true)}, {a});
        n.op("bn", "BatchNormalization",
             {a, n.tensor("g", {16}, true), n.tensor("b", {16}, true), n.constant("m", {16}), n.constant("v", {16})},
             {n.tensor("y", {8, 16, 4, 4})});
        CostModelOptions unfused;
        unfused.fuseElementwise = false;
        const Graph ng = buildTrainingGraph(n.g, unfused);
        QCOMPARE(ng.op(*ng.find("bn/grad")).flops, 2.0 * ng.op(*ng.find("bn")).flops);
        QCOMPARE(ng.op(*ng.find("bn/grad")).memoryBytes, 2.0 * ng.op(*ng.find("bn")).memoryBytes);
    }

    void residualAddBackwardIsPassThroughPlusAccumulation()
    {
        // x -> fc1 -> a; a -> fc2 -> b; c = a + b; c -> fc3. The add passes its gradient to both
        // inputs unchanged (no kernel); a feeds two ops that send gradients back, so they are
        // summed once: one add reading two gradients and writing one, charged to the residual add.
        Shaped s;
        const int a = s.tensor("a", {64, 256});
        const int b = s.tensor("b", {64, 256});
        const int c = s.tensor("c", {64, 256});
        s.op("fc1", "MatMul", {s.tensor("x", {64, 32}), s.tensor("W1", {32, 256}, true)}, {a});
        s.op("fc2", "MatMul", {a, s.tensor("W2", {256, 256}, true)}, {b});
        s.op("add", "Add", {a, b}, {c});
        s.op("fc3", "MatMul", {c, s.tensor("W3", {256, 8}, true)}, {s.tensor("y", {64, 8})});
        const Graph g = buildTrainingGraph(s.g);
        const double tensorBytes = 64.0 * 256 * 4;
        const Op& add = g.op(*g.find("add/grad"));
        QCOMPARE(add.memoryBytes, 3.0 * tensorBytes);
        QCOMPARE(add.flops, 64.0 * 256);
        QCOMPARE(g.op(*g.find("add")).memoryBytes, 3.0 * tensorBytes);
        // Without the fan-out the add's backward is free.
        Shaped t;
        const int p = t.tensor("p", {64, 256});
        const int q = t.tensor("q", {64, 256});
        t.op("fp", "MatMul", {t.tensor("x", {64, 32}), t.tensor("Wp", {32, 256}, true)}, {p});
        t.op("fq", "MatMul", {t.tensor("z", {64, 32}), t.tensor("Wq", {32, 256}, true)}, {q});
        t.op("add", "Add", {p, q}, {t.tensor("o", {64, 256})});
        const Graph tg = buildTrainingGraph(t.g);
        QCOMPARE(tg.op(*tg.find("add/grad")).memoryBytes, 0.0);
        QCOMPARE(tg.op(*tg.find("add/grad")).time(DeviceKind::Gpu), 0.0);
        // Matrix ops: data gradient + weight gradient (2x); the weight gradient alone (1x) where
        // the input is a graph input, as the first layer of a network.
        QCOMPARE(g.op(*g.find("fc2/grad")).flops, 2.0 * g.op(*g.find("fc2")).flops);
        QCOMPARE(g.op(*g.find("fc1/grad")).flops, g.op(*g.find("fc1")).flops);
        QCOMPARE(g.op(*g.find("fc1/grad")).memoryBytes, g.op(*g.find("fc1")).memoryBytes);
    }

    void optimizerOpsAreCostedByParameterBytes()
    {
        Shaped s;
        const int h = s.tensor("h", {16, 128});
        s.op("fc1", "MatMul", {s.tensor("x", {16, 64}), s.tensor("W1", {64, 128}, true)}, {h});
        s.op("relu", "Relu", {h}, {s.tensor("r", {16, 128})});
        s.op("fc2", "Gemm", {s.tensor("r2", {16, 128}), s.tensor("W2", {128, 10}, true), s.tensor("B2", {10}, true)},
             {s.tensor("y", {16, 10})});
        const double p1 = 64.0 * 128 * 4, p2 = (128.0 * 10 + 10) * 4;
        CostReport report;
        const Graph sgd = buildTrainingGraph(s.g, {}, &report); // SGD with momentum by default
        QCOMPARE(report.optimizerOps, 2);
        QVERIFY(!sgd.find("relu/ApplyMomentum"));
        for (const auto& [name, p] : {std::pair{"fc1", p1}, std::pair{"fc2", p2}}) {
            const Op& u = sgd.op(*sgd.find(std::string(name) + "/ApplyMomentum"));
            QCOMPARE(u.type, std::string("ApplyMomentum"));
            // weight, gradient, momentum read, weight and momentum written (5 P), plus the
            // gradient's zero_grad (P) and AccumulateGrad (3 P).
            QCOMPARE(u.memoryBytes, 9.0 * p);
            QCOMPARE(u.flops, 5.0 * p / 4);
            QCOMPARE(u.paramBytes, 0.0);
            QCOMPARE(sgd.colocationGroup(u.name == "fc1/ApplyMomentum" ? *sgd.find("fc1") : *sgd.find("fc2")),
                     sgd.colocationGroup(*sgd.find(u.name)));
            bool fed = false;
            for (EdgeId e : sgd.inEdges(*sgd.find(u.name)))
                fed = fed || (sgd.op(sgd.edge(e).from).name == std::string(name) + "/grad" && sgd.edge(e).bytes == p);
            QVERIFY2(fed, name);
            QVERIFY(u.time(DeviceKind::Gpu) > 2.0);
        }
        CostModelOptions adam;
        adam.optimizer = OptimizerKind::Adam;
        const Graph ag = buildTrainingGraph(s.g, adam);
        const Op& u = ag.op(*ag.find("fc1/ApplyAdam"));
        QCOMPARE(u.memoryBytes, 11.0 * p1); // 4 P read, 3 P written, and the gradient's 4 P
        QCOMPARE(u.flops, 13.0 * p1 / 4);
        QVERIFY(u.time(DeviceKind::Gpu) > sgd.op(*sgd.find("fc1/ApplyMomentum")).time(DeviceKind::Gpu));
        CostModelOptions none;
        none.optimizer = OptimizerKind::None;
        CostReport noneReport;
        const Graph ng = buildTrainingGraph(s.g, none, &noneReport);
        QCOMPARE(noneReport.optimizerOps, 0);
        QCOMPARE(ng.opCount(), sgd.opCount() - 2);
        QCOMPARE(parseOptimizerKind("adam"), std::optional(OptimizerKind::Adam));
        QCOMPARE(parseOptimizerKind("sgd"), std::optional(OptimizerKind::Sgd));
        QVERIFY(!parseOptimizerKind("lamb"));
    }

    void inputCopyIsAnOp()
    {
        // The batch crosses PCIe before the forward pass: one op per graph input, timed at
        // 10 GB/s on a GPU, free on a CPU (where its edge to a GPU op carries the bytes).
        Shaped s;
        const int x = s.tensor("input", {32, 3, 224, 224});
        s.op("conv", "Conv", {x, s.tensor("w", {64, 3, 7, 7}, true)}, {s.tensor("y", {32, 64, 109, 109})});
        CostReport report;
        const Graph g = buildTrainingGraph(s.g, {}, &report);
        QCOMPARE(report.inputCopies, 1);
        const auto id = g.find("input/MemcpyHtoD");
        QVERIFY(id);
        const double bytes = 32.0 * 3 * 224 * 224 * 4;
        QVERIFY(near(g.op(*id).time(DeviceKind::Gpu), bytes / 10e9 * 1e6 + 2.0));
        QCOMPARE(g.op(*id).time(DeviceKind::Cpu), 0.0);
        QCOMPARE(g.op(*id).outputBytes, bytes);
        QCOMPARE(g.inEdges(*id).size(), size_t{0});
        QCOMPARE(g.outEdges(*id).size(), size_t{1});
        QCOMPARE(g.op(g.edge(g.outEdges(*id)[0]).to).name, std::string("conv"));
        QVERIFY(!g.find("input/MemcpyHtoD/grad"));
        CostModelOptions off;
        off.inputCopy = false;
        QVERIFY(!buildTrainingGraph(s.g, off).find("input/MemcpyHtoD"));
    }

    void firstLayerConvolutionIsNarrow()
    {
        // cuDNN runs a convolution over 3 input channels on FP32 kernels.
        QVERIFY(costOf("Conv", {{8, 3, 32, 32}, {64, 3, 7, 7}}, {{8, 64, 16, 16}}).narrow);
        QVERIFY(!costOf("Conv", {{8, 16, 32, 32}, {64, 16, 3, 3}}, {{8, 64, 32, 32}}).narrow);
        QVERIFY(costOf("Conv2D", {{8, 32, 32, 3}, {7, 7, 3, 64}}, {{8, 16, 16, 64}}).narrow);
        QVERIFY(!costOf("Conv2D", {{8, 32, 32, 16}, {3, 3, 16, 64}}, {{8, 32, 32, 64}}).narrow);
        QVERIFY(costOf("Conv", {{8, 3, 32, 32}, {64, 3, 7, 7}}, {{8, 64, 16, 16}}).convolution);
        QVERIFY(!costOf("MatMul", {{8, 3}, {3, 4}}, {{8, 4}}).convolution);
        QVERIFY(!costOf("MatMul", {{8, 3}, {3, 4}}, {{8, 4}}).narrow);
    }

    // cuDNN's non-fused Winograd F(4x4, 3x3) for 3x3 stride-1 FP32 convolutions
    // (docs/cost-model.md, "Winograd convolutions").
    void winogradFiguresOnlyForThreeByThreeStrideOne()
    {
        const std::map<std::string, std::vector<std::int64_t>> pads{{"pads", {1, 1, 1, 1}}};
        // ResNet's 256-channel 3x3 layer at batch 32, 14x14: 32 x 4 x 4 tiles of 4x4 outputs.
        const OpCost c = costOf("Conv", {{32, 256, 14, 14}, {256, 256, 3, 3}}, {{32, 256, 14, 14}}, pads);
        const double tiles = 32.0 * 4 * 4;
        QCOMPARE(c.flops, 2.0 * 32 * 256 * 14 * 14 * 256 * 9); // the direct count is unchanged
        QCOMPARE(c.winogradFlops, 2.0 * 36 * tiles * 256 * 256);
        QCOMPARE(c.winogradGemmBytes, 4.0 * 36 * (tiles * 256 + 256.0 * 256 + tiles * 256));
        const double input = 32.0 * 256 * 14 * 14;
        QCOMPARE(c.winogradTransformBytes,
                 4.0 * (input + 36 * tiles * 256 + 9.0 * 256 * 256 + 36.0 * 256 * 256 + 36 * tiles * 256 + input));
        // TensorFlow's NHWC Conv2D: the same rule.
        QCOMPARE(costOf("Conv2D", {{8, 32, 32, 16}, {3, 3, 16, 64}}, {{8, 32, 32, 64}}).winogradFlops,
                 2.0 * 36 * (8.0 * 8 * 8) * 16 * 64);
        // Not eligible: 1x1, stride 2, dilation 2, two groups, 3 input channels, FP16.
        QCOMPARE(costOf("Conv", {{32, 256, 14, 14}, {256, 256, 1, 1}}, {{32, 256, 14, 14}}).winogradFlops, 0.0);
        QCOMPARE(costOf("Conv", {{32, 256, 14, 14}, {256, 256, 3, 3}}, {{32, 256, 7, 7}},
                        {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}})
                     .winogradFlops,
                 0.0);
        QCOMPARE(costOf("Conv", {{32, 256, 14, 14}, {256, 256, 3, 3}}, {{32, 256, 14, 14}},
                        {{"pads", {2, 2, 2, 2}}, {"dilations", {2, 2}}})
                     .winogradFlops,
                 0.0);
        QCOMPARE(costOf("Conv", {{32, 256, 14, 14}, {256, 128, 3, 3}}, {{32, 256, 14, 14}},
                        {{"pads", {1, 1, 1, 1}}, {"group", {2}}})
                     .winogradFlops,
                 0.0);
        QCOMPARE(costOf("Conv", {{32, 3, 56, 56}, {64, 3, 3, 3}}, {{32, 64, 56, 56}}, pads).winogradFlops, 0.0);
        QCOMPARE(
            costOf("Conv2D", {{8, 32, 32, 16}, {3, 3, 16, 64}}, {{8, 16, 16, 64}}, {{"strides", {1, 2, 2, 1}}}).winogradFlops,
            0.0);
        Shaped half;
        const int x = half.tensor("x", {32, 256, 14, 14});
        half.g.tensors[static_cast<size_t>(x)].elementBytes = 2;
        half.op("conv", "Conv", {x, half.tensor("w", {256, 256, 3, 3}, true)}, {half.tensor("y", {32, 256, 14, 14})});
        QCOMPARE(half.cost().winogradFlops, 0.0);
    }

    void winogradIsTheFasterOfTheTwoOnFp32Units()
    {
        Shaped s;
        const int x = s.tensor("x", {32, 256, 14, 14});
        const int h = s.tensor("h", {32, 256, 14, 14});
        const int r = s.tensor("r", {32, 256, 14, 14});
        s.op("relu", "Relu", {x}, {r}); // so that conv3's input needs a gradient
        s.op("conv3", "Conv", {r, s.tensor("w3", {256, 256, 3, 3}, true)}, {h}).intAttrs = {{"pads", {1, 1, 1, 1}}};
        s.op("conv1", "Conv", {h, s.tensor("w1", {256, 256, 1, 1}, true)}, {s.tensor("y", {32, 256, 14, 14})});
        const OpCost c3 = s.cost(1);
        const Graph g = buildTrainingGraph(s.g);
        const Op& conv3 = g.op(*g.find("conv3"));
        const Op& conv1 = g.op(*g.find("conv1"));
        QCOMPARE(conv3.winogradFlops, c3.winogradFlops);
        QCOMPARE(conv1.winogradFlops, 0.0);
        // On the reference V100: the product at 0.7 of 15.7 TFLOP/s (it is compute-bound here),
        // the transforms at 0.9 of 900 GB/s, four launches.
        const double product = std::max(c3.winogradFlops / (15.7e12 * 0.7), c3.winogradGemmBytes / (900e9 * 0.6));
        const double winograd = (product + c3.winogradTransformBytes / (900e9 * 0.9)) * 1e6 + 4 * 2.0;
        const double direct = c3.flops / (15.7e12 * 0.7) * 1e6 + 2.0;
        QVERIFY(near(conv3.time(DeviceKind::Gpu), winograd));
        QVERIFY(winograd < 0.6 * direct); // 2.25-4x fewer multiplies, less the transforms' traffic
        // The simulator's device gives back the same time (the preset is the reference V100).
        const Cluster v100 = loadCluster("v100x4-nvlink");
        QVERIFY(near(opTimeUs(conv3, v100.device(1)), winograd));
        // The gradients (input and weights) are two such convolutions.
        QVERIFY(near(opTimeUs(g.op(*g.find("conv3/grad")), v100.device(1)) - 8.0, 2.0 * (winograd - 8.0)));
        // A 1x1 convolution is the direct roofline.
        QVERIFY(near(opTimeUs(conv1, v100.device(1)), conv1.flops / (15.7e12 * 0.7) * 1e6 + 2.0));
        // On tensor cores (A100, TF32: PyTorch's default for convolutions) cuDNN runs implicit
        // GEMM: the direct count at the TF32 peak.
        Cluster a100 = loadCluster("a100x8-nvlink");
        a100.setPrecision(PrecisionMode::Pytorch);
        QVERIFY(near(opTimeUs(conv3, a100.device(1)),
                     std::max(conv3.flops / (156e12 * 0.5), conv3.memoryBytes / (1555e9 * 0.6)) * 1e6 + 2.0));
        a100.setPrecision(PrecisionMode::Fp32); // FP32 units: Winograd again, at the A100's figures
        QVERIFY(opTimeUs(conv3, a100.device(1)) < conv3.flops / (19.5e12 * 0.7) * 1e6);
        // Where the transforms cost more than the multiplies save (a tiny channel count on a
        // slow memory), the direct convolution is kept.
        Device slow = specDevice("slow", 15.7, 9.0);
        QVERIFY(opTimeUs(conv3, slow)
                <= std::max(conv3.flops / (15.7e12 * 0.7), conv3.memoryBytes / (9e9 * 0.6)) * 1e6 + 2.0 + 1e-6);
        // post-graph/1 keeps the figures.
        const Graph back = parseNativeGraph(nativeGraphJson(g), "g.json");
        QCOMPARE(back.op(*back.find("conv3")).winogradFlops, conv3.winogradFlops);
        QCOMPARE(back.op(*back.find("conv3")).winogradGemmBytes, conv3.winogradGemmBytes);
        QCOMPARE(back.op(*back.find("conv3")).winogradTransformBytes, conv3.winogradTransformBytes);
        QCOMPARE(back.op(*back.find("conv1")).winogradFlops, 0.0);
        const InputError e = inputErrorOf([] {
            parseNativeGraph(R"({"format": "post-graph/1", "ops": [{"name": "a", "winograd": {"flops": 1}}]})", "g.json");
        });
        QVERIFY2(e.location().find("ops[0].winograd") != std::string::npos, e.location().c_str());
    }

    // cuDNN's atomic-add input gradient of strided convolutions (docs/cost-model.md, "Backward of
    // strided convolutions"): the input gradient zeroed, then a read and a write of it per product.
    void stridedConvolutionInputGradientPasses()
    {
        const std::map<std::string, std::vector<std::int64_t>> s2{{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}};
        // ResNet-50's layer2 3x3 stride-2 convolution at batch 32: 56x56 -> 28x28, 128 channels.
        const OpCost c3 = costOf("Conv", {{32, 128, 56, 56}, {128, 128, 3, 3}}, {{32, 128, 28, 28}}, s2);
        const double input = 32.0 * 128 * 56 * 56;
        const double products3 = 32.0 * 28 * 28 * 128 * 9; // output positions x input channels x taps
        QCOMPARE(c3.inputGradPassBytes, 4.0 * (input + 2.0 * products3));
        QCOMPARE(c3.passBytes, 0.0); // the forward op runs no such pass
        // Its 1x1 stride-2 shortcut: one tap, so a quarter of the input gets a product.
        const OpCost c1 = costOf("Conv", {{32, 256, 56, 56}, {512, 256, 1, 1}}, {{32, 512, 28, 28}},
                                 {{"strides", {2, 2}}});
        QCOMPARE(c1.inputGradPassBytes, 4.0 * (32.0 * 256 * 56 * 56 + 2.0 * 32 * 28 * 28 * 256));
        // TensorFlow's NHWC Conv2D with strides [1, 2, 2, 1]: the same rule.
        QCOMPARE(costOf("Conv2D", {{8, 32, 32, 16}, {3, 3, 16, 64}}, {{8, 16, 16, 64}}, {{"strides", {1, 2, 2, 1}}})
                     .inputGradPassBytes,
                 4.0 * (8.0 * 32 * 32 * 16 + 2.0 * 8 * 16 * 16 * 16 * 9));
        // Stride 1 (3x3 or 1x1), two groups, FP16: cuDNN's implicit-GEMM or Winograd kernels, no passes.
        QCOMPARE(costOf("Conv", {{32, 128, 28, 28}, {128, 128, 3, 3}}, {{32, 128, 28, 28}}, {{"pads", {1, 1, 1, 1}}})
                     .inputGradPassBytes,
                 0.0);
        QCOMPARE(costOf("Conv", {{32, 256, 56, 56}, {64, 256, 1, 1}}, {{32, 64, 56, 56}}).inputGradPassBytes, 0.0);
        QCOMPARE(costOf("Conv", {{32, 128, 56, 56}, {128, 64, 3, 3}}, {{32, 128, 28, 28}},
                        {{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}, {"group", {2}}})
                     .inputGradPassBytes,
                 0.0);
        Shaped half;
        const int hx = half.tensor("x", {32, 128, 56, 56});
        half.g.tensors[static_cast<size_t>(hx)].elementBytes = 2;
        half.op("conv", "Conv", {hx, half.tensor("w", {128, 128, 3, 3}, true)}, {half.tensor("y", {32, 128, 28, 28})})
            .intAttrs = s2;
        QCOMPARE(half.cost().inputGradPassBytes, 0.0);

        // In a training step: relu -> strided 3x3 -> 1x1, so both convolutions' inputs need a
        // gradient; a strided first layer (its input is the graph's) computes no input gradient.
        Shaped s;
        const int x = s.tensor("x", {32, 128, 56, 56});
        const int r = s.tensor("r", {32, 128, 56, 56});
        const int h = s.tensor("h", {32, 128, 28, 28});
        s.op("first", "Conv", {x, s.tensor("w0", {128, 128, 3, 3}, true)}, {s.tensor("f", {32, 128, 28, 28})}).intAttrs = s2;
        s.op("relu", "Relu", {x}, {r});
        s.op("strided", "Conv", {r, s.tensor("w3", {128, 128, 3, 3}, true)}, {h}).intAttrs = s2;
        s.op("unstrided", "Conv", {h, s.tensor("w1", {128, 128, 1, 1}, true)}, {s.tensor("y", {32, 128, 28, 28})});
        const Graph g = buildTrainingGraph(s.g);
        const Op& fwd = g.op(*g.find("strided"));
        const Op& grad = g.op(*g.find("strided/grad"));
        QCOMPARE(fwd.passBytes, 0.0);
        QCOMPARE(grad.passBytes, c3.inputGradPassBytes);
        QCOMPARE(g.op(*g.find("unstrided/grad")).passBytes, 0.0);
        QCOMPARE(g.op(*g.find("first/grad")).passBytes, 0.0); // weight gradient only
        // Reference V100: the two products (2x the forward, compute-bound here) and then the
        // passes at the streaming efficiency (0.9 of 900 GB/s) with a launch of their own.
        const double products = 2.0 * fwd.flops / (15.7e12 * 0.7) * 1e6 + 2.0;
        const double passes = c3.inputGradPassBytes / (900e9 * 0.9) * 1e6 + 2.0;
        QVERIFY(near(grad.time(DeviceKind::Gpu), products + passes));
        QVERIFY(near(g.op(*g.find("unstrided/grad")).time(DeviceKind::Gpu),
                     2.0 * g.op(*g.find("unstrided")).flops / (15.7e12 * 0.7) * 1e6 + 2.0));
        // The 3x3 layer's passes: 2 x 9 / 4 reads and writes of the input gradient per element
        // besides the zeroing, 5.5 x the input's bytes; the 1x1's 1.5 x.
        QVERIFY(near(c3.inputGradPassBytes / (4.0 * input), 5.5));
        QVERIFY(near(c1.inputGradPassBytes / (4.0 * 32 * 256 * 56 * 56), 1.5));
        // The simulator's V100 gives back the same time; on tensor cores (A100, TF32) cuDNN runs
        // implicit GEMM for the input gradient: no passes.
        const Cluster v100 = loadCluster("v100x4-nvlink");
        QVERIFY(near(opTimeUs(grad, v100.device(1)), products + passes));
        Cluster a100 = loadCluster("a100x8-nvlink");
        a100.setPrecision(PrecisionMode::Pytorch);
        QVERIFY(near(opTimeUs(grad, a100.device(1)),
                     std::max(grad.flops / (156e12 * 0.5), grad.memoryBytes / (1555e9 * 0.6)) * 1e6 + 2.0));
        a100.setPrecision(PrecisionMode::Fp32);
        QVERIFY(near(opTimeUs(grad, a100.device(1)),
                     std::max(grad.flops / (19.5e12 * 0.7), grad.memoryBytes / (1555e9 * 0.6)) * 1e6 + 2.0
                         + c3.inputGradPassBytes / (1555e9 * 0.9) * 1e6 + 2.0));
        // backwardFactor 0 (no backward work) drops the passes too.
        CostModelOptions none;
        none.backwardFactor = 0.0;
        QCOMPARE(buildTrainingGraph(s.g, none).op(*g.find("strided/grad")).passBytes, 0.0);
        // post-graph/1 keeps the figure; a negative one is refused, naming the field.
        const Graph back = parseNativeGraph(nativeGraphJson(g), "g.json");
        QCOMPARE(back.op(*back.find("strided/grad")).passBytes, grad.passBytes);
        QCOMPARE(back.op(*back.find("strided")).passBytes, 0.0);
        const InputError e = inputErrorOf([] {
            parseNativeGraph(R"({"format": "post-graph/1", "ops": [{"name": "a", "pass_bytes": -1}]})", "g.json");
        });
        QVERIFY2(e.location().find("ops[0].pass_bytes") != std::string::npos, e.location().c_str());
    }

    // ATen's max pooling (a PyTorch export: ShapedGraph::atenKernels) keeps int64 argmax
    // indices: the forward writes them, the backward zeroes the input gradient, then reads the
    // index of every window covering each input element. Pooling streams in every framework.
    void atenMaxPoolKeepsIndices()
    {
        // ResNet's stem: relu -> 3x3 stride-2 max pooling, 112x112 -> 56x56, 64 channels.
        const auto stem = [](bool aten) {
            Shaped s;
            const int x = s.tensor("x", {32, 64, 112, 112});
            const int r = s.tensor("r", {32, 64, 112, 112});
            s.op("relu", "Relu", {x}, {r});
            s.op("pool", "MaxPool", {r}, {s.tensor("y", {32, 64, 56, 56})}).intAttrs = {
                {"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}};
            s.g.atenKernels = aten;
            CostModelOptions o;
            o.fuseElementwise = false;
            o.inputCopy = false;
            return buildTrainingGraph(s.g, o);
        };
        const double in = 32.0 * 64 * 112 * 112, out = 32.0 * 64 * 56 * 56;
        const double cover = 9.0 * out / in; // 2.25 windows cover an input element
        QVERIFY(near(cover, 2.25));
        const Graph aten = stem(true), other = stem(false);
        const Op& fwd = aten.op(*aten.find("pool"));
        const Op& grad = aten.op(*aten.find("pool/grad"));
        QCOMPARE(fwd.memoryBytes, 4.0 * (in + out) + 8.0 * out); // input, output, int64 indices
        QCOMPARE(other.op(*other.find("pool")).memoryBytes, 4.0 * (in + out));
        QCOMPARE(grad.memoryBytes, 8.0 * cover * in + 4.0 * out + 4.0 * in);
        QCOMPARE(grad.passBytes, 4.0 * in); // grad_input.zero_()
        // Reference V100, streaming (0.9 of 900 GB/s): the gather and the zeroing, a launch each.
        const double stream = 900e9 * 0.9;
        QVERIFY(near(fwd.time(DeviceKind::Gpu), fwd.memoryBytes / stream * 1e6 + 2.0));
        QVERIFY(near(grad.time(DeviceKind::Gpu), grad.memoryBytes / stream * 1e6 + 2.0 + 4.0 * in / stream * 1e6 + 2.0));
        const Cluster v100 = loadCluster("v100x4-nvlink");
        QVERIFY(near(opTimeUs(grad, v100.device(1)), grad.time(DeviceKind::Gpu)));
        // Other producers: backwardFactor x the forward, no zeroing pass.
        const Op& otherGrad = other.op(*other.find("pool/grad"));
        QCOMPARE(otherGrad.memoryBytes, 2.0 * 4.0 * (in + out));
        QCOMPARE(otherGrad.passBytes, 0.0);
        // A max pooling on the graph's input (no input gradient): ATen still writes the indices
        // (CUDA runs max_pool2d_with_indices), and its backward op costs nothing.
        Shaped s;
        s.op("pool", "MaxPool", {s.tensor("x", {8, 3, 32, 32})}, {s.tensor("y", {8, 3, 16, 16})}).intAttrs = {
            {"kernel_shape", {2, 2}}, {"strides", {2, 2}}};
        s.op("head", "Relu", {s.g.ops[0].outputs[0]}, {s.tensor("z", {8, 3, 16, 16})});
        s.g.atenKernels = true;
        CostModelOptions o;
        o.inputCopy = false;
        o.fuseElementwise = false;
        const Graph g = buildTrainingGraph(s.g, o);
        QCOMPARE(g.op(*g.find("pool")).memoryBytes,
                 4.0 * (8.0 * 3 * 32 * 32 + 8.0 * 3 * 16 * 16) + 8.0 * 8 * 3 * 16 * 16);
        if (const auto back = g.find("pool/grad"))
            QCOMPARE(g.op(*back).time(DeviceKind::Gpu), 0.0);
        QVERIFY(isStreamingOpType("MaxPool") && isStreamingOpType("AveragePool") && isStreamingOpType("MaxPoolGrad"));
        QVERIFY(!isStreamingOpType("GlobalAveragePool") && !isStreamingOpType("BatchNormalization"));
    }

    // A device's sustained clock scales its compute peaks, not its bandwidth.
    void sustainedClockScalesComputePeaks()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1", "devices": [
            {"name": "g", "kind": "gpu", "peak_tflops": 13.45, "memory_bandwidth_GBps": 616,
             "clock_MHz": 1545, "sustained_clock_MHz": 1824},
            {"name": "h", "kind": "gpu", "peak_tflops": 13.45, "memory_bandwidth_GBps": 616}]})",
                                       "c.json");
        QCOMPARE(c.device(0).clockMHz, 1545.0);
        QCOMPARE(c.device(0).sustainedClockMHz, 1824.0);
        QCOMPARE(c.device(1).clockScale(), 1.0);
        Op compute;
        compute.flops = 13.45e9;
        compute.memoryBytes = 1.0;
        Op memory;
        memory.flops = 1.0;
        memory.memoryBytes = 616e6;
        QVERIFY(near(opTimeUs(compute, c.device(1)) - 2.0, 1e6 / 0.7 / 1e3));
        QVERIFY(near(opTimeUs(compute, c.device(0)) - 2.0, (opTimeUs(compute, c.device(1)) - 2.0) * 1545.0 / 1824.0));
        QCOMPARE(opTimeUs(memory, c.device(0)), opTimeUs(memory, c.device(1)));
        const Cluster back = parseCluster(clusterJson(c), "c.json");
        QCOMPARE(back.device(0).sustainedClockMHz, 1824.0);
        QCOMPARE(back.device(1).clockMHz, 0.0);
        const InputError e = inputErrorOf([] {
            parseCluster(R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "clock_MHz": 1545}]})",
                         "c.json");
        });
        QCOMPARE(e.location(), std::string("field devices[0].clock_MHz"));
    }

    // A device's own efficiencies replace the reference's for the roofline there, one by one
    // (docs/clusters.md, "Efficiencies"); they round-trip and are refused outside (0, 1].
    void deviceEfficienciesReplaceTheReferences()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1", "devices": [
            {"name": "g", "kind": "gpu", "peak_tflops": 67, "peak_tf32_tflops": 494.7, "memory_bandwidth_GBps": 3350,
             "memory_efficiency": 0.35, "streaming_memory_efficiency": 0.45, "compute_efficiency": 0.35,
             "tensor_core_efficiency": 0.25},
            {"name": "h", "kind": "gpu", "peak_tflops": 67, "peak_tf32_tflops": 494.7, "memory_bandwidth_GBps": 3350}]})",
                                       "c.json");
        Op memory; // a multi-pass kernel: all bytes
        memory.flops = 1.0;
        memory.memoryBytes = 3350e6;
        Op streaming = memory;
        streaming.streaming = true;
        Op compute; // FP32 units
        compute.flops = 67e9;
        compute.memoryBytes = 1.0;
        Op matrix = compute; // TF32 tensor cores
        matrix.flops = 494.7e9;
        matrix.matrixOp = true;
        const Device& own = c.device(0);
        const Device& reference = c.device(1);
        // Each op's time above the launch grows by the ratio of the reference's efficiency to the device's.
        const auto above = [](const Op& op, const Device& d) { return opTimeUs(op, d) - 2.0; };
        QVERIFY(near(above(memory, own), above(memory, reference) * 0.6 / 0.35));
        QVERIFY(near(above(streaming, own), above(streaming, reference) * 0.9 / 0.45));
        QVERIFY(near(above(compute, own), above(compute, reference) * 0.7 / 0.35));
        QVERIFY(near(above(matrix, own), above(matrix, reference) * 0.5 / 0.25));
        const Cluster back = parseCluster(clusterJson(c), "c.json");
        QCOMPARE(back.device(0).memoryEfficiency, 0.35);
        QCOMPARE(back.device(0).tensorCoreEfficiency, 0.25);
        QCOMPARE(back.device(1).memoryEfficiency, 0.0);
        for (const char* bad : {"0", "1.5", "-0.2", "\"0.5\""}) {
            const std::string text = std::string(
                                         R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", )")
                + "\"memory_efficiency\": " + bad + "}]}";
            const InputError e = inputErrorOf([&] { parseCluster(text, "c.json"); });
            QCOMPARE(e.location(), std::string("field devices[0].memory_efficiency"));
        }
        // The Hopper preset carries its fitted figure (docs/cost-model.md, "Calibration").
        QCOMPARE(loadCluster("h100x8-nvlink").device(1).memoryEfficiency, 0.35);
    }

    void pytorchPrecisionPerOpClass()
    {
        // PyTorch's defaults: convolutions in TF32, matrix products in FP32; a narrow
        // convolution on FP32 kernels in every mode but amp.
        Shaped s;
        const int h = s.tensor("h", {64, 256, 28, 28});
        s.op("conv1", "Conv", {s.tensor("x", {64, 3, 56, 56}), s.tensor("w1", {256, 3, 3, 3}, true)},
             {s.tensor("c1", {64, 256, 56, 56})});
        s.op("conv", "Conv", {s.tensor("i", {64, 256, 28, 28}), s.tensor("w", {256, 256, 3, 3}, true)}, {h});
        s.op("fc", "Gemm", {s.tensor("f", {4096, 4096}), s.tensor("wf", {4096, 4096}, true)},
             {s.tensor("o", {4096, 4096})});
        const Graph g = buildTrainingGraph(s.g);
        const Op& narrow = g.op(0);
        const Op& conv = g.op(1);
        const Op& fc = g.op(2);
        QVERIFY(narrow.convolution && narrow.narrowConvolution);
        QVERIFY(conv.convolution && !conv.narrowConvolution);
        QVERIFY(fc.matrixOp && !fc.convolution);
        QVERIFY(g.op(*g.find("conv/grad")).convolution);
        Cluster a100 = loadCluster("a100x8-nvlink");
        auto peak = [&](const Op& op, PrecisionMode mode) {
            a100.setPrecision(mode);
            return rooflinePeakFlops(op, a100.device(1));
        };
        QCOMPARE(peak(conv, PrecisionMode::Pytorch), 156e12);
        QCOMPARE(peak(fc, PrecisionMode::Pytorch), 19.5e12);
        QCOMPARE(peak(narrow, PrecisionMode::Pytorch), 19.5e12);
        QCOMPARE(peak(conv, PrecisionMode::Tf32), 156e12);
        QCOMPARE(peak(fc, PrecisionMode::Tf32), 156e12);
        QCOMPARE(peak(narrow, PrecisionMode::Tf32), 19.5e12);
        QCOMPARE(peak(fc, PrecisionMode::Fp32), 19.5e12);
        QCOMPARE(peak(narrow, PrecisionMode::Amp), 312e12);
        QCOMPARE(peak(fc, PrecisionMode::Amp), 312e12);
        // The FP32 peak is reached at the compute efficiency, so the fully connected layer
        // takes 156 x 0.5 / (19.5 x 0.7) = 5.7x longer under pytorch than under tf32.
        a100.setPrecision(PrecisionMode::Pytorch);
        const double pytorch = opTimeUs(fc, a100.device(1)) - 2.0;
        a100.setPrecision(PrecisionMode::Tf32);
        const double tf32 = opTimeUs(fc, a100.device(1)) - 2.0;
        QVERIFY(near(pytorch / tf32, (156.0 * 0.5) / (19.5 * 0.7)));
        QCOMPARE(parsePrecisionMode("pytorch"), std::optional(PrecisionMode::Pytorch));
        QCOMPARE(toString(PrecisionMode::Pytorch), std::string_view("pytorch"));
        // The marks survive post-graph/1.
        const Graph back = parseNativeGraph(nativeGraphJson(g), "g.json");
        QVERIFY(back.op(0).convolution && back.op(0).narrowConvolution);
        QVERIFY(back.op(1).convolution && !back.op(1).narrowConvolution);
        QVERIFY(!back.op(2).convolution);
    }

    void movingAveragesGetNoGradient()
    {
        // A batch norm's moving-average update (TF's AssignMovingAvg: sub, mul, AssignSub) is
        // state, not a layer: no gradient reaches it, so it gets no backward op.
        Shaped s;
        const int y = s.tensor("y", {8, 16});
        const int mean = s.tensor("mean", {16});
        const int moving = s.constant("moving_mean", {16});
        const int diff = s.tensor("diff", {16});
        const int step = s.tensor("step", {16});
        s.op("bn", "FusedBatchNorm", {s.tensor("x", {8, 16}), s.tensor("g", {16}, true)}, {y, mean});
        s.op("sub", "Sub", {moving, mean}, {diff});
        s.op("mul", "Mul", {diff, s.constant("decay", {})}, {step});
        s.op("assign", "AssignSub", {moving, step}, {s.tensor("updated", {16})});
        s.op("fc", "MatMul", {y, s.tensor("W", {16, 4}, true)}, {s.tensor("o", {8, 4})});
        CostReport report;
        const Graph g = buildTrainingGraph(s.g, {}, &report);
        for (const char* name : {"sub/grad", "mul/grad", "assign/grad"})
            QVERIFY2(!g.find(name), name);
        QVERIFY(g.find("bn/grad"));
        QVERIFY(g.find("fc/grad"));
        QCOMPARE(report.opsWithoutGradient, 3);
    }

    void backwardFactorIsAnOption()
    {
        // backwardFactor scales the backward of matrix products, convolutions and normalisation.
        Shaped s;
        const int b = s.tensor("b", {10, 100});
        s.op("fc1", "MatMul", {s.tensor("a", {10, 10}), s.tensor("W1", {10, 100}, true)}, {b});
        s.op("fc2", "MatMul", {b, s.tensor("W2", {100, 10}, true)}, {s.tensor("c", {10, 10})});
        CostModelOptions options;
        options.backwardFactor = 3.0;
        const Graph g = buildTrainingGraph(s.g, options);
        QCOMPARE(g.op(*g.find("fc2/grad")).flops, 3.0 * 20000);
        QCOMPARE(g.op(*g.find("fc2/grad")).memoryBytes, 3.0 * g.op(*g.find("fc2")).memoryBytes);
        QCOMPARE(g.op(*g.find("fc1/grad")).flops, 1.5 * 20000); // the weight gradient alone: half
        options.backwardFactor = -1.0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, buildTrainingGraph(s.g, options));
    }

    void unknownOpsAreReported()
    {
        Shaped s;
        const int a = s.tensor("a", {4});
        const int b = s.tensor("b", {4});
        const int c = s.tensor("c", {4});
        const int d = s.tensor("d", {4});
        s.op("f1", "FancyOp", {a}, {b});
        s.op("m", "Mystery", {b}, {c});
        s.op("f2", "FancyOp", {c}, {d});
        CostReport report;
        const Graph g = buildTrainingGraph(s.g, {}, &report);
        const std::vector<std::pair<std::string, int>> expected{{"FancyOp", 2}, {"Mystery", 1}};
        QCOMPARE(report.unknownTypes, expected);
        QCOMPARE(g.op(*g.find("m")).flops, 4.0); // the fallback still costs it
    }

    void badGraphsNameFileAndOp()
    {
        {
            Shaped s("bad.onnx");
            s.op("a", "Relu", {7}, {s.tensor("t", {1})});
            const InputError e = inputErrorOf([&] { buildTrainingGraph(s.g); });
            QCOMPARE(e.file(), std::string("bad.onnx"));
            QCOMPARE(e.location(), std::string("node 0"));
            QVERIFY2(QString::fromStdString(e.message()).contains("tensor #7"), e.what());
        }
        {
            Shaped s("loop.pbtxt");
            const int t1 = s.tensor("t1", {1});
            const int t2 = s.tensor("t2", {1});
            s.op("p", "Relu", {t2}, {t1});
            s.op("q", "Relu", {t1}, {t2});
            const InputError e = inputErrorOf([&] { buildTrainingGraph(s.g); });
            QCOMPARE(e.file(), std::string("loop.pbtxt"));
            QVERIFY2(QString::fromStdString(e.message()).contains("cycle: 'p' -> 'q' -> 'p'")
                         || QString::fromStdString(e.message()).contains("cycle: 'q' -> 'p' -> 'q'"),
                     e.what());
        }
        {
            Shaped s;
            const int t = s.tensor("t", {1});
            s.op("a", "Relu", {}, {t});
            s.op("b", "Relu", {}, {t});
            QVERIFY(QString(inputErrorOf([&] { buildTrainingGraph(s.g); }).what()).contains("already written"));
        }
        {
            Shaped s;
            s.op("a", "Relu", {}, {s.tensor("t", {1})});
            s.op("a/grad", "Relu", {}, {s.tensor("u", {1})});
            const InputError e = inputErrorOf([&] { buildTrainingGraph(s.g); });
            QCOMPARE(e.location(), std::string("node 1"));
            QVERIFY2(QString(e.what()).contains("a/grad"), e.what());
        }
        {
            Shaped s; // 20 dimensions of 10^18 elements: more than a double holds
            s.op("huge", "Relu", {}, {s.tensor("t", std::vector<std::int64_t>(20, 1000000000000000000))});
            const InputError e = inputErrorOf([&] { buildTrainingGraph(s.g); });
            QCOMPARE(e.location(), std::string("node 0"));
            QVERIFY2(QString(e.what()).contains("too large"), e.what());
        }
        {
            Shaped s; // -1 is an absent optional input, not an error
            s.op("c", "Conv", {s.tensor("x", {1, 1, 3, 3}), s.tensor("w", {1, 1, 3, 3}, true), -1},
                 {s.tensor("y", {1, 1, 1, 1})});
            QCOMPARE(buildTrainingGraph(s.g).opCount(), 4); // c, c/grad, the update of w, x's copy
        }
    }

    // ---- Per-device roofline in the simulator, the lower bound and the placers ----

    void simulatorUsesPerDeviceRoofline()
    {
        // A: 10 TFLOP/s, 500 GB/s -> 7e12 FLOP/s and 3e11 B/s at the GPU efficiencies (0.7, 0.6).
        // B: 20 TFLOP/s, 250 GB/s -> 1.4e13 FLOP/s and 1.5e11 B/s. Launch 2 us.
        // c (7e9 FLOPs, 1e6 bytes): A 1000 + 2, B 500 + 2.  m (1e6 FLOPs, 3e8 bytes): A 1000 + 2, B 2000 + 2.
        Cluster cluster("two", {specDevice("A", 10, 500), specDevice("B", 20, 250)}, Link{1000.0, 10.0});
        GraphBuilder b("g");
        Op c;
        c.name = "c";
        c.timeUs = {1.0, 1.0}; // overridden by the roofline on both devices
        c.flops = 7e9;
        c.memoryBytes = 1e6;
        c.outputBytes = 1000.0;
        Op m;
        m.name = "m";
        m.flops = 1e6;
        m.memoryBytes = 3e8;
        b.addOp(c);
        b.addOp(m);
        b.addEdge("c", "m");
        const Graph g = std::move(b).build();

        QVERIFY(near(opTimeUs(g.op(0), cluster.device(0)), 1002.0));
        QVERIFY(near(opTimeUs(g.op(0), cluster.device(1)), 502.0));
        QVERIFY(near(opTimeUs(g.op(1), cluster.device(0)), 1002.0));
        QVERIFY(near(opTimeUs(g.op(1), cluster.device(1)), 2002.0));
        QVERIFY(near(opTimeOn(g.op(1), cluster.device(1)), 2002.0)); // what the classical placers use

        Simulator sim(g, cluster);
        QVERIFY(near(sim.run({0, 0}).stepTimeUs, 2004.0));
        QVERIFY(near(sim.run({1, 1}).stepTimeUs, 2504.0));
        // c on B, m on A: 505 + transfer (10 us + 1000 B / 1000 B/us) + 1005.
        QVERIFY(near(sim.run({1, 0}).stepTimeUs, 502.0 + 11.0 + 1002.0));

        const LowerBound bound = lowerBound(g, cluster);
        QVERIFY(near(bound.criticalPathUs, 502.0 + 1002.0));
        // The work bound at its best weights is the fractional assignment's: m on A for a
        // share x and on B for the rest, c on B, both busy as long: 1002 x = 502 + 2002 (1 - x),
        // x = 2504 / 3004, 835.2 (by speeds, each op at its least: (502 + 1002) / 2 = 752).
        QVERIFY2(near(bound.workUs, 1002.0 * 2504.0 / 3004.0), qPrintable(QString::number(bound.workUs, 'f', 6)));

        // Without device figures the op times stay time_us[kind] / speed.
        Cluster plain("plain", {Device{"A", DeviceKind::Gpu, 2.0}}, Link{});
        QCOMPARE(Simulator(g, plain).run({0, 0}).stepTimeUs, 0.5);
        // Without op costs too: an op of known time only.
        GraphBuilder legacy("l");
        Op t;
        t.name = "t";
        t.timeUs = {1000.0, 100.0};
        legacy.addOp(t);
        const Graph lg = std::move(legacy).build();
        QCOMPARE(Simulator(lg, cluster).run({1}).stepTimeUs, 100.0);
        // Both in one graph: the costed op takes its roofline time, the other time_us / speed.
        GraphBuilder mixed("mixed");
        mixed.addOp(c);
        mixed.addOp(t);
        const Graph mg = std::move(mixed).build();
        Simulator mixedSim(mg, cluster);
        QVERIFY(near(mixedSim.run({1, 0}).stepTimeUs, 502.0));          // in parallel
        QVERIFY(near(mixedSim.run({0, 0}).stepTimeUs, 1002.0 + 100.0)); // one after the other
    }

    void presetsCarryRooflineFigures()
    {
        // Data-sheet figures (docs/clusters.md): the speed is the peak over the reference's.
        for (const std::string& name : clusterPresetNames()) {
            const Cluster c = loadCluster(name);
            for (const Device& d : c.devices()) {
                QVERIFY2(d.peakFlops > 0.0 && d.memoryBandwidth > 0.0, (name + " " + d.name).c_str());
                // The K80's roofline peak is its base-clock figure, its speed the boost one.
                if (name.rfind("k80", 0) == 0 && d.kind == DeviceKind::Gpu)
                    continue;
                const double reference = d.kind == DeviceKind::Gpu ? 15.7e12 : 1.57e12;
                QVERIFY2(std::fabs(d.peakFlops / reference - d.speed) < 0.0006, (name + " " + d.name).c_str());
            }
        }
        const Cluster v100 = loadCluster("v100x4-nvlink");
        QCOMPARE(v100.device(1).peakFlops, 15.7e12);
        QCOMPARE(v100.device(1).memoryBandwidth, 900e9);
        // Tensor-core peaks (docs/clusters.md): none on the K80, FP16 only on the V100.
        const Cluster k80 = loadCluster("k80x4");
        QCOMPARE(k80.device(1).peakFlops, 2.805e12);
        QCOMPARE(k80.device(1).speed, 0.278);
        QCOMPARE(k80.device(1).peakTf32Flops + k80.device(1).peakFp16Flops + k80.device(1).peakInt8Ops, 0.0);
        QCOMPARE(v100.device(1).peakTf32Flops, 0.0);
        QCOMPARE(v100.device(1).peakFp16Flops, 125e12);
        const Cluster a100 = loadCluster("a100x8-nvlink");
        for (int i = 1; i < a100.deviceCount(); ++i) {
            QCOMPARE(a100.device(i).peakTf32Flops, 156e12);
            QCOMPARE(a100.device(i).peakFp16Flops, 312e12);
            QCOMPARE(a100.device(i).peakInt8Ops, 624e12);
        }
        QCOMPARE(a100.device(0).peakTf32Flops, 0.0); // the CPU
        const Cluster h100 = loadCluster("h100x8-nvlink");
        QCOMPARE(h100.device(1).peakTf32Flops, 494.7e12);
        QCOMPARE(h100.device(1).peakFp16Flops, 989.4e12);
        QCOMPARE(h100.device(1).peakInt8Ops, 1978.9e12);
        for (const std::string& name : clusterPresetNames())
            QVERIFY(loadCluster(name).precision() == PrecisionMode::Tf32);
        // On the reference GPU the roofline gives back the graph's own time_us.gpu.
        Shaped s;
        s.op("mm", "MatMul", {s.tensor("a", {512, 1024}), s.tensor("b", {1024, 256}, true)}, {s.tensor("y", {512, 256})});
        const Graph g = buildTrainingGraph(s.g);
        for (const Op& op : g.ops())
            QCOMPARE(opTimeUs(op, v100.device(1)), op.time(DeviceKind::Gpu));
    }

    void precisionPicksTheTensorCorePeak()
    {
        // A matrix product of 2 x 4096^3 FLOPs and 3 x 4096^2 x 4 bytes: compute-bound on an A100
        // at every peak (TF32: 1.37e11 FLOP / (156e12 x 0.5) = 1762 us; bytes: 201 MB / (1555e9 x 0.6) = 216 us).
        Shaped s;
        s.op("mm", "MatMul", {s.tensor("a", {4096, 4096}), s.tensor("b", {4096, 4096}, true)},
             {s.tensor("y", {4096, 4096})});
        const Graph g = buildTrainingGraph(s.g);
        const Op& mm = g.op(0);
        QVERIFY(mm.matrixOp);
        QVERIFY(mm.precision == ElementPrecision::Fp32);
        Cluster a100 = loadCluster("a100x8-nvlink");
        const Device& gpu = a100.device(1);
        QVERIFY(gpu.precision == PrecisionMode::Tf32); // the default
        const double tf32 = opTimeUs(mm, gpu);
        const double launch = 2.0;
        a100.setPrecision(PrecisionMode::Fp32);
        const double fp32 = opTimeUs(mm, a100.device(1));
        // FP32 units at 0.7 of 19.5 TFLOP/s, TF32 tensor cores at 0.5 of 156.
        QVERIFY(near(fp32 - launch, mm.flops / (19.5e12 * 0.7) * 1e6));
        QVERIFY(near(tf32 - launch, mm.flops / (156e12 * 0.5) * 1e6));
        QVERIFY(near((fp32 - launch) / (tf32 - launch), (156.0 * 0.5) / (19.5 * 0.7)));
        a100.setPrecision(PrecisionMode::Amp);
        QVERIFY(near(opTimeUs(mm, a100.device(1)) - launch, mm.flops / (312e12 * 0.5) * 1e6));

        // Within the memory limit: an element-wise op gains nothing from tensor cores, and a
        // small matrix product is memory-bound at the TF32 peak.
        Shaped e;
        e.op("relu", "Relu", {e.tensor("x", {4096, 4096})}, {e.tensor("r", {4096, 4096})});
        e.op("mv", "MatMul", {e.tensor("v", {1, 4096}), e.tensor("w", {4096, 4096}, true)}, {e.tensor("o", {1, 4096})});
        const Graph eg = buildTrainingGraph(e.g);
        QVERIFY(!eg.op(0).matrixOp);
        QVERIFY(eg.op(1).matrixOp);
        // (The ReLU streams: 0.9 of the bandwidth; the product's kernel 0.6.)
        for (const PrecisionMode mode : {PrecisionMode::Fp32, PrecisionMode::Tf32, PrecisionMode::Pytorch}) {
            a100.setPrecision(mode);
            QVERIFY(near(opTimeUs(eg.op(0), a100.device(1)) - launch, eg.op(0).memoryBytes / (1555e9 * 0.9) * 1e6));
            QVERIFY(near(opTimeUs(eg.op(1), a100.device(1)) - launch, eg.op(1).memoryBytes / (1555e9 * 0.6) * 1e6));
        }
        // Under amp the memory traffic is half (activations in 16 bits).
        a100.setPrecision(PrecisionMode::Amp);
        QVERIFY(near(opTimeUs(eg.op(0), a100.device(1)) - launch, 0.5 * eg.op(0).memoryBytes / (1555e9 * 0.9) * 1e6));

        // No tensor cores (K80), no TF32 (V100): every mode but V100's amp gives the FP32 time.
        Cluster k80 = loadCluster("k80x4");
        Cluster v100 = loadCluster("v100x4-nvlink");
        const double k80Time = opTimeUs(mm, k80.device(1));
        const double v100Time = opTimeUs(mm, v100.device(1));
        QVERIFY(near(v100Time - launch, mm.flops / (15.7e12 * 0.7) * 1e6));
        for (const PrecisionMode mode : {PrecisionMode::Fp32, PrecisionMode::Amp}) {
            k80.setPrecision(mode);
            QCOMPARE(opTimeUs(mm, k80.device(1)), k80Time);
        }
        v100.setPrecision(PrecisionMode::Amp);
        QVERIFY(near(opTimeUs(mm, v100.device(1)) - launch, mm.flops / (125e12 * 0.5) * 1e6));

        // fp16 and int8 ops run at their own peak in every mode.
        Shaped h;
        const int ha = h.tensor("a", {4096, 4096});
        const int hb = h.tensor("b", {4096, 4096}, true);
        h.g.tensors[static_cast<size_t>(ha)].elementBytes = 2;
        h.g.tensors[static_cast<size_t>(hb)].elementBytes = 2;
        h.op("mm", "MatMul", {ha, hb}, {h.tensor("y", {4096, 4096})});
        const Graph hg = buildTrainingGraph(h.g);
        QVERIFY(hg.op(0).precision == ElementPrecision::Half);
        a100.setPrecision(PrecisionMode::Fp32);
        QVERIFY(near(opTimeUs(hg.op(0), a100.device(1)) - launch, hg.op(0).flops / (312e12 * 0.5) * 1e6));
        Op q = hg.op(0);
        q.precision = ElementPrecision::Int8;
        QCOMPARE(rooflinePeakFlops(q, a100.device(1)), 624e12);
        QCOMPARE(rooflinePeakFlops(q, v100.device(1)), 125e12); // no INT8 peak: the FP16 one
        QCOMPARE(rooflinePeakFlops(q, k80.device(1)), 2.805e12);
    }

    void clusterPrecisionReadsAndWrites()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1", "precision": "amp",
            "devices": [{"name": "g", "kind": "gpu", "peak_tflops": 19.5, "peak_tf32_tflops": 156,
                         "peak_fp16_tflops": 312, "peak_int8_tops": 624, "memory_bandwidth_GBps": 1555}]})",
                                       "p.json");
        QVERIFY(c.precision() == PrecisionMode::Amp);
        QCOMPARE(c.device(0).peakTf32Flops, 156e12);
        QCOMPARE(c.device(0).peakInt8Ops, 624e12);
        const Cluster back = parseCluster(clusterJson(c), "back.json");
        QVERIFY(back.precision() == PrecisionMode::Amp);
        QCOMPARE(back.device(0).peakFp16Flops, 312e12);
        auto refuses = [](const char* text, const char* fragment) {
            try {
                parseCluster(text, "bad.json");
            } catch (const InputError& e) {
                return std::string(e.what()).find(fragment) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refuses(R"({"format": "post-cluster/1", "precision": "fp8", "devices": [{"name": "g", "kind": "gpu"}]})",
                        "unknown precision mode \"fp8\""));
        QVERIFY(refuses(R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "peak_tf32_tflops": 0}]})",
                        "peak_tf32_tflops"));
        QVERIFY(
            refuses(R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "peak_int8_tops": 1e12}]})",
                    "peak_int8_tops"));
    }

    void clusterFileReadsAndWritesFigures()
    {
        const Cluster c = parseCluster(R"({"format": "post-cluster/1",
            "devices": [{"name": "g", "kind": "gpu", "peak_tflops": 19.5, "memory_bandwidth_GBps": 1555},
                        {"name": "h", "kind": "gpu"}]})",
                                       "c.json");
        QCOMPARE(c.device(0).peakFlops, 19.5e12);
        QCOMPARE(c.device(0).memoryBandwidth, 1555e9);
        QCOMPARE(c.device(1).peakFlops, 0.0); // unknown
        const std::string text = clusterJson(c);
        const Cluster back = parseCluster(text, "c.json");
        QCOMPARE(back.device(0).peakFlops, 19.5e12);
        QCOMPARE(back.device(0).memoryBandwidth, 1555e9);
        const QJsonArray devices = QJsonDocument::fromJson(QByteArray::fromStdString(text))["devices"].toArray();
        QCOMPARE(devices[0].toObject()["peak_tflops"].toDouble(), 19.5);
        QCOMPARE(devices[0].toObject()["memory_bandwidth_GBps"].toDouble(), 1555.0);
        QVERIFY(!devices[1].toObject().contains("peak_tflops")); // unknown figures are not written
        QVERIFY(!devices[1].toObject().contains("memory_bandwidth_GBps"));
        const InputError e = inputErrorOf([] {
            parseCluster(R"({"format": "post-cluster/1", "devices": [{"name": "g", "kind": "gpu", "peak_tflops": 0}]})",
                         "c.json");
        });
        QCOMPARE(e.location(), std::string("field devices[0].peak_tflops"));
    }

    void nativeGraphKeepsOpCosts()
    {
        const Graph g = parseNativeGraph(R"({"format": "post-graph/1", "ops": [
            {"name": "a", "time_us": {"gpu": 10}, "flops": 2e9, "memory_bytes": 4096},
            {"name": "b", "time_us": {"gpu": 1}}]})",
                                         "g.json");
        QCOMPARE(g.op(0).flops, 2e9);
        QCOMPARE(g.op(0).memoryBytes, 4096.0);
        QCOMPARE(g.op(1).flops, 0.0);
        const std::string text = nativeGraphJson(g);
        const QJsonArray ops = QJsonDocument::fromJson(QByteArray::fromStdString(text))["ops"].toArray();
        QCOMPARE(ops[0].toObject()["flops"].toDouble(), 2e9);
        QVERIFY(!ops[1].toObject().contains("flops")); // 0 = unknown: not written
        QVERIFY(!ops[1].toObject().contains("memory_bytes"));
        const Graph back = parseNativeGraph(text, "g.json");
        QCOMPARE(back.op(0).flops, 2e9);
        QCOMPARE(back.op(0).memoryBytes, 4096.0);
        QCOMPARE(back.op(1).memoryBytes, 0.0);
        const InputError e = inputErrorOf(
            [] { parseNativeGraph(R"({"format": "post-graph/1", "ops": [{"name": "a", "flops": -1}]})", "g.json"); });
        QCOMPARE(e.location(), std::string("field ops[0].flops"));
    }

    // Eager PyTorch's host thread issues every op that does work, at kEagerDispatchUsPerOp
    // each (cost/HostDispatch.h): an input or a constant is not issued, a timed op, one with
    // FLOPs or bytes only, and a collective are.
    void hostDispatchCountsTheOpsThatRun()
    {
        const Graph g = parseNativeGraph(R"({"format": "post-graph/1", "ops": [
            {"name": "input", "type": "Input"},
            {"name": "a", "time_us": {"gpu": 10}},
            {"name": "b", "flops": 2e9},
            {"name": "c", "memory_bytes": 4096},
            {"name": "d", "type": "AllReduce", "collective": {"kind": "all_reduce", "bytes": 1e6}}],
            "edges": [{"from": "input", "to": "a"}, {"from": "a", "to": "b"}, {"from": "b", "to": "c"},
                      {"from": "c", "to": "d"}]})",
                                         "g.json");
        QCOMPARE(dispatchedOps(g), 4);
        QCOMPARE(eagerDispatchUs(g, nullptr), 4 * kEagerDispatchUsPerOp);
        Cluster c("one", {Device{"/device:GPU:0", DeviceKind::Gpu, 1.0, 1e12}}, Link{});
        // A step the host keeps up with: nothing to say.
        QVERIFY(hostBoundNote(g, c, 4 * kEagerDispatchUsPerOp).empty());
        QVERIFY(hostBoundNote(g, c, 1e6).empty());
        // A shorter one: the host's time, the ops, the rate and the step are named.
        std::string note = hostBoundNote(g, c, 100.0);
        QVERIFY2(note.find("4 ops from one host thread: about 188.0 us at 47 us an op (measured") != std::string::npos,
                 note.c_str());
        QVERIFY2(note.find("host_dispatch_us_per_op gives yours") != std::string::npos, note.c_str());
        QVERIFY2(note.find("the simulated 100.0 us") != std::string::npos, note.c_str());
        QVERIFY2(note.find("likely bound by the host") != std::string::npos, note.c_str());
        // The cluster's own host: its rate, and its name for where the figure comes from.
        c.setHostDispatchUsPerOp(12.5);
        QCOMPARE(dispatchUsPerOp(&c), 12.5);
        QCOMPARE(eagerDispatchUs(g, &c), 50.0);
        QVERIFY(hostBoundNote(g, c, 100.0).empty()); // 50 us of dispatch: the host keeps up
        note = hostBoundNote(g, c, 40.0);
        QVERIFY2(note.find("about 50.0 us at 12.5 us an op (this cluster's host_dispatch_us_per_op)") != std::string::npos,
                 note.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCostModel)
#include "test_cost_model.moc"
