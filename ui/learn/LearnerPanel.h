#pragma once

#include "ui/document/GraphDocument.h"
#include "ui/learn/LearnerController.h"

#include <QWidget>

#include <functional>
#include <limits>
#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QDoubleSpinBox;
class QSpinBox;
class QToolButton;
class QCheckBox;

namespace post {

// Runs a learner (or classical placer) on the open document: algorithm, budget and seed,
// Start / Pause / Resume / Stop / Reset, and a status line. Reports the best placement
// as it improves (bestPlacement) and every snapshot for the chart.
class LearnerOptionsEditor;
class SamplePlacements;

class LearnerPanel : public QWidget {
    Q_OBJECT

public:
    explicit LearnerPanel(QWidget* parent = nullptr);

    LearnerController* controller() const { return controller_; }
    void setAlgorithm(const QString& name); // unknown names are ignored
    // The largest sample budget the panel takes: a run given only a time limit (post-studio
    // --time without --samples) gets it, as post-cli --time alone sets no sample limit.
    static constexpr int kMaxSamples = 1000000;
    // An equal-sample budget (sessions, --samples, tests): also clears the time limit.
    void setSamples(int samples);
    // The time limit in seconds (0: none).
    void setTimeLimit(double seconds);
    double timeLimit() const;
    QString algorithm() const;
    int samplesDone() const { return samplesDone_; }
    // The best step time the status line reports (ms; 0 before any).
    double bestMs() const { return bestMs_; }
    int plannedSamples() const;
    std::uint64_t seed() const;
    void setSeed(std::uint64_t seed);
    // A restored session: its settings, and its run's progress in the status line.
    void showRestoredRun(int samplesDone, double bestMs);

