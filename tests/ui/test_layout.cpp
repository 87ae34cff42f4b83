#include "core/graph/GraphBuilder.h"
#include "ui/layout/GraphvizLayout.h"
#include "ui/layout/LayoutController.h"
#include "ui/layout/LayoutCost.h"
#include "ui/layout/LayoutPolicy.h"
#include "ui/layout/ViewGraphBuilder.h"

#include <QtTest>

using namespace post;

namespace {

Op op(std::string name, std::string group = {})
{
    Op o;
    o.name = std::move(name);
    o.type = "Conv";
    o.timeUs = {10, 1};
    o.colocate = std::move(group);
    return o;
}

// "f" + std::to_string(i) without GCC 12's false -Wrestrict warning.
std::string nm(char prefix, int i)
{
    std::string s(1, prefix);
    s += std::to_string(i);
    return s;
}

// a -> b, a -> c, b -> d, c -> d
LayoutInput diamond(LayoutEngine engine = LayoutEngine::Dot)
{
    LayoutInput in;
    in.nodeSizes = {QSizeF(100, 40), QSizeF(80, 30), QSizeF(80, 30), QSizeF(120, 50)};
    in.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    in.engine = engine;
    return in;
}

// A chain of `n` nodes: big enough that a layout takes a noticeable time.
LayoutInput chain(int n)
{
    LayoutInput in;
    for (int i = 0; i < n; ++i) {
        in.nodeSizes.emplace_back(60, 30);
        if (i > 0)
            in.edges.emplace_back(i - 1, i);
        if (i > 2)
            in.edges.emplace_back(i - 3, i);
    }
    return in;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void dotLaysOutTopToBottomWithNodeSizes()
    {
        const LayoutInput in = diamond();
        const LayoutResult r = runGraphvizLayout(in);
        QVERIFY(r.ok());
        QCOMPARE(r.nodeRects.size(), size_t(4));
        for (size_t i = 0; i < 4; ++i) {
            QVERIFY(qAbs(r.nodeRects[i].width() - in.nodeSizes[i].width()) < 1.0);
            QVERIFY(qAbs(r.nodeRects[i].height() - in.nodeSizes[i].height()) < 1.0);
            QVERIFY(r.bounds.contains(r.nodeRects[i]));
        }
        // Ranks go down the screen: a above b and c, which are above d.
        QVERIFY(r.nodeRects[0].bottom() < r.nodeRects[1].top());
        QVERIFY(r.nodeRects[0].bottom() < r.nodeRects[2].top());
        QVERIFY(r.nodeRects[1].bottom() < r.nodeRects[3].top());
        QCOMPARE(r.nodeRects[1].center().y(), r.nodeRects[2].center().y());
        QVERIFY(!r.nodeRects[1].intersects(r.nodeRects[2]));
    }

    void edgesRunFromTailToHeadWithArrow()
    {
        const LayoutResult r = runGraphvizLayout(diamond());
        QCOMPARE(r.edges.size(), size_t(4));
        const std::pair<int, int> ends[] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
        for (size_t i = 0; i < 4; ++i) {
            const EdgeRoute& e = r.edges[i];
            QVERIFY(e.bezier.size() >= 4);
            QCOMPARE((e.bezier.size() - 1) % 3, size_t(0));
            const QRectF tail = r.nodeRects[static_cast<size_t>(ends[i].first)].adjusted(-2, -2, 2, 2);
            const QRectF head = r.nodeRects[static_cast<size_t>(ends[i].second)].adjusted(-2, -2, 2, 2);
            QVERIFY2(tail.contains(e.bezier.front()), "edge starts at its tail's border");
            QVERIFY2(head.contains(e.arrowTip), "arrow tip touches the head");
            QVERIFY(!head.contains(e.bezier.front()));
        }
    }

    void fastDotAndSfdpPlaceEveryNode()
    {
        for (LayoutEngine engine : {LayoutEngine::FastDot, LayoutEngine::Sfdp}) {
            const LayoutResult r = runGraphvizLayout(diamond(engine));
            QVERIFY(r.ok());
            QVERIFY(r.engine == engine);
            QCOMPARE(r.nodeRects.size(), size_t(4));
            QCOMPARE(r.edges.size(), size_t(4));
            for (size_t i = 0; i < 4; ++i)
                for (size_t j = i + 1; j < 4; ++j)
                    QVERIFY2(!r.nodeRects[i].intersects(r.nodeRects[j]), qPrintable(toString(engine)));
            for (const EdgeRoute& e : r.edges)
                QVERIFY(e.bezier.size() >= 4);
        }
    }

    void stopFlagCancelsBetweenPhases()
    {
        int polls = 0;
        const LayoutResult r = runGraphvizLayout(diamond(), [&] { return ++polls >= 2; });
        QVERIFY(r.status == LayoutResult::Status::Cancelled);
        QVERIFY(r.nodeRects.empty());
        QCOMPARE(polls, 2);
    }

    void dotCostCountsRanksCrossedByEdges()
    {
        // A chain of 10 plus one edge from the first to the last: that edge crosses 8 ranks.
        std::vector<std::pair<int, int>> edges;
        for (int i = 1; i < 10; ++i)
            edges.emplace_back(i - 1, i);
        QCOMPARE(estimateDotCost(10, edges), 10LL);
        edges.emplace_back(0, 9);
        QCOMPARE(estimateDotCost(10, edges), 18LL);
        // A cycle does not hang it.
        QCOMPARE(estimateDotCost(2, {{0, 1}, {1, 0}}), 2LL);
    }

    void policyPicksEngineBySizeAndCost()
    {
        QVERIFY(LayoutPolicy::engineFor(10, 10) == LayoutEngine::Dot);
        QVERIFY(LayoutPolicy::engineFor(LayoutPolicy::kPlainDotMaxNodes, LayoutPolicy::kPlainDotMaxCost)
                == LayoutEngine::Dot);
        QVERIFY(LayoutPolicy::engineFor(LayoutPolicy::kPlainDotMaxNodes + 1, 500) == LayoutEngine::FastDot);
        QVERIFY(LayoutPolicy::engineFor(100, LayoutPolicy::kPlainDotMaxCost + 1) == LayoutEngine::FastDot);
        QVERIFY(LayoutPolicy::engineFor(100, LayoutPolicy::kFastDotMaxCost + 1) == LayoutEngine::Sfdp);
        QVERIFY(LayoutPolicy::engineFor(LayoutPolicy::kFastDotMaxNodes + 1, 0) == LayoutEngine::Sfdp);
        // Asked for by hand (Every Op, an expanded group): layered up to three times the cost.
        QVERIFY(LayoutPolicy::engineForAsked(660, LayoutPolicy::kFastDotMaxCost + 1) == LayoutEngine::FastDot);
        QVERIFY(LayoutPolicy::engineForAsked(660, LayoutPolicy::kAskedFastDotMaxCost) == LayoutEngine::FastDot);
        QVERIFY(LayoutPolicy::engineForAsked(660, LayoutPolicy::kAskedFastDotMaxCost + 1) == LayoutEngine::Sfdp);
        QVERIFY(LayoutPolicy::engineForAsked(LayoutPolicy::kFastDotMaxNodes + 1, 0) == LayoutEngine::Sfdp);
        QVERIFY(LayoutPolicy::engineForAsked(10, 10) == LayoutEngine::Dot);
    }

    void autoGroupingWhenLongEdgesDominate()
    {
        // A training-step-like ladder: forward chain f0..f(n-1), backward chain b(n-1)..b0,
        // rung fi -> bi, each fi colocated with bi. The rungs make op-level dot expensive.
        auto ladder = [](int n) {
            GraphBuilder b("ladder");
            for (int i = 0; i < n; ++i)
                b.addOp(op(nm('f', i), nm('L', i)));
            for (int i = 0; i < n; ++i)
                b.addOp(op(nm('b', i), nm('L', i)));
            for (int i = 1; i < n; ++i)
                b.addEdge(nm('f', i - 1), nm('f', i));
            b.addEdge(nm('f', n - 1), nm('b', n - 1));
            for (int i = n - 1; i > 0; --i)
                b.addEdge(nm('b', i), nm('b', i - 1));
            for (int i = 0; i < n - 1; ++i)
                b.addEdge(nm('f', i), nm('b', i));
            return std::move(b).build();
        };
        // A plain chain keeps every op (grouping would fold it into one box).
        GraphBuilder c("chain");
        for (int i = 0; i < 30; ++i) {
            c.addOp(op(nm('c', i)));
            if (i > 0)
                c.addEdge(i - 1, i, 1.0);
        }
        const LayoutPlan chainPlan = LayoutPolicy::plan(std::move(c).build(), Grouping::Auto);
        QVERIFY(!chainPlan.view.grouped);
        QCOMPARE(chainPlan.view.nodeCount(), 30);
        QCOMPARE(chainPlan.cost, 30LL);
        QVERIFY(chainPlan.engine == LayoutEngine::Dot);

        // A tiny ladder is small enough to show op by op: rung i crosses 9 - 2i ranks,
        // cost 10 + 20.
        const LayoutPlan tinyPlan = LayoutPolicy::plan(ladder(5), Grouping::Auto);
        QVERIFY(!tinyPlan.view.grouped);
        QCOMPARE(tinyPlan.cost, 30LL);
        QVERIFY(tinyPlan.engine == LayoutEngine::Dot);
        QCOMPARE(LayoutPolicy::plan(ladder(5), Grouping::Groups).view.nodeCount(), 5);

        // A 60-op ladder is drawn by layer although plain dot could do it: rung i crosses
        // 59 - 2i ranks, cost 60 + 870, far above 2 per node.
        const LayoutPlan smallPlan = LayoutPolicy::plan(ladder(30), Grouping::Auto);
        QVERIFY(smallPlan.view.grouped);
        QCOMPARE(smallPlan.view.nodeCount(), 30);
        const LayoutPlan smallOps = LayoutPolicy::plan(ladder(30), Grouping::Ops);
        QCOMPARE(smallOps.cost, 930LL);
        QVERIFY(smallOps.engine == LayoutEngine::Dot);

        // 2n ops; rung i crosses 2(n-1-i) ranks, so the cost is about n^2.
        const Graph big = ladder(60);
        const LayoutPlan bigPlan = LayoutPolicy::plan(big, Grouping::Auto);
        QVERIFY(bigPlan.view.grouped);
        QCOMPARE(bigPlan.view.nodeCount(), 60);
        // Layer i feeds layer i+1 forward and gets its gradient back: one two-way edge each.
        QCOMPARE(bigPlan.view.edges.size(), size_t(59));
        for (const ViewEdge& e : bigPlan.view.edges) {
            QVERIFY(e.twoWay);
            QCOMPARE(e.to, e.from + 1);
            QCOMPARE(e.opEdges, 2);
        }
        QVERIFY(bigPlan.engine == LayoutEngine::Dot);
        const LayoutPlan forcedOps = LayoutPolicy::plan(big, Grouping::Ops);
        QVERIFY(!forcedOps.view.grouped);
        QVERIFY(forcedOps.cost > LayoutPolicy::kPlainDotMaxCost);
        QVERIFY(forcedOps.engine != LayoutEngine::Dot);

        // Every Op on a 200-op ladder (cost about 10,000, over fast dot's automatic limit)
        // stays layered, as the user asked for it; expanding one layer of its grouped view,
        // drawn with dot, keeps the drawing layered as well.
        const Graph ladder100 = ladder(100);
        const LayoutPlan every = LayoutPolicy::plan(ladder100, Grouping::Ops);
        QVERIFY(every.cost > LayoutPolicy::kFastDotMaxCost);
        QVERIFY(LayoutPolicy::engineFor(every.view.nodeCount(), every.cost) == LayoutEngine::Sfdp);
        QVERIFY(every.engine == LayoutEngine::FastDot);
        const LayoutPlan layers = LayoutPolicy::plan(ladder100, Grouping::Auto);
        QVERIFY(layers.view.grouped);
        QVERIFY(layers.engine != LayoutEngine::Sfdp);
        QSet<QString> one;
        for (const ViewNode& n : layers.view.nodes)
            if (!n.key.isEmpty() && one.isEmpty())
                one.insert(n.key);
        QCOMPARE(one.size(), 1);
        const LayoutPlan expanded = LayoutPolicy::plan(ladder100, Grouping::Auto, one);
        QCOMPARE(expanded.view.nodeCount(), layers.view.nodeCount() + 1); // the layer's two ops
        QVERIFY(expanded.engine != LayoutEngine::Sfdp);
    }

    void controllerDeliversOnlyTheNewestRequest()
    {
        LayoutController controller;
        QSignalSpy ready(&controller, &LayoutController::layoutReady);
        const quint64 first = controller.request(chain(150));
        const quint64 second = controller.request(diamond());
        QVERIFY(second > first);
        QVERIFY(controller.isBusy());
        QVERIFY(ready.wait(20000));
        QTest::qWait(200); // give the first request's result time to arrive too
        QCOMPARE(ready.count(), 1);
        const auto r = ready.first().first().value<LayoutResult>();
        QCOMPARE(r.requestId, second);
        QCOMPARE(r.nodeRects.size(), size_t(4));
        QVERIFY(!controller.isBusy());
    }

    void controllerDropsStaleResults()
    {
        LayoutController controller;
        QSignalSpy ready(&controller, &LayoutController::layoutReady);
        const quint64 id = controller.request(diamond());
        LayoutResult stale;
        stale.requestId = id - 1 + 100; // not the current request
        controller.deliver(stale);
        stale.requestId = 0;
        controller.deliver(stale);
        QCOMPARE(ready.count(), 0);
        QVERIFY(ready.wait(20000));
        QCOMPARE(ready.first().first().value<LayoutResult>().requestId, id);
    }

    void cancelDropsTheResult()
    {
        LayoutController controller;
        QSignalSpy ready(&controller, &LayoutController::layoutReady);
        QSignalSpy cancelled(&controller, &LayoutController::cancelled);
        const quint64 id = controller.request(chain(150));
        controller.cancel();
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(cancelled.first().first().toULongLong(), id);
        QVERIFY(!controller.isBusy());
        QVERIFY(!ready.wait(1500));
    }

    void groupedViewCollapsesChainsAndColocationGroups()
    {
        // in -> c1 -> c2 -> c3 -> {x, y}; x and y colocated in "g"; x, y -> out
        GraphBuilder b("g");
        for (const char* n : {"in", "c1", "c2", "c3"})
            b.addOp(op(n));
        b.addOp(op("x", "g"));
        b.addOp(op("y", "g"));
        b.addOp(op("out"));
        b.addEdge("in", "c1");
        b.addEdge("c1", "c2");
        b.addEdge("c2", "c3");
        b.addEdge("c3", "x");
        b.addEdge("c3", "y");
        b.addEdge("x", "out");
        b.addEdge("y", "out");
        const Graph g = std::move(b).build();

        const ViewGraph flat = ViewGraphBuilder::opLevel(g);
        QCOMPARE(flat.nodeCount(), 7);
        QCOMPARE(flat.edges.size(), size_t(7));

        const ViewGraph grouped = ViewGraphBuilder::grouped(g);
        // {in, c1, c2, c3} chain, {x, y} group, {out}
        QCOMPARE(grouped.nodeCount(), 3);
        QVERIFY(grouped.nodes[0].kind == ViewNode::Kind::Chain);
        QCOMPARE(grouped.nodes[0].ops.size(), size_t(4));
        QCOMPARE(grouped.nodes[0].title, QStringLiteral("in"));
        QVERIFY(grouped.nodes[1].kind == ViewNode::Kind::ColocationGroup);
        QCOMPARE(grouped.nodes[1].title, QStringLiteral("g"));
        QVERIFY(grouped.nodes[2].kind == ViewNode::Kind::Op);
        QCOMPARE(grouped.nodeOfOp[static_cast<size_t>(*g.find("c2"))], 0);
        QCOMPARE(grouped.nodeOfOp[static_cast<size_t>(*g.find("y"))], 1);
        // chain -> group carries two op edges merged into one; group -> out likewise.
        QCOMPARE(grouped.edges.size(), size_t(2));
        QCOMPARE(grouped.edges[0].opEdges, 2);
        QCOMPARE(grouped.edges[1].opEdges, 2);

        const ViewGraph expanded = ViewGraphBuilder::grouped(g, {QStringLiteral("group:g")});
        QCOMPARE(expanded.nodeCount(), 4);
        QCOMPARE(expanded.edges.size(), size_t(4));
    }
};

QTEST_MAIN(TestLayout)
#include "test_layout.moc"
