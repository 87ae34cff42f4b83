#pragma once

#include "core/place/ProvenBounds.h"
#include "ui/document/GraphDocument.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>

namespace post {

// The bounds a solver proved (core's ProvenBounds: milp's) for a graph (GraphDocument::graphId)
// on a cluster (the cluster object's address: 0 for none), e.g. by a Compare row of milp: for
// whoever shows the bounds of that graph's runs.
struct ProvenBound {
    quint64 graphId = 0;
    quintptr cluster = 0;
    ProvenBounds bounds;
};

class DocumentLoader;
class StepSimulation;

// Where the open document lives: the current document (graph, cluster, placement), the
// reading of new ones (DocumentLoader: the cluster and batch they are read with), its
// simulated step (steps(): StepSimulation, after every panel has the document) and the one
// route every panel and controller follows, documentChanged. Panels tell "another placement
// or cluster of the same graph" from "another graph" by GraphDocument::graphId, and their own
// change (setPlacement or setCluster with themselves as `origin`) by origin().
class DocumentHub : public QObject {
    Q_OBJECT

public:
    explicit DocumentHub(QObject* parent = nullptr);
    ~DocumentHub() override;

    const DocumentPtr& document() const { return document_; }

    // What made the current document, read in documentChanged's slots: another graph (a read,
    // a session, Close), another placement, another cluster (an edit, the precision), and the
    // object that asked for it (the `origin` given to setPlacement / setCluster; nullptr for
    // reads, sessions and Close). A sender knows its own change by it, without flags.
    enum class Change { Document, Placement, Cluster };
    Change change() const { return change_; }
    const QObject* origin() const { return origin_; }

    // The current document's simulated step (for the timeline, the status bar, the tables,
    // the cluster editor, the graph's critical path and a best feed's busy gate).
    StepSimulation* steps() const { return steps_; }

    // Reads a graph file off the GUI thread; documentChanged or loadFailed follows. Only
    // the newest read is shown.
    void load(const QString& path);
    bool isLoading() const;
    // Drops the read in progress (its result is never shown).
    void cancelLoad();
    // The cluster preset or post-cluster file, and the ONNX batch, of the reads from now on.
    // False when unchanged; clusterNameChanged follows a change.
    bool setClusterName(const QString& nameOrPath);
    const QString& clusterName() const;
    // The precision mode of the reads from now on and of the current document: its cluster
    // runs in `mode` (as post-cli --precision), so the step is re-timed; documentChanged
    // follows when the current document's mode changes. False when nothing changed.
    bool setPrecision(PrecisionMode mode);
    // The mode reads use: the one set, else the current document's cluster's, else tf32.
    PrecisionMode precision() const;
    // The simulator's dispatch rule (post-cli --dispatch) of the reads from now on and of the
    // current document, which is timed again (documentChanged follows, as for a cluster of its
    // own: every result of the other rule is stale). False when nothing changed.
    bool setDispatch(Dispatch dispatch);
    Dispatch dispatch() const { return dispatch_; }
    bool setBatch(std::int64_t batch);
    std::int64_t batch() const;
    // ONNX, TF: values for the unknown input dimensions of `path`, used by its reads from now on.
    void setDimensions(const QString& path, const InputDimensions& dimensions);
    InputDimensions dimensions(const QString& path) const;
    // Measured op times (post-cli --costs values) for reads of `path` from now on; empty: none.
    void setCosts(const QString& path, const MeasuredCostsFiles& costs);
    MeasuredCostsFiles costs(const QString& path) const;

    // Shows a new document (read, or restored from a session); a read still running is
    // dropped so it cannot replace it.
    void open(DocumentPtr document);
    // No document (File ▸ Close): a read in progress is dropped, documentChanged(nullptr) follows.
    void close();
    // Another placement of the current graph on its cluster (e.g. from a learner), and what
    // made it when known (exports write it).
    void setPlacement(Placement placement, PlacementProvenance made = {}, const QObject* origin = nullptr);
    // The current graph on an edited cluster with `placement` (mapped onto its devices, or empty).
    void setCluster(std::shared_ptr<const Cluster> cluster, Placement placement, const QObject* origin = nullptr);
    // A bound proved for a graph on a cluster (provenBoundFound follows); it need not be the
    // current document's: receivers check graphId and cluster.
    void publishProvenBound(const ProvenBound& bound) { emit provenBoundFound(bound); }

signals:
    void documentChanged(post::DocumentPtr document);
    void loadFailed(const QString& path, const QString& message);
    // How far the file being read is (DocumentLoader::progress).
    void loadProgress(const QString& stage, double fraction);
    void clusterNameChanged(const QString& nameOrPath);
    void provenBoundFound(const post::ProvenBound& bound);

private:
    void publish(DocumentPtr document, Change change = Change::Document, const QObject* origin = nullptr);

    DocumentPtr document_;
    Dispatch dispatch_ = Dispatch::ReadyOrder;
    Change change_ = Change::Document;
    const QObject* origin_ = nullptr;
    DocumentLoader* loader_;
    StepSimulation* steps_;
};

} // namespace post

Q_DECLARE_METATYPE(post::ProvenBound)
