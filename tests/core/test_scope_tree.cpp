// core/graph/ScopeTree: ops grouped by '/'-separated name scope, with counts, compute and
// device mix per scope, and the choice of scopes to open for a readable first view.
#include "core/graph/GraphBuilder.h"
#include "core/graph/ScopeTree.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace post;

namespace {

Op op(const std::string& name, double gpuUs)
{
    Op o;
    o.name = name;
    o.type = "Test";
    o.timeUs = {gpuUs * 10, gpuUs};
    o.outputBytes = 100;
    return o;
}

// A small BERT-like step: two inputs, an embedding, three encoder layers (layer_0, layer_1,
// layer_10) of an attention MatMul with its gradient and a Relu, a chain of single-child
// scopes (rnn/multi/cell), an ONNX-style name with a leading slash and a root op.
Graph bertLike()
{
    GraphBuilder b("scopes");
    b.addOp(op("input/ids", 1));          // 0: an op and a scope (its gradient is beneath)
    b.addOp(op("input/ids/grad", 2));     // 1
    b.addOp(op("input/mask", 1));         // 2
    b.addOp(op("model/embed/Gather", 4)); // 3
    const char* layers[] = {"layer_0", "layer_1", "layer_10"};
    for (const char* l : layers) {
        const std::string s = std::string("model/encoder/") + l;
        b.addOp(op(s + "/attn/MatMul", 10));
        b.addOp(op(s + "/attn/MatMul/grad", 20));
        b.addOp(op(s + "/ffn/Relu", 3));
    }
    b.addOp(op("rnn/multi/cell/Add", 5)); // 13
    b.addOp(op("/onnx/Conv", 7));         // 14
    b.addOp(op("loss", 1));               // 15
    b.addEdge("input/ids", "model/embed/Gather");
    b.addEdge("model/embed/Gather", "model/encoder/layer_0/attn/MatMul");
    b.addEdge("model/encoder/layer_0/attn/MatMul", "model/encoder/layer_0/ffn/Relu");
    b.addEdge("model/encoder/layer_0/ffn/Relu", "model/encoder/layer_1/attn/MatMul");
    b.addEdge("model/encoder/layer_1/attn/MatMul", "model/encoder/layer_1/ffn/Relu");
    b.addEdge("model/encoder/layer_1/ffn/Relu", "model/encoder/layer_10/attn/MatMul");
    b.addEdge("model/encoder/layer_10/ffn/Relu", "loss");
    return std::move(b).build();
}

int findLabelled(const ScopeTree& tree, int parent, const std::string& label)
{
    for (int c : tree.scope(parent).children)
        if (tree.scope(c).label == label)
            return c;
    return -1;
}

std::set<std::string> namesBelow(const Graph& g, const ScopeTree& tree, int s)
{
    std::set<std::string> out;
    for (OpId op : tree.opsBelow(s))
        out.insert(g.op(op).name);
    return out;
}

} // namespace

class TestScopeTree : public QObject {
    Q_OBJECT

private slots:
    void groupsOpsByNamePrefix()
    {
        const Graph g = bertLike();
        const ScopeTree tree = ScopeTree::build(g);
        const ScopeTree::Scope& root = tree.scope(ScopeTree::kRoot);
        QCOMPARE(tree.opCount(ScopeTree::kRoot), g.opCount());
        // Root: input, model, rnn/multi/cell (merged chain), /onnx, and the op "loss".
        QCOMPARE(root.children.size(), size_t(4));
        QCOMPARE(root.ops.size(), size_t(1));
        QCOMPARE(g.op(root.ops.front()).name, std::string("loss"));

        const int input = findLabelled(tree, ScopeTree::kRoot, "input");
        QVERIFY(input > 0);
        QCOMPARE(tree.opCount(input), 3);
        // "input/ids" is an op and a scope: the op lives in its own scope, with its gradient.
        const int ids = tree.find("input/ids");
        QVERIFY(ids > 0);
        QCOMPARE(tree.scope(ids).parent, input);
        QCOMPARE(tree.scopeOf(*g.find("input/ids")), ids);
        QCOMPARE(tree.scopeOf(*g.find("input/ids/grad")), ids);
        QCOMPARE(tree.scopeOf(*g.find("input/mask")), input);
        QCOMPARE(tree.opLabel(g, *g.find("input/ids")), std::string("ids"));
        QCOMPARE(tree.opLabel(g, *g.find("input/ids/grad")), std::string("grad"));
        QCOMPARE(tree.opLabel(g, *g.find("input/mask")), std::string("mask"));

        const int model = findLabelled(tree, ScopeTree::kRoot, "model");
        const int encoder = findLabelled(tree, model, "encoder");
        QVERIFY(encoder > 0);
        QCOMPARE(tree.scope(encoder).path, std::string("model/encoder"));
        QCOMPARE(tree.scope(encoder).depth, 2);
        QCOMPARE(tree.opCount(encoder), 9);
        std::vector<std::string> layerLabels;
        for (int c : tree.scope(encoder).children)
            layerLabels.push_back(tree.scope(c).label);
        // In topological order of their first op.
        QCOMPARE(layerLabels, (std::vector<std::string>{"layer_0", "layer_1", "layer_10"}));
        const int layer10 = findLabelled(tree, encoder, "layer_10");
        QCOMPARE(namesBelow(g, tree, layer10),
                 (std::set<std::string>{"model/encoder/layer_10/attn/MatMul", "model/encoder/layer_10/attn/MatMul/grad",
                                        "model/encoder/layer_10/ffn/Relu"}));
        QVERIFY(tree.isWithin(layer10, model));
        QVERIFY(!tree.isWithin(model, layer10));
        QVERIFY(!tree.isWithin(input, model));

        // rnn -> multi -> cell: scopes without ops and a single child merge into one.
        const int cell = findLabelled(tree, ScopeTree::kRoot, "rnn/multi/cell");
        QVERIFY(cell > 0);
        QCOMPARE(tree.scope(cell).path, std::string("rnn/multi/cell"));
        QVERIFY(tree.scope(cell).children.empty());
        QCOMPARE(tree.find("rnn"), -1);
        // A leading slash is no empty scope.
        const int onnx = findLabelled(tree, ScopeTree::kRoot, "onnx");
        QVERIFY(onnx > 0);
        QCOMPARE(tree.scope(onnx).path, std::string("/onnx"));
        QCOMPARE(tree.opLabel(g, *g.find("/onnx/Conv")), std::string("Conv"));
    }

