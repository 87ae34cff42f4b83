// The model zoo: layer tables give the published parameter counts, the graphs have the
// expected op counts and shapes, batch scaling and determinism.
#include "core/cost/CostModel.h"
#include "core/io/native/NativeGraphReader.h"
#include "core/zoo/ZooRegistry.h"

#include <QtTest>

#include <algorithm>

#include <cmath>
#include <set>

using namespace post;

namespace {

std::int64_t elements(const ShapedTensor& t)
{
    std::int64_t n = 1;
    for (std::int64_t d : t.shape)
        n *= d;
    return n;
}

// Trainable parameters whose name contains `part` (all when empty) or, with exclude, doesn't.
std::int64_t parameters(const ShapedGraph& g, const std::string& part = {}, bool exclude = false)
{
    std::int64_t n = 0;
    for (const ShapedTensor& t : g.tensors)
        if (t.isParameter && (part.empty() || (t.name.find(part) != std::string::npos) != exclude))
            n += elements(t);
    return n;
}

int opsOfType(const ShapedGraph& g, const std::string& type)
{
    int n = 0;
    for (const ShapedOp& op : g.ops)
        n += op.type == type ? 1 : 0;
    return n;
}

const ShapedOp* findOp(const ShapedGraph& g, const std::string& name)
{
    for (const ShapedOp& op : g.ops)
        if (op.name == name)
            return &op;
    return nullptr;
}

const std::vector<std::int64_t>& outputShape(const ShapedGraph& g, const std::string& opName)
{
    const ShapedOp* op = findOp(g, opName);
    if (!op)
        qFatal("no op %s", opName.c_str());
    return g.tensors[static_cast<size_t>(op->outputs.front())].shape;
}

using Shape = std::vector<std::int64_t>;

// Multiply-adds of the convolutions and matrix products, from the shapes alone:
// Conv2D: N x Ho x Wo x Cout x (kh x kw x Cin); MatMul [M, K] x [K, N]: M x K x N.
double multiplyAdds(const ShapedGraph& g)
{
    double macs = 0.0;
    for (const ShapedOp& op : g.ops) {
        if (op.type != "Conv2D" && op.type != "MatMul")
            continue;
        const Shape& out = g.tensors[static_cast<size_t>(op.outputs.front())].shape;
        const Shape& w = g.tensors[static_cast<size_t>(op.inputs.at(1))].shape;
        if (op.type == "Conv2D")
            macs += double(out[0]) * out[1] * out[2] * out[3] * w[0] * w[1] * w[2];
        else
            macs += double(out[0]) * out[1] * (w[0] == out[1] ? w[1] : w[0]);
    }
    return macs;
}

} // namespace

