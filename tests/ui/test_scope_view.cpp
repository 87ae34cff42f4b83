// The graph view by name scope (TensorBoard's view of big op-level graphs): a graph over
// the threshold opens with closed scopes as boxes and open ones as frames; opening and
// closing a scope changes only its part of the drawing; device colours follow placements.
#include "tests/ui/UiTestGraphs.h"

#include "core/graph/ScopeTree.h"
#include "ui/graphview/FrameItem.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/GraphView.h"
#include "ui/graphview/NodeItem.h"
#include "ui/graphview/RetryOverlay.h"
#include "ui/layout/LayoutPolicy.h"
#include "ui/layout/ScopeRelayout.h"
#include "ui/theme/CategoryPalette.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace post;

namespace {

constexpr int kLayoutWaitMs = 30000;
constexpr int kLayers = 10;
constexpr int kOpsPerPart = 20;

std::string name(const std::string& prefix, int i) { return std::string(prefix).append(std::to_string(i)); }

// input -> model/layer_0 … layer_9, each an "attn" and an "ffn" scope of 20 ops in a chain,
// -> loss: 402 ops, over LayoutPolicy::kScopesAboveOps. The first view (kScopeBudget boxes)
// opens model (10 layer boxes and the two root ops: 12) and the layers (2 boxes each: 22
// boxes); opening every layer's attn would add 10 x 19 boxes, too many.
DocumentPtr layeredDocument(int opsPerPart = kOpsPerPart)
{
    GraphBuilder b("layers");
    b.addOp(uitest::op("input", "Input", 1, 10, 0));
    std::string last = "input";
    for (int l = 0; l < kLayers; ++l) {
        for (const char* part : {"attn", "ffn"}) {
            const std::string scope = name("model/layer_", l) + "/" + part + "/";
            for (int k = 0; k < opsPerPart; ++k) {
                const std::string op = name(scope + "op_", k);
                b.addOp(uitest::op(op, k % 2 ? "MatMul" : "Add", 10, 10, 0));
                b.addEdge(last, op);
                last = op;
            }
        }
    }
    b.addOp(uitest::op("loss", "Loss", 1, 10, 0));
    b.addEdge(last, "loss");
    auto doc = std::make_shared<GraphDocument>();
    doc->path = QStringLiteral("layers");
    doc->graph = std::make_shared<const Graph>(std::move(b).build());
    doc->cluster = uitest::cluster();
    return doc;
}

QString key(const std::string& path) { return QStringLiteral("scope:") + QString::fromStdString(path); }

bool sameRect(const QRectF& a, const QRectF& b)
{
    return std::abs(a.left() - b.left()) < 1e-6 && std::abs(a.top() - b.top()) < 1e-6
        && std::abs(a.width() - b.width()) < 1e-6 && std::abs(a.height() - b.height()) < 1e-6;
}

struct Drawing {
    ViewGraph view;
    LayoutResult layout;
};

Drawing drawing(const GraphScene* scene) { return {scene->viewGraph(), scene->appliedLayout()}; }

// No two boxes overlap, and every box lies inside its frame (and every frame in its parent).
void checkGeometry(const GraphScene* scene)
{
    const ViewGraph& view = scene->viewGraph();
    const LayoutResult& layout = scene->appliedLayout();
    QCOMPARE(layout.nodeRects.size(), view.nodes.size());
    QCOMPARE(layout.frameRects.size(), view.frames.size());
    for (size_t i = 0; i < view.nodes.size(); ++i) {
        for (size_t j = i + 1; j < view.nodes.size(); ++j)
            QVERIFY2(!layout.nodeRects[i].intersects(layout.nodeRects[j]),
                     qPrintable(view.nodes[i].key + QStringLiteral(" overlaps ") + view.nodes[j].key));
        if (view.nodes[i].frame >= 0)
            QVERIFY2(layout.frameRects[static_cast<size_t>(view.nodes[i].frame)].contains(layout.nodeRects[i]),
                     qPrintable(view.nodes[i].key));
    }
    for (size_t f = 0; f < view.frames.size(); ++f)
        if (view.frames[f].parent >= 0)
            QVERIFY(layout.frameRects[static_cast<size_t>(view.frames[f].parent)].contains(layout.frameRects[f]));
}

// A shown panel of the given size that has been handed `document` (its layout may still be
// running: wait on `applied`).
struct ShownPanel {
    GraphPanel panel;
    QSignalSpy applied{&panel, &GraphPanel::layoutApplied};
    explicit ShownPanel(DocumentPtr document, QSize size = QSize(1000, 700))
    {
        panel.resize(size);
        panel.show();
        panel.setDocument(std::move(document));
    }
};

} // namespace

