// Layers found from a graph's structure (core/graph/LayerGroups), for graphs whose names carry
// no scopes: MSR's BERT operator graphs ("MatMul12", "Add4") show their encoder layers, and
// ScopeTree::buildByLayers turns them into scopes for the graph view (issue 28 item 6).
#include "tests/support/TestData.h"

#include "core/graph/Graph.h"
#include "core/graph/GraphBuilder.h"
#include "core/graph/LayerGroups.h"
#include "core/graph/ScopeTree.h"
#include "core/io/GraphFile.h"

#include <QtTest>

#include <map>

using namespace post;

namespace {

// A transformer-like stack: an input, `layers` blocks of five ops, each reading a weight of
// its own, and a head; op names are flat ("MatMul7"), as MSR's are.
Graph stack(int layers, bool training)
{
    GraphBuilder b("stack");
    int counter = 0;
    auto add = [&](const std::string& name, const std::string& type) {
        Op op;
        op.name = name + std::to_string(++counter);
        op.type = type;
        op.timeUs = {10.0, 1.0};
        return b.addOp(op);
    };
    OpId x = add("Input", "forward");
    x = [&] {
        const OpId embed = add("Gather", "forward");
        b.addEdge(x, embed, 4);
        return embed;
    }();
    std::vector<OpId> forward = {x};
    for (int l = 0; l < layers; ++l) {
        const OpId w = add("layer." + std::to_string(l) + ".weight", "forward");
        const OpId mm = add("MatMul", "forward");
        b.addEdge(x, mm, 4);
        b.addEdge(w, mm, 4);
        const OpId act = add("Gelu", "forward");
        b.addEdge(mm, act, 4);
        const OpId res = add("Add", "forward");
        b.addEdge(act, res, 4);
        b.addEdge(x, res, 4);
        const OpId norm = add("LayerNormalization", "forward");
        b.addEdge(res, norm, 4);
        x = norm;
        forward.push_back(mm); // what the layer's backward op reads
    }
    const OpId head = add("Softmax", "forward");
    b.addEdge(x, head, 4);
    if (training) {
        OpId g = add("Grad", "backward"); // the head's
        b.addEdge(head, g, 4);
        for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
            const OpId grad = add("Grad", "backward");
            b.addEdge(g, grad, 4);
            b.addEdge(*it, grad, 4);
            g = grad;
        }
    }
    return std::move(b).build();
}

std::map<std::string, int> opsPerScope(const Graph& graph, const LayerGroups& groups)
{
    std::map<std::string, int> count;
    for (OpId op = 0; op < graph.opCount(); ++op)
        ++count[groups.scopeOf(op)];
    return count;
}

} // namespace

class TestLayerGroups : public QObject {
    Q_OBJECT

private slots:
    void aStackOfBlocksIsItsLayers()
    {
        const Graph g = stack(5, true);
        const LayerGroups groups = LayerGroups::find(g);
        QCOMPARE(groups.layers, 5);
        const auto count = opsPerScope(g, groups);
        for (int l = 1; l <= 5; ++l) {
            const std::string layer = "layer " + std::to_string(l);
            QCOMPARE(count.count(layer), size_t(1));
            QCOMPARE(count.at(layer), 5); // its weight, MatMul, Gelu, Add, LayerNormalization
            QCOMPARE(count.at(layer + " grad"), 1);
        }
        QVERIFY(count.count("before layer 1") == 1);
        QVERIFY(count.count("after layer 5") == 1); // the head
        // Each layer's weight joined its layer, with the layer's own name pattern.
        const OpId w = *g.find("layer.2.weight13");
        QCOMPARE(groups.scopeOf(w), std::string("layer 3"));
    }

    void withoutRepeatsThereAreNoLayers()
    {
        QCOMPARE(LayerGroups::find(stack(1, false)).layers, 0);
        GraphBuilder b("chain");
        OpId prev = kNoOp;
        for (const char* name : {"a", "b", "c", "d"}) {
            Op op;
            op.name = name;
            const OpId id = b.addOp(op);
            if (prev != kNoOp)
                b.addEdge(prev, id, 1);
            prev = id;
        }
        const Graph chain = std::move(b).build();
        QCOMPARE(LayerGroups::find(chain).layers, 0);
        QVERIFY(!ScopeTree::buildByLayers(chain));
    }

