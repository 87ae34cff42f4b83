#pragma once

#include "core/sim/SimResult.h"
#include "ui/cluster/ClusterDraft.h"
#include "ui/document/GraphDocument.h"
#include "ui/document/SimulatedStep.h"
#include "ui/util/LatestJob.h"

#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
template <typename T> class QFutureWatcher;

namespace post {

class ClusterDeviceModel;
class ClusterLinkModel;

// Edits the open document's cluster: devices (name, kind, speed, memory) and links. Every
// valid edit builds a new Cluster, re-simulates the shown placement on it at once (the
// summary line) and emits clusterEdited; a bad value is refused with a message. Save As
// writes post-cluster/1 (atomically); Open reads one. On graphs above kSynchronousMaxOps
// ops the re-simulation runs on a pool thread (shownStepUs is NaN until it is back, then
// shownStepChanged), so a new best placement of a 100k-op graph never blocks the window.
class DocumentHub;

class ClusterEditor : public QWidget {
    Q_OBJECT

public:
    explicit ClusterEditor(QWidget* parent = nullptr);
    ~ClusterEditor() override;

    // Graphs of at most this many ops are re-simulated on the GUI thread (as StepSimulation).
    static constexpr int kSynchronousMaxOps = 5000;
    // The pool-thread re-simulation is still running (or the window's step is awaited).
    bool isSimulating() const { return job_.isBusy() || awaitingStep_; }
    // Follows the hub: its documents (setDocument), its step simulation (setStep: on a big
    // graph the shown placement on the document's own cluster is the step the hub simulates
    // anyway, so its figure is taken from there instead of simulating it a second time), and
    // each edit goes to the hub (DocumentHub::setCluster, this editor as its origin) before
    // clusterEdited is emitted.
    void followHub(DocumentHub* hub);
    // Asked before an edit replaces the window's document when `asks` says a question is due
    // (an unsaved run timed on the cluster would go): `confirm` true goes on, false takes the
    // edit back (the draft returns to the window's cluster). The question comes from the event
    // loop just after the edit, so the edit reaches the hub a turn later then.
    void setReplaceGuard(std::function<bool()> asks, std::function<bool()> confirm);
    // Off while a learner run goes (its cluster cannot change under it, as the precision):
    // the tables, Name, Add, Remove and Open take no edit; `why` is the tables' tooltip.
    void setEditable(bool editable, const QString& why = {});
    // Simulations this editor ran itself (tests).
    int simulationsRun() const { return simulationsRun_; }

    const ClusterDraft& draft() const { return draft_; }
    ClusterDeviceModel* deviceModel() const { return devices_; }
    ClusterLinkModel* linkModel() const { return links_; }
    QTableView* deviceView() const { return deviceView_; }
    QTableView* linkView() const { return linkView_; }

    // The last message (a refused edit or a file problem); empty after a valid edit.
    QString message() const;
    // The summary line: the shown placement's step time on the edited cluster.
    QString summary() const;
    // Step time of the shown placement on the current draft (µs), NaN when none is shown.
    double shownStepUs() const { return shownStepUs_; }
    bool shownFeasible() const { return shownFeasible_; }

    // Adds a device like the selected one (or a GPU) with a fresh name; returns its row.
    int addDevice();
    // False (with a message) when it is the last device.
    bool removeDevice(int row);
    // Writes the draft as post-cluster/1; throws InputError when the file cannot be written.
    void saveTo(const QString& path) const;
    // Reads a post-cluster/1 file into the editor (problems go to message()); emits
    // clusterFileOpened on success.
    bool loadFile(const QString& path);

public slots:
    // Follows the window. A document carrying the cluster this editor made keeps the draft.
    void setDocument(post::DocumentPtr document);
    // The hub's newest simulated step (see followHub).
    void setStep(const post::StepPtr& step);

signals:
    // The edited cluster and the shown placement mapped onto it (empty when none).
    void clusterEdited(std::shared_ptr<const post::Cluster> cluster, const post::Placement& placement);
    void clusterFileOpened(const QString& path);
    // shownStepUs() is known (again): at once on small graphs, when the pool job ends on big ones.
    void shownStepChanged();

private:
    // `renamed`: the edit is the Name field's (else the name gets " (edited)", once).
    void applyEdit(const std::vector<DeviceId>& deviceMap = {}, bool renamed = false);
    void markEdited(bool renamed);
    void confirmEdit(); // the replace guard's question, then publishEdit or the edit taken back
    void publishEdit(); // the edited cluster to the hub and clusterEdited
    void resimulate();
    void showStep(const SimResult& result);
    bool isStepOfShown(const StepPtr& step) const;
    void showMessage(const QString& text);
    void saveDialog();
    void openDialog();

    ClusterDraft draft_;
    DocumentPtr document_;
    std::shared_ptr<const Cluster> made_; // the last cluster this editor emitted
    Placement placement_;                 // the shown placement, on made_ (or the document's cluster)
    double shownStepUs_;
    bool shownFeasible_ = false;
    LatestJob job_;              // the pool-thread re-simulation whose result is wanted
    DocumentHub* hub_ = nullptr; // followHub: documents, edits and the simulated steps go through it
    bool awaitingStep_ = false;  // the figure comes with the window's step of placement_
    StepPtr lastStep_;           // the window's newest step
    int simulationsRun_ = 0;
    bool nameTyped_ = false;      // the draft's name was typed in the Name field: no " (edited)"
    bool confirmPending_ = false; // confirmEdit is queued
    std::function<bool()> guardAsks_;
    std::function<bool()> guardConfirm_;
    QFutureWatcher<SimResult>* watcher_;

    ClusterDeviceModel* devices_;
    ClusterLinkModel* links_;
    QLineEdit* name_;
    QTableView* deviceView_;
    QTableView* linkView_;
    QLabel* message_;
    QLabel* summary_;
    QPushButton* addButton_;
    QPushButton* removeButton_;
    QPushButton* openButton_ = nullptr;
};

} // namespace post