class TestScopeView : public QObject {
    Q_OBJECT

private slots:
    void bigGraphOpensByScope()
    {
        ShownPanel shown(layeredDocument());
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(panel.showsScopes());
        const GraphScene* scene = panel.scene();
        QCOMPARE(scene->nodeItemCount(), 2 + 2 * kLayers);
        QCOMPARE(scene->frameItemCount(), 1 + kLayers); // model and each layer
        const ViewGraph& view = scene->viewGraph();
        const int model = view.frameWithKey(key("model"));
        QVERIFY(model >= 0);
        QCOMPARE(view.frames[static_cast<size_t>(model)].title, QStringLiteral("model"));
        QVERIFY(view.frames[static_cast<size_t>(model)].subtitle.startsWith(QStringLiteral("400 ops")));
        const int layer3 = view.frameWithKey(key("model/layer_3"));
        QVERIFY(layer3 >= 0);
        QCOMPARE(view.frames[static_cast<size_t>(layer3)].parent, model);
        QCOMPARE(scene->itemForFrame(layer3)->title(), QStringLiteral("layer_3"));
        const int attn = view.nodeWithKey(key("model/layer_3/attn"));
        QVERIFY(attn >= 0);
        const ViewNode& box = view.nodes[static_cast<size_t>(attn)];
        QCOMPARE(box.kind, ViewNode::Kind::Scope);
        QCOMPARE(box.frame, layer3);
        QCOMPARE(box.ops.size(), size_t(kOpsPerPart));
        // 20 ops of 10 µs on a GPU.
        QCOMPARE(box.subtitle, QStringLiteral("20 ops · 200 µs"));
        QCOMPARE(scene->itemForNode(attn)->title(), QStringLiteral("attn"));
        // Every op is in exactly one box; the root's own ops are boxes of their own.
        const Graph& graph = *scene->document()->graph;
        QCOMPARE(scene->itemForOp(*graph.find("model/layer_3/attn/op_7")), scene->itemForNode(attn));
        QCOMPARE(scene->itemForOp(*graph.find("input"))->title(), QStringLiteral("input"));
        // Layer to layer: one edge between consecutive boxes (ffn of layer i to attn of i+1).
        QCOMPARE(view.edges.size(), size_t(2 * kLayers + 1));
        checkGeometry(scene);
    }

