// Times the graph view's scope view (issue 19 item 1, issue 21 item 2) on graph files: the
// read, opening (scope tree, view graph and layout until drawn), the first paint, then
// opening the largest closed scope (only its content is laid out) and closing it again.
//   bench_scope_view FILE...   (QT_QPA_PLATFORM=offscreen works; e.g. post-cli zoo generate
//   bert-base --out bert.json, post-cli zoo generate nmt-8 --steps 200 --out nmt8-200.json)
// POST_BENCH_SHOTS=DIR saves the panel after each step as DIR/<file>-{open,opened}.png.
#include "core/graph/Graph.h"
#include "core/util/InputError.h"
#include "ui/document/DocumentLoader.h"
#include "ui/graphview/GraphPanel.h"
#include "ui/graphview/GraphScene.h"
#include "ui/graphview/NodeItem.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QPixmap>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

using namespace post;

namespace {

double ms(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

bool waitApplied(GraphPanel& panel, int timeoutMs)
{
    QEventLoop loop;
    bool done = false;
    const auto c = QObject::connect(&panel, &GraphPanel::layoutApplied, &loop, [&] {
        done = true;
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(c);
    return done;
}

void shot(GraphPanel& panel, const QString& file, const char* step)
{
    const QString dir = qEnvironmentVariable("POST_BENCH_SHOTS");
    if (!dir.isEmpty())
        panel.grab().save(dir + QStringLiteral("/") + QFileInfo(file).completeBaseName() + QStringLiteral("-") + step
                          + QStringLiteral(".png"));
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_scope_view FILE...\n");
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        const QString file = QString::fromLocal8Bit(argv[i]);
        QElapsedTimer timer;
        timer.start();
        DocumentPtr document;
        try {
            document = DocumentLoader::loadNow(file, QStringLiteral("k80x4"));
        } catch (const InputError& e) {
            std::fprintf(stderr, "%s\n", e.what());
            continue;
        }
        const double readMs = ms(timer);
        GraphPanel panel;
        panel.resize(1200, 800);
        panel.show();
        QApplication::processEvents();
        timer.restart();
        panel.setDocument(document);
        const double planMs = ms(timer);
        if (!waitApplied(panel, 120000)) {
            std::fprintf(stderr, "%s: no layout within 2 minutes\n", argv[i]);
            continue;
        }
        const double openMs = ms(timer);
        timer.restart();
        panel.grab(); // the first paint
        const double paintMs = ms(timer);
        GraphScene* scene = panel.scene();
        const ViewGraph& view = scene->viewGraph();
        std::printf("%s: %d ops, %d edges\n", argv[i], document->graph->opCount(), document->graph->edgeCount());
        std::printf("  read %.0f ms; open %.0f ms (setDocument on the GUI thread %.0f ms, layout %s %.0f ms); first "
                    "paint %.0f ms\n",
                    readMs, openMs, planMs, qPrintable(toString(panel.lastLayout().engine)),
                    panel.lastLayout().elapsedMs, paintMs);
        std::printf("  read + open + paint: %.2f s; %s: %d boxes, %zu frames, %zu edges\n",
                    (readMs + openMs + paintMs) / 1000, view.isScoped() ? "by scope" : "not by scope", view.nodeCount(),
                    view.frames.size(), view.edges.size());
        shot(panel, file, "open");
        if (!view.isScoped())
            continue;
        // The largest closed scope.
        int biggest = -1;
        for (int n = 0; n < view.nodeCount(); ++n)
            if (view.nodes[static_cast<size_t>(n)].kind == ViewNode::Kind::Scope
                && (biggest < 0
                    || view.nodes[static_cast<size_t>(n)].ops.size()
                        > view.nodes[static_cast<size_t>(biggest)].ops.size()))
                biggest = n;
        if (biggest < 0)
            continue;
        const ViewGraph before = view;
        const LayoutResult beforeLayout = scene->appliedLayout();
        const QString key = before.nodes[static_cast<size_t>(biggest)].key;
        timer.restart();
        panel.expandGroup(key);
        if (!waitApplied(panel, 120000)) {
            std::fprintf(stderr, "%s: opening %s did not finish\n", argv[i], qPrintable(key));
            continue;
        }
        const double expandMs = ms(timer);
        const ViewGraph& after = scene->viewGraph();
        int kept = 0, moved = 0;
        for (int n = 0; n < before.nodeCount(); ++n) {
            const int m = after.nodeWithKey(before.nodes[static_cast<size_t>(n)].key);
            if (m < 0)
                continue;
            (scene->appliedLayout().nodeRects[static_cast<size_t>(m)] == beforeLayout.nodeRects[static_cast<size_t>(n)]
                 ? kept
                 : moved)++;
        }
        const int inner = after.nodeCount() - before.nodeCount() + 1;
        std::printf("  open %s (%zu ops): %.0f ms, inner layout of %d boxes %s %.0f ms; %d boxes kept their place, %d "
                    "moved aside\n",
                    qPrintable(key), before.nodes[static_cast<size_t>(biggest)].ops.size(), expandMs, inner,
                    qPrintable(toString(panel.lastLayout().engine)), panel.lastLayout().elapsedMs, kept, moved);
        shot(panel, file, "opened");
        timer.restart();
        panel.collapseGroup(key);
        std::printf("  close it again: %.0f ms (no layout)\n", ms(timer));
    }
    return 0;
}
