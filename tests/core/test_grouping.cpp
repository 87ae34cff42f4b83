#include "core/graph/GraphBuilder.h"
#include "core/learn/Grouping.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace post;

namespace {

Op op(const std::string& name, double gpuUs = 1.0, const std::string& group = {})
{
    Op o;
    o.name = name;
    o.type = "Test";
    o.timeUs = {gpuUs * 10, gpuUs};
    o.outputBytes = 100;
    o.colocate = group;
    return o;
}

// "op" + std::to_string(i) trips a GCC 12 -Wrestrict false positive.
std::string numbered(const char* prefix, int i)
{
    std::string name = prefix;
    name += std::to_string(i);
    return name;
}

// A random DAG: each op takes one to three inputs from earlier ops; every 7th op joins a
// colocation group with an op far earlier in the list.
Graph randomGraph(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    GraphBuilder b("random");
    std::uniform_real_distribution<double> cost(0.5, 20.0);
    for (int i = 0; i < n; ++i) {
        std::string group;
        if (i % 7 == 0 || i % 7 == 3)
            group = numbered("v", i / 21);
        b.addOp(op(numbered("op", i), cost(rng), group));
    }
    for (int i = 1; i < n; ++i) {
        const int inputs = 1 + static_cast<int>(rng() % 3);
        std::set<int> from;
        for (int k = 0; k < inputs; ++k)
            from.insert(static_cast<int>(rng() % static_cast<unsigned>(i)));
        for (int f : from)
            b.addEdge(f, i, 10.0);
    }
    return std::move(b).build();
}

std::vector<std::string> membersByName(const Graph& g, const Grouping& grouping, int group)
{
    std::vector<std::string> names;
    for (OpId id : grouping.members(group))
        names.push_back(g.op(id).name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> groupOfName(const Graph& g, const Grouping& grouping, const char* name)
{
    return membersByName(g, grouping, grouping.groupOf(*g.find(name)));
}

using Names = std::vector<std::string>;

} // namespace

class TestGrouping : public QObject {
    Q_OBJECT

private:
    static Graph handGraph()
    {
        // a -> b -> c -> {d, e} -> f -> g, all ops weight 1.
        GraphBuilder b("hand");
        for (const char* name : {"a", "b", "c", "d", "e", "f", "g"})
            b.addOp(op(name));
        b.addEdge("a", "b");
        b.addEdge("b", "c");
        b.addEdge("c", "d");
        b.addEdge("c", "e");
        b.addEdge("d", "f");
        b.addEdge("e", "f");
        b.addEdge("f", "g");
        return std::move(b).build();
    }

private slots:
    void noneKeepsOneGroupPerOp()
    {
        const Graph g = handGraph();
        const Grouping grouping = groupOps(g, GroupingOptions{.strategy = GroupingStrategy::None});
        QCOMPARE(grouping.groupCount(), 7);
        // Numbered by topological order.
        QCOMPARE(grouping.groupOf(*g.find("a")), 0);
        QCOMPARE(grouping.groupOf(*g.find("g")), 6);
    }

    void chainMergingOnHandGraph()
    {
        const Graph g = handGraph();
        GroupingOptions options{.strategy = GroupingStrategy::Chains};
        options.chainMaxComputeShare = 1.0;
        const Grouping grouping = groupOps(g, options);
        // a, b join their single consumers up to c; c has two consumers; d, e, f join g.
        QCOMPARE(grouping.groupCount(), 2);
        QCOMPARE(groupOfName(g, grouping, "a"), (Names{"a", "b", "c"}));
        QCOMPARE(groupOfName(g, grouping, "d"), (Names{"d", "e", "f", "g"}));
    }

    void chainMergingRespectsComputeCap()
    {
        const Graph g = handGraph();
        GroupingOptions options{.strategy = GroupingStrategy::Chains};
        options.chainMaxComputeShare = 3.0 / 7.0; // groups of at most 3 of the 7 unit ops
        const Grouping grouping = groupOps(g, options);
        QCOMPARE(grouping.groupCount(), 3);
        QCOMPARE(groupOfName(g, grouping, "a"), (Names{"a", "b", "c"}));
        QCOMPARE(groupOfName(g, grouping, "d"), (Names{"d", "e", "f"}));
        QCOMPARE(groupOfName(g, grouping, "g"), (Names{"g"}));
    }

    void colocationIsNeverSplit()
    {
        const Graph g = randomGraph(400, 3);
        QVERIFY(g.colocationGroupCount() > 10);
        for (GroupingStrategy s : {GroupingStrategy::Auto, GroupingStrategy::None, GroupingStrategy::Chains,
                                   GroupingStrategy::Chunks, GroupingStrategy::NameScopes}) {
            GroupingOptions options{.strategy = s};
            options.maxGroups = 30;
            const Grouping grouping = groupOps(g, options);
            std::vector<int> groupOfColocation(static_cast<size_t>(g.colocationGroupCount()), -1);
            for (OpId id = 0; id < g.opCount(); ++id) {
                const int c = g.colocationGroup(id);
                if (c < 0)
                    continue;
                int& first = groupOfColocation[static_cast<size_t>(c)];
                if (first < 0)
                    first = grouping.groupOf(id);
                QCOMPARE(grouping.groupOf(id), first);
            }
            // The expanded placement is therefore always valid with respect to colocation.
            std::vector<DeviceId> devices(static_cast<size_t>(grouping.groupCount()));
            for (size_t i = 0; i < devices.size(); ++i)
                devices[i] = static_cast<DeviceId>(i % 3);
            const Placement placement = grouping.expand(devices);
            for (OpId id = 0; id < g.opCount(); ++id)
                QCOMPARE(placement[static_cast<size_t>(id)], devices[static_cast<size_t>(grouping.groupOf(id))]);
        }
    }

    void chunksAreBalancedAndContiguous()
    {
        // No colocation here so every chunk is a run of the topological order.
        std::mt19937 rng(9);
        std::uniform_real_distribution<double> cost(0.0, 50.0);
        GraphBuilder b("chain-ish");
        const int n = 600;
        double total = 0.0, heaviest = 0.0;
        for (int i = 0; i < n; ++i) {
            const double c = cost(rng);
            total += c;
            heaviest = std::max(heaviest, c);
            b.addOp(op(numbered("op", i), c));
            if (i > 0)
                b.addEdge(static_cast<OpId>(rng() % static_cast<unsigned>(i)), i, 1.0);
        }
        const Graph g = std::move(b).build();
        const int chunks = 12;
        GroupingOptions options{.strategy = GroupingStrategy::Chunks};
        options.maxGroups = chunks;
        const Grouping grouping = groupOps(g, options);
        QCOMPARE(grouping.groupCount(), chunks);
        std::vector<double> weight(chunks, 0.0);
        int previous = 0;
        for (OpId id : g.topologicalOrder()) {
            const int group = grouping.groupOf(id);
            QVERIFY(group == previous || group == previous + 1); // contiguous runs, in order
            previous = group;
            weight[static_cast<size_t>(group)] += g.op(id).time(DeviceKind::Gpu);
        }
        for (double w : weight)
            QVERIFY2(std::abs(w - total / chunks) <= heaviest, qPrintable(QString::number(w)));
    }

    void chunksLeaveSmallGraphsAlone()
    {
        const Graph g = handGraph();
        GroupingOptions options{.strategy = GroupingStrategy::Chunks};
        options.maxGroups = 10;
        QCOMPARE(groupOps(g, options).groupCount(), 7);
    }

    void nameScopes()
    {
        GraphBuilder b("scopes");
        for (const char* name : {"enc/l1/a", "enc/l1/b", "enc/l2/a", "dec/x", "plain"})
            b.addOp(op(name));
        const Graph g = std::move(b).build();
        GroupingOptions options{.strategy = GroupingStrategy::NameScopes};
        Grouping one = groupOps(g, options);
        QCOMPARE(one.groupCount(), 3);
        QCOMPARE(groupOfName(g, one, "enc/l2/a"), (Names{"enc/l1/a", "enc/l1/b", "enc/l2/a"}));
        QCOMPARE(groupOfName(g, one, "plain"), (Names{"plain"}));
        options.scopeDepth = 2;
        Grouping two = groupOps(g, options);
        QCOMPARE(two.groupCount(), 4);
        QCOMPARE(groupOfName(g, two, "enc/l1/a"), (Names{"enc/l1/a", "enc/l1/b"}));
        QCOMPARE(groupOfName(g, two, "dec/x"), (Names{"dec/x"}));
    }

    void autoDependsOnSize()
    {
        const Graph small = handGraph();
        GroupingOptions options;
        options.chainMaxComputeShare = 1.0;
        QCOMPARE(groupOps(small, options).groupCount(), 2); // chains only
        const Graph large = randomGraph(1000, 5);
        options.chainMaxComputeShare = 1.0 / 16.0;
        options.maxGroups = 100;
        const Grouping grouping = groupOps(large, options);
        QVERIFY(grouping.groupCount() <= 100);
        QVERIFY(grouping.groupCount() >= 50);
    }

    void refinedByAPlacementExpressesItExactly()
    {
        const Graph g = handGraph();
        GroupingOptions options{.strategy = GroupingStrategy::Chains};
        options.chainMaxComputeShare = 1.0;
        const Grouping grouping = groupOps(g, options); // {a, b, c}, {d, e, f, g}
        const Placement placement{1, 1, 0, 2, 2, 2, 0};
        const Grouping refined = grouping.refinedBy(g, placement, 3);
        QCOMPARE(refined.groupCount(), 4);
        QCOMPARE(groupOfName(g, refined, "a"), (Names{"a", "b"}));
        QCOMPARE(groupOfName(g, refined, "c"), (Names{"c"}));
        QCOMPARE(groupOfName(g, refined, "d"), (Names{"d", "e", "f"}));
        QCOMPARE(groupOfName(g, refined, "g"), (Names{"g"}));
        QCOMPARE(refined.expand(refined.collapse(placement, 3)), placement);
    }

    void collapseTakesTheMajority()
    {
        const Graph g = handGraph();
        GroupingOptions options{.strategy = GroupingStrategy::Chains};
        options.chainMaxComputeShare = 1.0;
        const Grouping grouping = groupOps(g, options);
        // Ops a..g; group 0 = {a, b, c}, group 1 = {d, e, f, g}.
        const Placement placement{1, 1, 0, 2, 2, 2, 0};
        QCOMPARE(grouping.collapse(placement, 3), (std::vector<DeviceId>{1, 2}));
    }
};

QTEST_APPLESS_MAIN(TestGrouping)
#include "test_grouping.moc"