    void bigGraphsBuildTheirScopeTreeOffTheGuiThread()
    {
        // 10 layers of 2 x 1,050 ops: 21,002 ops, over kScopeTreeOffThreadAbove.
        DocumentPtr doc = layeredDocument(1050);
        QVERIFY(doc->graph->opCount() > GraphPanel::kScopeTreeOffThreadAbove);
        ShownPanel shown(doc);
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        // setDocument returned before the tree was built: nothing is drawn yet.
        QVERIFY(panel.isGroupingByScope());
        QVERIFY(panel.isLayoutBusy()); // the window's busy bar and Cancel show
        QCOMPARE(panel.scene()->nodeItemCount(), 0);
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(!panel.isGroupingByScope());
        QVERIFY(panel.showsScopes());
        QCOMPARE(panel.scene()->nodeItemCount(), 2 + 2 * kLayers);
        // Each part's 1,050 ops are a series (opening the part costs no box: it opens too).
        const ViewGraph& view = panel.scene()->viewGraph();
        const int series = view.nodeWithKey(QStringLiteral("series:model/layer_3/attn/op_#"));
        QVERIFY(series >= 0);
        QCOMPARE(view.nodes[static_cast<size_t>(series)].ops.size(), size_t(1050));
        QCOMPARE(view.nodes[static_cast<size_t>(series)].frame, view.frameWithKey(key("model/layer_3/attn")));
        // A graph opened while a tree is being built replaces it: only the newest is drawn.
        panel.setDocument(layeredDocument(1100));
        panel.setDocument(uitest::smallDocument());
        QVERIFY(!panel.isGroupingByScope());
        QVERIFY(applied.wait(kLayoutWaitMs));
        QTest::qWait(300);
        QVERIFY(!panel.isLayoutBusy());
        QVERIFY(!panel.showsScopes());
        QCOMPARE(panel.scene()->nodeItemCount(), 4);
        // Cancel while grouping: nothing drawn, Lay Out Again groups and draws it.
        QSignalSpy cancelled(&panel, &GraphPanel::layoutCancelled);
        panel.setDocument(layeredDocument(1050));
        QVERIFY(panel.isGroupingByScope());
        panel.cancelLayout();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!panel.isLayoutBusy());
        QVERIFY(panel.retryOverlay()->isVisible());
        QTest::qWait(300);
        QCOMPARE(panel.scene()->nodeItemCount(), 0); // the finished build was dropped
        panel.relayout();
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(panel.showsScopes());
        QCOMPARE(panel.scene()->nodeItemCount(), 2 + 2 * kLayers);
    }

    void openingAScopeLaysOutOnlyItsContent()
    {
        ShownPanel shown(layeredDocument());
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        GraphScene* scene = panel.scene();
        const Drawing before = drawing(scene);
        const QString attn = key("model/layer_3/attn");
        const int box = before.view.nodeWithKey(attn);
        const QRectF boxRect = before.layout.nodeRects[static_cast<size_t>(box)];

        // Double-click the box: its 20 ops replace it inside a new frame.
        const QPoint at = panel.view()->mapFromScene(scene->itemForNode(box)->sceneBoundingRect().center());
        QTest::mouseDClick(panel.view()->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(applied.wait(kLayoutWaitMs));
        const Drawing open = drawing(scene);
        QCOMPARE(scene->nodeItemCount(), before.view.nodeCount() - 1 + kOpsPerPart);
        QCOMPARE(scene->frameItemCount(), static_cast<int>(before.view.frames.size()) + 1);
        const int frame = open.view.frameWithKey(attn);
        QVERIFY(frame >= 0);
        QCOMPARE(open.view.frames[static_cast<size_t>(frame)].parent, open.view.frameWithKey(key("model/layer_3")));
        const QRectF frameRect = open.layout.frameRects[static_cast<size_t>(frame)];
        QCOMPARE(frameRect.topLeft(), boxRect.topLeft()); // opened where the box was
        QVERIFY(frameRect.height() > boxRect.height());
        const int op7 = open.view.nodeWithKey(QStringLiteral("op:model/layer_3/attn/op_7"));
        QVERIFY(op7 >= 0);
        QCOMPARE(open.view.nodes[static_cast<size_t>(op7)].title, QStringLiteral("op_7"));
        checkGeometry(scene);

        // Every other box is the same size and either kept its place or moved aside (down or
        // right, never re-laid out): beside it in layer_3's frame by the frame's extra height
        // or width; elsewhere each frame's boxes together, as one block; boxes above stay.
        const double dy = frameRect.height() - boxRect.height();
        const double dx = frameRect.width() - boxRect.width();
        const int layer3 = before.view.frameWithKey(key("model/layer_3"));
        std::map<int, QPointF> blockMove; // by frame
        int kept = 0, movedDown = 0;
        for (int n = 0; n < before.view.nodeCount(); ++n) {
            if (n == box)
                continue;
            const ViewNode& node = before.view.nodes[static_cast<size_t>(n)];
            const int m = open.view.nodeWithKey(node.key);
            QVERIFY(m >= 0);
            const QRectF was = before.layout.nodeRects[static_cast<size_t>(n)];
            const QRectF now = open.layout.nodeRects[static_cast<size_t>(m)];
            QCOMPARE(now.size(), was.size());
            const QPointF moved = now.topLeft() - was.topLeft();
            QVERIFY2(moved.x() > -1e-6 && moved.y() > -1e-6, qPrintable(node.key));
            if (node.frame == layer3) {
                const bool allowed = moved.isNull() || (std::abs(moved.x()) < 1e-6 && std::abs(moved.y() - dy) < 1e-6)
                    || (std::abs(moved.x() - dx) < 1e-6 && std::abs(moved.y()) < 1e-6)
                    || (std::abs(moved.x() - dx) < 1e-6 && std::abs(moved.y() - dy) < 1e-6);
                QVERIFY2(allowed, qPrintable(node.key));
            } else if (node.frame >= 0) {
                const auto [it, first] = blockMove.emplace(node.frame, moved);
                QVERIFY2(first || QLineF(it->second, moved).length() < 1e-6, qPrintable(node.key));
            }
            if (was.bottom() <= boxRect.top())
                QVERIFY(moved.isNull());
            kept += moved.isNull();
            movedDown += moved.y() > 0;
        }
        QVERIFY(kept > 0);
        QVERIFY(movedDown > 0); // the layers below layer_3
        // The edges into the frame go to its first op now.
        const int op0 = open.view.nodeWithKey(QStringLiteral("op:model/layer_3/attn/op_0"));
        const int ffn2 = open.view.nodeWithKey(key("model/layer_2/ffn"));
        bool linked = false;
        for (const ViewEdge& e : open.view.edges)
            linked = linked || (e.from == ffn2 && e.to == op0);
        QVERIFY(linked);

        // Closing it (no layout: at once) puts every box back where it was.
        panel.collapseGroup(attn);
        QCOMPARE(applied.count(), 3);
        const Drawing closed = drawing(scene);
        QCOMPARE(closed.view.nodeCount(), before.view.nodeCount());
        QCOMPARE(closed.view.frames.size(), before.view.frames.size());
        for (int n = 0; n < before.view.nodeCount(); ++n) {
            const int m = closed.view.nodeWithKey(before.view.nodes[static_cast<size_t>(n)].key);
            QVERIFY(m >= 0);
            QVERIFY2(sameRect(closed.layout.nodeRects[static_cast<size_t>(m)],
                              before.layout.nodeRects[static_cast<size_t>(n)]),
                     qPrintable(before.view.nodes[static_cast<size_t>(n)].key));
        }
        for (size_t f = 0; f < before.view.frames.size(); ++f) {
            const int g = closed.view.frameWithKey(before.view.frames[f].key);
            QVERIFY(g >= 0);
            QVERIFY(sameRect(closed.layout.frameRects[static_cast<size_t>(g)], before.layout.frameRects[f]));
        }
        checkGeometry(scene);
    }

    void keysAndFrameHeaderOpenAndClose()
    {
        ShownPanel shown(layeredDocument());
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        GraphScene* scene = panel.scene();
        const Graph& graph = *scene->document()->graph;
        // Return opens the selected box's scope.
        panel.selectOp(*graph.find("model/layer_0/ffn/op_3"), true);
        panel.view()->setFocus();
        QTest::keyClick(panel.view(), Qt::Key_Return);
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_0/ffn")) >= 0);
        QCOMPARE(scene->itemForOp(*graph.find("model/layer_0/ffn/op_3"))->title(), QStringLiteral("op_3"));
        // Backspace closes the frame around the selected box.
        panel.selectOp(*graph.find("model/layer_0/ffn/op_3"), true);
        QTest::keyClick(panel.view(), Qt::Key_Backspace);
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_0/ffn")) < 0);
        QVERIFY(scene->viewGraph().nodeWithKey(key("model/layer_0/ffn")) >= 0);
        // Double-clicking a frame's header closes that scope (and what is open inside it).
        const int layer5 = scene->viewGraph().frameWithKey(key("model/layer_5"));
        FrameItem* frame = scene->itemForFrame(layer5);
        QVERIFY(frame);
        panel.view()->centerOn(frame->rect().topLeft());
        const QPoint header = panel.view()->mapFromScene(frame->rect().topLeft() + QPointF(30, 8));
        QTest::mouseDClick(panel.view()->viewport(), Qt::LeftButton, {}, header);
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_5")) < 0);
        const int box = scene->viewGraph().nodeWithKey(key("model/layer_5"));
        QVERIFY(box >= 0);
        QCOMPARE(scene->viewGraph().nodes[static_cast<size_t>(box)].subtitle, QStringLiteral("40 ops · 400 µs"));
        checkGeometry(scene);
        // Close All Scopes: the top scopes only (model and the root's two ops).
        panel.collapseAllGroups();
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 3);
        QCOMPARE(scene->frameItemCount(), 0);
    }

    void cancellingAnOpeningKeepsTheDrawing()
    {
        ShownPanel shown(layeredDocument());
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        GraphScene* scene = panel.scene();
        const Drawing before = drawing(scene);
        QSignalSpy cancelled(&panel, &GraphPanel::layoutCancelled);
        panel.expandGroup(key("model/layer_1/ffn"));
        QVERIFY(panel.isLayoutBusy());
        panel.cancelLayout();
        QCOMPARE(cancelled.count(), 1);
        QTest::qWait(200); // a result that still arrives is dropped
        QCOMPARE(applied.count(), 1);
        QCOMPARE(scene->nodeItemCount(), before.view.nodeCount());
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_1/ffn")) < 0);
        // Closing while an opening is on its way drops the opening and closes at once.
        panel.expandGroup(key("model/layer_1/ffn"));
        panel.collapseGroup(key("model/layer_1"));
        QVERIFY(!panel.isLayoutBusy());
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_1")) < 0);
        QTest::qWait(200);
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_1/ffn")) < 0);
        // And opening works again afterwards.
        panel.expandGroup(key("model/layer_1"));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(scene->viewGraph().frameWithKey(key("model/layer_1")) >= 0);
        checkGeometry(scene);
    }

    void deviceColoursFollowThePlacement()
    {
        DocumentPtr doc = layeredDocument();
        ShownPanel shown(doc);
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        GraphScene* scene = panel.scene();
        // Layer l on device l % 3, but half of layer 0's attn on device 2.
        auto placed = std::make_shared<GraphDocument>(*doc);
        const Graph& graph = *doc->graph;
        placed->placement.assign(static_cast<size_t>(graph.opCount()), 0);
        for (OpId op = 0; op < graph.opCount(); ++op) {
            const std::string& n = graph.op(op).name;
            if (n.rfind("model/layer_", 0) == 0)
                placed->placement[static_cast<size_t>(op)] = std::stoi(n.substr(12)) % 3;
        }
        for (int k = 0; k < kOpsPerPart / 2; ++k)
            placed->placement[static_cast<size_t>(*graph.find(name("model/layer_0/attn/op_", k)))] = 2;
        panel.showDocument(placed); // the same graph: recoloured, not laid out again
        QCOMPARE(applied.count(), 1);
        const ViewTheme& theme = scene->theme();
        const ViewGraph& view = scene->viewGraph();
        const NodePaint& ffn4 = scene->itemForNode(view.nodeWithKey(key("model/layer_4/ffn")))->nodePaint();
        QCOMPARE(ffn4.fill, theme.nodeFill(CategoryPalette::colour(1)));
        const NodePaint& attn0 = scene->itemForNode(view.nodeWithKey(key("model/layer_0/attn")))->nodePaint();
        QCOMPARE(attn0.mix.size(), size_t(2));
        QCOMPARE(attn0.mix[0].first, CategoryPalette::colour(0));
        QCOMPARE(attn0.mix[0].second, 0.5);
        QCOMPARE(attn0.mix[1].first, CategoryPalette::colour(2));
        // The model frame's bar: layers 0, 3, 6, 9 on device 0 (less the 10 ops moved to
        // device 2), 1, 4, 7 on device 1 and 2, 5, 8 on device 2: 150, 120 and 130 of 400.
        const auto& mix = scene->itemForFrame(view.frameWithKey(key("model")))->mix();
        QCOMPARE(mix.size(), size_t(3));
        QCOMPARE(mix[0].first, CategoryPalette::colour(0));
        QCOMPARE(mix[0].second, 150.0 / 400);
        QCOMPARE(mix[1].second, 120.0 / 400);
        QCOMPARE(mix[2].second, 130.0 / 400);
        // Moving layer 4 to device 2 recolours its boxes and the bars.
        auto moved = std::make_shared<GraphDocument>(*placed);
        for (OpId op = 0; op < graph.opCount(); ++op)
            if (graph.op(op).name.rfind("model/layer_4/", 0) == 0)
                moved->placement[static_cast<size_t>(op)] = 2;
        panel.showDocument(moved);
        QCOMPARE(scene->itemForNode(view.nodeWithKey(key("model/layer_4/ffn")))->nodePaint().fill,
                 theme.nodeFill(CategoryPalette::colour(2)));
        const auto& after = scene->itemForFrame(view.frameWithKey(key("model")))->mix();
        QCOMPARE(after[1].second, 80.0 / 400);
        QCOMPARE(after[2].second, 170.0 / 400);
    }

    void alikeBoxesMakeASeries()
    {
        // input -> rnn/t0 … rnn/t39, 8 ops each in a chain: 321 ops. rnn opens (40 boxes fit
        // the budget) and its 40 time steps are one series box.
        GraphBuilder b("unrolled");
        b.addOp(uitest::op("input", "Input", 1, 10, 0));
        std::string last = "input";
        for (int t = 0; t < 40; ++t) {
            for (int k = 0; k < 8; ++k) {
                const std::string op = name(name("rnn/t", t) + "/op_", k);
                b.addOp(uitest::op(op, "Mul", 2, 10, 0));
                b.addEdge(last, op);
                last = op;
            }
        }
        auto doc = std::make_shared<GraphDocument>();
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        ShownPanel shown(doc);
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        GraphScene* scene = panel.scene();
        QVERIFY(panel.showsScopes());
        QCOMPARE(scene->nodeItemCount(), 2);
        QCOMPARE(scene->frameItemCount(), 1);
        const QString seriesKey = QStringLiteral("series:rnn/t#");
        const int series = scene->viewGraph().nodeWithKey(seriesKey);
        QVERIFY(series >= 0);
        const ViewNode& box = scene->viewGraph().nodes[static_cast<size_t>(series)];
        QCOMPARE(box.kind, ViewNode::Kind::Series);
        QCOMPARE(box.title, QStringLiteral("t[0–39]"));
        QCOMPARE(box.subtitle, QStringLiteral("40× · 320 ops · 640 µs"));
        QCOMPARE(box.ops.size(), size_t(320));
        const Drawing before = drawing(scene);

        // Opening the series draws its 40 steps in a frame of its own; a step opens inside it.
        panel.expandGroup(seriesKey);
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 1 + 40);
        QCOMPARE(scene->frameItemCount(), 2);
        const int t7 = scene->viewGraph().nodeWithKey(key("rnn/t7"));
        QVERIFY(t7 >= 0);
        QCOMPARE(scene->viewGraph().nodes[static_cast<size_t>(t7)].frame, scene->viewGraph().frameWithKey(seriesKey));
        checkGeometry(scene);
        panel.expandGroup(key("rnn/t7"));
        QVERIFY(applied.wait(kLayoutWaitMs));
        QCOMPARE(scene->nodeItemCount(), 40 + 8);
        QCOMPARE(scene->frameItemCount(), 3);
        checkGeometry(scene);

        // Closing the series closes the step too and puts the boxes back.
        panel.collapseGroup(seriesKey);
        QCOMPARE(scene->nodeItemCount(), 2);
        QCOMPARE(scene->frameItemCount(), 1);
        QVERIFY(scene->viewGraph().openSeries.empty());
        QCOMPARE(scene->viewGraph().openScopes,
                 (std::vector<int>{ScopeTree::kRoot, scene->viewGraph().scopes->find("rnn")}));
        for (int n = 0; n < before.view.nodeCount(); ++n)
            QVERIFY(sameRect(scene->appliedLayout().nodeRects[static_cast<size_t>(
                                 scene->viewGraph().nodeWithKey(before.view.nodes[static_cast<size_t>(n)].key))],
                             before.layout.nodeRects[static_cast<size_t>(n)]));
    }

    void smallGraphsStayOpByOp()
    {
        ShownPanel shown(uitest::smallDocument(), QSize(800, 600));
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(!panel.showsScopes());
        QCOMPARE(panel.scene()->nodeItemCount(), 4);
        QCOMPARE(panel.scene()->frameItemCount(), 0);
        // Scoped names but no more ops than the threshold: still every op.
        GraphBuilder b("scoped but small");
        for (int i = 0; i < 30; ++i) {
            b.addOp(uitest::op(name("block_" + std::to_string(i % 3) + "/op_", i), "Add", 1, 10, 0));
            if (i > 0)
                b.addEdge(i - 1, i, 10);
        }
        auto doc = std::make_shared<GraphDocument>();
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        panel.setDocument(doc);
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(!panel.showsScopes());
        QCOMPARE(panel.scene()->nodeItemCount(), 30);
        // View ▸ Show ▸ Name Scopes draws it by scope anyway.
        panel.setGrouping(Grouping::Scopes);
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(panel.showsScopes());
        QCOMPARE(panel.scene()->nodeItemCount() + panel.scene()->frameItemCount(), 3 * 10 + 3);
    }

    void aScopeViewOfOneSeriesBoxIsNotTheDefault()
    {
        // PipeDream's names: node1 … node200 and each one's node/grad, a chain forward and
        // back. By scope that is one series box of 200 scopes; Auto draws groups instead.
        GraphBuilder b("pipedream-like");
        for (int i = 1; i <= 200; ++i) {
            b.addOp(uitest::op(name("node", i), "Conv2d", 10, 10, 0));
            if (i > 1)
                b.addEdge(name("node", i - 1), name("node", i));
        }
        for (int i = 200; i >= 1; --i) {
            b.addOp(uitest::op(name("node", i) + "/grad", "Conv2d", 10, 10, 0));
            b.addEdge(i == 200 ? name("node", 200) : name("node", i + 1) + "/grad", name("node", i) + "/grad");
        }
        auto doc = std::make_shared<GraphDocument>();
        doc->graph = std::make_shared<const Graph>(std::move(b).build());
        doc->cluster = uitest::cluster();
        const ScopeTree tree = ScopeTree::build(*doc->graph);
        QVERIFY(tree.scopeCount() > 1);
        QVERIFY(tree.visibleCount(tree.openWithin(LayoutPolicy::kScopeBudget)) < LayoutPolicy::kScopeMinBoxes);
        QCOMPARE(tree.openWithin(LayoutPolicy::kScopeBudget).size(), size_t(1)); // the root only
        QVERIFY(!LayoutPolicy::prefersScopes(*doc->graph, tree));
        ShownPanel shown(doc, QSize(800, 600));
        GraphPanel& panel = shown.panel;
        QSignalSpy& applied = shown.applied;
        QVERIFY(applied.wait(kLayoutWaitMs));
        QVERIFY(!panel.showsScopes());
        QVERIFY(panel.scene()->nodeItemCount() > LayoutPolicy::kScopeMinBoxes);
        // The layered graph's first view has 22 boxes: by scope, as before.
        QVERIFY(LayoutPolicy::prefersScopes(*layeredDocument()->graph, ScopeTree::build(*layeredDocument()->graph)));
    }

    void namesKeepTheirNumbers()
    {
        const QFontMetricsF metrics(NodeItem::titleFont());
        const QString name = QStringLiteral("gradients/bert/encoder/layer_3/attention/self/query/MatMul");
        const double width = metrics.horizontalAdvance(QStringLiteral("gradients/…/layer_3/…/MatMul")) + 1;
        const QString shown = NodeItem::elideName(name, metrics, width);
        QVERIFY(metrics.horizontalAdvance(shown) <= width);
        QVERIFY2(shown.contains(QStringLiteral("layer_3")), qPrintable(shown));
        QVERIFY(shown.startsWith(QStringLiteral("gradients/")));
        QVERIFY(shown.endsWith(QStringLiteral("/MatMul")));
        QCOMPARE(NodeItem::elideName(QStringLiteral("short/name"), metrics, 500), QStringLiteral("short/name"));
    }
};

QTEST_MAIN(TestScopeView)
#include "test_scope_view.moc"
