#pragma once

#include "core/graph/Precision.h"
#include "ui/document/GraphDocument.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

namespace post {

template <class T> class LatestRead;

// Reads graph files on a pool thread (QtConcurrent) so the window stays responsive.
// Only the newest load is reported: opening B while A is still reading drops A.
class DocumentLoader : public QObject {
    Q_OBJECT

public:
    explicit DocumentLoader(QObject* parent = nullptr);
    ~DocumentLoader() override;

    // Cluster preset name or post-cluster file for documents loaded from now on.
    void setClusterName(const QString& nameOrPath) { cluster_ = nameOrPath; }
    const QString& clusterName() const { return cluster_; }
    // The precision mode every cluster read from now on runs in (as post-cli --precision);
    // none: each cluster's own "precision".
    void setPrecision(std::optional<PrecisionMode> mode) { precision_ = mode; }
    std::optional<PrecisionMode> precision() const { return precision_; }
    // ONNX: the size given to the symbolic batch dimension of documents loaded from now on.
    void setBatch(std::int64_t batch) { batch_ = batch; }
    std::int64_t batch() const { return batch_; }
    // ONNX, TF: the unknown input dimensions' values for reads of `path` (absolute or not)
    // from now on; empty ones forget them.
    void setDimensions(const QString& path, const InputDimensions& dimensions);
    InputDimensions dimensions(const QString& path) const;
    // Measured op times for reads of `path` from now on: torch.profiler traces or post-costs/1
    // files, as post-cli --costs values ("PATH" or "TYPE=PATH"); empty forgets them.
    void setCosts(const QString& path, const MeasuredCostsFiles& costs);
    MeasuredCostsFiles costs(const QString& path) const;

    void load(const QString& path);
    bool isLoading() const;
    // Drops the load in progress (its result is never reported).
    void cancel();

    // The synchronous work: reads the graph (format sniffed from the content), applies the
    // measured `costs` (a costs file at fault is named in the error), and reads the cluster
    // (in `precision` when given). Throws InputError naming the file and what is
    // wrong with it. A placement the file gives is shown if it fits the cluster; otherwise a
    // note says why not.
    // `progress` (on the reading thread) hears a large trace's reader say how far it is.
    static DocumentPtr loadNow(const QString& path, const QString& clusterName, std::int64_t batch = 1,
                               const InputDimensions& dimensions = {},
                               std::optional<PrecisionMode> precision = std::nullopt,
                               const MeasuredCostsFiles& costs = {},
                               std::function<void(std::string_view stage, double fraction)> progress = {});
    // The cluster used when none is given on the command line or in the settings.
    static QString defaultClusterName();
    // Why `nameOrPath` cannot be read as a cluster (naming the file and what is wrong),
    // or empty when it can. Reads the file: quick, presets and post-cluster files are small.
    static QString clusterProblem(const QString& nameOrPath);

signals:
    void loaded(post::DocumentPtr document);
    void failed(const QString& path, const QString& message);
    // How far the newest load is (0 to 1), for readers that say so (execution and Chakra
    // traces), at most once per percent; `stage` says what is being done.
    void progress(const QString& stage, double fraction);

private:
    QString cluster_ = defaultClusterName();
    std::int64_t batch_ = 1;
    std::optional<PrecisionMode> precision_;
    QHash<QString, InputDimensions> dimensions_;    // by absolute path
    QHash<QString, MeasuredCostsFiles> costs_;      // by absolute path
    std::unique_ptr<LatestRead<DocumentPtr>> read_; // QtConcurrent stays out of this header
    // Numbers the loads: progress of a load that is no longer the newest is not reported.
    std::shared_ptr<std::atomic<std::uint64_t>> generation_ = std::make_shared<std::atomic<std::uint64_t>>(0);
};

} // namespace post