    void sumsComputeAndKeepsEveryScopeContiguous()
    {
        const Graph g = bertLike();
        const ScopeTree tree = ScopeTree::build(g);
        const int encoder = tree.find("model/encoder");
        // 3 layers of 10 + 20 + 3 µs on a GPU, ten times that on a CPU.
        QCOMPARE(tree.scope(encoder).timeUs[static_cast<int>(DeviceKind::Gpu)], 99.0);
        QCOMPARE(tree.scope(encoder).timeUs[static_cast<int>(DeviceKind::Cpu)], 990.0);
        QCOMPARE(tree.scope(ScopeTree::kRoot).timeUs[static_cast<int>(DeviceKind::Gpu)], g.totalTimeUs(DeviceKind::Gpu));
        // Every op once; each scope's range is its own ops plus its children's ranges.
        std::vector<OpId> all(tree.opsBelow(ScopeTree::kRoot).begin(), tree.opsBelow(ScopeTree::kRoot).end());
        std::sort(all.begin(), all.end());
        for (OpId i = 0; i < g.opCount(); ++i)
            QCOMPARE(all[static_cast<size_t>(i)], i);
        for (int s = 0; s < tree.scopeCount(); ++s) {
            int expected = static_cast<int>(tree.scope(s).ops.size());
            for (int c : tree.scope(s).children) {
                QCOMPARE(tree.scope(c).parent, s);
                QVERIFY(tree.scope(c).begin >= tree.scope(s).begin && tree.scope(c).end <= tree.scope(s).end);
                expected += tree.opCount(c);
            }
            QCOMPARE(tree.opCount(s), expected);
            for (OpId op : tree.opsBelow(s))
                QVERIFY(tree.isWithin(tree.scopeOf(op), s));
        }
    }

    void countsDevicesOfAPlacement()
    {
        const Graph g = bertLike();
        const ScopeTree tree = ScopeTree::build(g);
        Placement p(static_cast<size_t>(g.opCount()), 0);
        p[static_cast<size_t>(*g.find("model/encoder/layer_1/attn/MatMul"))] = 1;
        p[static_cast<size_t>(*g.find("model/encoder/layer_1/ffn/Relu"))] = 1;
        p[static_cast<size_t>(*g.find("model/encoder/layer_10/ffn/Relu"))] = kNoDevice;
        const int encoder = tree.find("model/encoder");
        QCOMPARE(tree.deviceCounts(encoder, p, 2), (std::vector<int>{6, 2, 1}));
        // A device out of range and ops past the end of a short placement count as unplaced.
        p[static_cast<size_t>(*g.find("model/encoder/layer_0/attn/MatMul"))] = 7;
        QCOMPARE(tree.deviceCounts(encoder, p, 2), (std::vector<int>{5, 2, 2}));
        QCOMPARE(tree.deviceCounts(encoder, Placement{}, 2), (std::vector<int>{0, 0, 9}));
    }

