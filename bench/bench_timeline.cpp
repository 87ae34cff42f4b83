// Times the Timeline tab on a synthetic graph: simulating the step with its timeline and
// cutting it into lanes (done off the GUI thread above 5,000 ops), and painting the view
// fitted and zoomed (always on the GUI thread).
//   bench_timeline [OPS]   (default 100000; QT_QPA_PLATFORM=offscreen works)
#include "core/graph/GraphBuilder.h"
#include "ui/document/SimulatedStep.h"
#include "ui/timeline/TimelineView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>

#include <cstdio>
#include <cstdlib>
#include <random>

using namespace post;

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    const int ops = argc > 1 ? std::atoi(argv[1]) : 100000;
    if (ops < 2) {
        std::fprintf(stderr, "usage: bench_timeline [OPS >= 2]\n");
        return 2;
    }
    // A layered DAG: each op reads one or two of the previous 50 ops.
    std::mt19937 rng(1);
    GraphBuilder builder("synthetic");
    for (int i = 0; i < ops; ++i) {
        Op op;
        op.name = "op" + std::to_string(i);
        op.type = i % 3 ? "Conv" : "Relu";
        const double gpu = 5.0 + static_cast<double>(rng() % 200);
        op.timeUs = {gpu * 10, gpu};
        op.outputBytes = 1e4 + static_cast<double>(rng() % 100000);
        builder.addOp(std::move(op));
        if (i > 0) {
            builder.addEdge(i - 1 - static_cast<int>(rng() % static_cast<unsigned>(std::min(i, 50))), i, -1.0);
            if (i > 60 && rng() % 2)
                builder.addEdge(i - 51 - static_cast<int>(rng() % 10), i, -1.0);
        }
    }
    auto document = std::make_shared<GraphDocument>();
    document->graph = std::make_shared<const Graph>(std::move(builder).build());
    std::vector<Device> devices;
    for (int d = 0; d < 4; ++d)
        devices.push_back(Device{"/device:GPU:" + std::to_string(d), DeviceKind::Gpu, 1.0, 1e12});
    document->cluster = std::make_shared<const Cluster>("4 GPUs", std::move(devices), Link{});
    // Runs of 500 consecutive ops per device: realistic locality, with transfers between runs.
    for (int i = 0; i < ops; ++i)
        document->placement.push_back((i / 500) % 4);

    QElapsedTimer timer;
    timer.start();
    const StepPtr step = SimulatedStep::simulate(document);
    const double simulateMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    std::printf("%d ops, %d edges: %zu transfers on %zu lanes, step %.1f ms\n", ops, document->graph->edgeCount(),
                step->result.timeline.transfers.size(), step->lanes.size(), step->result.stepTimeUs / 1000);
    std::printf("simulate + lanes: %.1f ms\n", simulateMs);

    TimelineView view;
    view.resize(1400, 600);
    view.setStep(step);
    QPixmap target(view.size());
    auto paintMs = [&](const char* what) {
        view.render(&target); // warm up (fonts, first layout)
        const int rounds = 10;
        timer.restart();
        for (int r = 0; r < rounds; ++r)
            view.render(&target);
        std::printf("paint %-22s %6.2f ms  (%d rectangles)\n", what,
                    static_cast<double>(timer.nsecsElapsed()) / 1e6 / rounds, view.lastPaintedBars());
    };
    paintMs("fitted");
    view.zoomBy(100);
    paintMs("zoomed 100x");
    view.zoomBy(100);
    paintMs("zoomed 10,000x");
    view.setStep(nullptr);
    paintMs("empty (baseline)");
    return 0;
}
