#pragma once

#include "core/session/Session.h"
#include "ui/compare/ComparisonWorker.h"
#include "ui/document/GraphDocument.h"
#include "ui/util/LatestJob.h"

#include <QThread>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace post {

class ComparisonModel;
class DocumentHub;
struct LowerBound;

// The comparison harness of `post-cli compare` in a tab: every algorithm (or a chosen
// list) over several seeds on the open graph and cluster, run on one worker thread with
// progress and Cancel. Double-clicking a row shows that algorithm's best placement.
class ComparisonView : public QWidget {
    Q_OBJECT

public:
    explicit ComparisonView(QWidget* parent = nullptr);
    ~ComparisonView() override;

    ComparisonModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    bool isRunning() const { return run_.isBusy(); }
    void setSamples(int samples);
    // Each learner and search run's wall-time budget in seconds (0: none), as post-cli compare
    // --time; with the sample budget, whichever ends a run first.
    void setTimeLimit(double seconds);
    double timeLimit() const;
    void setSeeds(int seeds);
    // Comma-separated names; empty for all. False (and a message) for an unknown name.
    bool setAlgorithms(const QString& list);
    QString statusText() const;
    // The line above the table: lower bound and source, best and certified gap, grouped bounds.
    QString boundText() const;
    // The finished table as a session keeps it, when it is about graph `graphId` (nullopt
    // when there is none, it is about another graph or a run is going).
    std::optional<SessionComparison> results(std::uint64_t graphId) const;
    // Shows a session's table as the results for graph `graphId` (a run going is cancelled).
    // `current`: the lower bound of the document's graph on its cluster, where the caller has it
    // (computed here otherwise), to name the component behind the bound the file kept.
    void restoreResults(const SessionComparison& results, std::uint64_t graphId, const LowerBound* current = nullptr);

public slots:
    void setDocument(post::DocumentPtr document);
    // Starts a run; one still going (or cancelling) is stopped and its results dropped.
    void start();
    void cancel();
    // Follows `hub`'s document (setDocument) and shows the rows' placements through it
    // (showRow), with this view as their origin, and the bounds its milp rows prove
    // (DocumentHub::publishProvenBound: the learning chart of the same graph shows them).
    void setHub(DocumentHub* hub);

    // Shows the best placement of model row `row` through the hub (setHub), named by its
    // placer, and emits placementRequested with it.
    void showRow(int row);
    // The Diff button: two selected rows against each other, or one against the shown
    // placement (diffRequested). Model rows; false when they have no placement of this graph.
    bool diffRows(int first, int second = -1);

signals:
    // A row's placement was asked for (shown through the hub when there is one).
    void placementRequested(const post::Placement& placement, const QString& algorithm);
    void diffRequested(const post::Placement& from, const post::Placement& to, const QString& fromName,
                       const QString& toName);
    void runFinished(bool cancelled);

private:
    void onStarted(quint64 runId, double lowerBoundUs, const QString& source);
    void updateBound();
    void onProgress(quint64 runId, double fraction, const QString& algorithm);
    void onRow(quint64 runId, const post::ComparisonRow& row);
    void onFinished(quint64 runId, bool stopped, const QString& error);
    void updateButtons();
    std::vector<std::string> algorithmList(QString* unknown) const;

    QThread thread_;
    ComparisonWorker* worker_;
    std::shared_ptr<std::atomic<bool>> stop_;
    LatestJob run_; // busy from start() to the current run's finished()
    DocumentPtr document_;
    DocumentHub* hub_ = nullptr;
    std::uint64_t runGraphId_ = 0;              // the graph the rows are about
    std::shared_ptr<const Cluster> runCluster_; // and the cluster (null for restored rows)
    int runSamples_ = 0;                        // the rows' budget and seeds, as asked
    double runSeconds_ = 0.0;
    int runSeeds_ = 0;
    Dispatch runDispatch_ = Dispatch::ReadyOrder; // the rule its rows were timed under

    ComparisonModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QSpinBox* samples_;
    QDoubleSpinBox* time_;
    QSpinBox* seeds_;
    QLineEdit* algorithms_;
    QPushButton* runButton_;
    QPushButton* cancelButton_;
    QPushButton* diffButton_;
    QProgressBar* progress_;
    QLabel* status_;
    QLabel* bound_;
};

} // namespace post