    void opensTheLargestScopesWithinABudget()
    {
        const Graph g = bertLike();
        const ScopeTree tree = ScopeTree::build(g);
        // The root alone: 4 scopes and the op "loss".
        QCOMPARE(tree.openWithin(1), std::vector<int>{ScopeTree::kRoot});
        QCOMPARE(tree.visibleCount({ScopeTree::kRoot}), 5);
        const int model = tree.find("model");
        const int encoder = tree.find("model/encoder");
        // Opening model (2 children) gives 6 boxes, then encoder (3 layers) 8.
        QCOMPARE(tree.openWithin(6), (std::vector<int>{ScopeTree::kRoot, model}));
        QCOMPARE(tree.openWithin(8), (std::vector<int>{ScopeTree::kRoot, model, encoder}));
        QCOMPARE(tree.visibleCount(tree.openWithin(8)), 8);
        // The three layers (2 boxes each) open together or not at all: 11 is one short.
        const std::vector<int> eleven = tree.openWithin(11);
        QVERIFY(std::find(eleven.begin(), eleven.end(), tree.find("model/encoder/layer_0")) == eleven.end());
        const std::vector<int> twelve = tree.openWithin(12);
        for (const char* l : {"model/encoder/layer_0", "model/encoder/layer_1", "model/encoder/layer_10"})
            QVERIFY(std::find(twelve.begin(), twelve.end(), tree.find(l)) != twelve.end());
        QVERIFY(tree.visibleCount(twelve) <= 12);
        // A big budget opens every scope of at least kMinOpenOps ops.
        const std::vector<int> all = tree.openWithin(1000);
        int closedPairs = 0; // input/ids and each layer's attn/MatMul: an op and its gradient
        for (int s = 0; s < tree.scopeCount(); ++s) {
            const bool open = std::find(all.begin(), all.end(), s) != all.end();
            QCOMPARE(open, s == ScopeTree::kRoot || tree.opCount(s) >= ScopeTree::kMinOpenOps);
            closedPairs += !open && tree.opCount(s) == 2;
        }
        QCOMPARE(closedPairs, 4);
        QCOMPARE(tree.visibleCount(all), g.opCount() - closedPairs);
    }

    void alikeNamesMakeASeriesThatCountsAsOneBox()
    {
        // 40 root ops Identity_0 … Identity_39, 40 scopes step_0 … step_39 of 3 ops, and "out".
        GraphBuilder b("series");
        for (int i = 0; i < 40; ++i)
            b.addOp(op("Identity_" + std::to_string(i), 1));
        for (int i = 0; i < 40; ++i)
            for (int k = 0; k < 3; ++k)
                b.addOp(op("step_" + std::to_string(i) + "/op_" + std::to_string(k), 1));
        b.addOp(op("out", 1));
        const Graph g = std::move(b).build();
        const ScopeTree tree = ScopeTree::build(g);
        const ScopeTree::Scope& root = tree.scope(ScopeTree::kRoot);
        QCOMPARE(root.children.size(), size_t(40));
        QCOMPARE(root.boxes, 3); // the Identity series, the step series and "out"
        QCOMPARE(tree.visibleCount({ScopeTree::kRoot}), 3);
        const int step5 = tree.find("step_5");
        QVERIFY(tree.scope(step5).inSeries);
        QCOMPARE(tree.scope(step5).boxes, 3);
        QVERIFY(!tree.scope(ScopeTree::kRoot).inSeries);
        // Members of a series stay closed whatever the budget: the series is one box.
        QCOMPARE(tree.openWithin(1000), std::vector<int>{ScopeTree::kRoot});
        // 31 alike are no series.
        GraphBuilder small("no series");
        for (int i = 0; i < ScopeTree::kSeriesMin - 1; ++i)
            small.addOp(op("Identity_" + std::to_string(i), 1));
        const Graph h = std::move(small).build();
        QCOMPARE(ScopeTree::build(h).scope(ScopeTree::kRoot).boxes, ScopeTree::kSeriesMin - 1);
        QCOMPARE(ScopeTree::numberPattern("cell_12/t7x"), std::string("cell_#/t#x"));
    }

    // A number every member shares is part of the series' name: PaddlePaddle's ONNX names
    // p2o.Conv.0 ... p2o.Conv.61 were titled "p[2–2]o.Conv.*".
    void seriesTitlesKeepSharedNumbers()
    {
        const std::vector<std::string_view> p2o = {"p2o.Conv.0", "p2o.Conv.17", "p2o.Conv.61"};
        QCOMPARE(ScopeTree::seriesTitle(p2o), std::string("p2o.Conv.[0\u201361]"));
        const std::vector<std::string_view> cells = {"cell_0/t3", "cell_3/t9", "cell_1/t3"};
        QCOMPARE(ScopeTree::seriesTitle(cells), std::string("cell_[0\u20133]/t*"));
        const std::vector<std::string_view> steps = {"t10", "t2", "t199"};
        QCOMPARE(ScopeTree::seriesTitle(steps), std::string("t[2\u2013199]"));
        QCOMPARE(ScopeTree::seriesTitle({}), std::string());
    }

    void namesWithoutScopesStayAtTheRoot()
    {
        GraphBuilder b("flat");
        b.addOp(op("a", 1));
        b.addOp(op("b", 1));
        b.addEdge("a", "b");
        const Graph g = std::move(b).build();
        const ScopeTree tree = ScopeTree::build(g);
        QCOMPARE(tree.scopeCount(), 1);
        QCOMPARE(tree.scope(ScopeTree::kRoot).ops.size(), size_t(2));
        QCOMPARE(tree.opLabel(g, 0), std::string("a"));
    }
};

QTEST_GUILESS_MAIN(TestScopeTree)
#include "test_scope_tree.moc"