    void scopesFollowTheLayers()
    {
        const Graph g = stack(4, true);
        const std::optional<ScopeTree> tree = ScopeTree::buildByLayers(g);
        QVERIFY(tree);
        const int layer2 = tree->find("layer 2");
        QVERIFY(layer2 > 0);
        QCOMPARE(tree->scope(layer2).parent, ScopeTree::kRoot);
        QCOMPARE(tree->opCount(layer2), 5);
        // Ops are labelled by their whole name inside the layer.
        const OpId first = tree->opsBelow(layer2).front();
        QCOMPARE(tree->opLabel(g, first), g.op(first).name);
        QCOMPARE(std::string(tree->nameOf(g, first)), "layer 2/" + g.op(first).name);
    }

    // PipeDream's layer graphs name ops node1 … node921 (one kind): no stack; and its
    // Inception-V3's two alike Mixed_7 blocks among 651 ops are not the graph's structure.
    void pipeDreamGraphsHaveNoLayers()
    {
        REQUIRE_SHARED_DATA(shared);
        for (const char* model : {"inception_v3", "resnet50", "gnmt"}) {
            const Graph g = readGraphFile((shared + "/pipedream/" + model + "/graph.txt").toStdString());
            QVERIFY2(LayerGroups::find(g).layers == 0, model);
        }
    }

    // The real MSR BERT operator graphs (msr-fiddle/dnn-partitioning): 3 and 6 encoder layers
    // (the files say so in their weights' names, bert.encoder.layer.0 … .5), every encoder
    // op of a layer in it, and the training step's backward ops with their layers.
    void msrBertShowsItsEncoderLayers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("forwardPerLayer");
        QTest::newRow("bert_l-3 inference") << "msr/OperatorGraphs/bert_l-3_inference.json" << 3 << 61;
        QTest::newRow("bert_l-3 training") << "msr/OperatorGraphs/bert_l-3_training.json" << 3 << 61;
        QTest::newRow("bert_l-6 inference") << "msr/OperatorGraphs/bert_l-6_inference.json" << 6 << 61;
    }
    void msrBertShowsItsEncoderLayers()
    {
        REQUIRE_SHARED_DATA(shared);
        QFETCH(QString, file);
        QFETCH(int, layers);
        QFETCH(int, forwardPerLayer);
        const Graph g = readGraphFile((shared + "/" + file).toStdString());
        const LayerGroups groups = LayerGroups::find(g);
        QCOMPARE(groups.layers, layers);
        // Every weight of encoder layer k (bert.encoder.layer.<k-1>.…) is in layer k.
        int weights = 0;
        for (OpId op = 0; op < g.opCount(); ++op) {
            const std::string& name = g.op(op).name;
            const std::string prefix = "bert.encoder.layer.";
            if (!name.starts_with(prefix))
                continue;
            const int index = std::stoi(name.substr(prefix.size()));
            QCOMPARE(groups.scopeOf(op), "layer " + std::to_string(index + 1));
            ++weights;
        }
        QCOMPARE(weights, 16 * layers);
        // Compute ops per layer, forward: each layer holds the same ops (the mask's few ops
        // go with the first layer, where they are first needed).
        std::map<int, int> compute;
        for (OpId op = 0; op < g.opCount(); ++op)
            if (!groups.backward[static_cast<size_t>(op)] && g.op(op).time(DeviceKind::Gpu) > 0)
                ++compute[groups.groupOf[static_cast<size_t>(op)]];
        for (int l = 2; l < layers; ++l)
            QCOMPARE(compute[l], compute[1]);
        QVERIFY2(compute[1] > 0, "no compute op in layer 1");
        const auto count = opsPerScope(g, groups);
        for (int l = 1; l < layers; ++l)
            QVERIFY2(count.at("layer " + std::to_string(l)) >= forwardPerLayer, qPrintable(QString::number(l)));
        // The view: one scope per layer below the root.
        const std::optional<ScopeTree> tree = ScopeTree::buildByLayers(g);
        QVERIFY(tree);
        int layerScopes = 0;
        for (int c : tree->scope(ScopeTree::kRoot).children)
            layerScopes += tree->scope(c).label.starts_with("layer ") ? 1 : 0;
        const bool training = file.contains("training");
        QCOMPARE(layerScopes, training ? 2 * layers : layers);
    }
};

QTEST_APPLESS_MAIN(TestLayerGroups)
#include "test_layer_groups.moc"
