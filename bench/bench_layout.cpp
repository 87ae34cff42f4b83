// Times the graph view's layout (view graph + Graphviz) on real graphs, per engine.
//   bench_layout FILE...   (e.g. ../shared/data/pipedream/*/graph.txt)
#include "core/graph/Graph.h"
#include "core/io/GraphFile.h"
#include "core/util/InputError.h"
#include "ui/layout/GraphvizLayout.h"
#include "ui/layout/LayoutCost.h"
#include "ui/layout/LayoutPolicy.h"
#include "ui/layout/ViewGraphBuilder.h"

#include <QElapsedTimer>
#include <QGuiApplication>

#include <cstdio>
#include <cstdlib>

using namespace post;

int main(int argc, char* argv[])
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_layout FILE...\n");
        return 2;
    }
    std::printf("%-50s %6s %6s %7s %8s  %-10s %9s\n", "graph", "ops", "edges", "boxes", "cost", "engine", "layout s");
    for (int i = 1; i < argc; ++i) {
        Graph graph;
        try {
            graph = readGraphFile(argv[i]);
        } catch (const InputError& e) {
            std::fprintf(stderr, "%s\n", e.what());
            continue;
        }
        if (const char* dump = std::getenv("POST_BENCH_DOT")) {
            // The op-level view graph as DOT, to try Graphviz settings with the dot tool.
            const ViewGraph view = ViewGraphBuilder::opLevel(graph);
            std::FILE* f = std::fopen(dump, "w");
            std::fprintf(f, "digraph g {\nnode [shape=box fixedsize=true width=1.5 height=0.47 label=\"\"];\n");
            for (const ViewEdge& e : view.edges)
                std::fprintf(f, "n%d -> n%d;\n", e.from, e.to);
            std::fprintf(f, "}\n");
            std::fclose(f);
        }
        for (bool grouped : {false, true}) {
            const ViewGraph view = grouped ? ViewGraphBuilder::grouped(graph) : ViewGraphBuilder::opLevel(graph);
            LayoutInput input;
            for (int n = 0; n < view.nodeCount(); ++n)
                input.nodeSizes.emplace_back(110, 34); // a typical label box
            for (const ViewEdge& e : view.edges)
                input.edges.emplace_back(e.from, e.to);
            const long long cost = estimateDotCost(input.nodeCount(), input.edges);
            for (LayoutEngine engine : {LayoutEngine::Dot, LayoutEngine::FastDot, LayoutEngine::Sfdp}) {
                const long long limit = std::getenv("POST_BENCH_MAX_COST")
                    ? std::atoll(std::getenv("POST_BENCH_MAX_COST"))
                    : 20000;
                if (engine != LayoutEngine::Sfdp && cost > (engine == LayoutEngine::Dot ? limit / 10 : limit))
                    continue; // minutes: not worth waiting for
                input.engine = engine;
                const LayoutResult r = runGraphvizLayout(input);
                std::printf("%-50s %6d %6d %7d %8lld  %-10s %9.2f\n", argv[i], graph.opCount(), graph.edgeCount(),
                            view.nodeCount(), cost, qPrintable(toString(engine)), r.elapsedMs / 1000.0);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
