#include "ui/compare/ComparisonWorker.h"

#include "core/run/GivenPlacementRow.h"
#include "core/sim/LowerBound.h"
#include "core/util/InputError.h"
#include "core/util/VectorState.h"

#include <chrono>
#include <exception>

namespace post {

ComparisonWorker::ComparisonWorker(QObject* parent)
    : QObject(parent)
{
    connect(this, &ComparisonWorker::queued, this, &ComparisonWorker::runNext, Qt::QueuedConnection);
}

void ComparisonWorker::enqueue(ComparisonRequest request, std::shared_ptr<std::atomic<bool>> stop)
{
    jobs_.push({std::move(request), std::move(stop)});
    emit queued();
}

void ComparisonWorker::runNext()
{
    if (std::optional<Job> job = jobs_.pop())
        run(job->request, std::move(job->stop));
}

void ComparisonWorker::run(const ComparisonRequest& request, std::shared_ptr<std::atomic<bool>> stop)
{
    QString error;
    clearUpperVectorState(); // as the learner's worker does (core/util/VectorState.h)
    try {
        const Graph& graph = *request.document->graph;
        const Cluster& cluster = *request.document->cluster;
        const LowerBound bound = lowerBound(graph, cluster, request.document->sim);
        emit started(request.runId, bound.valueUs(), QString::fromLatin1(bound.source()));
        ComparisonOptions options = request.options;
        options.sim = request.document->sim; // every row timed under the document's rule
        options.lowerBoundUs = bound.valueUs();
        ComparisonRunner runner(graph, cluster, options);
        using Clock = std::chrono::steady_clock;
        Clock::time_point last{};
        std::string lastAlgorithm;
        auto onProgress = [&](const ComparisonProgress& p) {
            const auto now = Clock::now();
            if (p.algorithm == lastAlgorithm && now - last < std::chrono::milliseconds(kProgressIntervalMs))
                return;
            last = now;
            lastAlgorithm = p.algorithm;
            emit progress(request.runId, p.fraction, QString::fromStdString(p.algorithm));
            clearUpperVectorState();
        };
        auto onRow = [&](const ComparisonRow& row) {
            emit rowReady(request.runId, row);
            clearUpperVectorState();
        };
        runner.run(onProgress, onRow, stop.get());
        // The placement the file gives, as a reference row (when it still fits the cluster,
        // which the cluster editor may have changed since the file was read).
        const Placement& given = request.document->given;
        if (!given.empty() && !stop->load()) {
            try {
                emit rowReady(request.runId,
                              givenPlacementRow(graph, cluster, given, request.document->path.toStdString()));
            } catch (const InputError&) {
            }
        }
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    }
    emit finished(request.runId, stop->load(), error);
}

} // namespace post