class TestZoo : public QObject {
    Q_OBJECT

private slots:
    void registryListsEveryModelOnce()
    {
        std::set<std::string> names;
        for (const ZooModelInfo& m : ZooRegistry::models()) {
            QVERIFY2(names.insert(m.name).second, m.name.c_str());
            QVERIFY(!m.description.empty());
            QVERIFY(m.defaultBatch >= 1);
        }
        for (const char* n : {"inception-v3", "resnet-50", "rnnlm-2", "nmt-2", "nmt-4", "nmt-8", "bert-base"})
            QVERIFY2(names.count(n) == 1, n);
        QVERIFY(!ZooRegistry::find("resnet-51"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ZooRegistry::forwardGraph("resnet-51", 1));
    }

    // Every tensor has one producer or none (inputs, parameters, constants), every op input
    // exists and the op list is in topological order (builders only use what exists).
    void graphsAreWellFormed_data()
    {
        QTest::addColumn<QString>("name");
        for (const ZooModelInfo& m : ZooRegistry::models())
            QTest::newRow(m.name.c_str()) << QString::fromStdString(m.name);
    }
    void graphsAreWellFormed()
    {
        QFETCH(QString, name);
        const ShapedGraph g = ZooRegistry::forwardGraph(name.toStdString(), 2);
        QCOMPARE(g.name, name.toStdString());
        std::vector<int> producer(g.tensors.size(), -1);
        std::set<std::string> opNames;
        for (size_t k = 0; k < g.ops.size(); ++k) {
            const ShapedOp& op = g.ops[k];
            QVERIFY2(opNames.insert(op.name).second, op.name.c_str());
            for (int in : op.inputs) {
                QVERIFY(in >= 0 && static_cast<size_t>(in) < g.tensors.size());
                const ShapedTensor& t = g.tensors[static_cast<size_t>(in)];
                QVERIFY2(producer[static_cast<size_t>(in)] >= 0 || t.isParameter || t.isConstant, t.name.c_str());
            }
            for (int out : op.outputs) {
                QCOMPARE(producer[static_cast<size_t>(out)], -1);
                producer[static_cast<size_t>(out)] = static_cast<int>(k);
            }
        }
        for (const ShapedTensor& t : g.tensors)
            for (std::int64_t d : t.shape)
                QVERIFY2(d > 0, t.name.c_str());
    }

    // torchvision's resnet50 has 25,557,032 parameters (conv weights without bias, batch-norm
    // gamma and beta, fc 2048x1000 + 1000); He et al. quote 25.6M.
    void resnet50Parameters()
    {
        const ShapedGraph g = ZooRegistry::forwardGraph("resnet-50", 1);
        QCOMPARE(parameters(g), std::int64_t{25557032});
        QCOMPARE(opsOfType(g, "Conv2D"), 53); // 1 + 16 blocks x 3 + 4 projections
        QCOMPARE(opsOfType(g, "FusedBatchNorm"), 53);
        QCOMPARE(opsOfType(g, "AssignSub"), 2 * 53); // moving mean and variance of each batch norm
        QCOMPARE(opsOfType(g, "AddV2"), 16);
        QCOMPARE(outputShape(g, "resnet50/pool1/MaxPool"), (Shape{1, 56, 56, 64}));
        QCOMPARE(outputShape(g, "resnet50/block2/unit1/Relu"), (Shape{1, 28, 28, 512}));
        QCOMPARE(outputShape(g, "resnet50/block4/unit3/Relu"), (Shape{1, 7, 7, 2048}));
    }

    // Keras' InceptionV3 (same layer table, batch norm without scale, 1000 classes) has
    // 23,817,352 trainable parameters ("23.8M"); slim's 1001 classes add 2048 + 1 weights.
    // The auxiliary head: 1x1x768x128 + 128 + 5x5x128x768 + 768 + 768x1001 + 1001.
    void inceptionV3Parameters()
    {
        const ShapedGraph g = ZooRegistry::forwardGraph("inception-v3", 1);
        QCOMPARE(parameters(g, "AuxLogits", true), std::int64_t{23817352 + 2049});
        QCOMPARE(parameters(g, "AuxLogits"), std::int64_t{768 * 128 + 128 + 5 * 5 * 128 * 768 + 768 + 768 * 1001 + 1001});
        QCOMPARE(opsOfType(g, "Conv2D"), 94 + 2 + 1 + 1); // 94 conv-bn-relu, 2 aux, 2 logits
        QCOMPARE(opsOfType(g, "ConcatV2"), 11 + 4);       // 11 mixed blocks, 2 x 2 in Mixed_7b/7c
        QCOMPARE(outputShape(g, "InceptionV3/Conv2d_4a_3x3/Relu"), (Shape{1, 71, 71, 192}));
        QCOMPARE(outputShape(g, "InceptionV3/Mixed_5b/concat"), (Shape{1, 35, 35, 256}));
        QCOMPARE(outputShape(g, "InceptionV3/Mixed_6a/concat"), (Shape{1, 17, 17, 768}));
        QCOMPARE(outputShape(g, "InceptionV3/Mixed_7a/concat"), (Shape{1, 8, 8, 1280}));
        QCOMPARE(outputShape(g, "InceptionV3/Mixed_7c/concat"), (Shape{1, 8, 8, 2048}));
        QCOMPARE(outputShape(g, "InceptionV3/AuxLogits/Conv2d_2a_5x5/Relu"), (Shape{1, 1, 1, 768}));
    }

    // BERT-base: 109,482,240 parameters in the encoder, embeddings and pooler (the "110M" of
    // Devlin et al.; HuggingFace's BertModel has exactly this many), plus the pre-training
    // heads: transform 768x768 + 768, layer norm 2x768, output bias 30,522, NSP 2x768 + 2.
    void bertBaseParameters()
    {
        const ShapedGraph g = ZooRegistry::forwardGraph("bert-base", 1);
        QCOMPARE(parameters(g, "cls/", true), std::int64_t{109482240});
        QCOMPARE(parameters(g, "cls/"), std::int64_t{768 * 768 + 768 + 2 * 768 + 30522 + 2 * 768 + 2});
        QCOMPARE(opsOfType(g, "BatchMatMulV2"), 24);
        QCOMPARE(opsOfType(g, "Softmax"), 12);
        QCOMPARE(outputShape(g, "bert/encoder/layer_11/attention/self/Softmax"), (Shape{1, 12, 128, 128}));
    }

    // Embedding 10,000 x 2048, two LSTM layers of (2048 + 2048) x 8192 + 8192, softmax
    // 2048 x 10,000 + 10,000; 14 ops per cell and step.
    void rnnlmParametersAndCells()
    {
        const ShapedGraph g = ZooRegistry::forwardGraph("rnnlm-2", 1);
        const std::int64_t lstm = 4096LL * 8192 + 8192;
        QCOMPARE(parameters(g), std::int64_t{10000LL * 2048 + 2 * lstm + 2048LL * 10000 + 10000});
        QCOMPARE(opsOfType(g, "MatMul"), 2 * 20 + 1);
        QCOMPARE(opsOfType(g, "Sigmoid"), 3 * 2 * 20);
        // Each cell's ops share one colocation group; the shared kernel is read once.
        const ShapedOp* mm = findOp(g, "Model/RNN/multi_rnn_cell/cell_1/basic_lstm_cell/t7/MatMul");
        const ShapedOp* mul = findOp(g, "Model/RNN/multi_rnn_cell/cell_1/basic_lstm_cell/t7/mul_2");
        QVERIFY(mm && mul);
        QCOMPARE(mm->colocate, mul->colocate);
        QCOMPARE(opsOfType(g, "Identity"), 2 * 2);
        // Two more layers: two Identity reads and 20 cells of 14 ops each.
        QCOMPARE(ZooRegistry::forwardGraph("rnnlm-4", 1).ops.size() - g.ops.size(), size_t{2 * 2 + 2 * 20 * 14});
    }

    // Encoder: bidirectional layer 2 x ((1024 + 1024) x 4096 + 4096), second layer
    // (2048 + 1024) x 4096 + 4096, further layers (1024 + 1024) x 4096 + 4096; decoder layers
    // (2048 + 1024) x 4096 + 4096; attention 2 x 1024^2 + 1024; three 32,000 x 1024 tables.
    void nmtParametersGrowPerLayer()
    {
        const std::int64_t bi = 2 * (2048LL * 4096 + 4096), wide = 3072LL * 4096 + 4096, narrow = 2048LL * 4096 + 4096;
        const std::int64_t base = 3 * 32000LL * 1024 + 2 * 1024LL * 1024 + 1024;
        QCOMPARE(parameters(ZooRegistry::forwardGraph("nmt-2", 1)), base + bi + wide + 2 * wide);
        QCOMPARE(parameters(ZooRegistry::forwardGraph("nmt-4", 1)), base + bi + wide + 2 * narrow + 4 * wide);
        QCOMPARE(parameters(ZooRegistry::forwardGraph("nmt-8", 1)), base + bi + wide + 6 * narrow + 8 * wide);
        const ShapedGraph g = ZooRegistry::forwardGraph("nmt-4", 3);
        QCOMPARE(opsOfType(g, "Softmax"), 30); // one attention per decoder step
        QCOMPARE(outputShape(g, "dynamic_seq2seq/decoder/attention/t29/Squeeze"), (Shape{3, 1024}));
    }

    // --steps unrolls the recurrent models further: parameters stay, the per-step ops grow
    // linearly (an NMT step is one attention and 2 x layers cells), and 200 steps give
    // nmt-8 a training graph of about 100k ops (TF's own 8-layer NMT: 83,712 at 30 steps).
    void stepsUnrollTheRecurrentModels()
    {
        const ShapedGraph base = ZooRegistry::forwardGraph("nmt-2", 1);
        const ShapedGraph a = ZooRegistry::forwardGraph("nmt-2", 1, 40);
        const ShapedGraph b = ZooRegistry::forwardGraph("nmt-2", 1, 50);
        QCOMPARE(ZooRegistry::forwardGraph("nmt-2", 1, 30).ops.size(), base.ops.size()); // 30 is the default
        QCOMPARE(parameters(a), parameters(base));
        QCOMPARE(opsOfType(a, "Softmax"), 40);
        QCOMPARE(opsOfType(b, "Softmax"), 50);
        QCOMPARE(b.ops.size() - a.ops.size(), a.ops.size() - base.ops.size()); // linear in the steps
        QCOMPARE(outputShape(b, "dynamic_seq2seq/decoder/attention/t49/Softmax"), (Shape{1, 50}));

        const ShapedGraph r = ZooRegistry::forwardGraph("rnnlm-2", 1, 35);
        QCOMPARE(parameters(r), parameters(ZooRegistry::forwardGraph("rnnlm-2", 1)));
        QCOMPARE(opsOfType(r, "MatMul"), 2 * 35 + 1);
        QCOMPARE(outputShape(r, "Model/Reshape"), (Shape{35, 2048}));

        const std::size_t big = ZooRegistry::forwardGraph("nmt-8", 1, 200).ops.size();
        QVERIFY2(big > 45000 && big < 60000, qPrintable(QString::number(big))); // 53,852: 107,704 training ops

        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ZooRegistry::forwardGraph("gpt2", 1, 10));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 ZooRegistry::forwardGraph("nmt-2", 1, ZooRegistry::kMaxSteps + 1));
    }

    // bert-base's "steps" are its sequence length (SQuAD fine-tuning runs 384): the same ops
    // and parameters, every activation [N*S, H], attention [N, heads, S, S]; 1 to 512 tokens.
    void bertSequenceLength()
    {
        const ShapedGraph base = ZooRegistry::forwardGraph("bert-base", 2);
        const ShapedGraph squad = ZooRegistry::forwardGraph("bert-base", 2, 384);
        QCOMPARE(squad.ops.size(), base.ops.size());
        QCOMPARE(parameters(squad, "cls/", true), parameters(base, "cls/", true));
        QCOMPARE(outputShape(squad, "bert/encoder/layer_11/attention/self/Softmax"), (Shape{2, 12, 384, 384}));
        QCOMPARE(outputShape(squad, "bert/encoder/Reshape"), (Shape{2 * 384, 768}));
        QCOMPARE(outputShape(ZooRegistry::forwardGraph("bert-base", 2, 128), "bert/encoder/Reshape"),
                 outputShape(base, "bert/encoder/Reshape"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ZooRegistry::forwardGraph("bert-base", 1, 513));
    }

    // GPT-2: V H + 1024 H + L (12 H^2 + 13 H) + 2 H parameters (wte tied to the logits), i.e.
    // HuggingFace's 124,439,808 / 354,823,168 / 774,030,080 / 1,557,611,200, within 1% of
    // OpenAI's published sizes: the released checkpoints 124M / 355M / 774M / 1558M (the
    // model card's "1.5B" is that last figure rounded to two digits).
    void gptParametersMatchThePublishedFigures_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<double>("published");
        QTest::newRow("gpt2") << "gpt2" << 12 << 768 << 124e6;
        QTest::newRow("gpt2-medium") << "gpt2-medium" << 24 << 1024 << 355e6;
        QTest::newRow("gpt2-large") << "gpt2-large" << 36 << 1280 << 774e6;
        QTest::newRow("gpt2-xl") << "gpt2-xl" << 48 << 1600 << 1558e6;
    }
    void gptParametersMatchThePublishedFigures()
    {
        QFETCH(QString, name);
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(double, published);
        const ShapedGraph g = ZooRegistry::forwardGraph(name.toStdString(), 1);
        const std::int64_t h = hidden;
        QCOMPARE(parameters(g), 50257 * h + 1024 * h + layers * (12 * h * h + 13 * h) + 2 * h);
        const double ratio = double(parameters(g)) / published;
        QVERIFY2(std::abs(ratio - 1.0) < 0.01, qPrintable(QString::number(parameters(g))));
        QCOMPARE(opsOfType(g, "Softmax"), layers);
        QCOMPARE(opsOfType(g, "Identity"), 1); // the tied embedding is read once
        QCOMPARE(outputShape(g, "model/h0/attn/MatMul"), (Shape{1, h / 64, 1024, 1024}));
        QCOMPARE(outputShape(g, "model/logits/MatMul"), (Shape{1024, 50257}));
    }

    // The GPT training step carries Adam: one ApplyAdam per parameter owner, fed by the
    // owner's backward op with the weight gradient, colocated with the owner, 11 x 4 bytes of
    // memory traffic per parameter (Adam's 7, the gradient's zero_grad and AccumulateGrad 4);
    // nothing else of the training graph changes.
    void gptTrainingStepHasAdamUpdates()
    {
        CostReport report;
        const Graph g = ZooRegistry::generate("gpt2", 1, {}, &report);
        CostModelOptions noUpdates;
        noUpdates.optimizer = OptimizerKind::None;
        const Graph plain = buildTrainingGraph(ZooRegistry::forwardGraph("gpt2", 1), noUpdates);
        QCOMPARE(report.opCount, g.opCount());
        int owners = 0, updates = 0;
        double updated = 0.0, traffic = 0.0;
        for (OpId id = 0; id < g.opCount(); ++id) {
            const Op& op = g.op(id);
            if (op.type != "ApplyAdam") {
                QVERIFY(id < plain.opCount());
                QCOMPARE(op.name, plain.op(id).name);
                owners += op.paramBytes > 0.0 ? 1 : 0;
                continue;
            }
            ++updates;
            QCOMPARE(op.paramBytes, 0.0);
            QVERIFY(op.time(DeviceKind::Gpu) > 0.0);
            traffic += op.memoryBytes;
            QCOMPARE(g.inEdges(id).size(), size_t{1});
            const Edge& in = g.edge(g.inEdges(id).front());
            const std::string owner = op.name.substr(0, op.name.size() - std::string("/ApplyAdam").size());
            QCOMPARE(g.op(in.from).name, owner + "/grad");
            const auto ownerId = g.find(owner);
            QVERIFY(ownerId);
            QCOMPARE(in.bytes, g.op(*ownerId).paramBytes);
            QCOMPARE(g.colocationGroup(id), g.colocationGroup(*ownerId));
            updated += in.bytes;
        }
        QCOMPARE(updates, owners);
        QCOMPARE(g.opCount(), plain.opCount() + updates);
        QCOMPARE(g.edgeCount(), plain.edgeCount() + updates);
        QCOMPARE(updated, 4.0 * 124439808);
        QCOMPARE(g.totalParamBytes(), 4.0 * 124439808);
        QCOMPARE(traffic, 11.0 * updated);
        QCOMPARE(ZooRegistry::generate("gpt2", 1, noUpdates).opCount(), plain.opCount());
        // The other models get the options' optimizer: SGD with momentum by default.
        const Graph rnnlm = ZooRegistry::generate("rnnlm-2", 1);
        int momentum = 0;
        for (const Op& op : rnnlm.ops()) {
            QVERIFY(op.type != "ApplyAdam");
            momentum += op.type == "ApplyMomentum" ? 1 : 0;
        }
        QVERIFY(momentum > 0);
        const ShapedGraph rnnlmForward = ZooRegistry::forwardGraph("rnnlm-2", 1);
        const auto feeds = static_cast<int>(std::count_if(rnnlmForward.ops.begin(), rnnlmForward.ops.end(),
                                                          [](const ShapedOp& o) { return o.type == "Placeholder"; }));
        QVERIFY(feeds > 0); // the feeds get no gradient op
        QCOMPARE(rnnlm.opCount(), 2 * static_cast<int>(rnnlmForward.ops.size()) - feeds + momentum);
    }

    // Forward op counts (docs/zoo.md): the training graph doubles them and adds updates.
    void forwardOpCounts_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("low");
        QTest::addColumn<int>("high");
        QTest::newRow("inception-v3") << "inception-v3" << 850 << 1000; // 909
        QTest::newRow("resnet-50") << "resnet-50" << 450 << 550;        // 498
        QTest::newRow("rnnlm-2") << "rnnlm-2" << 520 << 630;            // 574
        QTest::newRow("nmt-2") << "nmt-2" << 2300 << 2800;              // 2,518
        QTest::newRow("nmt-8") << "nmt-8" << 7300 << 9000;              // 8,122
        QTest::newRow("bert-base") << "bert-base" << 620 << 750;        // 682
        QTest::newRow("gpt2") << "gpt2" << 600 << 680;                  // 631
        QTest::newRow("gpt2-xl") << "gpt2-xl" << 2300 << 2700;          // 2,467
    }
    void forwardOpCounts()
    {
        QFETCH(QString, name);
        QFETCH(int, low);
        QFETCH(int, high);
        const int n = static_cast<int>(ZooRegistry::forwardGraph(name.toStdString(), 1).ops.size());
        QVERIFY2(n >= low && n <= high, qPrintable(name + ": " + QString::number(n)));
    }

    // ResNet-50 v1.5: 4.09 G multiply-adds per 224x224 image (torchvision/fvcore; He et al.
    // give 3.8 G for v1, whose stride-2 1x1 convolutions are cheaper), i.e. ~8.2 GFLOPs.
    // Inception-V3: 5.7 G (Szegedy et al. quote 5 G for the network without the auxiliary head).
    void forwardMultiplyAdds()
    {
        const double resnet = multiplyAdds(ZooRegistry::forwardGraph("resnet-50", 1));
        QVERIFY2(resnet > 4.05e9 && resnet < 4.13e9, qPrintable(QString::number(resnet)));
        QCOMPARE(multiplyAdds(ZooRegistry::forwardGraph("resnet-50", 8)), 8 * resnet);
        const double inception = multiplyAdds(ZooRegistry::forwardGraph("inception-v3", 1));
        QVERIFY2(inception > 5.6e9 && inception < 6.0e9, qPrintable(QString::number(inception)));
    }

    void buildsAreDeterministic()
    {
        for (const char* name : {"inception-v3", "nmt-2", "bert-base", "gpt2"}) {
            const ShapedGraph a = ZooRegistry::forwardGraph(name, 3);
            const ShapedGraph b = ZooRegistry::forwardGraph(name, 3);
            QCOMPARE(a.ops.size(), b.ops.size());
            for (size_t k = 0; k < a.ops.size(); ++k) {
                QCOMPARE(a.ops[k].name, b.ops[k].name);
                QCOMPARE(a.ops[k].inputs, b.ops[k].inputs);
                QCOMPARE(a.ops[k].outputs, b.ops[k].outputs);
                QCOMPARE(a.ops[k].colocate, b.ops[k].colocate);
            }
            QCOMPARE(a.tensors.size(), b.tensors.size());
            for (size_t k = 0; k < a.tensors.size(); ++k)
                QCOMPARE(a.tensors[k].shape, b.tensors[k].shape);
        }
    }

    // Through the cost model: one backward op per forward op that a gradient reaches (not the
    // batch norms' moving-average updates: state, not gradients), one momentum update per
    // parameter owner, fp32 parameter bytes, and the forward FLOPs of ResNet-50 at 2 x 4.09 G
    // multiply-adds per image plus the element-wise work (batch norm 8 FLOPs an element, ReLU,
    // additions: under 4% more).
    void trainingGraphThroughTheCostModel()
    {
        const ShapedGraph forward = ZooRegistry::forwardGraph("resnet-50", 32);
        CostReport report;
        const Graph g = ZooRegistry::generate("resnet-50", 32, {}, &report);
        QCOMPARE(report.forwardOpCount, static_cast<int>(forward.ops.size()));
        int movingAverageOps = 0, owners = 0;
        for (const ShapedOp& o : forward.ops) {
            movingAverageOps += o.name.find("AssignMovingAvg") != std::string::npos ? 1 : 0;
        }
        for (const Op& op : g.ops()) {
            owners += op.paramBytes > 0.0 ? 1 : 0;
            // No moving-average "gradients": the updates and their arithmetic get no backward op.
            QVERIFY2(!(op.name.find("AssignMovingAvg") != std::string::npos && op.name.ends_with("/grad")),
                     op.name.c_str());
        }
        QCOMPARE(movingAverageOps, 53 * 2 * 3); // per batch norm: mean and variance, sub, mul, AssignSub
        // The two feeds (images, labels) get no gradient either, and carry the batch's copy to the
        // GPU: 32 x 224 x 224 x 3 FP32 images at 10 GB/s plus a launch; no gradient toward the
        // images, so the first convolution computes its weight gradient only.
        QCOMPARE(report.opsWithoutGradient, movingAverageOps + 2);
        QCOMPARE(report.inputCopies, 2);
        QVERIFY(!g.find("input/images/grad") && !g.find("input/labels/grad"));
        const double imageBytes = 4.0 * 32 * 224 * 224 * 3;
        QCOMPARE(g.op(*g.find("input/images")).time(DeviceKind::Gpu), imageBytes / 10e3 + 2.0);
        QCOMPARE(g.op(*g.find("input/images")).time(DeviceKind::Cpu), 0.0);
        QCOMPARE(g.op(*g.find("resnet50/conv1/Conv2D/grad")).flops, g.op(*g.find("resnet50/conv1/Conv2D")).flops);
        QCOMPARE(report.optimizerOps, owners);
        QCOMPARE(g.opCount(), 2 * static_cast<int>(forward.ops.size()) - movingAverageOps - 2 + owners);
        QCOMPARE(g.totalParamBytes(), 4.0 * 25557032);
        const double perImage = report.totalForwardFlops / 32;
        QVERIFY2(perImage >= 2 * multiplyAdds(ZooRegistry::forwardGraph("resnet-50", 1)) && perImage < 8.5e9,
                 qPrintable(QString::number(perImage)));
        CostReport doubled;
        ZooRegistry::generate("resnet-50", 64, {}, &doubled);
        QVERIFY(doubled.totalForwardFlops > 1.999 * report.totalForwardFlops
                && doubled.totalForwardFlops <= 2.0 * report.totalForwardFlops);
        // Every backward op shares its forward op's colocation group.
        const auto conv = g.find("resnet50/block3/unit2/conv2/Conv2D");
        const auto grad = g.find("resnet50/block3/unit2/conv2/Conv2D/grad");
        QVERIFY(conv && grad);
        QCOMPARE(g.colocationGroup(*conv), g.colocationGroup(*grad));
    }

    // The same name and batch give byte-identical post-graph/1 text.
    void generatedFilesAreDeterministic()
    {
        QCOMPARE(nativeGraphJson(ZooRegistry::generate("rnnlm-2", 8)),
                 nativeGraphJson(ZooRegistry::generate("rnnlm-2", 8)));
    }

    // Activations scale with the batch; parameters, batch-norm statistics and the loss don't.
    void batchScalesActivationsOnly()
    {
        const ShapedGraph a = ZooRegistry::forwardGraph("resnet-50", 2);
        const ShapedGraph b = ZooRegistry::forwardGraph("resnet-50", 6);
        QCOMPARE(a.ops.size(), b.ops.size());
        QCOMPARE(a.tensors.size(), b.tensors.size());
        for (size_t k = 0; k < a.tensors.size(); ++k) {
            const ShapedTensor& ta = a.tensors[k];
            const ShapedTensor& tb = b.tensors[k];
            QCOMPARE(ta.name, tb.name);
            const bool perChannel = ta.shape.size() == 1 && ta.name.find("BatchNorm/") != std::string::npos;
            if (ta.isParameter || ta.isConstant || perChannel || ta.name == "losses/Mean:0")
                QCOMPARE(elements(ta), elements(tb));
            else
                QCOMPARE(elements(tb), 3 * elements(ta));
        }
        QCOMPARE(ZooRegistry::forwardGraph("inception-v3", 0).tensors.front().shape.front(),
                 std::int64_t{ZooRegistry::find("inception-v3")->defaultBatch});
    }
};

QTEST_APPLESS_MAIN(TestZoo)
#include "test_zoo.moc"