    // A restored run (a session or an autosave) that Start continues instead of replacing.
    // Sessions do not keep the learner's policy, so a true resume is impossible: Start runs
    // the run's learner (post for post@m-sct or post@best) warm-started from `best`, with
    // sample numbers going on from `samplesDone` and the seed moved on by as much, until the
    // budget is reached (or for another budget when the run had ended). Classical placers and
    // local-search start afresh. Reset, another graph or the next Start forget it.
    struct RestoredRun {
        std::uint64_t graphId = 0; // GraphDocument::graphId of the restored document
        int samplesDone = 0;
        Placement best; // empty: cold start, numbering still goes on
        double bestMs = std::numeric_limits<double>::quiet_NaN();
        bool finished = false;                    // it ran to its end: Start runs another budget, not the remainder
        Dispatch dispatch = Dispatch::ReadyOrder; // its samples' rule: under another, Start runs afresh
    };
    void setRestoredRun(std::optional<RestoredRun> run);
    bool hasRestoredRun() const { return restored_.has_value(); }
    // The sample the running (or last) run went on from: 0 for a run of its own.
    int continuedFrom() const { return continuedFrom_; }
    // What the last Start did with a restored run or the shown placement, for the status bar
    // (empty: a run of its own from scratch).
    QString continuationNote() const { return continuationNote_; }
    // The learner Start runs to continue a run of `algorithm`, or empty when it starts afresh.
    static QString continuationLearner(const QString& algorithm);
    // Asked before Start replaces a run (one it does not continue) and before Reset; false
    // leaves everything as it is. The window's session controller asks about an unsaved
    // restored run here (SessionController::confirmReplace).
    void setReplaceGuard(std::function<bool(bool reset)> guard) { replaceGuard_ = std::move(guard); }
    // Asked before every Start (after the replace guard); false: the run does not start. The
    // session controller warns here when nothing of the run could be autosaved.
    void setStartGuard(std::function<bool()> guard) { startGuard_ = std::move(guard); }
    // The status line ("Running: 120 samples, best 3.2 ms", "Computing the reference placers…").
    QString statusText() const;
    LearnerOptionsEditor* optionsEditor() const { return options_; }
    // Unfolds (or folds) the hyperparameters.
    void showOptions(bool show);
    QComboBox* clusterPicker() const { return cluster_; }
    // The graph and cluster of the latest run started here (0 and null before the first).
    std::uint64_t runGraphId() const { return runGraphId_; }
    const Cluster* runCluster() const { return runCluster_.get(); }
    // The document on show is the last run's graph on the run's cluster: its snapshots and its
    // end are about what is shown (another graph, or another cluster of it, drops them).
    bool showsRun() const;
    // Shows `nameOrPath` (a preset or a post-cluster file) as the chosen cluster without
    // emitting clusterChosen (the window calls it when its cluster changes).
    void setClusterName(const QString& nameOrPath);
    // How FP32 matrix products and convolutions run (fp32, tf32, amp: post-cli --precision);
    // the picker follows the document's cluster, and setPrecision shows `mode` without
    // emitting precisionChosen.
    QComboBox* precisionPicker() const { return precision_; }
    void setPrecision(PrecisionMode mode);
    PrecisionMode precision() const;
    // The simulator's dispatch rule (post-cli --dispatch); the picker follows the document's,
    // and setDispatch shows `dispatch` without emitting dispatchChosen.
    QComboBox* dispatchPicker() const { return dispatch_; }
    // "From the shown placement": Start begins from the placement on show (post-cli place
    // --start), for the algorithms that can (core's placerStartUse).
    QCheckBox* fromShownBox() const { return fromShown_; }
    // The placement the running (or last) run started from, when it started from the shown
    // one; empty otherwise (a run of its own, a continued run).
    const Placement& runStart() const { return runStart_; }
    void setDispatch(Dispatch dispatch);
    Dispatch dispatch() const;
    // The placement of sample `index` of the latest run, or of the nearest one kept
    // (`shownIndex` says which); empty when none is kept.
    Placement samplePlacement(int index, int* shownIndex = nullptr) const;
    const std::shared_ptr<SamplePlacements>& samplePlacements() const { return samplePlacements_; }
    // One line per algorithm of the picker (tooltips).
    static QString describeAlgorithm(const QString& name);

public slots:
    void setDocument(post::DocumentPtr document);
    void start();
    void reset();

signals:
    void runStarted(int plannedSamples);
    void snapshot(const post::LearnerSnapshot& snapshot);
    void bestPlacement(const post::Placement& placement);
    void finished(const post::LearnerOutcome& outcome);
    void resetRequested();
    // What the run computes before its placer starts ("computing the reference placers:
    // m-etf 5/7"); empty once the placer runs.
    void preparing(const QString& what);
    // The user picked a preset or a cluster file in the picker.
    void clusterChosen(const QString& nameOrPath);
    // The user picked a precision mode.
    void precisionChosen(post::PrecisionMode mode);
    // The user picked a dispatch rule.
    void dispatchChosen(post::Dispatch dispatch);

private:
    void onSnapshot(const post::LearnerSnapshot& snapshot);
    void onFinished(const post::LearnerOutcome& outcome);
    void updateButtons();
    void fillAlgorithms(); // the algorithm picker, grouped by kind
    void buildLayout();
    void showStatus(const QString& prefix);
    void forgetRunData(); // the status line of a run of another graph
    // The idle status line: "Ready.", or why the document cannot be run (GraphDocument::cannotRun).
    QString readyText() const;

    LearnerController* controller_;
    DocumentPtr document_;
    std::uint64_t runGraphId_ = 0;              // GraphDocument::graphId of the run's graph
    std::shared_ptr<const Cluster> runCluster_; // the cluster of the run (null before the first)
    void chooseCluster(int index);

    QComboBox* algorithm_;
    QComboBox* cluster_;
    QComboBox* precision_;
    QComboBox* dispatch_;
    QCheckBox* fromShown_;
    LearnerOptionsEditor* options_;
    QToolButton* optionsToggle_;
    std::shared_ptr<SamplePlacements> samplePlacements_;
    QSpinBox* samples_;
    QDoubleSpinBox* time_;
    QSpinBox* seed_;
    QPushButton* startButton_;
    QPushButton* pauseButton_;
    QPushButton* resumeButton_;
    QPushButton* stopButton_;
    QPushButton* resetButton_;
    QLabel* status_;
    int samplesDone_ = 0;
    double bestMs_ = 0.0;
    double entropy_ = -1.0;
    bool haveData_ = false;
    std::optional<RestoredRun> restored_;
    int continuedFrom_ = 0;
    QString continuationNote_;
    Placement runStart_; // the placement the run (or the last) started from; empty: none
    std::function<bool(bool reset)> replaceGuard_;
    std::function<bool()> startGuard_;
    bool preparing_ = false; // the run computes its reference lines (LearnerController::preparing)
};

} // namespace post
